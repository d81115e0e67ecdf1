//go:build !js

package main

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
)

// siteHandler is the real site's handler, built once for the tests of this
// file (building it reads every lesson and scenario).
var siteHandler = sync.OnceValues(func() (http.Handler, error) {
	return newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
})

// startFast serves h with the server cmd/serve runs (fasthttp under the
// adapter) on a loopback port, and returns its base URL.
func startFast(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := newFastServer(h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		assert.NoError(t, srv.Shutdown())
		assert.NoError(t, <-done, "Serve returns nil once shut down")
	})
	return "http://" + ln.Addr().String()
}

// stylesheet finds the site's hashed stylesheet address in a page.
var stylesheet = regexp.MustCompile(`/static/app\.[0-9a-f]+\.css`)

// bothServers serves the real site with net/http (slow) and with the
// server cmd/serve runs (fast), for tests that compare their answers.
func bothServers(t *testing.T) (slow, fast string) {
	t.Helper()
	h, err := siteHandler()
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, startFast(t, h)
}

// raw sends a request written by hand to the server at base and returns
// its response, read by net/http's client code.
func raw(t *testing.T, base, request string) *http.Response {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	method, _, _ := strings.Cut(request, " ") // a HEAD's response has no body to read
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// answer is what a response says, for comparing two servers': its status,
// its header fields but the date, and its body.
type answer struct {
	Status int
	Header http.Header
	Body   string
}

func answerOf(t *testing.T, resp *http.Response) answer {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	h := resp.Header.Clone()
	h.Del("Date")
	return answer{resp.StatusCode, h, string(body)}
}

// TestFastServerAnswersAsNetHTTPDoes sends the same requests to the site
// served by net/http and by the server cmd/serve runs, and expects the
// same status, header fields (but Date) and body from both: static files in
// each coding, conditional and range requests, HEAD, pages kept and not,
// the sandbox's post, redirects and not-found pages.
func TestFastServerAnswersAsNetHTTPDoes(t *testing.T) {
	slow, fast := bothServers(t)

	// The stylesheet's hashed address and ETag, from the home page.
	resp, err := http.Get(slow + "/")
	require.NoError(t, err)
	home := answerOf(t, resp)
	require.Equal(t, http.StatusOK, home.Status)
	css := string(stylesheet.Find([]byte(home.Body)))
	require.NotEmpty(t, css, "the home page links its stylesheet")
	resp, err = http.Get(slow + css)
	require.NoError(t, err)
	etag := resp.Header.Get("ETag")
	resp.Body.Close()
	require.NotEmpty(t, etag, css)

	form := url.Values{"src": {"scenario sandbox/a \"A\"\nsource orders key=order_id\n"}}.Encode()
	cases := []struct {
		name, method, path, body string
		header                   map[string]string
	}{
		{name: "home", method: "GET", path: "/"},
		{name: "home, brotli", method: "GET", path: "/", header: map[string]string{"Accept-Encoding": "br"}},
		{name: "static", method: "GET", path: css},
		{name: "static, gzip", method: "GET", path: css, header: map[string]string{"Accept-Encoding": "gzip"}},
		{name: "static, brotli", method: "GET", path: css, header: map[string]string{"Accept-Encoding": "br, gzip"}},
		{name: "static, HEAD", method: "HEAD", path: css},
		{name: "static, not modified", method: "GET", path: css, header: map[string]string{"If-None-Match": etag}},
		{name: "static, range", method: "GET", path: css, header: map[string]string{"Range": "bytes=10-99"}},
		{name: "static, unknown", method: "GET", path: "/static/nothing.css"},
		{name: "static, plain name", method: "GET", path: "/static/app.css"},
		{name: "scenario page", method: "GET", path: "/scenarios/hwm/visibility-gap"},
		{name: "scenario page, knobs", method: "GET", path: "/scenarios/hwm/visibility-gap?mark=timestamp&step=3"},
		{name: "scenario page, gzip", method: "GET", path: "/scenarios/hwm/visibility-gap", header: map[string]string{"Accept-Encoding": "gzip"}},
		{name: "unclean path", method: "GET", path: "/scenarios/../play"},
		{name: "not found", method: "GET", path: "/no/such/page"},
		{name: "wrong method", method: "DELETE", path: "/play"},
		{name: "sandbox post", method: "POST", path: "/play", body: form,
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
		{name: "health", method: "GET", path: "/healthz"},
		{name: "health, HEAD", method: "HEAD", path: "/healthz"},
		{name: "scenario page, HEAD", method: "HEAD", path: "/scenarios/hwm/visibility-gap"},
		{name: "not found, HEAD", method: "HEAD", path: "/no/such/page"},
		{name: "sandbox post, too long", method: "POST", path: "/play", body: "src=" + strings.Repeat("x", 70_000),
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
	}
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client := &http.Client{CheckRedirect: noRedirect, Transport: &http.Transport{DisableCompression: true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// cmd/serve's server is asked twice: the second answer may be
			// a response it kept (keep.go), which must be the handler's.
			var got [3]answer
			for i, base := range []string{slow, fast, fast} {
				req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
				require.NoError(t, err)
				req.Host = "tidemark.test" // pages write their address into links
				for k, v := range c.header {
					req.Header.Set(k, v)
				}
				resp, err := client.Do(req)
				require.NoError(t, err)
				got[i] = answerOf(t, resp)
				resp.Body.Close()
			}
			for i := 1; i < len(got); i++ {
				assert.Equal(t, got[0].Status, got[i].Status, "net/http first, then cmd/serve's server (answer %d)", i)
				assert.Equal(t, got[0].Header, got[i].Header, "answer %d", i)
				assert.True(t, got[0].Body == got[i].Body, "the bodies differ: %d and %d bytes (answer %d)", len(got[0].Body), len(got[i].Body), i)
			}
			assert.NotEmpty(t, got[0].Header.Get("Content-Security-Policy"), "the site's headers are sent")
		})
	}
}

// TestFastServerReadsTargetsAsNetHTTPDoes: requests only a hand-written
// client sends (a target in absolute form, whose host wins over the Host
// field; HTTP/1.0 without a Host) get the same answer from both servers.
func TestFastServerReadsTargetsAsNetHTTPDoes(t *testing.T) {
	slow, fast := bothServers(t)
	for name, request := range map[string]string{
		"absolute target": "GET http://tidemark.test/scenarios/hwm/visibility-gap HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		"HTTP/1.0":        "GET /healthz HTTP/1.0\r\n\r\n",
		"HTTP/1.0 page":   "GET /scenarios/hwm/visibility-gap HTTP/1.0\r\nHost: tidemark.test\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			a, b := answerOf(t, raw(t, slow, request)), answerOf(t, raw(t, fast, request))
			assert.Equal(t, a.Status, b.Status)
			assert.True(t, a.Body == b.Body, "the bodies differ: %d and %d bytes", len(a.Body), len(b.Body))
			if name == "absolute target" {
				assert.Contains(t, b.Body, "http://tidemark.test/scenarios/hwm/visibility-gap", "links are built from the target's host")
			}
		})
	}
}

