package web

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web/htmltest"
)

// newTestHandler returns the handler for opts, failing the test on error.
func newTestHandler(t *testing.T, opts Options) http.Handler {
	t.Helper()
	h, err := NewHandler(opts)
	if err != nil {
		t.Fatalf("NewHandler: %v", err)
	}
	return h
}

// get performs one request against h.
func get(h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	h := newTestHandler(t, Options{})
	for _, target := range []string{"/", "/healthz", AssetURL("app.css"), "/static/nope.css", "/no/such/page"} {
		rec := get(h, target)
		csp := rec.Header().Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", target, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP allows unsafe-inline: %q", target, csp)
		}
		if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options = %q", target, got)
		}
		if got := rec.Header().Get("Referrer-Policy"); got != "strict-origin-when-cross-origin" {
			t.Errorf("%s: Referrer-Policy = %q", target, got)
		}
	}
}

// TestOnlyEmbeddablePagesMayBeFramedElsewhere: a page marked Embeddable
// (the embed page, pictures) may be framed by any site, or by the sites
// Options.FrameAncestors lists; every other response only by the site
// itself, with X-Frame-Options for browsers that predate frame-ancestors.
func TestOnlyEmbeddablePagesMayBeFramedElsewhere(t *testing.T) {
	page := func(*http.Request) (templ.Component, error) { return templ.Raw("<p>x</p>"), nil }
	pages := []Page{
		{Pattern: "GET /embed/{id}", Render: page, Embeddable: true},
		{Pattern: "GET /scenarios/{id}", Render: page},
	}
	for _, tc := range []struct {
		opt, embed string
	}{{"", "frame-ancestors *"}, {"https://docs.example", "frame-ancestors https://docs.example"}} {
		h := newTestHandler(t, Options{FrameAncestors: tc.opt, Pages: pages})
		rec := get(h, "/embed/x")
		assert.True(t, strings.HasSuffix(rec.Header().Get("Content-Security-Policy"), tc.embed), rec.Header().Get("Content-Security-Policy"))
		assert.Empty(t, rec.Header().Get("X-Frame-Options"))
		for _, target := range []string{"/", "/scenarios/x", "/healthz", "/nope", AssetURL("app.css")} {
			rec := get(h, target)
			assert.True(t, strings.HasSuffix(rec.Header().Get("Content-Security-Policy"), "frame-ancestors 'self'"), "%s: %s", target, rec.Header().Get("Content-Security-Policy"))
			assert.Equal(t, "SAMEORIGIN", rec.Header().Get("X-Frame-Options"), target)
		}
	}
}

// TestSVGResponsesGetTheirOwnPolicy: whatever handler answers with SVG (an
// asset, an embeddable picture, its error), the response carries a policy
// that allows nothing and sandboxes the document, keeping the route's
// frame-ancestors, and never the pages' policy.
func TestSVGResponsesGetTheirOwnPolicy(t *testing.T) {
	svg := func(status int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/svg+xml")
			w.WriteHeader(status)
			_, _ = w.Write([]byte("<svg xmlns='http://www.w3.org/2000/svg'/>"))
		})
	}
	h := newTestHandler(t, Options{Pages: []Page{
		{Pattern: "GET /picture/{id}", Handler: svg(http.StatusOK), Embeddable: true},
		{Pattern: "GET /picture-missing/{id}", Handler: svg(http.StatusNotFound), Embeddable: true},
		{Pattern: "GET /drawn", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/svg+xml")
			_, _ = w.Write([]byte("<svg xmlns='http://www.w3.org/2000/svg'/>")) // no WriteHeader
		})},
	}})
	for target, ancestors := range map[string]string{
		"/picture/a": "*", "/picture-missing/a": "*", "/drawn": "'self'",
		AssetURL("favicon.svg"): "'self'", "/static/favicon.svg": "'self'",
	} {
		rec := get(h, target)
		assert.Equal(t, "default-src 'none'; sandbox; frame-ancestors "+ancestors, rec.Header().Get("Content-Security-Policy"), target)
	}
	assert.Equal(t, http.StatusNotModified, get(h, "/static/favicon.svg", "If-None-Match", get(h, "/static/favicon.svg").Header().Get("ETag")).Code)
}

