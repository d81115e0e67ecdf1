//go:build !js

package web

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/templates"
)

// fastPair serves one handler twice on loopback: by a plain http.Server,
// and by an http.Server behind a FastListener. It returns both addresses
// and the FastListener.
func fastPair(t *testing.T, timeouts Timeouts) (plain, fast string, fl *FastListener) {
	t.Helper()
	h := newTestHandler(t, Options{Pages: []Page{{Pattern: "GET /page", Render: func(*http.Request) (templ.Component, error) {
		return templates.NotFound(templates.NotFoundView{Layout: NewLayoutView("A page"), What: "nothing"}), nil
	}}}})
	serve := func(ln net.Listener) {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: timeouts.ReadHeader, IdleTimeout: timeouts.Idle, WriteTimeout: timeouts.Write}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
	lp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serve(lp)
	lf, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	fl = NewFastListener(lf, h, timeouts)
	serve(fl)
	return lp.Addr().String(), lf.Addr().String(), fl
}

var testTimeouts = Timeouts{ReadHeader: 5 * time.Second, Idle: 30 * time.Second, Write: 10 * time.Second}

// exchange sends the raw requests on one connection, all at once when
// pipelined and otherwise each after the previous answer, and returns the
// answers as text, without their Date, and whether the server closed the
// connection after the last.
func exchange(t *testing.T, addr string, pipelined bool, reqs ...string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	if pipelined {
		_, err := io.WriteString(c, strings.Join(reqs, ""))
		require.NoError(t, err)
	}
	br := bufio.NewReader(c)
	var out strings.Builder
	for _, raw := range reqs {
		if !pipelined {
			if _, err := io.WriteString(c, raw); err != nil {
				fmt.Fprintf(&out, "write: closed\n")
				break
			}
		}
		method, _, _ := strings.Cut(raw, " ")
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			fmt.Fprintf(&out, "no answer (%v)\n", errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF))
			break
		}
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Header.Del("Date")
		fmt.Fprintf(&out, "%s %s close=%v\n", resp.Proto, resp.Status, resp.Close)
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range resp.Header {
				if !yield(k) {
					return
				}
			}
		}) {
			fmt.Fprintf(&out, "%s: %q\n", k, resp.Header[k])
		}
		fmt.Fprintf(&out, "body %d bytes: %q\n\n", len(body), body[:min(len(body), 64)])
	}
	require.NoError(t, c.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = br.ReadByte()
	var ne net.Error
	fmt.Fprintf(&out, "open afterwards: %v\n", errors.As(err, &ne) && ne.Timeout())
	return out.String()
}

