//go:build !js

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"
	"golang.org/x/net/http/httpguts"
)

// The local server reads and writes HTTP/1.1 with fasthttp, the only
// parser facing a visitor, and runs the site's net/http handler for every
// request, synchronously, through the small adapter below: the handler,
// its routes and its headers stay the ones the Cloudflare Worker and the
// tests run. net/http's own server cannot go faster than about half of
// nginx's rate for the same bytes on this kind of machine (a goroutine, a
// Request, a header map and a bufio pair per connection and request);
// fasthttp reuses its request and response per connection (see
// docs/performance.md, "Server: fasthttp under the site's handler").

// Limits of a request, in the spirit of the net/http server this one
// replaced: a visitor cannot make the server hold more than this for them.
const (
	// maxHeaderBytes bounds a request's line and header fields together
	// (fasthttp's read buffer): a larger head gets 431.
	maxHeaderBytes = 16 << 10
	// maxBodyBytes bounds a request's body, which fasthttp reads whole
	// before the handler runs: a larger body gets 413. The largest the site
	// takes is a posted scenario (pages.MaxSource, form-encoded).
	maxBodyBytes = 1 << 20
)

// newFastServer returns the server for handler, with timeouts like those
// of the net/http server it replaced and log lines through logger.
//
// A request's context is context.Background(): fasthttp does not notice a
// client that goes away, and the one thing a request can wait for, a run,
// stops at its own deadline (pages.SimulationDeadline), within the ten
// seconds a shutdown drains for.
func newFastServer(handler http.Handler, logger *slog.Logger) *fasthttp.Server {
	return &fasthttp.Server{
		Handler:     adapt(handler, logger),
		ReadTimeout: 10 * time.Second,
		// Long enough for the wasm module over a slow classroom network.
		WriteTimeout:          60 * time.Second,
		IdleTimeout:           120 * time.Second,
		ReadBufferSize:        maxHeaderBytes,
		MaxRequestBodySize:    maxBodyBytes,
		NoDefaultServerHeader: true,
		// The handler always says what it sends; a response without a
		// Content-Type is sniffed below, as net/http does.
		NoDefaultContentType:         true,
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		// fasthttp's error lines (a malformed request, a timeout), as
		// warnings, a few a second at most.
		Logger:       newQuietLog(logger),
		ErrorHandler: refuse,
	}
}

// refuse answers a request fasthttp could not read, as net/http would: 431
// for a head over maxHeaderBytes, 413 for a body over maxBodyBytes, 408
// when the client was too slow, 400 otherwise. fasthttp closes the
// connection after it.
func refuse(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	var netErr net.Error
	switch {
	case errors.As(err, &small):
		plainError(ctx, "431 Request Header Fields Too Large", http.StatusRequestHeaderFieldsTooLarge)
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		plainError(ctx, "413 Request Entity Too Large", http.StatusRequestEntityTooLarge)
	case errors.As(err, &netErr) && netErr.Timeout():
		plainError(ctx, "408 Request Timeout", http.StatusRequestTimeout)
	default:
		plainError(ctx, "400 Bad Request", http.StatusBadRequest)
	}
}

// plainError answers ctx with status and msg as plain text, with the
// security fields every response of the site carries (docs/security.md,
// "Headers"): these answers never reach the site's handler, which adds
// them to the rest.
func plainError(ctx *fasthttp.RequestCtx, msg string, status int) {
	ctx.Error(msg, status)
	ctx.Response.Header.Set("X-Content-Type-Options", "nosniff")
	ctx.Response.Header.Set("Content-Security-Policy", "default-src 'none'")
}

