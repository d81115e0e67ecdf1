package web

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/a-h/templ"

	"github.com/tidemark/tidemark/templates"
)

// renderPage adapts a Page's Render func to an http.Handler. With a cache,
// a page that rendered is kept under its request's key and served from
// there; concurrent requests for a page being rendered wait for it rather
// than render it again.
func renderPage(render func(*http.Request) (templ.Component, error), vary []string, cache *pageCache, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, v := range vary {
			w.Header().Add("Vary", v)
		}
		if cache == nil || r.Method != http.MethodGet && r.Method != http.MethodHead {
			serveRendered(w, r, render, logger, gzip.DefaultCompression)
			return
		}
		key := reuseKey(r, vary)
		resp, lead := cache.get(r.Context(), key)
		if resp != nil {
			resp.serve(w, r)
			return
		}
		if !lead { // gave up waiting for another request's render
			serveRendered(w, r, render, logger, gzip.DefaultCompression)
			return
		}
		defer cache.done(key)
		if resp := serveRendered(w, r, render, logger, gzip.BestCompression); resp != nil {
			cache.put(key, resp)
		}
	})
}

// serveRendered renders a page and answers with it, or with the page of
// its error; it returns the response when it was a page to keep.
func serveRendered(w http.ResponseWriter, r *http.Request, render func(*http.Request) (templ.Component, error), logger *slog.Logger, level int) *response {
	c, err := render(r)
	switch {
	case errors.Is(err, ErrNotFound):
		what := strings.TrimSuffix(strings.TrimSuffix(err.Error(), ErrNotFound.Error()), ": ")
		Render(w, r, http.StatusNotFound, templates.NotFound(templates.NotFoundView{
			Layout: NewLayoutView("Not found", "app.js"),
			What:   what,
		}))
	case errors.Is(err, ErrBusy):
		w.Header().Set("Retry-After", RetryAfter)
		if c == nil {
			c = templates.Unavailable(templates.UnavailableView{Layout: NewLayoutView("Busy"), Why: sentence(err)})
		}
		Render(w, r, http.StatusServiceUnavailable, c)
	case err != nil:
		logger.ErrorContext(r.Context(), "web: render page", "path", r.URL.Path, "err", err)
		http.Error(w, "the page could not be built", http.StatusInternalServerError)
	default:
		resp, err := newResponse(r.Context(), http.StatusOK, c, level)
		if err != nil {
			renderFailed(w, r, err)
			return nil
		}
		resp.serve(w, r)
		return resp
	}
	return nil
}

// sentence makes an error's text a sentence: capitalised, with a full stop.
func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	if c := s[0]; c >= 'a' && c <= 'z' {
		s = string(c-'a'+'A') + s[1:]
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// reuseKey is what a kept page is filed under: the path, the query with its
// keys sorted, and the values of the headers the page varies by.
func reuseKey(r *http.Request, vary []string) string {
	var b strings.Builder
	b.WriteString(r.URL.Path)
	b.WriteByte('?')
	b.WriteString(r.URL.Query().Encode())
	for _, v := range vary {
		val := r.Header.Get(v)
		if http.CanonicalHeaderKey(v) == "Host" {
			val = r.Host // net/http moves the Host header out of r.Header
		}
		b.WriteString("\n" + v + ": " + val)
	}
	if r.TLS != nil {
		b.WriteString("\ntls")
	}
	return b.String()
}

// Render writes c as a complete HTML response with the given status. It
// renders into a buffer first, so a failing component yields a 500 rather
// than a truncated page. Pages are revalidated on every visit (Cache-Control:
// no-cache), because their asset URLs change with each build; a page
// answered with 200 to a GET carries an ETag, so revalidation is a 304.
func Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	resp, err := newResponse(r.Context(), status, c, gzip.DefaultCompression)
	if err != nil {
		renderFailed(w, r, err)
		return
	}
	resp.serve(w, r)
}

func renderFailed(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, context.Canceled) {
		slog.ErrorContext(r.Context(), "web: render component", "path", r.URL.Path, "err", err)
	}
	http.Error(w, "the page could not be built", http.StatusInternalServerError)
}