// TestFastServerRefusesWhatNetHTTPRefuses: requests net/http's server
// answers with 400 get 400 here too, and a head or a body over the limits
// gets 431 or 413; the server goes on answering.
func TestFastServerRefusesWhatNetHTTPRefuses(t *testing.T) {
	h, err := siteHandler()
	require.NoError(t, err)
	fast := startFast(t, h)

	for name, c := range map[string]struct {
		request string
		status  int
	}{
		"no Host":           {"GET / HTTP/1.1\r\n\r\n", http.StatusBadRequest},
		"two Hosts":         {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", http.StatusBadRequest},
		"a Host not":        {"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", http.StatusBadRequest},
		"a relative target": {"GET play HTTP/1.1\r\nHost: a\r\n\r\n", http.StatusBadRequest},
		"HTTP/1.0, no Host": {"GET /healthz HTTP/1.0\r\n\r\n", http.StatusOK},
		"HTTP/2.0":          {"GET /healthz HTTP/2.0\r\nHost: a\r\n\r\n", http.StatusHTTPVersionNotSupported},
		"a strange Expect":  {"GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: bogus\r\n\r\n", http.StatusExpectationFailed},
		"a large head":      {"GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("x", maxHeaderBytes) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
		// Refused from its Content-Length, before the body is read (the
		// body is not sent: the server closes the connection at once).
		"a large body": {"POST /play HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
			"Content-Length: 2000000\r\n\r\n", http.StatusRequestEntityTooLarge},
	} {
		t.Run(name, func(t *testing.T) {
			resp := raw(t, fast, c.request)
			assert.Equal(t, c.status, resp.StatusCode)
			// Refusals the handler never sees carry the fields every
			// response of the site does.
			assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
			assert.NotEmpty(t, resp.Header.Get("Content-Security-Policy"))
		})
	}
	resp, err := http.Get(fast + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestFastServerSurvivesAPanic: a handler that panics gets its request a
// 500 and its connection closed, and the server answers the next one.
func TestFastServerSurvivesAPanic(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	fast := startFast(t, mux)

	resp, err := http.Get(fast + "/boom")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.True(t, resp.Close, "the connection is closed")
	assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))

	resp, err = http.Get(fast + "/ok")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "ok", string(body))
}

// TestFastServerWritesHeadersAsNetHTTPDoes: a value cannot add a field of
// its own (a line break becomes a space), a field name that is not a token
// is left out, changes after the header is written are not sent, and a
// response without a Content-Type is sniffed.
func TestFastServerWritesHeadersAsNetHTTPDoes(t *testing.T) {
	fast := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Said", "a\r\nX-Injected: yes")
		w.Header()["Bad Name"] = []string{"v"}
		io.WriteString(w, "<!doctype html><p>hello")
		w.Header().Set("X-Late", "too late")
	}))
	resp := raw(t, fast, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	assert.Equal(t, "a  X-Injected: yes", resp.Header.Get("X-Said"))
	assert.Empty(t, resp.Header.Get("X-Injected"))
	assert.Empty(t, resp.Header.Values("Bad Name"))
	assert.Empty(t, resp.Header.Get("X-Late"))
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, "<!doctype html><p>hello", string(body))
}

