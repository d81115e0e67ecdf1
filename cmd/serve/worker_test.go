//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
)

// TestWorker serves the site as a Cloudflare Worker in workerd, through
// `wrangler dev` with the committed wrangler.jsonc (whose build command
// builds build/worker), and checks what a visitor gets:
//
//   - every file of web/static, by its plain and its hashed name, decodes to
//     the file itself (the platform compresses it once; the Go handler never
//     sends a body the runtime would compress again), with the Go server's
//     Content-Type and Cache-Control;
//   - every kind of page and response the Go handler makes (home, lesson,
//     scenario with and without a query, embed, sandbox, a sandbox post,
//     picture, health check, not found) decodes to exactly what the local
//     server sends for the same request;
//   - a scenario page loads in Chromium through the Worker and its widget is
//     taken over by the engine, without a CSP violation or script error.
//
// It logs the CPU time workerd spends per request of each kind, for
// docs/performance.md. `make worker-smoke` runs it (and `make test` does
// when npm is reachable), with TIDEMARK_WORKER=1.
func TestWorker(t *testing.T) {
	if os.Getenv("TIDEMARK_WORKER") == "" {
		t.Skip("runs under `make worker-smoke` (and `make test` when npm is reachable), which sets TIDEMARK_WORKER=1: it installs wrangler from npm and builds the Worker")
	}
	wrangler := filepath.Join("node_modules", ".bin", "wrangler")
	if _, err := os.Stat(wrangler); err != nil {
		t.Fatalf("wrangler is not installed in cmd/serve/node_modules; run `make wrangler`: %v", err)
	}
	w := startWrangler(t, wrangler)

	// A static file first: the platform answers it without starting Go, so
	// the first request to reach Go below shows what starting it costs.
	w.get(t, "/static/app.css", nil)
	w.measure(t, "the first request to Go, which starts the Go program", 1, get("/healthz"))
	w.measure(t, "the first picture, which reads the bundled scenarios and runs one", 1, get("/picture/hwm/visibility-gap.svg?step=3"))

	t.Run("static files", func(t *testing.T) { checkStaticFiles(t, w) })
	t.Run("pages", func(t *testing.T) { checkPages(t, w) })
	t.Run("chromium", func(t *testing.T) { checkInBrowser(t, w) })

	// Each request of a kind differs (a step, a seed), so that none is
	// answered from what an earlier one kept.
	const n = 20
	w.measure(t, "a static file (no Go)", n, get(web.AssetURL("app.css")))
	w.measure(t, "the health check", n, get("/healthz"))
	w.measure(t, "a picture of a bundled scenario at a new step", n, func(i int) (string, string, string) {
		return http.MethodGet, fmt.Sprintf("/picture/hwm/visibility-gap.svg?step=%d&mark=lsn", i%12), ""
	})
	w.measure(t, "a scenario page at a new step", n, func(i int) (string, string, string) {
		return http.MethodGet, fmt.Sprintf("/scenarios/hwm/advance-order?step=%d", i), ""
	})
	w.measure(t, "a picture with a new seed (runs the scenario)", n, func(i int) (string, string, string) {
		return http.MethodGet, fmt.Sprintf("/picture/hwm/visibility-gap.svg?seed=%d", 1000+i), ""
	})
	w.measure(t, "a sandbox post (runs the scenario)", n, func(int) (string, string, string) {
		return http.MethodPost, "/play", "src=" + url.QueryEscape(sandboxText)
	})
}

// get is a request for measure: GET path, every time.
func get(path string) func(int) (method, path, body string) {
	return func(int) (string, string, string) { return http.MethodGet, path, "" }
}

// sandboxText is a scenario a visitor might post to /play.
const sandboxText = `scenario sandbox/mine "Mine"
source orders key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
txn T1 begin=10:00:00 commit=10:00:04 insert order_id=1
run extract at=10:00:02
run extract at=10:00:05
`

// workerd is a running `wrangler dev`.
type workerd struct {
	base string // e.g. http://127.0.0.1:43210
	pgid int    // wrangler's process group: wrangler, workerd and the build
	log  *syncBuffer
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// startWrangler runs `wrangler dev` offline in a process group of its own,
// stopped with everything it started when t ends, and waits until it
// answers: its build command builds the Worker first, which takes minutes
// from a cold Go build cache.
func startWrangler(t *testing.T, wrangler string) *workerd {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(wrangler, "dev", "--local", "--ip", "127.0.0.1", "--port", port,
		"--inspector-port", freePort(t), "--show-interactive-dev-session=false")
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CI=true", "CLOUDFLARE_CF_FETCH_ENABLED=false")
	w := &workerd{base: "http://127.0.0.1:" + port, log: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = w.log, w.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	w.pgid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-w.pgid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-w.pgid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("wrangler's output:\n%s", w.log.String())
		}
	})

	deadline := time.Now().Add(10 * time.Minute)
	for {
		resp, err := http.Get(w.base + "/static/app.css")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return w
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("wrangler dev exited (%v):\n%s", err, w.log.String())
		case <-time.After(time.Second):
		}
		if time.Now().After(deadline) {
			t.Fatalf("wrangler dev did not answer within 10 minutes:\n%s", w.log.String())
		}
	}
}