// TestFastPathAnswersAsNetHTTP sends the same requests, well-formed or
// not, to the site behind net/http and behind the fast path, and wants
// the same answers (but for Date): those the fast path answers itself and
// those it hands over.
func TestFastPathAnswersAsNetHTTP(t *testing.T) {
	plain, fast, fl := fastPair(t, testTimeouts)
	css := AssetURL("app.css")
	svg := AssetURL("favicon.svg")
	etag := get(newTestHandler(t, Options{}), css, "Accept-Encoding", "gzip").Header().Get("ETag")
	require.NotEmpty(t, etag)
	get := func(target string, lines ...string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: example.test\r\n" + strings.Join(lines, "") + "\r\n"
	}
	big := strings.Repeat("x", fastHeadMax)
	cases := map[string][]string{
		"plain":                      {get(css)},
		"gzip":                       {get(css, "Accept-Encoding: gzip\r\n")},
		"brotli, as browsers ask":    {get(css, "Accept-Encoding: gzip, deflate, br, zstd\r\n")},
		"both refused":               {get(css, "Accept-Encoding: gzip;q=0, br;q=0\r\n")},
		"any coding":                 {get(css, "accept-encoding: *\r\n")},
		"two lines":                  {get(css, "Accept-Encoding: identity\r\n", "ACCEPT-ENCODING:  gzip \r\n")},
		"revalidated":                {get(css, "Accept-Encoding: gzip\r\n", "If-None-Match: "+etag+"\r\n")},
		"revalidated weakly":         {get(css, "Accept-Encoding: gzip\r\n", "If-None-Match: W/"+etag+", \"x\"\r\n")},
		"revalidated, other coding":  {get(css, "If-None-Match: "+etag+"\r\n")},
		"if-none-match star":         {get(css, "If-None-Match: *\r\n")},
		"plain name":                 {get("/static/app.css", "Accept-Encoding: br\r\n")},
		"svg":                        {get(svg, "Accept-Encoding: gzip\r\n")},
		"head":                       {"HEAD " + css + " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"},
		"missing file":               {get("/static/nope.css"), get(css)},
		"dot segments":               {get("/static/../static/app.css")},
		"escaped":                    {get("/static/app%2ecss")},
		"query":                      {get(css + "?v=1")},
		"http/1.0":                   {"GET " + css + " HTTP/1.0\r\n\r\n"},
		"http/1.0 keep-alive":        {"GET " + css + " HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "GET " + css + " HTTP/1.0\r\nConnection: keep-alive\r\nAccept-Encoding: gzip\r\n\r\n"},
		"connection close":           {get(css, "Connection: close\r\n")},
		"range":                      {get(css, "Range: bytes=0-9\r\n")},
		"no host":                    {"GET " + css + " HTTP/1.1\r\n\r\n"},
		"two hosts":                  {get(css, "Host: other.test\r\n")},
		"bad host":                   {"GET " + css + " HTTP/1.1\r\nHost: a b\r\n\r\n"},
		"bare line feeds":            {"GET " + css + " HTTP/1.1\nHost: x\n\n"},
		"folded header":              {get(css, "Accept-Encoding: gzip,\r\n br\r\n")},
		"space before colon":         {get(css, "Accept-Encoding : gzip\r\n")},
		"control character":          {get(css, "Accept-Encoding: gz\x01ip\r\n")},
		"head over 4 KB":             {get(css, "Cookie: "+big+"\r\n")},
		"body":                       {"POST " + css + " HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", get(css)},
		"chunked":                    {"GET " + css + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", get(css)},
		"expect":                     {get(css, "Expect: 100-continue\r\n")},
		"lower-case method":          {"get " + css + " HTTP/1.1\r\nHost: x\r\n\r\n"},
		"http/2 preface":             {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"},
		"unknown version":            {"GET " + css + " HTTP/1.2\r\nHost: x\r\n\r\n"},
		"static, page, static":       {get(css, "Accept-Encoding: gzip\r\n"), get("/page"), get(css)},
		"page first":                 {get("/page"), get(css)},
		"many statics":               {get(css), get(css, "Accept-Encoding: br\r\n"), "HEAD " + css + " HTTP/1.1\r\nHost: x\r\n\r\n", get(svg)},
		"health check":               {get("/healthz")},
		"empty request line":         {"\r\n" + get(css)},
		"request line with no space": {"GET\r\nHost: x\r\n\r\n"},
	}
	t.Run("cases", func(t *testing.T) { // returns once the parallel cases are done
		for name, reqs := range cases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				// The four exchanges wait for a close at once.
				var got [2][2]string
				var wg sync.WaitGroup
				for i, addr := range []string{plain, fast} {
					for j, pipelined := range []bool{false, true} {
						wg.Go(func() { got[i][j] = exchange(t, addr, pipelined, reqs...) })
					}
				}
				wg.Wait()
				assert.Equal(t, got[0][0], got[1][0], "one by one")
				assert.Equal(t, got[0][1], got[1][1], "pipelined")
			})
		}
	})
	assert.NotEmpty(t, fl.cache.Load().byKey, "the fast path answered none of them itself")
}

