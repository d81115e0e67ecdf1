//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
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
	"github.com/tidemark/tidemark/web/share"
)

// TestWorker serves the site as a Cloudflare Worker in workerd, through
// `wrangler dev` with the committed wrangler.jsonc (whose build command
// builds build/worker for the address it serves on), and checks what a
// visitor gets:
//
//   - the Worker's script is the glue that github.com/syumai/workers
//     generates, as it is, with cmd/serve/entry.mjs around it;
//   - every file of the exported site in build/worker/assets (every page,
//     /embed/… included, the files of web/static such as /static/embed.js,
//     pictures, oEmbed descriptions) decodes to the file itself: the
//     platform compresses it once, and the Go handler never sends a body
//     the runtime would compress again; with the Content-Type and the
//     headers of _headers;
//   - every kind of response left to the Go handler (pictures of any step
//     and of a linked scenario, /oembed, the sandbox's posts, the health
//     check, not found) decodes to exactly what the local server sends for
//     the same request;
//   - a scenario page loads in Chromium through the Worker, at the step its
//     address names, and its widget is taken over by the engine, without a
//     CSP violation or script error.
//
// It logs the CPU time workerd spends per request of each kind, and where
// that time goes (a profile taken through V8's inspector), for
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

	t.Run("glue", checkGlue)
	t.Run("size", checkSize)
	t.Run("assets", func(t *testing.T) { checkAssets(t, w) })
	t.Run("go", func(t *testing.T) { checkGo(t, w) })
	t.Run("chromium", func(t *testing.T) { checkInBrowser(t, w) })

	// Every request that reaches Go starts a Go program of its own (the
	// library's glue), so the figures below are each a whole start. Each
	// request of a kind differs (a step, a seed), as visitors' do. The
	// requests above warmed workerd up: the module is compiled, and V8 has
	// optimised what runs often.
	const n = 20
	w.measure(t, "a static file (no Go)", n, get(web.AssetURL("app.css")))
	w.measure(t, "an exported scenario page (no Go)", n, get("/scenarios/hwm/visibility-gap/"))
	w.measure(t, "the health check", n, get("/healthz"))
	w.measure(t, "a picture of a bundled scenario at a new step", n, newStep)
	w.measure(t, "a picture of a linked scenario at a new step", n, func(i int) (string, string, string) {
		return http.MethodGet, fmt.Sprintf("/picture.svg?src=%s&step=%d", linkedPayload(t), i%8), ""
	})
	w.measure(t, "an oEmbed answer", n, w.oembed)
	w.measure(t, "an oEmbed answer for a lesson's chapter (reads the lessons)", n, func(int) (string, string, string) {
		return http.MethodGet, "/oembed?format=json&url=" + url.QueryEscape(w.base+lessonChapter), ""
	})
	w.measure(t, "a picture with a new seed (runs the scenario)", n, func(i int) (string, string, string) {
		return http.MethodGet, fmt.Sprintf("/picture/hwm/visibility-gap.svg?seed=%d", 1000+i), ""
	})
	w.measure(t, "a sandbox post (runs the scenario)", n, post)

	// Where the time goes, under the profiler (which costs time of its
	// own: the figures above are the ones to compare with the plans).
	w.profile(t, "healthz", "the health check", n, get("/healthz"))
	w.profile(t, "picture", "a picture of a bundled scenario at a new step", n, newStep)
	w.profile(t, "oembed", "an oEmbed answer", n, w.oembed)
	w.profile(t, "play", "a sandbox post", n, post)
}

// lessonChapter is the address of a chapter of a bundled lesson.
const lessonChapter = "/lessons/high-water-mark/the-question"

// newStep asks for the picture of a bundled scenario at the i-th step.
func newStep(i int) (string, string, string) {
	return http.MethodGet, fmt.Sprintf("/picture/hwm/visibility-gap.svg?step=%d&mark=lsn", i%12), ""
}

// oembed asks for the oEmbed answer of a scenario page at the i-th step.
func (w *workerd) oembed(i int) (string, string, string) {
	return http.MethodGet, "/oembed?format=json&url=" + url.QueryEscape(fmt.Sprintf("%s/scenarios/hwm/visibility-gap?step=%d", w.base, i)), ""
}