func TestHome(t *testing.T) {
	h := newTestHandler(t, Options{
		Lessons:   []templates.CatalogItem{{ID: "hwm", Title: "High-water marks", Href: "/lessons/hwm"}},
		Scenarios: []templates.CatalogItem{{ID: "hwm/gap", Title: "A gap", Href: "/scenarios/hwm/gap"}},
	})
	rec := get(h, "/")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET / = %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	doc := htmltest.Parse(t, rec.Body.String())
	if n := len(doc.ByTestID("lesson-item")); n != 1 {
		t.Errorf("found %d lesson items, want 1", n)
	}
	if n := len(doc.ByTestID("scenario-item")); n != 1 {
		t.Errorf("found %d scenario items, want 1", n)
	}
	if v := doc.CSPViolations(); len(v) != 0 {
		t.Errorf("home page breaks the CSP: %q", v)
	}
	// Every asset the page refers to is served.
	for _, n := range append(doc.ByTag("link"), doc.ByTag("script")...) {
		u := htmltest.Attr(n, "href") + htmltest.Attr(n, "src")
		if !strings.HasPrefix(u, StaticPrefix) {
			continue
		}
		if rec := get(h, u); rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d", u, rec.Code)
		}
	}
	for _, target := range []string{"/nope", "/lessons/high-water-mark/x/y", "/static/"} {
		rec := get(h, target)
		assert.Equal(t, http.StatusNotFound, rec.Code, "GET %s", target)
		nf := htmltest.Parse(t, rec.Body.String())
		assert.Equal(t, "Not found", htmltest.Text(nf.One(t, "page-title")), "GET %s answers the site's not-found page, not bare text", target)
	}
}

func TestHealthz(t *testing.T) {
	rec := get(newTestHandler(t, Options{}), "/healthz")
	if rec.Code != http.StatusOK || rec.Body.String() != "ok\n" {
		t.Errorf("GET /healthz = %d %q", rec.Code, rec.Body.String())
	}
}

func TestAssetURL(t *testing.T) {
	if got := AssetURL("app.css"); !regexp.MustCompile(`^/static/app\.[0-9a-f]{8}\.css$`).MatchString(got) {
		t.Errorf("AssetURL(app.css) = %q", got)
	}
	if _, ok := LookupAsset("missing.wasm"); ok {
		t.Error("LookupAsset found a file that does not exist")
	}
	if got := AssetURL("missing.wasm"); got != "/static/missing.wasm" {
		t.Errorf("AssetURL(missing.wasm) = %q", got)
	}
}

func TestStaticAsset(t *testing.T) {
	h := newTestHandler(t, Options{})
	orig, err := static.ReadFile("static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	hashed := AssetURL("app.css")

	decode := map[string]func(io.Reader) (io.Reader, error){
		"":     func(r io.Reader) (io.Reader, error) { return r, nil },
		"gzip": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
		"br":   func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
	}
	for _, tc := range []struct {
		accept, want string
	}{
		{"", ""},
		{"gzip", "gzip"},
		{"gzip, deflate, br, zstd", "br"},
		{"br;q=0.5, gzip", "gzip"},
		{"br;q=0, gzip;q=0", ""},
		{"*", "br"},
		{"identity", ""},
	} {
		t.Run(fmt.Sprintf("accept=%q", tc.accept), func(t *testing.T) {
			rec := get(h, hashed, "Accept-Encoding", tc.accept)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d", hashed, rec.Code)
			}
			hd := rec.Header()
			if got := hd.Get("Content-Encoding"); got != tc.want {
				t.Errorf("Content-Encoding = %q, want %q", got, tc.want)
			}
			if got := hd.Get("Content-Type"); got != "text/css; charset=utf-8" {
				t.Errorf("Content-Type = %q", got)
			}
			if got := hd.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("Cache-Control = %q", got)
			}
			if got := hd.Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("Vary = %q", got)
			}
			if hd.Get("Content-Length") != fmt.Sprint(rec.Body.Len()) {
				t.Errorf("Content-Length = %q for %d bytes", hd.Get("Content-Length"), rec.Body.Len())
			}
			r, err := decode[tc.want](bytes.NewReader(rec.Body.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("decode %s body: %v", tc.want, err)
			}
			if !bytes.Equal(body, orig) {
				t.Errorf("decoded body differs from web/static/app.css")
			}

			etag := hd.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			rec = get(h, hashed, "Accept-Encoding", tc.accept, "If-None-Match", etag)
			if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
				t.Errorf("revalidation with %s = %d with %d bytes, want 304", etag, rec.Code, rec.Body.Len())
			}
		})
	}
}

