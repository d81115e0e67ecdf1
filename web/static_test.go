package web

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/templates"
)

// writeCounter records a response and counts the calls to Write and to
// ReadFrom, which net/http's own ResponseWriter has too (and implements,
// for anything but a file, by copying through a 32 KB buffer after
// sending the header on its own).
type writeCounter struct {
	*httptest.ResponseRecorder
	writes, readFroms int
}

func (w *writeCounter) Write(b []byte) (int, error) {
	w.writes++
	return w.ResponseRecorder.Write(b)
}

func (w *writeCounter) ReadFrom(r io.Reader) (int64, error) {
	w.readFroms++
	return io.Copy(w.ResponseRecorder, r)
}

// TestStaticIsOneWrite: whatever the encoding, a static file is sent in one
// Write with its Content-Length (http.ServeContent copied the plain file
// through a 32 KB buffer, header and body apart).
func TestStaticIsOneWrite(t *testing.T) {
	h := newTestHandler(t, Options{})
	orig, err := static.ReadFile("static/app.css")
	require.NoError(t, err)
	for _, accept := range []string{"", "gzip", "br"} {
		req := httptest.NewRequest(http.MethodGet, AssetURL("app.css"), nil)
		req.Header.Set("Accept-Encoding", accept)
		w := &writeCounter{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(w, req)
		require.Equal(t, http.StatusOK, w.Code, accept)
		assert.Equal(t, 1, w.writes, "%q: writes", accept)
		assert.Zero(t, w.readFroms, "%q: ReadFrom", accept)
		assert.Equal(t, strconv.Itoa(w.Body.Len()), w.Header().Get("Content-Length"), accept)
		if accept == "" {
			assert.Equal(t, orig, w.Body.Bytes())
		}
	}
}

// sharedRecorder is a writer that takes shared bodies (SharedWriter) and
// keeps the slices it was handed.
type sharedRecorder struct {
	*httptest.ResponseRecorder
	shared [][]byte
}

func (w *sharedRecorder) WriteShared(b []byte) (int, error) {
	w.shared = append(w.shared, b)
	return w.ResponseRecorder.Write(b)
}

// TestSharedBodiesAreHandedOn: to a writer that can keep a body uncopied
// (cmd/serve's), a static file in each coding and a kept page are handed as
// the slice the handler keeps, the same slice for every request, through
// the security headers' wrapper; a HEAD request hands nothing.
func TestSharedBodiesAreHandedOn(t *testing.T) {
	page := Page{Pattern: "GET /kept", Reuse: true, Render: func(*http.Request) (templ.Component, error) {
		return templ.Raw("<p>" + strings.Repeat("kept page ", 200) + "</p>"), nil
	}}
	h := newTestHandler(t, Options{Pages: []Page{page}})
	for _, c := range []struct{ path, accept string }{
		{AssetURL("app.css"), ""}, {AssetURL("app.css"), "gzip"}, {AssetURL("app.css"), "br"},
		{"/kept", ""}, {"/kept", "br"},
		{AssetURL("app.css"), "range"}, // a part is a slice of the kept body
	} {
		var first []byte
		for range 2 {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			req.Header.Set("Accept-Encoding", c.accept)
			status := http.StatusOK
			if c.accept == "range" {
				req.Header.Del("Accept-Encoding")
				req.Header.Set("Range", "bytes=10-19")
				status = http.StatusPartialContent
			}
			w := &sharedRecorder{ResponseRecorder: httptest.NewRecorder()}
			h.ServeHTTP(w, req)
			require.Equal(t, status, w.Code, c)
			require.Len(t, w.shared, 1, "%v: the body is handed on whole, once", c)
			assert.Equal(t, w.Body.Bytes(), w.shared[0], c)
			if first == nil {
				first = w.shared[0]
			} else {
				assert.Same(t, &first[0], &w.shared[0][0], "%v: the kept slice, not a copy", c)
			}
		}
		req := httptest.NewRequest(http.MethodHead, c.path, nil)
		w := &sharedRecorder{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(w, req)
		assert.Empty(t, w.shared, "%v: HEAD", c)
	}
}

// TestStaticAllocatesLittle: serving a static file costs a couple of small
// allocations, not a copy of the file (the handler alone, without the
// server around it; BenchmarkStatic times it).
func TestStaticAllocatesLittle(t *testing.T) {
	h := newTestHandler(t, Options{Precompress: true})
	for _, accept := range []string{"", "gzip", "gzip, deflate, br, zstd"} {
		req := httptest.NewRequest(http.MethodGet, AssetURL("app.css"), nil)
		req.Header.Set("Accept-Encoding", accept)
		w := &discard{h: http.Header{}}
		allocs := testing.AllocsPerRun(200, func() {
			clear(w.h)
			h.ServeHTTP(w, req)
		})
		assert.LessOrEqual(t, allocs, 3.0, "Accept-Encoding %q", accept)
	}
}

// TestStaticRange: the plain file still answers a Range request, with its
// ETag for If-Range.
func TestStaticRange(t *testing.T) {
	h := newTestHandler(t, Options{})
	orig, err := static.ReadFile("static/app.css")
	require.NoError(t, err)
	u := AssetURL("app.css")
	etag := get(h, u).Header().Get("ETag")

	rec := get(h, u, "Range", "bytes=10-19")
	require.Equal(t, http.StatusPartialContent, rec.Code)
	assert.Equal(t, orig[10:20], rec.Body.Bytes())
	assert.Equal(t, etag, rec.Header().Get("ETag"))

	assert.Equal(t, "bytes 10-19/"+strconv.Itoa(len(orig)), rec.Header().Get("Content-Range"))
	assert.Equal(t, "10", rec.Header().Get("Content-Length"))
	assert.Equal(t, "bytes", rec.Header().Get("Accept-Ranges"))

	rec = get(h, u, "Range", "bytes=10-19", "If-Range", `"0000000000000000"`)
	assert.Equal(t, http.StatusOK, rec.Code, "a stale If-Range gets the whole file")
	assert.Equal(t, orig, rec.Body.Bytes())
	rec = get(h, u, "Range", "bytes=10-19", "If-Range", etag)
	assert.Equal(t, http.StatusPartialContent, rec.Code, "a current If-Range gets the part")

	n := len(orig)
	for spec, want := range map[string][]byte{
		"bytes=-5":                         orig[n-5:],
		"bytes=-99999999":                  orig,
		"bytes=5-":                         orig[5:],
		"bytes=0-99999999":                 orig,
		"bytes=" + strconv.Itoa(n-1) + "-": orig[n-1:],
	} {
		rec = get(h, u, "Range", spec)
		require.Equal(t, http.StatusPartialContent, rec.Code, spec)
		assert.Equal(t, want, rec.Body.Bytes(), spec)
		assert.Equal(t, strconv.Itoa(len(want)), rec.Header().Get("Content-Length"), spec)
	}
	rec = get(h, u, "Range", "bytes="+strconv.Itoa(n)+"-")
	assert.Equal(t, http.StatusRequestedRangeNotSatisfiable, rec.Code, "a range past the end")
	assert.Equal(t, "bytes */"+strconv.Itoa(n), rec.Header().Get("Content-Range"))
	// Several ranges, or one this does not read, get the whole file, as a
	// server may always answer: parts as multipart/byteranges would each
	// be a copy of the file.
	for _, spec := range []string{"bytes=0-1,5-6", "bytes=9-3", "bytes=x-", "bytes=-0", "lines=1-2", "bytes=+1-2"} {
		rec = get(h, u, "Range", spec)
		assert.Equal(t, http.StatusOK, rec.Code, spec)
		assert.Equal(t, orig, rec.Body.Bytes(), spec)
	}
}

// TestPagesInBrotli: a page is brotli for a client that prefers it, gzip for
// one that takes only gzip, each with its own ETag that revalidates to 304;
// a kept page is compressed once.
func TestPagesInBrotli(t *testing.T) {
	h := newTestHandler(t, Options{Scenarios: []templates.CatalogItem{{ID: "a/b", Title: "A title", Summary: strings.Repeat("words ", 400), Href: "/x"}}})
	plain := get(h, "/")
	require.Equal(t, http.StatusOK, plain.Code)

	etags := map[string]bool{plain.Header().Get("ETag"): true}
	for accept, want := range map[string]string{"gzip, deflate, br, zstd": "br", "br": "br", "gzip": "gzip"} {
		rec := get(h, "/", "Accept-Encoding", accept)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, want, rec.Header().Get("Content-Encoding"), accept)
		assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))
		var r io.Reader
		if want == "br" {
			r = brotli.NewReader(bytes.NewReader(rec.Body.Bytes()))
		} else {
			zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
			require.NoError(t, err)
			r = zr
		}
		body, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.Equal(t, plain.Body.String(), string(body), accept)

		etag := rec.Header().Get("ETag")
		assert.Regexp(t, `^"[0-9a-f]{16}-`+want+`"$`, etag)
		etags[etag] = true
		again := get(h, "/", "Accept-Encoding", accept, "If-None-Match", etag)
		assert.Equal(t, http.StatusNotModified, again.Code)
		assert.Zero(t, again.Body.Len())
	}
	assert.Len(t, etags, 3, "identity, br and gzip have an ETag each")
}