// post posts sandboxText to the sandbox.
func post(int) (string, string, string) {
	return http.MethodPost, "/play", "src=" + url.QueryEscape(sandboxText)
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
	base      string // e.g. http://127.0.0.1:43210
	pgid      int    // wrangler's process group: wrangler, workerd and the build
	log       *syncBuffer
	inspector *inspector // V8's inspector of the Worker, for profiles
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
	port, inspectorPort := freePort(t), freePort(t)
	cmd := exec.Command(wrangler, "dev", "--local", "--ip", "127.0.0.1", "--port", port,
		"--inspector-port", inspectorPort, "--show-interactive-dev-session=false")
	w := &workerd{base: "http://127.0.0.1:" + port, log: &syncBuffer{}}
	// The build command exports the pages for the address they are served
	// at, and keeps the module's function names for the profiles
	// (WORKER_LDFLAGS; the name section changes nothing else).
	cmd.Env = append(os.Environ(), "WORKER_BASE_URL="+w.base, "WORKER_LDFLAGS=-w",
		"WRANGLER_SEND_METRICS=false", "CI=true", "CLOUDFLARE_CF_FETCH_ENABLED=false")
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
				w.inspector = dialInspector(t, inspectorPort)
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

// workerDir is where `make worker` builds the Worker.
var workerDir = filepath.Join("..", "..", "build", "worker")

// checkGlue checks that the Worker runs the glue of github.com/syumai/workers
// as its workers-assets-gen writes it, for the version in go.mod, and the
// committed entry.mjs around it.
func checkGlue(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/syumai/workers").Output()
	require.NoError(t, err, "go list -m github.com/syumai/workers")
	assetsGen := filepath.Join(strings.TrimSpace(string(out)), "cmd", "workers-assets-gen", "assets")
	for built, generated := range map[string]string{
		"worker.mjs":   filepath.Join(assetsGen, "common", "worker.mjs"),
		"runtime.mjs":  filepath.Join(assetsGen, "runtime", "cloudflare.mjs"),
		"wasm_exec.js": filepath.Join(assetsGen, "wasm_exec_go.js"),
		"entry.mjs":    "entry.mjs",
	} {
		want, err := os.ReadFile(generated)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(workerDir, built))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "build/worker/%s is not %s", built, generated)
	}
}

// freePlanLimit is the most the Worker (its module and glue, gzipped) may
// weigh on Cloudflare's free plan: 3 MiB, as the platform counts it.
const freePlanLimit = 3 << 20

// checkSize checks that the Worker fits the free plan: its module, less
// the function names that worker-smoke keeps for its profiles (`make
// worker` leaves them out of what is deployed), and its glue, each
// gzipped as wrangler does for its "Total Upload" figure.
func checkSize(t *testing.T) {
	total := 0
	for _, name := range []string{"app.wasm", "worker.mjs", "runtime.mjs", "wasm_exec.js", "entry.mjs"} {
		b, err := os.ReadFile(filepath.Join(workerDir, name))
		require.NoError(t, err)
		if name == "app.wasm" {
			b, err = withoutNames(b)
			require.NoError(t, err)
		}
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		_, err = zw.Write(b)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		total += zb.Len()
	}
	t.Logf("the Worker, gzipped: %d KiB (%d bytes); the free plan allows %d KiB", total>>10, total, freePlanLimit>>10)
	assert.LessOrEqual(t, total, freePlanLimit, "the Worker no longer fits Cloudflare's free plan (docs/performance.md, \"Cloudflare Worker\", says what it holds)")
}

// withoutNames returns a wasm module without its "name" custom section.
func withoutNames(b []byte) ([]byte, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, fmt.Errorf("not a wasm module")
	}
	out := append([]byte(nil), b[:8]...)
	for i := 8; i < len(b); {
		start := i
		id := b[i]
		size, n := binary.Uvarint(b[i+1:])
		if n <= 0 || uint64(len(b)-(i+1+n)) < size {
			return nil, fmt.Errorf("section at byte %d is cut short", i)
		}
		body := b[i+1+n : i+1+n+int(size)]
		i += 1 + n + int(size)
		if id == 0 {
			nameLen, m := binary.Uvarint(body)
			if m > 0 && uint64(len(body)-m) >= nameLen && string(body[m:m+int(nameLen)]) == "name" {
				continue
			}
		}
		out = append(out, b[start:i]...)
	}
	return out, nil
}

// assetsDir is where `make worker` writes the exported site.
var assetsDir = filepath.Join(workerDir, "assets")

// assetPath returns the address at which the file rel of the exported site
// is served: a directory's index.html at the directory, with its slash.
func assetPath(rel string) string {
	rel = filepath.ToSlash(rel)
	if rel == "index.html" {
		return "/"
	}
	if dir, ok := strings.CutSuffix(rel, "/index.html"); ok {
		return "/" + dir + "/"
	}
	return "/" + rel
}

