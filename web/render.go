package web

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
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
	// Vary is the same for every response of the route: made once, with
	// len == cap (see encoding.go).
	varyHeader := slices.Clip(append(slices.Clone(vary), "Accept-Encoding"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()[hdrVary] = varyHeader
		if cache == nil || r.Method != http.MethodGet && r.Method != http.MethodHead {
			serveRendered(w, r, render, logger, false)
			return
		}
		key := reuseKey(r, vary)
		resp, lead := cache.get(r.Context(), key)
		if resp != nil {
			resp.serve(w, r)
			return
		}
		if !lead { // gave up waiting for another request's render
			serveRendered(w, r, render, logger, false)
			return
		}
		defer cache.done(key)
		if resp := serveRendered(w, r, render, logger, true); resp != nil {
			cache.put(key, resp)
		}
	})
}

// serveRendered renders a page and answers with it, or with the page of
// its error; it returns the response when it was a page to keep (keep says
// whether it will be).
func serveRendered(w http.ResponseWriter, r *http.Request, render func(*http.Request) (templ.Component, error), logger *slog.Logger, keep bool) *response {
	c, err := render(r)
	switch {
	case errors.Is(err, ErrNotFound):
		if c == nil {
			what := strings.TrimSuffix(strings.TrimSuffix(err.Error(), ErrNotFound.Error()), ": ")
			v := templates.NotFoundView{What: what}
			scripts := []string{"app.js"}
			if p, ok := PublishedFrom(r.Context()); ok {
				v.EmbedNotFoundURL = "/embed/404.html"
				if v.Pages = p.Pages; len(v.Pages) > 0 {
					scripts = append(scripts, "near.js") // names the pages near the address
				}
			}
			v.Layout = NewLayoutView("Not found", scripts...)
			c = templates.NotFound(v)
		}
		Render(w, r, http.StatusNotFound, c)
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
		resp, err := newResponse(r.Context(), http.StatusOK, c, keep)
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
// keys sorted, the values of the headers the page varies by, and whether
// it was asked for over https. The headers SiteURL reads (OriginHeaders)
// count only through the address SiteURL makes of them: a proxy that
// writes each visitor's address into Forwarded (for=…) does not make a
// page per visitor, and a visitor cannot fill the cache with copies of one
// page by sending Forwarded values of their own.
func reuseKey(r *http.Request, vary []string) string {
	query := ""
	if r.URL.RawQuery != "" {
		// A query with a pair that cannot be read makes a page that says
		// so: it is filed under its raw text, apart from the same query
		// without that pair.
		if q, err := url.ParseQuery(r.URL.RawQuery); err == nil {
			query = q.Encode()
		} else {
			query = "\x00" + r.URL.RawQuery
		}
	}
	origin := ""
	n := len(r.URL.Path) + 1 + len(query) + 4
	for _, v := range vary {
		if isOriginHeader(v) {
			if origin == "" {
				origin = "\norigin: " + SiteURL(r)
			}
			continue
		}
		n += len(v) + 3 + len(headerValue(r, v))
	}
	var b strings.Builder
	b.Grow(n + len(origin))
	b.WriteString(r.URL.Path)
	b.WriteByte('?')
	b.WriteString(query)
	for _, v := range vary {
		if isOriginHeader(v) {
			continue
		}
		b.WriteByte('\n')
		b.WriteString(v)
		b.WriteString(": ")
		b.WriteString(headerValue(r, v))
	}
	b.WriteString(origin)
	if r.TLS != nil || r.URL.Scheme == "https" { // a Worker's request has an absolute URL
		b.WriteString("\ntls")
	}
	return b.String()
}

// headerValue returns the value of a request header, the Host included,
// which net/http moves out of the header map into r.Host.
func headerValue(r *http.Request, name string) string {
	if strings.EqualFold(name, "Host") {
		return r.Host
	}
	return r.Header.Get(name)
}

// Render writes c as a complete HTML response with the given status. It
// renders into a buffer first, so a failing component yields a 500 rather
// than a truncated page. Pages are revalidated on every visit (Cache-Control:
// no-cache), because their asset URLs change with each build; a page
// answered with 200 to a GET carries an ETag, so revalidation is a 304.
func Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	resp, err := newResponse(r.Context(), status, c, false)
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

// response is a rendered page: its body and, when they are smaller, its
// brotli and gzip forms, each with its own ETag (none when the status is not
// 200).
type response struct {
	status   int
	keep     bool   // kept for reuse: compressed once, at once, gzip at the best level
	tag      string // the unquoted ETag of the body; "" when the status is not 200
	identity *variant
	br, gz   lazyVariant
}

// minCompress is the size under which a page is sent as is: compressing a
// few hundred bytes saves less than it costs.
const minCompress = 1024

// newResponse renders c. A lesson page is half a megabyte of HTML (every
// embedded scenario drawn for readers without JavaScript); brotli and gzip
// bring it to a tenth. A page kept for reuse (keep) is compressed in both
// codings before it is kept, so that what the cache holds does not grow; a
// page made for one request is compressed only in the coding it is sent in.
func newResponse(ctx context.Context, status int, c templ.Component, keep bool) (*response, error) {
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		return nil, err
	}
	resp := &response{status: status, keep: keep}
	if status == http.StatusOK {
		sum := sha256.Sum256(buf.Bytes())
		resp.tag = hex.EncodeToString(sum[:8])
	}
	resp.identity = newVariant(buf.Bytes(), "", resp.tag)
	if keep {
		resp.encoded("br")
		resp.encoded("gzip")
	}
	return resp, nil
}

// encoded returns the page in coding ("br" or "gzip"), compressing it the
// first time, or nil when that form would not be smaller or the handler
// leaves compression to the platform (see compressPage).
func (p *response) encoded(coding string) *variant {
	if len(p.identity.body) < minCompress {
		return nil
	}
	lazy := &p.br
	if coding == "gzip" {
		lazy = &p.gz
	}
	lazy.once.Do(func() {
		data, err := compressPage(p.identity.body, coding, p.keep)
		if err == nil && data != nil && len(data) < len(p.identity.body) {
			lazy.v = newVariant(data, coding, p.tag)
		}
	})
	return lazy.v
}

// size is what keeping the response costs.
func (p *response) size() int {
	n := len(p.identity.body)
	for _, v := range []*variant{p.br.v, p.gz.v} {
		if v != nil {
			n += len(v.body)
		}
	}
	return n
}

// serve answers r with the page: brotli or gzip when the client accepts
// it, and 304 Not Modified when the client's copy has the same ETag. Like
// serveStatic, it sets shared header values directly.
func (p *response) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h[hdrContentType] = htmlType
	h[hdrCacheControl] = noCache
	if p.status == http.StatusServiceUnavailable {
		h[hdrCacheControl] = noStore // busy now, not next time: never keep it
	}
	switch vary := h[hdrVary]; {
	case len(vary) == 0:
		h[hdrVary] = varyAcceptEncoding
	case !slices.Contains(vary, "Accept-Encoding"):
		h.Add(hdrVary, "Accept-Encoding")
	}
	v := chooseVariant(r.Header["Accept-Encoding"], p.identity, p.encoded)
	if v.encoding != nil {
		h[hdrContentEncoding] = v.encoding
	}
	if v.etag != nil && r.Method != http.MethodPost {
		h[hdrETag] = v.etag
		if v.matches(r.Header["If-None-Match"]) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h[hdrContentLength] = v.length
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		_, _ = writeShared(w, v.body)
	}
}

// DefaultCacheBytes bounds the pages kept for reuse when Options.CacheBytes
// is zero: the lesson pages and a few hundred scenario pages.
const DefaultCacheBytes = 32 << 20

// pageCache keeps rendered pages by key, least recently used first out,
// within a number of bytes; and it lets one request render a page that
// others are waiting for.
//
// Invariant: bytes is the sum of the kept entries' costs (a response's
// size plus its key's, since a key carries a visitor's query), at most max.
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
	cost int // len(key) + resp.size() when it was kept
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
// room. A page that would cost more than a quarter of the cache is not kept.
func (c *pageCache) put(key string, resp *response) {
	n := len(key) + resp.size()
	if n > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.bytes -= e.Value.(*kept).cost
		c.order.Remove(e)
	}
	for c.bytes+n > c.max {
		last := c.order.Back()
		k := last.Value.(*kept)
		c.bytes -= k.cost
		delete(c.byKey, k.key)
		c.order.Remove(last)
	}
	c.byKey[key] = c.order.PushFront(&kept{key: key, resp: resp, cost: n})
	c.bytes += n
}