func TestStaticETagsDifferPerEncoding(t *testing.T) {
	h := newTestHandler(t, Options{})
	seen := map[string]string{}
	for _, enc := range []string{"", "gzip", "br"} {
		etag := get(h, AssetURL("app.js"), "Accept-Encoding", enc).Header().Get("ETag")
		if other, dup := seen[etag]; dup {
			t.Errorf("encodings %q and %q share ETag %s", other, enc, etag)
		}
		seen[etag] = enc
	}
}

func TestStaticNames(t *testing.T) {
	h := newTestHandler(t, Options{})
	rec := get(h, "/static/app.css")
	if rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "no-cache" {
		t.Errorf("plain name: %d, Cache-Control %q; want 200, no-cache", rec.Code, rec.Header().Get("Cache-Control"))
	}
	for _, target := range []string{
		"/static/app.00000000.css", // a hash from another build
		"/static/nope.css",
		"/static/nope.0123abcd.css",
		"/static/tidemark.00000000.wasm",
		"/static/",
		"/static/internal/x.css",
	} {
		if rec := get(h, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", target, rec.Code)
		}
	}
	if rec := get(h, "/static/favicon.svg"); rec.Header().Get("Content-Type") != "image/svg+xml" {
		t.Errorf("favicon Content-Type = %q", rec.Header().Get("Content-Type"))
	}
}

// TestWasmIfBuilt checks the wasm module and its loader when `make wasm` has
// put them in web/static; a fresh clone has neither, and the site still works.
func TestWasmIfBuilt(t *testing.T) {
	h := newTestHandler(t, Options{})
	for name, ct := range map[string]string{"tidemark.wasm": "application/wasm", "wasm_exec.js": "text/javascript; charset=utf-8"} {
		u, ok := LookupAsset(name)
		if !ok {
			t.Logf("%s not built; run `make wasm`", name)
			continue
		}
		rec := get(h, u, "Accept-Encoding", "br")
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != ct || rec.Header().Get("Content-Encoding") != "br" {
			t.Errorf("GET %s = %d, %q, %q", u, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Content-Encoding"))
		}
	}
}

func TestPages(t *testing.T) {
	h := newTestHandler(t, Options{Pages: []Page{
		{
			Pattern: "GET /scenarios/{id...}",
			Render: func(r *http.Request) (templ.Component, error) {
				id := r.PathValue("id")
				switch id {
				case "hwm/gap":
					return templ.Raw("<p data-testid=scenario>" + id + "</p>"), nil
				case "broken":
					return nil, fmt.Errorf("scenario %q: parse: line 3", id)
				}
				return nil, fmt.Errorf("scenario %q: %w", id, ErrNotFound)
			},
		},
		{Pattern: "GET /play", Handler: http.RedirectHandler("/", http.StatusFound)},
	}})

	if rec := get(h, "/scenarios/hwm/gap"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "hwm/gap") {
		t.Errorf("GET /scenarios/hwm/gap = %d %q", rec.Code, rec.Body.String())
	}
	rec := get(h, "/scenarios/hwm/nope")
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /scenarios/hwm/nope = %d, want 404", rec.Code)
	}
	doc := htmltest.Parse(t, rec.Body.String())
	if got := htmltest.Text(doc.One(t, "not-found-what")); !strings.Contains(got, `scenario "hwm/nope"`) {
		t.Errorf("not-found page says %q", got)
	}
	if rec := get(h, "/scenarios/broken"); rec.Code != http.StatusInternalServerError {
		t.Errorf("GET /scenarios/broken = %d, want 500", rec.Code)
	}
	if rec := get(h, "/play"); rec.Code != http.StatusFound {
		t.Errorf("GET /play = %d, want 302", rec.Code)
	}
}