// response is a rendered page: its body, its gzip form when that is
// smaller, and the ETag of each.
type response struct {
	status     int
	body, gz   []byte
	etag, gzip string // strong ETags of body and gz; empty when the status is not 200
}

// newResponse renders c. A lesson page is half a megabyte of HTML (every
// embedded scenario drawn for readers without JavaScript); gzip brings it to
// a tenth. A page made per request gets a fast level; a page kept for reuse
// is compressed once, at the best level.
func newResponse(ctx context.Context, status int, c templ.Component, level int) (*response, error) {
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		return nil, err
	}
	resp := &response{status: status, body: buf.Bytes()}
	if len(resp.body) > 1024 {
		var zipped bytes.Buffer
		zw, err := gzip.NewWriterLevel(&zipped, level)
		if err == nil {
			_, err = zw.Write(resp.body)
		}
		if err == nil {
			err = zw.Close()
		}
		if err == nil && zipped.Len() < len(resp.body) {
			resp.gz = zipped.Bytes()
		}
	}
	if status == http.StatusOK {
		sum := sha256.Sum256(resp.body)
		tag := hex.EncodeToString(sum[:8])
		resp.etag = strconv.Quote(tag)
		resp.gzip = strconv.Quote(tag + "-gzip")
	}
	return resp, nil
}

// size is what keeping the response costs.
func (p *response) size() int { return len(p.body) + len(p.gz) }

// serve answers r with the page: gzipped when the client accepts it, and
// 304 Not Modified when the client's copy has the same ETag.
func (p *response) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	body, etag := p.body, p.etag
	if p.gz != nil && slices.Contains(acceptedCodings(r.Header.Get("Accept-Encoding")), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body, etag = p.gz, p.gzip
	}
	if etag != "" && r.Method != http.MethodPost {
		h.Set("ETag", etag)
		if noneMatch(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// DefaultCacheBytes bounds the pages kept for reuse when Options.CacheBytes
// is zero: the lesson pages and a few hundred scenario pages.
const DefaultCacheBytes = 32 << 20

// pageCache keeps rendered pages by key, least recently used first out,
// within a number of bytes; and it lets one request render a page that
// others are waiting for.
//
// Invariant: bytes is the sum of the kept responses' sizes, at most max.
type pageCache struct {
	mu       sync.Mutex
	max      int
	bytes    int
	order    *list.List               // of *kept, most recently used first
	byKey    map[string]*list.Element // into order
	inFlight map[string]chan struct{} // closed when the page's render is done
}

type kept struct {
	key  string
	resp *response
}

func newPageCache(maxBytes int) *pageCache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &pageCache{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}, inFlight: map[string]chan struct{}{}}
}

// get returns the page kept under key. When there is none, lead says the
// caller is to render it, then call done(key) (and put, if it rendered).
// While another request is rendering it, get waits for that first; if ctx
// ends meanwhile it returns neither, and the caller renders on its own.
func (c *pageCache) get(ctx context.Context, key string) (resp *response, lead bool) {
	for {
		c.mu.Lock()
		if e, ok := c.byKey[key]; ok {
			c.order.MoveToFront(e)
			c.mu.Unlock()
			return e.Value.(*kept).resp, false
		}
		wait, busy := c.inFlight[key]
		if !busy {
			c.inFlight[key] = make(chan struct{})
			c.mu.Unlock()
			return nil, true
		}
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// done ends the render of key that get handed to the caller.
func (c *pageCache) done(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.inFlight[key]; ok {
		close(ch)
		delete(c.inFlight, key)
	}
}

// put keeps resp under key, dropping the least recently used pages to make
// room. A page larger than a quarter of the cache is not kept.
func (c *pageCache) put(key string, resp *response) {
	n := resp.size()
	if n > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.bytes -= e.Value.(*kept).resp.size()
		c.order.Remove(e)
	}
	for c.bytes+n > c.max {
		last := c.order.Back()
		k := last.Value.(*kept)
		c.bytes -= k.resp.size()
		delete(c.byKey, k.key)
		c.order.Remove(last)
	}
	c.byKey[key] = c.order.PushFront(&kept{key: key, resp: resp})
	c.bytes += n
}