// adapt runs h for each request fasthttp read. Each request gets an
// http.Request of its own whose strings are copies (fasthttp reuses its
// buffers after the handler returns, and the site keeps some strings, in
// its page cache's keys), and a ResponseWriter that fills fasthttp's
// response. A handler that panics gets 500 and the connection is closed,
// as net/http's server does; the panic is logged, not fatal.
//
// A response the handler marks as one to keep (web.Keeper) answers the
// same request again without the handler (keep.go).
func adapt(h http.Handler, logger *slog.Logger) fasthttp.RequestHandler {
	kept := newKeptResponses()
	return func(ctx *fasthttp.RequestCtx) {
		// What net/http refuses before its handler runs: a version other
		// than HTTP/1.x, and an expectation other than 100-continue.
		if p := string(ctx.Request.Header.Protocol()); p != "HTTP/1.1" && p != "HTTP/1.0" {
			plainError(ctx, "505 HTTP Version Not Supported", http.StatusHTTPVersionNotSupported)
			ctx.SetConnectionClose()
			return
		}
		if e := ctx.Request.Header.Peek("Expect"); len(e) > 0 && !strings.EqualFold(string(e), "100-continue") {
			plainError(ctx, "417 Expectation Failed", http.StatusExpectationFailed)
			ctx.SetConnectionClose()
			return
		}
		if kr := kept.find(&ctx.Request); kr != nil && keptHostOK(&ctx.Request) {
			kr.answer(ctx)
			return
		}
		r, err := netRequest(ctx)
		if err != nil {
			plainError(ctx, "400 Bad Request: "+err.Error(), http.StatusBadRequest)
			ctx.SetConnectionClose()
			return
		}
		w := writers.Get().(*responseWriter)
		w.ctx, w.status = ctx, http.StatusOK
		defer func() {
			if p := recover(); p != nil {
				if p != http.ErrAbortHandler {
					logger.Error("serve: panic in handler", "path", r.URL.Path, "panic", fmt.Sprint(p))
				}
				ctx.Response.Reset()
				plainError(ctx, "the request could not be answered", http.StatusInternalServerError)
				ctx.SetConnectionClose()
			}
			// The handler is done with w (the site's handler keeps no
			// writer past its return), and fasthttp has the response.
			clear(w.header)
			*w = responseWriter{header: w.header}
			writers.Put(w)
		}()
		h.ServeHTTP(w, r)
		w.finish()
		if w.keep != nil && keepable(w.status) && !w.copied {
			kept.add(&ctx.Request, w.keep, &keptResponse{status: w.status, header: w.kept, body: w.body})
		}
	}
}

// keptHostOK reports whether req, whose target was answered before, has a
// Host net/http would take (see netRequest): a kept response must not
// answer a request the handler would never have seen. A kept target is a
// path (an absolute address as target is not kept), so the host is the
// Host field's.
func keptHostOK(req *fasthttp.Request) bool {
	hosts := 0
	for k := range req.Header.All() {
		if string(k) == "Host" {
			hosts++
		}
	}
	switch {
	case hosts > 1, hosts == 0 && req.Header.IsHTTP11():
		return false
	}
	return httpguts.ValidHostHeader(string(req.Header.Host()))
}

// writers keeps response writers and their header maps between requests.
var writers = sync.Pool{New: func() any { return &responseWriter{header: make(http.Header, 12)} }}