// TestFastServerRequestsOwnTheirStrings: what a handler keeps of a request
// (its path, a header's value) stays as it was after later requests on the
// same connection, whose bytes fasthttp reads into the same buffers.
func TestFastServerRequestsOwnTheirStrings(t *testing.T) {
	var mu sync.Mutex
	var kept []string
	fast := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		kept = append(kept, r.URL.Path+" "+r.Header.Get("X-N")+" "+r.Host, r.URL.Path, r.Header.Get("X-N"))
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	client := &http.Client{}
	for _, n := range []string{"aaaa", "bbbb", "cccc"} {
		req, err := http.NewRequest(http.MethodGet, fast+"/p/"+n, nil)
		require.NoError(t, err)
		req.Header.Set("X-N", n)
		resp, err := client.Do(req) // one kept-alive connection
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	host := strings.TrimPrefix(fast, "http://")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{
		"/p/aaaa aaaa " + host, "/p/aaaa", "aaaa",
		"/p/bbbb bbbb " + host, "/p/bbbb", "bbbb",
		"/p/cccc cccc " + host, "/p/cccc", "cccc",
	}, kept)
}

// TestFastServerSendsSharedBodies: a body the site shares
// (web.SharedWriter) is sent whole, alone or with bytes written before or
// after it, and a HEAD request gets the header only.
func TestFastServerSendsSharedBodies(t *testing.T) {
	shared := []byte("shared body")
	fast := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		sw, ok := w.(web.SharedWriter)
		require.True(t, ok, "cmd/serve's writer takes shared bodies")
		switch r.URL.Path {
		case "/alone":
			w.Header().Set("Content-Length", strconv.Itoa(len(shared)))
			w.WriteHeader(http.StatusOK)
			if r.Method != http.MethodHead {
				_, _ = sw.WriteShared(shared)
			}
		case "/then-more":
			_, _ = sw.WriteShared(shared)
			_, _ = io.WriteString(w, ", then more")
		case "/after":
			_, _ = io.WriteString(w, "before, ")
			_, _ = sw.WriteShared(shared)
		}
	}))
	for path, want := range map[string]string{"/alone": "shared body", "/then-more": "shared body, then more", "/after": "before, shared body"} {
		resp, err := http.Get(fast + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, want, string(body), path)
	}
	assert.Equal(t, "shared body", string(shared), "the shared body is not modified")
	resp := raw(t, fast, "HEAD /alone HTTP/1.1\r\nHost: a\r\n\r\n")
	assert.Equal(t, "11", resp.Header.Get("Content-Length"))
}

