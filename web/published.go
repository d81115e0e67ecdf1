package web

import (
	"context"
	"net/http"
	"strings"
)

// Published describes a copy of the site published as static files (see
// package web/export), for the pages rendered into it. The exporter renders
// every page with it in the request's context: pages then build their
// absolute links from BaseURL rather than from the request, and leave out
// or explain what needs a server (a picture of any step, a form that posts).
// A request from the network never carries it.
type Published struct {
	// BaseURL is the address the copy is served at, without a trailing
	// slash: https://example.github.io/tidemark.
	BaseURL string
	// Pages are the paths of the pages the copy holds ("/lessons/…"),
	// which its not-found page offers the nearest of (near.js).
	Pages []string
}

type publishedKey struct{}

// WithPublished returns ctx carrying p.
func WithPublished(ctx context.Context, p Published) context.Context {
	return context.WithValue(ctx, publishedKey{}, p)
}

// PublishedFrom returns the Published a request's context carries, and
// whether it carries one: whether the page is being rendered into a static copy.
func PublishedFrom(ctx context.Context) (Published, bool) {
	p, ok := ctx.Value(publishedKey{}).(Published)
	return p, ok
}

// SiteURL returns the address of the site a request reached, for links
// that leave it (a snippet to paste elsewhere, a link in a picture, an
// OpenGraph or oEmbed URL): a static copy's BaseURL, or else the scheme and
// host of the request. A Host header with anything but the characters of a
// host name, an IP address and a port gives "", so the links stay relative
// rather than carry it.
func SiteURL(r *http.Request) string {
	if p, ok := PublishedFrom(r.Context()); ok {
		return p.BaseURL
	}
	host := r.Host
	if host == "" || strings.IndexFunc(host, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]", c))
	}) >= 0 {
		return ""
	}
	scheme := "http"
	if r.TLS != nil || r.URL.Scheme == "https" || r.Header.Get("X-Forwarded-Proto") == "https" || forwardedProto(r.Header.Get("Forwarded")) == "https" {
		scheme = "https"
	}
	return scheme + "://" + host
}

// OriginHeaders are the request headers SiteURL reads: a page that builds
// absolute links to the site varies by them (Page.Vary), and is kept once
// per address they make (see reuseKey).
var OriginHeaders = []string{"Host", "X-Forwarded-Proto", "Forwarded"}

// isOriginHeader reports whether name is one of OriginHeaders.
func isOriginHeader(name string) bool {
	for _, h := range OriginHeaders {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// forwardedProto is the proto= of the first element of a Forwarded header
// (RFC 7239), the one the proxy nearest the reader added, or "".
func forwardedProto(h string) string {
	first, _, _ := strings.Cut(h, ",")
	for pair := range strings.SplitSeq(first, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && strings.EqualFold(k, "proto") {
			return strings.ToLower(strings.Trim(v, `"`))
		}
	}
	return ""
}
