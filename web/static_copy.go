package web

import (
	"slices"
	"strings"
)

// StaticFile is one file of web/static as a copy of the site in static
// files holds it (see package web/export): under its plain name, for
// documentation authors' stable links (embed.js), and under its
// content-hashed name, which the pages link to.
type StaticFile struct {
	Name   string // e.g. "app.css"
	Hashed string // e.g. "app.3f9a1c2b.css"
	Data   []byte
}

// HeaderRule is one path of a static host's headers file and the headers
// its responses carry.
type HeaderRule struct {
	Path    string
	Headers [][2]string // name, value
}

// StaticHeaderRules returns the headers a copy of the site in static files
// needs to be served as this handler serves it (docs/security.md): the
// pages' Content-Security-Policy, framing by the site only except for the
// embed pages and pictures, the pictures' own policy, and Cache-Control
// for the static files by name. prefix is the path the copy is served at
// ("" or "/tidemark").
//
// No two rules set the same header on one path, because hosts that merge
// matching rules (Cloudflare joins their values with a comma, Netlify
// applies every one) would otherwise send two policies.
func StaticHeaderRules(prefix string, files []StaticFile) []HeaderRule {
	self := contentSecurityPolicy(selfFrameAncestors)
	anyone := contentSecurityPolicy(DefaultFrameAncestors)
	page := [][2]string{{"Content-Security-Policy", self}, {"X-Frame-Options", "SAMEORIGIN"}}
	rules := []HeaderRule{{Path: prefix + "/*", Headers: [][2]string{
		{"X-Content-Type-Options", "nosniff"},
		{"Referrer-Policy", "strict-origin-when-cross-origin"},
	}}}
	for _, p := range []string{"/", "/index.html", "/404.html", "/404", "/lessons/*", "/scenarios/*", "/play", "/play/", "/play/index.html", "/chain", "/chain/", "/chain/index.html", "/docs/*", "/static/*"} {
		rules = append(rules, HeaderRule{Path: prefix + p, Headers: page})
	}
	rules = append(rules,
		HeaderRule{Path: prefix + "/embed/*", Headers: [][2]string{{"Content-Security-Policy", anyone}}},
		HeaderRule{Path: prefix + "/picture/*", Headers: [][2]string{{"Content-Security-Policy", svgPolicy(DefaultFrameAncestors)}, {"Cache-Control", "public, max-age=3600"}}},
		HeaderRule{Path: prefix + "/oembed/*", Headers: append(slices.Clip(page), [2]string{"Access-Control-Allow-Origin", "*"})},
	)
	for _, f := range files {
		rules = append(rules,
			HeaderRule{Path: prefix + StaticPrefix + f.Name, Headers: [][2]string{{"Cache-Control", cacheRevalidate}}},
			HeaderRule{Path: prefix + StaticPrefix + f.Hashed, Headers: [][2]string{{"Cache-Control", cacheImmutable}}},
		)
	}
	return rules
}

// HeadersFile writes rules in the _headers format that Cloudflare (Pages,
// and Workers static assets) and Netlify read: a path, then its headers
// indented below it.
func HeadersFile(rules []HeaderRule) string {
	var b strings.Builder
	b.WriteString("# Security and caching headers for a copy of the Tidemark site in static files\n# (written by `tidemark export`; see docs/deploy.md).\n")
	for _, r := range rules {
		b.WriteString(r.Path + "\n")
		for _, h := range r.Headers {
			b.WriteString("  " + h[0] + ": " + h[1] + "\n")
		}
	}
	return b.String()
}

// MetaPolicy is the pages' Content-Security-Policy as a page may state it
// in a <meta http-equiv> element, for static hosts that send no headers of
// their own choosing (GitHub Pages): without frame-ancestors, which a meta
// element cannot set.
func MetaPolicy() string {
	p := contentSecurityPolicy(selfFrameAncestors)
	return strings.TrimSuffix(p[:strings.LastIndex(p, "; frame-ancestors")], ";")
}