// FuzzFastServer sends the server cmd/serve runs made-up bytes on a
// connection of their own, and holds it to answering each with HTTP (or
// closing the connection), never with a 500 (a panic in the adapter or the
// site), to answering the same bytes again alike (a response it kept
// included), and to answering /healthz after it.
//
//	go test ./cmd/serve/ -run '^$' -fuzz FuzzFastServer -fuzztime 60s
func FuzzFastServer(f *testing.F) {
	for _, seed := range []string{
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /scenarios/hwm/visibility-gap?step=3&mark=lsn HTTP/1.1\r\nHost: a\r\nAccept-Encoding: br\r\n\r\n",
		"HEAD /static/app.css HTTP/1.0\r\n\r\n",
		"GET http://a/play HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /play HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\nsrc=%zz&x",
		"POST /play HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nsrc=\r\n0\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET\x00/ HTTP/1.1\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	h, err := siteHandler()
	require.NoError(f, err)
	base := startFuzzServer(f, h)
	f.Fuzz(func(t *testing.T, request []byte) {
		send := func() []byte {
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
			_, _ = conn.Write(request)
			_ = conn.(*net.TCPConn).CloseWrite()
			answer, _ := io.ReadAll(conn) // up to the server's close
			return answer
		}
		// The request is sent twice: the second answer may be a response
		// the server kept (keep.go), and must say what the first said.
		var answers [2]answer
		for i := range answers {
			raw := send()
			if len(raw) == 0 {
				return
			}
			// Only the first answer is read: a body's length depends on its request.
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
			if !assert.NoError(t, err, "not HTTP: %q", raw[:min(len(raw), 80)]) {
				return
			}
			assert.NotEqual(t, http.StatusInternalServerError, resp.StatusCode, "request %q", request)
			body, _ := io.ReadAll(resp.Body) // a body cut short by a pipelined request's answer is cut alike
			resp.Header.Del("Date")
			answers[i] = answer{resp.StatusCode, resp.Header, string(body)}
		}
		assert.Equal(t, answers[0], answers[1], "request %q answered twice", request)
		resp, err := http.Get(base + "/healthz")
		require.NoError(t, err, "the server answers after %q", request)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	})
}

// startFuzzServer starts the server for a fuzz run (or a fuzzing worker);
// it lives as long as the run.
func startFuzzServer(f *testing.F, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(f, err)
	srv := newFastServer(h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	go func() { _ = srv.Serve(ln) }()
	f.Cleanup(func() { _ = srv.Shutdown() })
	return "http://" + ln.Addr().String()
}

// TestFastServerReadsHeadersAsNetHTTPDoes sends the same request, with a
// field given twice, an empty value and many fields, to a handler served
// by net/http and by the server cmd/serve runs, and expects the handler to
// read the same header map, Host and remote address from both; a value a
// handler appends to is its own. Two differences are fasthttp's and left
// out (the site reads neither field): it joins Cookie fields into one
// value with "; ", and says "Connection: close" to an HTTP/1.0 request
// that does not ask to be kept alive.
func TestFastServerReadsHeadersAsNetHTTPDoes(t *testing.T) {
	show := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(r.Header)) {
			if k == "Cookie" || k == "Connection" {
				continue
			}
			b.WriteString(k + "=" + strconv.Quote(strings.Join(r.Header[k], "|")) + "\n")
		}
		host, port, err := net.SplitHostPort(r.RemoteAddr)
		b.WriteString("host " + r.Host + "\nremote " + host + " " + strconv.FormatBool(port != "" && err == nil) + "\n")
		// A handler may append to a field's values: the next field's must not change.
		r.Header["Accept"] = append(r.Header["Accept"], "appended")
		b.WriteString("after " + strings.Join(r.Header["Accept-Language"], "|") + "\n")
		io.WriteString(w, b.String())
	})
	slowSrv := httptest.NewServer(show)
	t.Cleanup(slowSrv.Close)
	fast := startFast(t, show)
	for _, request := range []string{
		"GET /h HTTP/1.1\r\nHost: example.test\r\nAccept: a\r\nAccept-Language: en\r\nX-Two: 1\r\nX-Empty:\r\nX-Two: 2\r\nX-Two: 3\r\n\r\n",
		"GET /h HTTP/1.1\r\nHost: example.test:8080\r\n\r\n",
		"GET /h HTTP/1.0\r\n\r\n",
		"GET /h HTTP/1.1\r\nHost: h\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\nAccept-Language: fr\r\nx-lower: v\r\nContent-Type: text/plain\r\n\r\n",
	} {
		want := answerOf(t, raw(t, slowSrv.URL, request))
		got := answerOf(t, raw(t, fast, request))
		assert.Equal(t, want.Body, got.Body, "%q", request)
		assert.Contains(t, got.Body, "remote 127.0.0.1 true", "%q", request)
	}
}

// TestAddrStringIsNetsString: the remote address is written as the
// address's own String writes it.
func TestAddrStringIsNetsString(t *testing.T) {
	for _, a := range []net.Addr{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000},
		&net.TCPAddr{IP: net.IP{10, 1, 2, 3}, Port: 1},
		&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 65535},
		&net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.7"), Port: 80},
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 80, Zone: "eth0"},
		&net.TCPAddr{Port: 8080},
		&net.UnixAddr{Name: "/tmp/s", Net: "unix"},
	} {
		assert.Equal(t, a.String(), addrString(a), "%#v", a)
	}
}