func TestPageErrors(t *testing.T) {
	render := func(*http.Request) (templ.Component, error) { return templ.NopComponent, nil }
	for name, p := range map[string]Page{
		"empty pattern":    {Render: render},
		"no render":        {Pattern: "GET /a"},
		"both":             {Pattern: "GET /a", Render: render, Handler: http.NotFoundHandler()},
		"clash":            {Pattern: "GET /healthz", Render: render},
		"malformed":        {Pattern: "GET /{", Render: render},
		"clash with asset": {Pattern: "GET /static/{file}", Render: render},
	} {
		if _, err := NewHandler(Options{Pages: []Page{p}}); err == nil {
			t.Errorf("%s: NewHandler accepted %+v", name, p.Pattern)
		}
	}
}

// TestChooseVariant: the coding sent is the client's most preferred one
// that the response has, brotli on ties, identity when none fits.
func TestChooseVariant(t *testing.T) {
	identity := newVariant([]byte("x"), "", "t")
	br, gz := newVariant([]byte("b"), "br", "t"), newVariant([]byte("g"), "gzip", "t")
	both := func(c string) *variant { return map[string]*variant{"br": br, "gzip": gz}[c] }
	gzipOnly := func(c string) *variant { return map[string]*variant{"gzip": gz}[c] }
	name := func(v *variant) string {
		if v.encoding == nil {
			return ""
		}
		return v.encoding[0]
	}
	for _, tc := range []struct {
		lines          []string
		want, wantNoBr string
	}{
		{nil, "", ""},
		{[]string{""}, "", ""},
		{[]string{"gzip"}, "gzip", "gzip"},
		{[]string{"br"}, "br", ""},
		{[]string{"gzip, br"}, "br", "gzip"},
		{[]string{"gzip", "br"}, "br", "gzip"}, // two header lines
		{[]string{"GZIP;Q=0.8, BR;q=0.9"}, "br", "gzip"},
		{[]string{"br;q=0.1, gzip;q=0.9"}, "gzip", "gzip"},
		{[]string{"br;q=0.5, gzip;q=0.5"}, "br", "gzip"},
		{[]string{"*;q=0.5, gzip;q=0"}, "br", ""},
		{[]string{"*"}, "br", "gzip"},
		{[]string{"br;q=0, gzip;q=0"}, "", ""},
		{[]string{"deflate, identity"}, "", ""},
	} {
		assert.Equal(t, tc.want, name(chooseVariant(tc.lines, identity, both)), "%q", tc.lines)
		assert.Equal(t, tc.wantNoBr, name(chooseVariant(tc.lines, identity, gzipOnly)), "%q without brotli", tc.lines)
	}
}

func TestHead(t *testing.T) {
	h := newTestHandler(t, Options{})
	for _, target := range []string{"/", AssetURL("app.css")} {
		req := httptest.NewRequest(http.MethodHead, target, nil)
		req.Header.Set("Accept-Encoding", "br")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
			t.Errorf("HEAD %s = %d with %d bytes", target, rec.Code, rec.Body.Len())
		}
	}
}

// TestPagesAreCompressed checks a page is gzipped for a client that accepts
// it, sent as is otherwise, and says it varies by Accept-Encoding.
func TestPagesAreCompressed(t *testing.T) {
	h := newTestHandler(t, Options{Scenarios: []templates.CatalogItem{{ID: "a/b", Title: "A title", Summary: strings.Repeat("words ", 400), Href: "/x"}}})
	plain := get(h, "/")
	require.Equal(t, http.StatusOK, plain.Code)
	assert.Empty(t, plain.Header().Get("Content-Encoding"))
	assert.Contains(t, plain.Header().Values("Vary"), "Accept-Encoding")

	zipped := get(h, "/", "Accept-Encoding", "gzip, deflate")
	require.Equal(t, http.StatusOK, zipped.Code)
	assert.Equal(t, "gzip", zipped.Header().Get("Content-Encoding"))
	zr, err := gzip.NewReader(zipped.Body)
	require.NoError(t, err)
	body, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, plain.Body.String(), string(body))
	assert.Less(t, zipped.Body.Len(), len(body))
}