// TestReuseKey: the key of a kept page sorts the query, holds the headers
// the page varies by, and tells https from http, whether the server saw TLS
// or, as on a Worker, the request's URL says so.
func TestReuseKey(t *testing.T) {
	vary := []string{"Host"}
	key := func(target string) string {
		return reuseKey(httptest.NewRequest(http.MethodGet, target, nil), vary)
	}
	assert.Equal(t, key("/s?b=2&a=1"), key("/s?a=1&b=2"))
	assert.NotEqual(t, key("http://one.example/s"), key("http://two.example/s"))
	assert.NotEqual(t, key("http://one.example/s"), key("https://one.example/s"))
	secure := httptest.NewRequest(http.MethodGet, "/s", nil)
	secure.TLS = &tls.ConnectionState{}
	assert.NotEqual(t, key("/s"), reuseKey(secure, vary))
}

// TestReusedPagesKeepOnePerHost: a kept page that varies by Host is kept
// once per host (net/http holds the Host apart from the other headers).
func TestReusedPagesKeepOnePerHost(t *testing.T) {
	page := Page{Pattern: "GET /h", Reuse: true, Vary: []string{"Host"}, Render: func(r *http.Request) (templ.Component, error) {
		return templ.Raw("<p>" + r.Host + "</p>"), nil
	}}
	h := newTestHandler(t, Options{Pages: []Page{page}})
	for _, host := range []string{"one.example", "two.example", "one.example"} {
		rec := get(h, "http://"+host+"/h")
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, "<p>"+host+"</p>", rec.Body.String())
	}
}

