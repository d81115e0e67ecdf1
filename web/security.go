package web

import (
	"net/http"
	"strings"
)

// DefaultFrameAncestors is the CSP frame-ancestors source list of the
// responses meant to be framed or embedded on other sites (a Page with
// Embeddable set: the embed page and pictures) when Options.FrameAncestors
// is empty. Every other response may be framed by the site itself only.
//
// It is "*" on purpose: documentation authors embed scenarios in iframes on
// sites we cannot list in advance. Framing the embed page is safe because it
// has no forms and no request that changes anything on the server, so a
// framing page has nothing to trick a learner into doing (the usual
// clickjacking harm). The other pages keep "'self'": the sandbox posts a
// form, and a learner's progress (kept in the browser's storage) is
// exported, imported and cleared from the lesson pages, which another site
// has no business overlaying.
const DefaultFrameAncestors = "*"

// selfFrameAncestors is the frame-ancestors list of everything not embeddable.
const selfFrameAncestors = "'self'"

// contentSecurityPolicy returns the policy of an HTML page or any other
// response that is not a picture.
//
// Scripts come only from our own origin: no inline scripts and no eval.
// 'wasm-unsafe-eval' is the narrow permission WebAssembly.instantiate needs;
// it does not allow JavaScript eval. Styles come only from our stylesheet, so
// pages carry no <style> elements or style="" attributes (scripts can still
// set element.style through the CSSOM, which CSP does not restrict). Plugins
// and <base> are switched off.
func contentSecurityPolicy(frameAncestors string) string {
	return strings.Join([]string{
		"default-src 'self'",
		"script-src 'self' 'wasm-unsafe-eval'",
		"style-src 'self'",
		"img-src 'self'",
		"font-src 'self'",
		"connect-src 'self'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors " + frameAncestors,
	}, "; ")
}

// svgPolicy returns the policy of an SVG response. A picture opened on its
// own is a document that could run scripts or load anything; ours need
// nothing (their colours and fonts are presentation attributes, which no
// policy governs, and their link back is text), so everything is refused and
// the document is sandboxed: no scripts, no forms, an opaque origin.
func svgPolicy(frameAncestors string) string {
	return "default-src 'none'; sandbox; frame-ancestors " + frameAncestors
}

// frameAncestorsOf returns the frame-ancestors list of a policy.
func frameAncestorsOf(csp string) string {
	_, list, ok := strings.Cut(csp, "frame-ancestors ")
	if !ok {
		return selfFrameAncestors
	}
	list, _, _ = strings.Cut(list, ";")
	return list
}

// withSecurityHeaders sets the security headers on every response, before the
// wrapped handler runs, so errors and 404s carry them too: the pages' policy
// with frame-ancestors 'self', which an Embeddable page widens (see
// embeddable), and the SVG policy on a response that turns out to be SVG.
func withSecurityHeaders(next http.Handler) http.Handler {
	// Made once and shared by every response (see encoding.go).
	var (
		csp      = one(contentSecurityPolicy(selfFrameAncestors))
		frame    = one("SAMEORIGIN") // for browsers without frame-ancestors
		nosniff  = one("nosniff")
		referrer = one("strict-origin-when-cross-origin")
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Security-Policy"] = csp
		h["X-Frame-Options"] = frame
		h["X-Content-Type-Options"] = nosniff
		h["Referrer-Policy"] = referrer
		next.ServeHTTP(&svgGuard{ResponseWriter: w}, r)
	})
}

// embeddable lets any of frameAncestors frame or embed what next answers.
func embeddable(next http.Handler, frameAncestors string) http.Handler {
	csp := one(contentSecurityPolicy(frameAncestors))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Security-Policy"] = csp
		delete(h, "X-Frame-Options")
		next.ServeHTTP(w, r)
	})
}

// svgGuard replaces the pages' policy with the SVG policy, keeping its
// frame-ancestors, when the response's Content-Type is SVG: whatever
// handler drew it (a picture, a picture's error, an SVG asset).
type svgGuard struct {
	http.ResponseWriter
	wrote bool
}

func (g *svgGuard) WriteHeader(code int) {
	if !g.wrote {
		g.wrote = true
		h := g.Header()
		if ct := h.Get("Content-Type"); strings.HasPrefix(ct, "image/svg+xml") {
			h.Set("Content-Security-Policy", svgPolicy(frameAncestorsOf(h.Get("Content-Security-Policy"))))
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *svgGuard) Write(b []byte) (int, error) {
	if !g.wrote {
		g.WriteHeader(http.StatusOK)
	}
	return g.ResponseWriter.Write(b)
}

// WriteShared passes a shared body on to a writer that can keep it
// (SharedWriter), or writes it.
func (g *svgGuard) WriteShared(b []byte) (int, error) {
	if !g.wrote {
		g.WriteHeader(http.StatusOK)
	}
	return writeShared(g.ResponseWriter, b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (g *svgGuard) Unwrap() http.ResponseWriter { return g.ResponseWriter }