// TestPagesRevalidateWithETag: a page answered 200 carries a strong ETag per
// representation, and a request that has it gets 304 with no body.
func TestPagesRevalidateWithETag(t *testing.T) {
	h := newTestHandler(t, Options{Scenarios: []templates.CatalogItem{{ID: "a/b", Title: "A", Summary: strings.Repeat("words ", 400), Href: "/x"}}})
	for _, enc := range []string{"", "gzip"} {
		first := get(h, "/", "Accept-Encoding", enc)
		require.Equal(t, http.StatusOK, first.Code)
		etag := first.Header().Get("ETag")
		require.Regexp(t, `^"[0-9a-f]{16}(-gzip)?"$`, etag)
		again := get(h, "/", "Accept-Encoding", enc, "If-None-Match", etag)
		assert.Equal(t, http.StatusNotModified, again.Code, enc)
		assert.Zero(t, again.Body.Len())
		assert.Equal(t, etag, again.Header().Get("ETag"))
		assert.Equal(t, http.StatusOK, get(h, "/", "Accept-Encoding", enc, "If-None-Match", `"0000000000000000"`).Code)
	}
	assert.NotEqual(t, get(h, "/").Header().Get("ETag"), get(h, "/", "Accept-Encoding", "gzip").Header().Get("ETag"))
}

// counted is a Reuse page that counts its renders and can be held mid-render.
type counted struct {
	mu      sync.Mutex
	renders int
	hold    chan struct{} // when set, a render waits for it to close
}

func (c *counted) render(r *http.Request) (templ.Component, error) {
	c.mu.Lock()
	c.renders++
	hold := c.hold
	c.mu.Unlock()
	if hold != nil {
		<-hold
	}
	return templ.Raw("<p>" + strings.Repeat(html.EscapeString(r.URL.RawQuery), 200) + "</p>"), nil
}

func (c *counted) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renders
}