func checkAssets(t *testing.T, w *workerd) {
	types := map[string]string{".html": "text/html", ".css": "text/css", ".js": "text/javascript",
		".wasm": "application/wasm", ".svg": "image/svg+xml", ".json": "application/json"}
	counts := map[string]int{}
	err := filepath.WalkDir(assetsDir, func(file string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(assetsDir, file)
		if err != nil {
			return err
		}
		if rel == "_headers" || strings.HasPrefix(filepath.Base(rel), ".") {
			return nil // read by the platform, or left out by .assetsignore
		}
		want, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		path := assetPath(rel)
		r := w.get(t, path, nil)
		if !assert.Equal(t, http.StatusOK, r.status, path) {
			return nil
		}
		assert.True(t, bytes.Equal(want, r.body), "%s: the body (%s, %d bytes decoded) is not %s (%d bytes)", path, r.encoding, len(r.body), rel, len(want))
		ext := filepath.Ext(rel)
		if wantType, ok := types[ext]; ok {
			assert.True(t, strings.HasPrefix(r.header.Get("Content-Type"), wantType), "%s: Content-Type %q", path, r.header.Get("Content-Type"))
		}
		assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), path)
		switch {
		case strings.HasPrefix(path, "/static/"):
			cache := "no-cache"
			if isHashed(path) {
				cache = "public, max-age=31536000, immutable"
			}
			assert.Equal(t, cache, r.header.Get("Cache-Control"), path)
		case ext == ".html" && strings.HasPrefix(path, "/embed/"):
			assert.Contains(t, r.header.Get("Content-Security-Policy"), "frame-ancestors *", path)
		case ext == ".html":
			assert.Contains(t, r.header.Get("Content-Security-Policy"), "frame-ancestors 'self'", path)
		}
		counts[strings.SplitN(strings.TrimPrefix(path, "/"), "/", 2)[0]]++
		return nil
	})
	require.NoError(t, err)
	t.Logf("files checked, by their first path segment: %v", counts)
	for _, kind := range []string{"", "lessons", "scenarios", "embed", "play", "static", "picture", "oembed"} {
		assert.NotZero(t, counts[kind], "no file under /%s was checked", kind)
	}
}

// hashedName matches the content-hashed name of a static file.
var hashedName = regexp.MustCompile(`\.[0-9a-f]{8}(\.[a-z0-9]+)?$`)

func isHashed(path string) bool { return hashedName.MatchString(path) }

// linkedPayload is sandboxText as a link carries it (#tdm=…, or a
// picture's src=).
func linkedPayload(t *testing.T) string {
	p, err := share.Encode(sandboxText)
	require.NoError(t, err)
	return p
}

// checkGo asks the Worker for what its Go handler answers and compares each
// decoded body with the local server's answer to the same request.
func checkGo(t *testing.T, w *workerd) {
	local, err := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	for _, tc := range []struct {
		path   string
		post   url.Values
		status int
	}{
		{"/healthz", nil, 200},
		{"/picture/hwm/visibility-gap.svg?step=3", nil, 200},
		{"/picture/hwm/visibility-gap.svg?step=14&mark=lsn", nil, 200},
		{"/picture.svg?step=2&src=" + linkedPayload(t), nil, 200},
		{"/oembed?format=json&url=" + url.QueryEscape(w.base+"/scenarios/hwm/visibility-gap?step=4&mark=lsn"), nil, 200},
		{"/oembed?format=json&url=" + url.QueryEscape(w.base+lessonChapter), nil, 200},
		{"/play", url.Values{"src": {sandboxText}}, 200},
		{"/play", url.Values{"src": {"scenario broken\nnot a command\n"}}, 200},
		{"/picture/no/such.svg", nil, 404},
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

	// HEAD gets the headers of GET and no body.
	for _, path := range []string{"/healthz", "/picture/hwm/visibility-gap.svg?step=3"} {
		req, err := http.NewRequest(http.MethodHead, w.base+path, nil)
		require.NoError(t, err)
		resp, err := noDecoding.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "HEAD %s", path)
		assert.Empty(t, body, "HEAD %s", path)
		get := w.get(t, path, nil)
		assert.Equal(t, get.header.Get("Content-Type"), resp.Header.Get("Content-Type"), "HEAD %s", path)
	}

	// A path that is no file and no route of the Worker's Go program gets
	// the copy's not-found page, with 404.
	notFound, err := os.ReadFile(filepath.Join(assetsDir, "404.html"))
	require.NoError(t, err)
	for _, path := range []string{"/scenarios/no/such", "/lessons/no-such-lesson", "/no/such/page"} {
		got := w.get(t, path, nil)
		assert.Equal(t, http.StatusNotFound, got.status, path)
		assert.True(t, bytes.Equal(notFound, got.body), "%s: the body is not 404.html", path)
		assert.Contains(t, got.header.Get("Content-Security-Policy"), "frame-ancestors 'self'", path)
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
	// The exported page, drawn at step 0, opens the engine at the step its
	// address names.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(w.base+"/scenarios/hwm/visibility-gap?step=3"),
		chromedp.WaitVisible(chromedp.CSS(`.tm-host[data-ready="true"] [data-testid="btn-forward"]`)),
	), "the widget of a scenario page served by the Worker is taken over by the engine")
	step := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.querySelector('.tm-widget').dataset.step)`))
		require.NoError(t, err)
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); step() != 3 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, 3, step(), "the page opens at the step of its address")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="btn-forward"]`))))
	assert.Equal(t, 4, step(), "Forward steps the engine's widget")
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
