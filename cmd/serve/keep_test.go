//go:build !js

package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// TestKeptResponsesSkipTheHandler: a static file asked for again with the
// same fields is answered without the handler; other values of the fields
// it depends on, a Range (whose 206 is not kept) and a request net/http
// would refuse reach the handler or its refusal, never a kept answer.
func TestKeptResponsesSkipTheHandler(t *testing.T) {
	site, err := siteHandler()
	require.NoError(t, err)
	var calls atomic.Int64
	base := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		site.ServeHTTP(w, r)
	}))
	resp, err := http.Get(base + "/")
	require.NoError(t, err)
	home := answerOf(t, resp)
	css := string(stylesheet.Find([]byte(home.Body)))
	require.NotEmpty(t, css)

	ask := func(fields ...string) answer {
		t.Helper()
		return answerOf(t, raw(t, base, "GET "+css+" HTTP/1.1\r\nHost: tidemark.test\r\n"+strings.Join(fields, "")+"\r\n"))
	}
	handled := func() int64 { return calls.Load() }

	before := handled()
	first := ask()
	require.Equal(t, http.StatusOK, first.Status)
	assert.Equal(t, before+1, handled(), "the first request reaches the handler")
	again := ask()
	assert.Equal(t, before+1, handled(), "the same request again is answered from what was kept")
	assert.Equal(t, first, again)

	br := ask("Accept-Encoding: br\r\n")
	assert.Equal(t, before+2, handled(), "another Accept-Encoding is another answer")
	assert.Equal(t, "br", br.Header.Get("Content-Encoding"))
	assert.Equal(t, br, ask("Accept-Encoding: br\r\n"))
	assert.Equal(t, before+2, handled())
	// A field given twice is read whole: not the answer to its first value.
	assert.Equal(t, before+2, handled())
	ask("Accept-Encoding: br\r\n", "Accept-Encoding: gzip\r\n")
	assert.Equal(t, before+3, handled(), "a second Accept-Encoding field is part of the key")

	ask("Range: bytes=0-9\r\n")
	ask("Range: bytes=0-9\r\n")
	assert.Equal(t, before+5, handled(), "a part (206) is not kept")

	notModified := ask("If-None-Match: " + first.Header.Get("Etag") + "\r\n")
	assert.Equal(t, http.StatusNotModified, notModified.Status)
	assert.Equal(t, notModified, ask("If-None-Match: "+first.Header.Get("Etag")+"\r\n"))
	assert.Equal(t, before+6, handled(), "a 304 is kept for its ETag")

	// What net/http refuses before any handler is refused still.
	twoHosts := answerOf(t, raw(t, base, "GET "+css+" HTTP/1.1\r\nHost: tidemark.test\r\nHost: other.test\r\n\r\n"))
	assert.Equal(t, http.StatusBadRequest, twoHosts.Status)
	noHost := answerOf(t, raw(t, base, "GET "+css+" HTTP/1.1\r\n\r\n"))
	assert.Equal(t, http.StatusBadRequest, noHost.Status)
	badHost := answerOf(t, raw(t, base, "GET "+css+" HTTP/1.1\r\nHost: a b\r\n\r\n"))
	assert.Equal(t, http.StatusBadRequest, badHost.Status)
	assert.Equal(t, before+6, handled())

	// HEAD is a target of its own: no body, the same fields.
	head := answerOf(t, raw(t, base, "HEAD "+css+" HTTP/1.1\r\nHost: tidemark.test\r\n\r\n"))
	assert.Equal(t, before+7, handled())
	assert.Equal(t, head, answerOf(t, raw(t, base, "HEAD "+css+" HTTP/1.1\r\nHost: tidemark.test\r\n\r\n")))
	assert.Equal(t, before+7, handled())
	assert.Empty(t, head.Body)
	assert.Equal(t, first.Header, head.Header)

	// Pages are the page cache's, not kept here: each reaches the handler.
	for range 2 {
		resp, err := http.Get(base + "/")
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Equal(t, before+9, handled())
}

// TestKeptResponsesAreBounded: a visitor who asks for a static file under
// ever new queries or field values cannot make the server keep more than
// maxKept responses, nor keys longer than maxKeptKey; a target is kept with
// the fields its first answer named only.
func TestKeptResponsesAreBounded(t *testing.T) {
	k := newKeptResponses()
	req := func(target, encoding string) *fasthttp.Request {
		var r fasthttp.Request
		r.SetRequestURI(target)
		r.Header.SetHost("tidemark.test")
		if encoding != "" {
			r.Header.Set("Accept-Encoding", encoding)
		}
		return &r
	}
	fields := []string{"Accept-Encoding"}
	resp := &keptResponse{status: http.StatusOK, body: []byte("body")}

	k.add(req("/static/a.css?"+strings.Repeat("x", maxKeptKey), ""), fields, resp)
	k.add(req("/static/a.css", strings.Repeat("y", maxKeptKey+1)), fields, resp)
	assert.Zero(t, k.count, "a key longer than maxKeptKey is not kept")

	var absolute fasthttp.Request
	absolute.Header.SetRequestURI("http://tidemark.test/static/a.css")
	absolute.Header.SetHost("tidemark.test")
	k.add(&absolute, fields, resp)
	assert.Zero(t, k.count, "an absolute address as target is not kept")

	k.add(req("/static/a.css", "br"), fields, resp)
	assert.Same(t, resp, k.find(req("/static/a.css", "br")))
	assert.Nil(t, k.find(req("/static/a.css", "gzip")))
	assert.Nil(t, k.find(req("/static/a.css", "")))
	assert.Nil(t, k.find(req("/static/b.css", "br")))
	k.add(req("/static/a.css", "gzip"), []string{"Accept-Encoding", "Range"}, resp)
	assert.Nil(t, k.find(req("/static/a.css", "gzip")), "a target keeps the fields of its first answer")

	for i := 0; k.count < maxKept; i++ {
		k.add(req("/static/a.css?"+strconv.Itoa(i), ""), fields, resp)
	}
	k.add(req("/static/a.css?full", ""), fields, resp)
	assert.Equal(t, maxKept, k.count)
	assert.Nil(t, k.find(req("/static/a.css?full", "")), "once full, nothing more is kept")
	assert.Same(t, resp, k.find(req("/static/a.css", "br")), "what was kept stays")
}