// TestReusedPagesRenderOnce: a page that is a pure function of the build,
// its query and its Vary headers is rendered once per normalised query and
// header values, however many ask at once, and kept within a bound, least
// recently used first out.
func TestReusedPagesRenderOnce(t *testing.T) {
	c := &counted{}
	h := newTestHandler(t, Options{CacheBytes: 64 << 10, Pages: []Page{
		{Pattern: "GET /lessons/{slug}", Render: c.render, Reuse: true, Vary: []string{"X-Forwarded-Proto"}},
	}})
	first := get(h, "/lessons/a?b=2&a=1")
	require.Equal(t, http.StatusOK, first.Code)
	assert.Contains(t, first.Header().Values("Vary"), "X-Forwarded-Proto")
	assert.Equal(t, first.Body.String(), get(h, "/lessons/a?a=1&b=2").Body.String())
	get(h, "/lessons/a?b=2&a=1", "Accept-Encoding", "gzip")
	assert.Equal(t, 1, c.count(), "the same query in another order, and gzipped, is the same page")
	get(h, "/lessons/a?a=1&b=3")
	get(h, "/lessons/a?a=1&b=2", "X-Forwarded-Proto", "https")
	assert.Equal(t, 3, c.count(), "another query, or another value of a Vary header, is another page")

	// The origin headers count only through the address they make: a
	// proxy's for= per visitor, or a visitor's own Forwarded values, do
	// not make another page.
	o := &counted{}
	oh := newTestHandler(t, Options{CacheBytes: 64 << 10, Pages: []Page{
		{Pattern: "GET /lessons/{slug}", Render: o.render, Reuse: true, Vary: OriginHeaders},
	}})
	for i := range 20 {
		get(oh, "/lessons/a", "Forwarded", "for=192.0.2."+strconv.Itoa(i)+";proto=https")
	}
	get(oh, "/lessons/a", "X-Forwarded-Proto", "https")
	assert.Equal(t, 1, o.count(), "twenty visitors behind one proxy, and the same address told another way, are one page")
	get(oh, "/lessons/a", "Forwarded", "for=192.0.2.1")
	get(oh, "/lessons/a", "Forwarded", "for=192.0.2.2;proto=http")
	assert.Equal(t, 2, o.count(), "the same page over http is another")
	req := httptest.NewRequest(http.MethodGet, "/lessons/a", nil)
	req.Host = "other.example"
	oh.ServeHTTP(httptest.NewRecorder(), req)
	assert.Equal(t, 3, o.count(), "another host is another page")

	// Twenty requests for a page being rendered wait for that one render.
	c.mu.Lock()
	c.hold = make(chan struct{})
	c.mu.Unlock()
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = get(h, "/lessons/b").Code
		}()
	}
	require.Eventually(t, func() bool { return c.count() == 4 }, 5*time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond) // let the others line up behind it
	c.mu.Lock()
	close(c.hold)
	c.hold = nil
	c.mu.Unlock()
	wg.Wait()
	assert.Equal(t, 4, c.count())
	for _, code := range codes {
		assert.Equal(t, http.StatusOK, code)
	}

	// 64 KB holds about ten of these pages of about 5 KB (and their gzip):
	// after thirty others, the first is rendered again.
	for i := range 30 {
		get(h, "/lessons/c?n="+strconv.Itoa(i)+strings.Repeat("x", 20))
	}
	before := c.count()
	get(h, "/lessons/a?a=1&b=2")
	assert.Equal(t, before+1, c.count(), "the least recently used page was dropped")
}

// TestBusyPages: a page whose Render reports ErrBusy answers 503 with
// Retry-After, with the page Render drew (the sandbox keeps the visitor's
// text in it) or a page saying why.
func TestBusyPages(t *testing.T) {
	h := newTestHandler(t, Options{Pages: []Page{
		{Pattern: "GET /a", Render: func(*http.Request) (templ.Component, error) {
			return nil, fmt.Errorf("the server is running 2 scenarios already: %w", ErrBusy)
		}, Reuse: true},
		{Pattern: "POST /b", Render: func(*http.Request) (templ.Component, error) {
			return templ.Raw(`<p data-testid="kept">your text</p>`), ErrBusy
		}},
	}})
	rec := get(h, "/a")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, RetryAfter, rec.Header().Get("Retry-After"))
	doc := htmltest.Parse(t, rec.Body.String())
	assert.Equal(t, "The server is running 2 scenarios already: the server is busy.", htmltest.Text(doc.One(t, "unavailable-why")))
	assert.Equal(t, http.StatusServiceUnavailable, get(h, "/a").Code, "a busy answer is not kept")

	req := httptest.NewRequest(http.MethodPost, "/b", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, RetryAfter, w.Header().Get("Retry-After"))
	assert.Equal(t, "your text", htmltest.Text(htmltest.Parse(t, w.Body.String()).One(t, "kept")))
	assert.Empty(t, w.Header().Get("ETag"))
}

// TestReusedPagesVaryByHost: a kept page that varies by Host is kept once
// per host. net/http moves the Host header out of the request's headers, so
// the key reads it from the request itself; a page with links built from
// one visitor's Host is never served to another's.
func TestReusedPagesVaryByHost(t *testing.T) {
	c := &counted{}
	h := newTestHandler(t, Options{Pages: []Page{
		{Pattern: "GET /lessons/{slug}", Render: c.render, Reuse: true, Vary: []string{"Host"}},
	}})
	for _, host := range []string{"one.example", "two.example", "one.example"} {
		req := httptest.NewRequest(http.MethodGet, "/lessons/a", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
	}
	assert.Equal(t, 2, c.count(), "one render per host")
}