// noDecoding is a client that leaves bodies as they come.
var noDecoding = &http.Client{
	Transport: &http.Transport{DisableCompression: true},
	Timeout:   2 * time.Minute,
}

// reply is a response with its body decoded.
type reply struct {
	status   int
	header   http.Header
	body     []byte
	encoding string // the Content-Encoding it came with
}

// get asks the Worker for path as a browser would (Accept-Encoding: br,
// gzip), with a body for a POST, and decodes what comes back.
func (w *workerd) get(t *testing.T, path string, post url.Values) reply {
	t.Helper()
	method, body := http.MethodGet, io.Reader(nil)
	if post != nil {
		method, body = http.MethodPost, strings.NewReader(post.Encode())
	}
	req, err := http.NewRequest(method, w.base+path, body)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", "br, gzip")
	if post != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := noDecoding.Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := reply{status: resp.StatusCode, header: resp.Header, encoding: resp.Header.Get("Content-Encoding")}
	r.body, err = decode(r.encoding, raw)
	require.NoError(t, err, "%s %s: decode its %s body", method, path, r.encoding)
	return r
}

// decode undoes one content coding.
func decode(coding string, b []byte) ([]byte, error) {
	switch coding {
	case "":
		return b, nil
	case "br":
		return io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	}
	return nil, fmt.Errorf("unexpected Content-Encoding %q", coding)
}

func checkStaticFiles(t *testing.T, w *workerd) {
	dir := filepath.Join("..", "..", "web", "static")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".br") || strings.HasSuffix(name, ".gz") {
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		hashed, ok := web.LookupAsset(name)
		require.True(t, ok, "%s has no hashed name", name)
		for path, cache := range map[string]string{"/static/" + name: "no-cache", hashed: "public, max-age=31536000, immutable"} {
			r := w.get(t, path, nil)
			if !assert.Equal(t, http.StatusOK, r.status, path) {
				continue
			}
			assert.True(t, bytes.Equal(want, r.body), "%s: the body (%s, %d bytes decoded) is not web/static/%s (%d bytes)", path, r.encoding, len(r.body), name, len(want))
			assert.Equal(t, cache, r.header.Get("Cache-Control"), path)
			assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), path)
			wantType := map[string]string{".css": "text/css", ".js": "text/javascript", ".wasm": "application/wasm", ".svg": "image/svg+xml"}[filepath.Ext(name)]
			assert.True(t, strings.HasPrefix(r.header.Get("Content-Type"), wantType), "%s: Content-Type %q", path, r.header.Get("Content-Type"))
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 2*8, "every static file, the embed script and the wasm module included")
}