// keepRecorder records what a handler promises through Keeper.
type keepRecorder struct {
	*httptest.ResponseRecorder
	fields []string
	kept   bool
}

func (k *keepRecorder) Keep(fields ...string) { k.fields, k.kept = fields, true }

// TestStaticFilesMayBeKept: a static file's answer names, through the
// security headers' wrapper, the request fields it is read from (cmd/serve
// keeps it for them); a file the site does not have, and a page, name none.
// Each field it names changes the answer, so none is named in vain.
func TestStaticFilesMayBeKept(t *testing.T) {
	page := Page{Pattern: "GET /kept", Reuse: true, Render: func(*http.Request) (templ.Component, error) {
		return templ.Raw("<p>kept page</p>"), nil
	}}
	h := newTestHandler(t, Options{Pages: []Page{page}, Precompress: true})
	serve := func(path string, header ...string) *keepRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := &keepRecorder{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(w, req)
		return w
	}
	css := AssetURL("app.css")
	for _, path := range []string{css, "/static/app.css"} {
		w := serve(path)
		require.Equal(t, http.StatusOK, w.Code, path)
		assert.True(t, w.kept, path)
		assert.Equal(t, []string{"Accept-Encoding", "If-None-Match", "Range", "If-Range"}, w.fields, path)
	}
	assert.False(t, serve("/static/nothing.css").kept, "a missing file")
	assert.False(t, serve("/kept").kept, "a page")

	plain := serve(css)
	etag := plain.Header().Get("Etag")
	assert.NotEqual(t, plain.Header().Get("Content-Encoding"), serve(css, "Accept-Encoding", "br").Header().Get("Content-Encoding"), "Accept-Encoding")
	assert.Equal(t, http.StatusNotModified, serve(css, "If-None-Match", etag).Code, "If-None-Match")
	assert.Equal(t, http.StatusPartialContent, serve(css, "Range", "bytes=0-9").Code, "Range")
	assert.Equal(t, http.StatusOK, serve(css, "Range", "bytes=0-9", "If-Range", `"stale"`).Code, "If-Range")
}
