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
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
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

	// FrameAncestors is the CSP frame-ancestors source list; empty means
	// DefaultFrameAncestors (see there for why any site may frame us).
	FrameAncestors string

	// Precompress makes NewHandler compress every static asset before it
	// returns, rather than on the first request for each. A long-running
	// server wants this; a Cloudflare Worker, which may start afresh for each
	// request, does not.
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
	// fmt.Errorf("scenario %q: %w", id, web.ErrNotFound)); any other error is
	// logged and answers 500. The component is rendered to a buffer first, so
	// a failure never sends half a page.
	Render func(r *http.Request) (templ.Component, error)

	// Handler serves the route itself, for responses that are not an HTML
	// page (a redirect, a picture, JSON).
	Handler http.Handler
}

// ErrNotFound is wrapped by a Page's Render error to answer 404.
var ErrNotFound = errors.New("not found")

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

	mux := http.NewServeMux()
	home := Page{Pattern: "GET /{$}", Render: homePage(opts)}
	routes := []Page{
		home,
		{Pattern: "GET " + StaticPrefix + "{name}", Handler: http.HandlerFunc(table.serveStatic)},
		{Pattern: "GET /healthz", Handler: http.HandlerFunc(healthz)},
	}
	for i, p := range append(routes, opts.Pages...) {
		var h http.Handler
		switch {
		case strings.TrimSpace(p.Pattern) == "":
			return nil, fmt.Errorf("web: page %d: empty pattern", i-len(routes))
		case (p.Render == nil) == (p.Handler == nil):
			return nil, fmt.Errorf("web: page %q: set exactly one of Render and Handler", p.Pattern)
		case p.Render != nil:
			h = renderPage(p.Render, logger)
		default:
			h = p.Handler
		}
		if err := handle(mux, p.Pattern, h); err != nil {
			return nil, err
		}
	}
	return withSecurityHeaders(mux, contentSecurityPolicy(opts.FrameAncestors)), nil
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

// renderPage adapts a Page's Render func to an http.Handler.
func renderPage(render func(*http.Request) (templ.Component, error), logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := render(r)
		switch {
		case errors.Is(err, ErrNotFound):
			what := strings.TrimSuffix(strings.TrimSuffix(err.Error(), ErrNotFound.Error()), ": ")
			Render(w, r, http.StatusNotFound, templates.NotFound(templates.NotFoundView{
				Layout: NewLayoutView("Not found", "app.js"),
				What:   what,
			}))
		case err != nil:
			logger.ErrorContext(r.Context(), "web: render page", "path", r.URL.Path, "err", err)
			http.Error(w, "the page could not be built", http.StatusInternalServerError)
		default:
			Render(w, r, http.StatusOK, c)
		}
	})
}

// Render writes c as a complete HTML response with the given status. It
// renders into a buffer first, so a failing component yields a 500 rather
// than a truncated page. Pages are revalidated on every visit (Cache-Control:
// no-cache), because their asset URLs change with each build.
func Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		if !errors.Is(err, context.Canceled) {
			slog.ErrorContext(r.Context(), "web: render component", "path", r.URL.Path, "err", err)
		}
		http.Error(w, "the page could not be built", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	body := buf.Bytes()
	// A lesson page is half a megabyte of HTML (every embedded scenario drawn
	// for readers without JavaScript); gzip brings it to a tenth. Pages are
	// made per request, so they get a fast level rather than brotli's best.
	if len(body) > 1024 && slices.Contains(acceptedCodings(r.Header.Get("Accept-Encoding")), "gzip") {
		var zipped bytes.Buffer
		zw, err := gzip.NewWriterLevel(&zipped, gzip.DefaultCompression)
		if err == nil {
			_, err = zw.Write(body)
		}
		if err == nil {
			err = zw.Close()
		}
		if err == nil {
			h.Set("Content-Encoding", "gzip")
			body = zipped.Bytes()
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// healthz answers GET /healthz.
func healthz(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}
