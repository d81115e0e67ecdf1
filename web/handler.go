// Package web serves the Tidemark site: server-rendered pages (templ
// components from the templates package), the static assets under
// content-hashed names, and a health check. It holds no simulation logic, and
// it builds for GOOS=js GOARCH=wasm as well, so the same handler runs on
// Cloudflare Workers (see cmd/serve).
//
// Routes:
//
//	GET /                 the home page
//	GET /static/{name}    files of web/static, by hashed or plain name
//	GET /healthz          "ok", for load balancers and tests
//
// Further pages (a scenario, the playground, a lesson) are added with
// Options.Pages, so this package does not depend on the lesson catalog.
package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"github.com/tidemark/tidemark/templates"
)

// Options configures NewHandler. The zero value serves a home page with empty
// lesson and scenario lists.
type Options struct {
	// Lessons and Scenarios are listed on the home page, in order.
	Lessons   []templates.CatalogItem
	Scenarios []templates.CatalogItem

	// Pages are further routes, registered after the built-in ones.
	Pages []Page

	// FrameAncestors is the CSP frame-ancestors source list of the pages
	// that are Embeddable; empty means DefaultFrameAncestors (see there for
	// why any site may frame those). Everything else may be framed only by
	// the site itself.
	FrameAncestors string

	// CacheBytes bounds the pages kept for reuse (see Page.Reuse); zero
	// means DefaultCacheBytes.
	CacheBytes int

	// Precompress makes NewHandler compress every static asset before it
	// returns, rather than on the first request for each. A long-running
	// server wants this. On GOOS=js (a Cloudflare Worker) it does nothing:
	// there the platform serves the static files and compresses responses,
	// and the handler sends every body as is.
	Precompress bool

	// Logger receives errors that a response cannot show. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Page is one route added to the site through Options.Pages. Set exactly one
// of Render and Handler.
//
// For example, the scenario page will be added as:
//
//	web.Page{
//		Pattern: "GET /scenarios/{id...}",
//		Render: func(r *http.Request) (templ.Component, error) {
//			sc, ok := catalog.Scenario(r.PathValue("id"))
//			if !ok {
//				return nil, fmt.Errorf("scenario %q: %w", r.PathValue("id"), web.ErrNotFound)
//			}
//			return templates.ScenarioPage(templates.ScenarioView{
//				Layout: web.NewLayoutView(sc.Title, "wasm_exec.js", "app.js"),
//				...
//			}), nil
//		},
//	}
type Page struct {
	// Pattern is a net/http.ServeMux pattern with a method, such as
	// "GET /lessons/{slug}".
	Pattern string

	// Render builds the page for one request. Returning an error that wraps
	// ErrNotFound answers 404 with the not-found page, which names what is
	// missing from the error's text before ": not found" (so wrap it as
	// fmt.Errorf("scenario %q: %w", id, web.ErrNotFound)), or with the
	// component returned beside that error when there is one (an embed's
	// short note, for a page framed by someone else's); any other error is
	// logged and answers 500. The component is rendered to a buffer first, so
	// a failure never sends half a page.
	Render func(r *http.Request) (templ.Component, error)

	// Handler serves the route itself, for responses that are not an HTML
	// page (a redirect, a picture, JSON).
	Handler http.Handler

	// Embeddable lets other sites frame or embed the route (Options.
	// FrameAncestors); other routes may be framed by the site only.
	Embeddable bool

	// Reuse says the page Render builds is a pure function of the build,
	// the path, the query and the Vary headers: the site renders it once
	// per normalised query and header values, keeps it (within
	// Options.CacheBytes, least recently used first out) and answers later
	// requests with the kept bytes.
	Reuse bool

	// Vary lists the request headers, besides Accept-Encoding, that a
	// Render page depends on (for example the Host a link is built from).
	// They are sent as Vary and, for a Reuse page, are part of its key.
	Vary []string
}

// ErrNotFound is wrapped by a Page's Render error to answer 404.
var ErrNotFound = errors.New("not found")

// ErrBusy is wrapped by a Page's Render error when the server is running as
// many simulations as it allows, or could not finish one in time: the page
// answers 503 with a Retry-After, and the component, when Render returned
// one too, as its body (so the sandbox can keep the visitor's text);
// otherwise a page saying the server is busy.
var ErrBusy = errors.New("the server is busy")

// RetryAfter is the Retry-After of a 503, in seconds.
const RetryAfter = "2"

// NewHandler returns the site's handler. It fails when the embedded assets
// cannot be read or a page's pattern is malformed or clashes with another.
func NewHandler(opts Options) (http.Handler, error) {
	table, err := assets()
	if err != nil {
		return nil, err
	}
	if opts.Precompress {
		if err := table.precompressAll(); err != nil {
			return nil, err
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}

	frameAncestors := opts.FrameAncestors
	if frameAncestors == "" {
		frameAncestors = DefaultFrameAncestors
	}
	cache := newPageCache(opts.CacheBytes)

	mux := http.NewServeMux()
	home := Page{Pattern: "GET /{$}", Render: homePage(opts), Reuse: true}
	routes := []Page{
		home,
		{Pattern: "GET " + StaticPrefix + "{name}", Handler: http.HandlerFunc(table.serveStatic)},
		{Pattern: "GET /healthz", Handler: http.HandlerFunc(healthz)},
		// Any other address gets the site's not-found page, not the mux's
		// bare text (the static export saves it as 404.html).
		{Pattern: "GET /", Render: notFoundPage},
	}
	for i, p := range append(routes, opts.Pages...) {
		var h http.Handler
		switch {
		case strings.TrimSpace(p.Pattern) == "":
			return nil, fmt.Errorf("web: page %d: empty pattern", i-len(routes))
		case (p.Render == nil) == (p.Handler == nil):
			return nil, fmt.Errorf("web: page %q: set exactly one of Render and Handler", p.Pattern)
		case p.Render != nil:
			var c *pageCache
			if p.Reuse {
				c = cache
			}
			h = renderPage(p.Render, p.Vary, c, logger)
		default:
			h = p.Handler
		}
		if p.Embeddable {
			h = embeddable(h, frameAncestors)
		}
		if err := handle(mux, p.Pattern, h); err != nil {
			return nil, err
		}
	}
	return withSecurityHeaders(mux), nil
}

// handle registers h on mux, turning the mux's panic on a bad or clashing
// pattern into an error.
func handle(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("web: page %q: %v", pattern, r)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

// notFoundPage answers an address no page has with the not-found page.
func notFoundPage(*http.Request) (templ.Component, error) {
	return nil, ErrNotFound
}

// NewLayoutView returns the frame of a page with the given title: the site
// stylesheet and icon, the site navigation, and the named scripts from
// web/static (e.g. "wasm_exec.js", "app.js"), in order, by hashed URL.
func NewLayoutView(title string, scripts ...string) templates.LayoutView {
	v := templates.LayoutView{
		Title:         title,
		StylesheetURL: AssetURL("app.css"),
		Nav: []templates.NavLink{
			{Label: "Home", Href: "/"},
			{Label: "Lessons", Href: "/#lessons"},
			{Label: "Scenarios", Href: "/#scenarios"},
			{Label: "Sandbox", Href: "/play"},
		},
	}
	if u, ok := LookupAsset("favicon.svg"); ok {
		v.IconURL = u
	}
	for _, s := range scripts {
		v.Scripts = append(v.Scripts, AssetURL(s))
		if s == "app.js" {
			// The module loader: it starts compiling the preloaded module
			// as soon as it arrives (see templates.LayoutView.AsyncScript).
			v.AsyncScript = AssetURL(s)
		}
	}
	return v
}

// homePage renders the home page from the catalog in opts.
func homePage(opts Options) func(*http.Request) (templ.Component, error) {
	return func(*http.Request) (templ.Component, error) {
		layout := NewLayoutView(templates.SiteName, "app.js")
		layout.Description = "An interactive playground about why data pipelines lose and duplicate rows."
		layout.Nav[0].Current = true
		return templates.Home(templates.HomeView{
			Layout:    layout,
			Lessons:   opts.Lessons,
			Scenarios: opts.Scenarios,
		}), nil
	}
}

// healthz answers GET /healthz.
func healthz(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}