func checkPages(t *testing.T, w *workerd) {
	local, err := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	for _, tc := range []struct {
		path   string
		post   url.Values
		status int
	}{
		{"/", nil, 200},
		{"/healthz", nil, 200},
		{"/lessons/high-water-mark", nil, 200},
		{"/scenarios/hwm/visibility-gap", nil, 200},
		{"/scenarios/hwm/visibility-gap?step=4&mark=lsn", nil, 200},
		{"/embed/hwm/visibility-gap", nil, 200},
		{"/embed/hwm/visibility-gap?step=2&mark=lsn", nil, 200},
		{"/play", nil, 200},
		{"/play", url.Values{"src": {sandboxText}}, 200},
		{"/play", url.Values{"src": {"scenario broken\nnot a command\n"}}, 200},
		{"/picture/hwm/visibility-gap.svg?step=3", nil, 200},
		{"/picture/no/such.svg", nil, 404},
		{"/scenarios/no/such", nil, 404},
	} {
		name := tc.path
		if tc.post != nil {
			name = "POST " + name
		}
		t.Run(name, func(t *testing.T) {
			got := w.get(t, tc.path, tc.post)
			require.Equal(t, tc.status, got.status)

			method, body := http.MethodGet, io.Reader(nil)
			if tc.post != nil {
				method, body = http.MethodPost, strings.NewReader(tc.post.Encode())
			}
			req := httptest.NewRequest(method, w.base+tc.path, body)
			if tc.post != nil {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			rec := httptest.NewRecorder()
			local.ServeHTTP(rec, req)
			require.Equal(t, rec.Code, got.status)
			assert.Equal(t, rec.Header().Get("Content-Type"), got.header.Get("Content-Type"))
			assert.Equal(t, rec.Header().Get("Content-Security-Policy"), got.header.Get("Content-Security-Policy"))
			if !bytes.Equal(rec.Body.Bytes(), got.body) {
				t.Errorf("the Worker's body (%s, %d bytes decoded) is not the local server's (%d bytes)\n%s",
					got.encoding, len(got.body), rec.Body.Len(), firstDifference(rec.Body.Bytes(), got.body))
			}
		})
	}
}

// firstDifference shows where two bodies part.
func firstDifference(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	clip := func(b []byte) string { return string(b[max(0, i-80):min(len(b), i+80)]) }
	return fmt.Sprintf("at byte %d:\nlocal:  %q\nWorker: %q", i, clip(want), clip(got))
}

// checkInBrowser loads a scenario page through the Worker in headless
// Chromium and waits for its widget to be driven by the engine.
func checkInBrowser(t *testing.T, w *workerd) {
	exe := ""
	for _, p := range []string{os.Getenv("TIDEMARK_CHROMIUM"), "/usr/bin/chromium"} {
		if _, err := os.Stat(p); p != "" && err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		if p, err := exec.LookPath("chromium"); err == nil {
			exe = p
		}
	}
	if exe == "" {
		t.Fatal("chromium not found (looked for $TIDEMARK_CHROMIUM, /usr/bin/chromium, chromium on $PATH); install it with `apt-get install -y chromium`")
	}
	profile := t.TempDir()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
	)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	// Record CSP violations and script errors before the page's own scripts run.
	require.NoError(t, chromedp.Do(tab, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
window.__problems = [];
document.addEventListener("securitypolicyviolation", (e) => window.__problems.push("CSP blocked " + e.blockedURI + " by " + e.violatedDirective));
window.addEventListener("error", (e) => window.__problems.push("error: " + (e.message || (e.target && (e.target.src || e.target.href)))), true);
window.addEventListener("unhandledrejection", (e) => window.__problems.push("unhandled rejection: " + String(e.reason)));`})
		return err
	})))
	ctx, cancel := context.WithTimeout(tab, 90*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(w.base+"/scenarios/hwm/visibility-gap"),
		chromedp.WaitVisible(chromedp.CSS(`.tm-host[data-ready="true"] [data-testid="btn-forward"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="btn-forward"]`)),
	), "the widget of a scenario page served by the Worker is taken over by the engine")
	step, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.querySelector('.tm-widget').dataset.step)`))
	require.NoError(t, err)
	assert.Equal(t, 1, step, "Forward steps the engine's widget")
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__problems`))
	require.NoError(t, err)
	assert.Empty(t, problems)
}

// measure makes n requests (request(i) gives the i-th) and logs the CPU
// time that the workerd processes spent per request. The figure is the
// whole runtime's (its HTTP handling and the static-asset routing
// included): compare it with that of a static file, which runs no Go.
// Where /proc is missing, it logs nothing.
func (w *workerd) measure(t *testing.T, what string, n int, request func(i int) (method, path, body string)) {
	t.Helper()
	before, ok := w.cpu()
	if !ok {
		t.Logf("CPU per request not measured: no /proc")
		return
	}
	var method, path string
	for i := range n {
		var body string
		method, path, body = request(i)
		req, err := http.NewRequest(method, w.base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Accept-Encoding", "br, gzip")
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := noDecoding.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Less(t, resp.StatusCode, 400, "%s %s", method, path)
	}
	after, _ := w.cpu()
	t.Logf("workerd CPU per request, %s (%s %s): %.1f ms over %d", what, method, path, float64(after-before)/float64(n), n)
}

// statFields matches the fields of /proc/PID/stat after the command name.
var statFields = regexp.MustCompile(`\) (.*)$`)

// cpu returns the CPU time, in milliseconds, used so far by the workerd
// processes of wrangler's process group.
func (w *workerd) cpu() (ms int64, ok bool) {
	procs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(procs) == 0 {
		return 0, false
	}
	const ticks = 100 // USER_HZ on Linux
	var total int64
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("(workerd)")) {
			continue
		}
		m := statFields.FindSubmatch(bytes.TrimSpace(b))
		if m == nil {
			continue
		}
		f := strings.Fields(string(m[1])) // f[0] is field 3 (state)
		if len(f) < 13 {
			continue
		}
		pgrp, _ := strconv.Atoi(f[2])
		if pgrp != w.pgid {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		total += (utime + stime) * 1000 / ticks
	}
	return total, true
}
