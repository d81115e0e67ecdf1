package web

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Header keys in canonical form, for writing a response's header map
// directly: a value set this way is a slice made once and shared by every
// response (never appended to; each has len == cap, so that an Add on the
// same key copies it), which spares the allocations of Header.Set on paths
// that answer tens of thousands of requests a second.
const (
	hdrAcceptRanges    = "Accept-Ranges"
	hdrCacheControl    = "Cache-Control"
	hdrContentEncoding = "Content-Encoding"
	hdrContentLength   = "Content-Length"
	hdrContentRange    = "Content-Range"
	hdrContentType     = "Content-Type"
	hdrETag            = "Etag" // http.CanonicalHeaderKey("ETag")
	hdrVary            = "Vary"
)

// one returns a header value as a slice of its own, for a shared header.
func one(v string) []string { return []string{v} }

var (
	varyAcceptEncoding = one("Accept-Encoding")
	htmlType           = one("text/html; charset=utf-8")
	noCache            = one(cacheRevalidate)
	noStore            = one("no-store")
	acceptBytes        = one("bytes")
	immutable          = one(cacheImmutable)
)

// variant is one representation of a response body, with the header
// values it is sent with, made once and shared by every response that
// sends it.
type variant struct {
	body     []byte
	etag     []string // strong ETag; nil when the response has none
	length   []string // Content-Length
	encoding []string // Content-Encoding; nil for the identity
}

// newVariant returns the variant of body in coding ("" for identity),
// whose ETag is the quoted tag with "-coding" appended for an encoding, so
// that each representation has its own strong ETag, as RFC 9110 asks. An
// empty tag gives no ETag.
func newVariant(body []byte, coding, tag string) *variant {
	v := &variant{body: body, length: one(strconv.Itoa(len(body)))}
	if coding != "" {
		v.encoding = one(coding)
		if tag != "" {
			tag += "-" + coding
		}
	}
	if tag != "" {
		v.etag = one(strconv.Quote(tag))
	}
	return v
}

// SharedWriter is an http.ResponseWriter that can send a body it is handed
// without copying it. The caller promises that the slice is never modified
// (a variant's body, made once and shared by every response); the writer
// may hold it until the response is sent. cmd/serve's writer is one, and
// saves a copy of every static file and kept page it sends (a 900 KB module
// included); a wrapper of a ResponseWriter is one only when it passes the
// body on unchanged, as svgGuard does.
type SharedWriter interface {
	WriteShared(body []byte) (int, error)
}

// writeShared writes body, which is never modified, through w: without a
// copy when w can keep it.
func writeShared(w http.ResponseWriter, body []byte) (int, error) {
	if sw, ok := w.(SharedWriter); ok {
		return sw.WriteShared(body)
	}
	return w.Write(body)
}

// A Keeper is an http.ResponseWriter that can keep the response written to
// it and answer later requests with it without running the handler again
// (cmd/serve's writer is one). A handler calls Keep, before it writes the
// header, to promise that the response depends on nothing of the request
// but its method, its target (the path and the query as sent) and the
// values of fields, a field the request lacks counting as one more value,
// and that it writes its body, if any, whole with WriteShared. The writer
// decides whether to keep it (a response it keeps is one of a bounded
// number); a handler that reads one more field of the request must name it.
type Keeper interface {
	Keep(fields ...string)
}

// keep passes the promise of Keeper to w, or to the writer a wrapper of w
// (such as svgGuard) passes the response on to; nothing when none keeps.
func keep(w http.ResponseWriter, fields ...string) {
	for {
		switch x := w.(type) {
		case Keeper:
			x.Keep(fields...)
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return
		}
	}
}

// lazyVariant is a compressed form of a body, made once. v stays nil when
// that form would not be smaller than the original.
type lazyVariant struct {
	once sync.Once
	v    *variant
	err  error
}

// matches reports whether the request's If-None-Match lists v's ETag.
func (v *variant) matches(ifNoneMatch []string) bool {
	if v.etag == nil {
		return false
	}
	for _, line := range ifNoneMatch {
		if NoneMatch(line, v.etag[0]) {
			return true
		}
	}
	return false
}

// NoneMatch reports whether an If-None-Match header lists etag (or "*"),
// comparing weakly as RFC 9110 asks for this header.
func NoneMatch(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// acceptWeights returns the weights that Accept-Encoding header lines give
// brotli and gzip: 0 for a coding refused or not listed (unless "*" is).
// It allocates nothing.
func acceptWeights(lines []string) (br, gz float64) {
	br, gz = -1, -1
	star := 0.0
	for _, line := range lines {
		for part := range strings.SplitSeq(line, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.TrimSpace(coding)
			weight := 1.0
			for p := range strings.SplitSeq(params, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
						weight = f
					}
				}
			}
			switch {
			case strings.EqualFold(coding, "br"):
				br = weight
			case strings.EqualFold(coding, "gzip"):
				gz = weight
			case coding == "*":
				star = weight
			}
		}
	}
	if br < 0 {
		br = star
	}
	if gz < 0 {
		gz = star
	}
	return br, gz
}

// chooseVariant returns the representation to send for Accept-Encoding
// header lines: the most preferred of br and gzip that the client accepts
// and get returns (get may return nil when a coding is not worth it), and
// otherwise identity. Brotli wins ties.
func chooseVariant(lines []string, identity *variant, get func(coding string) *variant) *variant {
	if len(lines) == 0 {
		return identity
	}
	br, gz := acceptWeights(lines)
	first, second := "br", "gzip"
	wFirst, wSecond := br, gz
	if gz > br {
		first, second, wFirst, wSecond = second, first, wSecond, wFirst
	}
	if wFirst > 0 {
		if v := get(first); v != nil {
			return v
		}
	}
	if wSecond > 0 {
		if v := get(second); v != nil {
			return v
		}
	}
	return identity
}
