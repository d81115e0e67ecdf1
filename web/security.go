package web

import (
	"net/http"
	"strings"
)

// DefaultFrameAncestors is the CSP frame-ancestors source list used when
// Options.FrameAncestors is empty.
//
// It is "*" on purpose: documentation authors embed scenarios in iframes on
// sites we cannot list in advance. Framing by anyone is safe for this site as
// it stands because it has no accounts, no cookies, no forms and no request
// that changes anything on the server, so a framing page has nothing to trick
// a learner into doing (the usual clickjacking harm). A learner's progress,
// once kept, lives in the browser's storage, which browsers partition by the
// top-level site, so a framing page neither sees nor changes the progress the
// learner keeps on Tidemark itself. A deployment that adds sign-in or any
// state-changing request must narrow this (e.g. to "'self'").
const DefaultFrameAncestors = "*"

// contentSecurityPolicy returns the policy sent with every response.
//
// Scripts come only from our own origin: no inline scripts and no eval.
// 'wasm-unsafe-eval' is the narrow permission WebAssembly.instantiate needs;
// it does not allow JavaScript eval. Styles come only from our stylesheet, so
// pages carry no <style> elements or style="" attributes (scripts can still
// set element.style through the CSSOM, which CSP does not restrict). Plugins
// and <base> are switched off.
func contentSecurityPolicy(frameAncestors string) string {
	if frameAncestors == "" {
		frameAncestors = DefaultFrameAncestors
	}
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

// withSecurityHeaders sets the security headers on every response, before the
// wrapped handler runs, so errors and 404s carry them too.
func withSecurityHeaders(next http.Handler, csp string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		next.ServeHTTP(w, r)
	})
}