// TestFastPathAnswersItself checks that the fast path answers a static
// file itself, with a Date, from one recording.
func TestFastPathAnswersItself(t *testing.T) {
	_, fast, fl := fastPair(t, testTimeouts)
	css := AssetURL("app.css")
	req := "GET " + css + " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
	out := exchange(t, fast, false, req, req, req)
	assert.Equal(t, 3, strings.Count(out, "200 OK"))
	cache := fl.cache.Load()
	require.Len(t, cache.byKey, 1)
	for _, r := range cache.byKey {
		assert.Contains(t, string(r.header), "Content-Encoding: gzip\r\n")
		assert.NotContains(t, string(r.header), "Date:")
	}
	c, err := net.Dial("tcp", fast)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, req)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	date, err := http.ParseTime(resp.Header.Get("Date"))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), date, 5*time.Second)
}

// TestFastPathKeepsFewRecordings sends requests that differ only in their
// headers: the recordings stay within their bound.
func TestFastPathKeepsFewRecordings(t *testing.T) {
	_, fast, fl := fastPair(t, testTimeouts)
	css := AssetURL("app.css")
	var reqs []string
	for i := range fastCacheEntries + 40 {
		reqs = append(reqs, fmt.Sprintf("GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0.%d\r\n\r\n", css, i+1))
	}
	out := exchange(t, fast, true, reqs...)
	assert.Equal(t, len(reqs), strings.Count(out, "200 OK"))
	n := len(fl.cache.Load().byKey)
	assert.Positive(t, n)
	assert.LessOrEqual(t, n, fastCacheEntries)
}

// TestFastPathTimesOut checks that a connection that sends part of a head,
// or nothing after its last request, is closed, as net/http would.
func TestFastPathTimesOut(t *testing.T) {
	_, fast, _ := fastPair(t, Timeouts{ReadHeader: 200 * time.Millisecond, Idle: 300 * time.Millisecond, Write: time.Second})
	closedWithin := func(t *testing.T, send string) {
		c, err := net.Dial("tcp", fast)
		require.NoError(t, err)
		defer c.Close()
		_, err = io.WriteString(c, send)
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		_, err = io.Copy(io.Discard, c) // until the server closes
		require.NoError(t, err, "the server did not close the connection")
	}
	t.Run("a head that never ends", func(t *testing.T) {
		closedWithin(t, "GET "+AssetURL("app.css")+" HTTP/1.1\r\nHost: x\r\n")
	})
	t.Run("idle after a request", func(t *testing.T) {
		closedWithin(t, "GET "+AssetURL("app.css")+" HTTP/1.1\r\nHost: x\r\n\r\n")
	})
}

// TestFastPathClose checks that closing the listener ends the connections
// that wait for a request, and Accept.
func TestFastPathClose(t *testing.T) {
	_, fast, fl := fastPair(t, testTimeouts)
	c, err := net.Dial("tcp", fast)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET "+AssetURL("app.css")+" HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, fl.Close())
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the idle connection was not closed")
	_, err = fl.Accept()
	assert.ErrorIs(t, err, net.ErrClosed)
}

// FuzzFastHead reads arbitrary bytes as a request head: never a panic, and
// what the fast path takes is a GET or HEAD of a plain name under
// StaticPrefix.
func FuzzFastHead(f *testing.F) {
	f.Add([]byte("GET /static/app.css HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"))
	f.Add([]byte("HEAD /static/a HTTP/1.0\r\nConnection: keep-alive, close\r\nIf-None-Match: *\r\n\r\n"))
	f.Add([]byte("GET /static/app.css HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"))
	f.Add([]byte("GET /static/../x HTTP/1.1\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, state := headEnd(data)
		if state != headComplete {
			return
		}
		require.LessOrEqual(t, n, len(data))
		fc := &fastConn{}
		req, ok := fc.parse(data[:n])
		if !ok {
			return
		}
		name, found := strings.CutPrefix(string(req.target), StaticPrefix)
		require.True(t, found)
		require.True(t, assetName([]byte(name)))
		require.True(t, strings.HasPrefix(string(data), "GET ") || strings.HasPrefix(string(data), "HEAD "))
	})
}