// netRequest returns the http.Request a net/http server would have made of
// ctx's request. Host is in r.Host, not in the header map, as net/http has
// it.
//
// A request net/http would refuse with 400 is refused here too: a target
// that is not a path or an absolute address, an HTTP/1.1 request without
// exactly one Host field, or a Host that is not a host.
func netRequest(ctx *fasthttp.RequestCtx) (*http.Request, error) {
	uri := string(ctx.RequestURI())
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil, errors.New("malformed request target")
	}
	header, hosts := netHeader(&ctx.Request.Header)
	// The Host field, or the target's host when the target is an
	// absolute address, as net/http has it (fasthttp's ctx.Host would
	// parse the whole target again).
	host := string(ctx.Request.Header.Host())
	if u.Host != "" {
		host = u.Host
	}
	switch {
	case hosts > 1:
		return nil, errors.New("too many Host headers")
	case hosts == 0 && ctx.Request.Header.IsHTTP11():
		return nil, errors.New("missing required Host header")
	case !httpguts.ValidHostHeader(host):
		return nil, errors.New("malformed Host header")
	}
	r := &http.Request{
		Method:     method(ctx.Method()),
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Host:       host,
		RemoteAddr: addrString(ctx.RemoteAddr()),
		RequestURI: uri,
		Body:       http.NoBody,
	}
	if !ctx.Request.Header.IsHTTP11() {
		r.Proto, r.ProtoMinor = "HTTP/1.0", 0
	}
	if body := ctx.PostBody(); len(body) > 0 {
		r.ContentLength = int64(len(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return r, nil
}

// netHeader returns the header map net/http would make of h's fields but
// Host, and how many Host fields h has. Every value is copied (fasthttp
// reuses h's buffer for the connection's next request) into one string,
// and every field's value slice is a piece of one array: three
// allocations for the map and its values, where a copy and a slice for
// each field made two per field. A field that comes more than once has its
// values appended to a slice of its own (each piece's capacity ends with
// it, so an append never writes into the next field's).
func netHeader(h *fasthttp.RequestHeader) (header http.Header, hosts int) {
	fields, size := 0, 0
	for k, v := range h.All() {
		if string(k) == "Host" {
			hosts++
			continue
		}
		fields++
		size += len(v)
	}
	header = make(http.Header, fields)
	if fields == 0 {
		return header, hosts
	}
	buf := make([]byte, 0, size)
	for k, v := range h.All() {
		if string(k) != "Host" {
			buf = append(buf, v...)
		}
	}
	// buf is never written again, so the string can share its bytes.
	all := unsafe.String(unsafe.SliceData(buf), len(buf))
	values := make([]string, fields)
	i, at := 0, 0
	for k, v := range h.All() {
		if string(k) == "Host" {
			continue
		}
		values[i] = all[at : at+len(v)]
		key := fieldName(k)
		if have, ok := header[key]; ok {
			header[key] = append(have, values[i])
		} else {
			header[key] = values[i : i+1 : i+1]
		}
		i, at = i+1, at+len(v)
	}
	return header, hosts
}

// addrString returns a as net/http's RemoteAddr has it, "ip:port", with
// one allocation for a TCP address (net.TCPAddr's String makes two).
func addrString(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok && t.Zone == "" && (len(t.IP) == net.IPv4len || len(t.IP) == net.IPv6len) {
		var b [len("[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]:65535")]byte
		ap := t.AddrPort() // an IPv4 address in 16 bytes is written as IPv4, as net.IP does
		return string(netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).AppendTo(b[:0]))
	}
	return a.String()
}

// method returns a request's method, without a copy for the common ones.
func method(b []byte) string {
	switch string(b) {
	case http.MethodGet:
		return http.MethodGet
	case http.MethodHead:
		return http.MethodHead
	case http.MethodPost:
		return http.MethodPost
	}
	return string(b)
}

// fieldName returns a header field's name (canonical already: fasthttp
// writes names as net/http does), without a copy for the fields browsers
// and tools send most.
func fieldName(b []byte) string {
	for _, name := range commonFields {
		if string(b) == name {
			return name
		}
	}
	return string(b)
}

var commonFields = [...]string{
	"Accept", "Accept-Encoding", "Accept-Language", "Cache-Control", "Connection",
	"Content-Length", "Content-Type", "Cookie", "If-None-Match", "Origin", "Referer",
	"Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Upgrade-Insecure-Requests", "User-Agent",
}

// responseWriter is the http.ResponseWriter the site's handler writes to:
// the header map, the status and the body go to fasthttp's response, which
// fasthttp sends once the handler returns (a body and its header in one
// write when they fit its buffer). A body the site shares between responses
// (web.SharedWriter) is sent from where it is, not copied.
type responseWriter struct {
	ctx         *fasthttp.RequestCtx
	header      http.Header
	status      int
	wroteHeader bool
	shared      bool // the response's body is a web.SharedWriter body, held by fasthttp uncopied

	// What a response to keep needs (see Keep): the fields the handler
	// named, nil when it named none; the header as written; the shared
	// body; and whether a body was written otherwise (then it is not kept).
	keep   []string
	kept   [][2]string
	body   []byte
	copied bool
}

// Keep notes that the response may be kept (web.Keeper): the handler's
// answer depends on the request's method, target and fields alone. Only
// before the header is written: the header is recorded as it goes out.
func (w *responseWriter) Keep(fields ...string) {
	if !w.wroteHeader {
		w.keep = fields
	}
}

func (w *responseWriter) Header() http.Header { return w.header }

// WriteHeader sends the header map as it is now, as net/http does: later
// changes to it are not sent, a field whose name is not a token is left
// out, and a line break in a value becomes a space, so that no value can
// add a field of its own. A status under 200 (an informational response)
// is not passed on; the site sends none.
func (w *responseWriter) WriteHeader(code int) {
	if w.wroteHeader || code < 200 {
		return
	}
	w.wroteHeader = true
	w.status = code
	rh := &w.ctx.Response.Header
	// Names go out as the map has them, as net/http writes them (the site
	// writes canonical ones); fasthttp would otherwise rewrite each.
	rh.DisableNormalizing()
	for k, vv := range w.header {
		if !httpguts.ValidHeaderFieldName(k) {
			continue
		}
		for _, v := range vv {
			v = fieldValue(v)
			rh.Add(k, v)
			if w.keep != nil {
				w.kept = append(w.kept, [2]string{k, v})
			}
		}
	}
	w.ctx.SetStatusCode(code)
}

// fieldValue is v as net/http writes a header value: a line break becomes
// a space and spaces and tabs at either end go. The site's values are long
// (the security policy) and clean, so the common case is two byte scans.
func fieldValue(v string) string {
	if strings.IndexByte(v, '\n') >= 0 || strings.IndexByte(v, '\r') >= 0 {
		v = newlineToSpace.Replace(v)
	}
	if n := len(v); n > 0 && (isBlank(v[0]) || isBlank(v[n-1])) {
		v = strings.Trim(v, " \t")
	}
	return v
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// newlineToSpace is net/http's rule for line breaks in a header value.
var newlineToSpace = strings.NewReplacer("\n", " ", "\r", " ")

func (w *responseWriter) Write(b []byte) (int, error) {
	if err := w.startBody(b); err != nil {
		return 0, err
	}
	w.copied = true
	if w.shared {
		// fasthttp would drop a body it holds uncopied on AppendBody:
		// copy it first.
		held := w.ctx.Response.Body()
		w.ctx.Response.SetBody(held)
		w.shared = false
	}
	w.ctx.Response.AppendBody(b)
	return len(b), nil
}

// WriteShared sends b, which the site never modifies, without a copy when
// it is the response's whole body so far (see web.SharedWriter).
func (w *responseWriter) WriteShared(b []byte) (int, error) {
	if err := w.startBody(b); err != nil {
		return 0, err
	}
	if len(w.ctx.Response.Body()) > 0 {
		return w.Write(b)
	}
	w.ctx.Response.SetBodyRaw(b)
	w.shared, w.body = true, b
	return len(b), nil
}

// startBody writes the header before the first bytes of a body, as
// net/http does (with a Content-Type sniffed from them when the handler
// set none), and refuses a body where the status allows none.
func (w *responseWriter) startBody(b []byte) error {
	if !w.wroteHeader {
		if w.header.Get("Content-Type") == "" && len(b) > 0 {
			w.header.Set("Content-Type", http.DetectContentType(b))
		}
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return http.ErrBodyNotAllowed
	}
	return nil
}

// finish sends the header of a handler that wrote neither header nor body.
func (w *responseWriter) finish() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
}

// bodyAllowed reports whether a response with status may have a body.
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}
