//go:build !js

package web

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// FastListener answers the requests for static files on the connections
// it accepts itself, and hands every other connection to an http.Server
// through Accept. A static file is the hottest path of the site, and
// net/http's per-request work (a goroutine that watches the connection, a
// fresh header map and its copy, the header written apart from a body
// larger than its 4 KB buffer) costs more than the file's bytes do: see
// docs/performance.md, "Server: static files and pages against nginx".
//
// A connection starts on the fast path. While each request on it is a GET
// or HEAD of a path under StaticPrefix, well-formed, with no body and
// nothing the fast path does not answer itself (Range, Expect, Upgrade, a
// head over 4 KB...), the answer is a complete response recorded from the
// site's own handler the first time the same method, path, Accept-Encoding
// and If-None-Match were asked for, sent with the current Date in one
// write. A static file's answer depends on nothing else (serveStatic). The
// first request that does not fit hands the connection, with every byte
// read from it, to the http.Server, which serves it to its end: the fast
// path never sees it again, and anything it does not understand is
// net/http's to answer or refuse.
//
// Only a 200 or 304 answer is recorded. The recordings are bounded in
// number and bytes (a flood of distinct headers only empties them), and so
// is the work per request: one head of at most 4 KB, read under the same
// timeouts as the server's.
type FastListener struct {
	ln       net.Listener
	handler  http.Handler
	timeouts Timeouts

	handed chan net.Conn
	errs   chan error
	done   chan struct{}
	closed atomic.Bool
	once   sync.Once

	mu    sync.Mutex
	conns map[net.Conn]struct{} // the connections on the fast path

	cacheMu sync.Mutex                        // serialises writers of cache
	cache   atomic.Pointer[fastResponseCache] // replaced, never modified
	date    atomic.Pointer[dateLine]
}

// Timeouts are the fast path's limits on a connection, those of the
// http.Server it hands connections to: how long a request's head may take
// once it has begun to arrive, how long a connection may wait for its next
// request, and how long writing a response may take.
type Timeouts struct {
	ReadHeader, Idle, Write time.Duration
}

// Bounds of the fast path.
const (
	// fastHeadMax is the longest request head the fast path reads; a
	// longer one goes to net/http (which allows 1 MB).
	fastHeadMax = 4 << 10
	// fastCacheEntries and fastCacheBytes bound the recorded responses:
	// past either, the recordings start again from none.
	fastCacheEntries = 256
	fastCacheBytes   = 64 << 20
	// fastBodyMax is the largest body recorded; a larger one is net/http's.
	fastBodyMax = 16 << 20
	// lazyDeadline is how far a deadline may lag behind its ideal before
	// it is set again: setting one is a timer update, which the fast path
	// makes at most once a second per connection rather than per request.
	lazyDeadline = time.Second
)

// NewFastListener starts accepting connections on ln for the fast path;
// handler is the site's handler (NewHandler's), which answers what the fast
// path records and everything on the connections it hands over; pass the
// FastListener to the same handler's http.Server.Serve. Closing it closes
// ln and the fast path's idle connections.
func NewFastListener(ln net.Listener, handler http.Handler, t Timeouts) *FastListener {
	l := &FastListener{
		ln: ln, handler: handler, timeouts: t,
		handed: make(chan net.Conn), errs: make(chan error), done: make(chan struct{}),
		conns: map[net.Conn]struct{}{},
	}
	l.cache.Store(&fastResponseCache{byKey: map[string]*fastResponse{}})
	go l.acceptLoop()
	return l
}

// Accept returns the next connection handed over from the fast path.
func (l *FastListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.handed:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close closes the listener and ends the fast path's connections that are
// waiting for a request; one answering a request ends when it is sent.
func (l *FastListener) Close() error {
	err := net.ErrClosed
	l.once.Do(func() {
		l.closed.Store(true)
		close(l.done)
		err = l.ln.Close()
		l.mu.Lock()
		for c := range l.conns {
			_ = c.SetReadDeadline(time.Now()) // wakes a read that waits
		}
		l.mu.Unlock()
	})
	return err
}

// Addr is the address ln listens on.
func (l *FastListener) Addr() net.Addr { return l.ln.Addr() }

func (l *FastListener) acceptLoop() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if l.closed.Load() {
				return
			}
			select {
			case l.errs <- err:
			case <-l.done:
				return
			}
			var temp interface{ Temporary() bool }
			if errors.As(err, &temp) && temp.Temporary() {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			return
		}
		go l.serve(c)
	}
}

// fastConn is a connection on the fast path, with what it reuses from one
// request to the next.
type fastConn struct {
	c                 net.Conn
	r                 *bufio.Reader
	readDL, writeDL   time.Time
	key, out          []byte
	bufs              net.Buffers
	bufArr            [2][]byte
	accept, noneMatch [][]byte // header values, pointing into the head
}

func (l *FastListener) serve(c net.Conn) {
	l.mu.Lock()
	if l.closed.Load() {
		l.mu.Unlock()
		_ = c.Close()
		return
	}
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	fc := &fastConn{c: c, r: bufio.NewReaderSize(c, fastHeadMax)}
	handOver := false
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
		if !handOver {
			_ = c.Close()
			return
		}
		// The server sets its own read deadlines; the write deadline only
		// when it has a write timeout, so clear ours.
		_ = c.SetWriteDeadline(time.Time{})
		select {
		case l.handed <- &handedConn{Conn: c, r: fc.r}:
		case <-l.done:
			_ = c.Close()
		}
	}()
	for !l.closed.Load() {
		fc.lazy(&fc.readDL, time.Now().Add(l.timeouts.Idle), c.SetReadDeadline)
		head, ok, err := fc.readHead(l.timeouts.ReadHeader)
		if err != nil {
			return
		}
		if !ok {
			handOver = true
			return
		}
		req, ok := fc.parse(head)
		if !ok {
			handOver = true
			return
		}
		resp := l.response(fc, req)
		if resp == nil {
			handOver = true
			return
		}
		_, _ = fc.r.Discard(len(head))
		now := time.Now()
		fc.lazy(&fc.writeDL, now.Add(l.timeouts.Write), c.SetWriteDeadline)
		if err := fc.write(resp, l.dateLine(now), req); err != nil || !req.keepAlive {
			return
		}
	}
}

// lazy sets a connection's deadline to want, unless the one set (*dl) is
// less than lazyDeadline earlier, or later.
func (fc *fastConn) lazy(dl *time.Time, want time.Time, set func(time.Time) error) {
	if want.Sub(*dl) < lazyDeadline {
		return
	}
	if set(want) == nil {
		*dl = want
	}
}

// readHead returns the next request's head, up to and including the blank
// line that ends it, still buffered. ok is false when the head cannot be
// the fast path's: longer than fastHeadMax, or with a line that ends in a
// bare LF. err is set when the connection ends or times out first.
func (fc *fastConn) readHead(headerTimeout time.Duration) (head []byte, ok bool, err error) {
	started := false
	for {
		buf, _ := fc.r.Peek(fc.r.Buffered())
		n, state := headEnd(buf)
		switch state {
		case headComplete:
			return buf[:n], true, nil
		case headBad:
			return nil, false, nil
		}
		if len(buf) == fc.r.Size() {
			return nil, false, nil
		}
		if len(buf) > 0 && !started {
			// The head has begun: the rest must come within the header
			// timeout, as net/http asks.
			started = true
			if err := fc.c.SetReadDeadline(time.Now().Add(headerTimeout)); err != nil {
				return nil, false, err
			}
			fc.readDL = time.Time{}
		}
		if _, err := fc.r.Peek(len(buf) + 1); err != nil {
			return nil, false, err
		}
	}
}

const (
	headIncomplete = iota
	headComplete
	headBad
)

// headEnd finds the end of a request head in buf: the length up to and
// including its blank line.
func headEnd(buf []byte) (int, int) {
	i := 0
	for {
		j := bytes.IndexByte(buf[i:], '\n')
		if j < 0 {
			return 0, headIncomplete
		}
		end := i + j
		if end == i || buf[end-1] != '\r' {
			return 0, headBad // a bare LF: net/http's to read
		}
		if end-1 == i {
			return end + 1, headComplete
		}
		i = end + 1
	}
}

// fastRequest is what the fast path reads from a request's head.
type fastRequest struct {
	head      bool   // HEAD rather than GET
	target    []byte // the path, under StaticPrefix
	http10    bool
	keepAlive bool
}

// parse reads a request head that headEnd found whole. ok is false for
// anything the fast path does not answer itself.
func (fc *fastConn) parse(head []byte) (req fastRequest, ok bool) {
	fc.accept, fc.noneMatch = fc.accept[:0], fc.noneMatch[:0]
	line, rest, _ := bytes.Cut(head, crlf)
	method, line, _ := bytes.Cut(line, space)
	target, version, _ := bytes.Cut(line, space)
	switch string(method) {
	case http.MethodGet:
	case http.MethodHead:
		req.head = true
	default:
		return req, false
	}
	name, isStatic := bytes.CutPrefix(target, []byte(StaticPrefix))
	if !isStatic || !assetName(name) {
		return req, false
	}
	req.target = target
	switch string(version) {
	case "HTTP/1.1":
	case "HTTP/1.0":
		req.http10 = true
	default:
		return req, false
	}
	hosts := 0
	var closeAsked, keepAliveAsked bool
	for len(rest) > 2 { // the last line is the blank one
		var hl []byte
		hl, rest, _ = bytes.Cut(rest, crlf)
		k, v, found := bytes.Cut(hl, colon)
		if !found || !token(k) {
			return req, false // obsolete line folding, or not a header
		}
		v = bytes.Trim(v, " \t")
		if !fieldValue(v) {
			return req, false
		}
		switch {
		case equalFold(k, "Accept-Encoding"):
			fc.accept = append(fc.accept, v)
		case equalFold(k, "If-None-Match"):
			fc.noneMatch = append(fc.noneMatch, v)
		case equalFold(k, "Host"):
			hosts++
			if !hostValue(v) {
				return req, false
			}
		case equalFold(k, "Connection"):
			for t := range bytes.SplitSeq(v, []byte(",")) {
				t = bytes.Trim(t, " \t")
				closeAsked = closeAsked || equalFold(t, "close")
				keepAliveAsked = keepAliveAsked || equalFold(t, "keep-alive")
			}
		case equalFold(k, "Content-Length"), equalFold(k, "Transfer-Encoding"),
			equalFold(k, "Range"), equalFold(k, "If-Range"), equalFold(k, "Expect"),
			equalFold(k, "Upgrade"):
			return req, false
		}
	}
	if hosts > 1 || (!req.http10 && hosts != 1) {
		return req, false // net/http answers 400
	}
	req.keepAlive = !closeAsked && (!req.http10 || keepAliveAsked)
	return req, true
}

var (
	crlf  = []byte("\r\n")
	space = []byte(" ")
	colon = []byte(":")
)

// assetName reports whether a path segment is a plain file name: letters,
// digits, '.', '-' and '_', not starting with '.'. Anything else (an
// escape, a query, another segment) is net/http's to read.
func assetName(b []byte) bool {
	if len(b) == 0 || b[0] == '.' {
		return false
	}
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// token reports whether b is a header name (RFC 9110's token).
func token(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`"(),/:;<=>?@[\]{}`), c) >= 0 {
			return false
		}
	}
	return true
}

// fieldValue reports whether b may be a header value: no control
// character other than a tab.
func fieldValue(b []byte) bool {
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// hostValue reports whether b is a plain host[:port], which is all the
// fast path takes (net/http judges the rest).
func hostValue(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || c == '_') {
			return false
		}
	}
	return true
}

// equalFold reports whether b is s, ignoring ASCII case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c, d := b[i], s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// fastResponse is a recorded answer: its status line without the
// protocol, which is the request's, and its headers without Date,
// Connection and the blank line; and its body.
type fastResponse struct {
	header, body []byte
}

// fastResponseCache holds recorded answers by the request's method, path,
// Accept-Encoding and If-None-Match lines.
type fastResponseCache struct {
	byKey map[string]*fastResponse
	bytes int
}

// response returns the recorded answer to req, recording it from the
// site's handler when it is new; nil when the answer is not the fast
// path's to give.
func (l *FastListener) response(fc *fastConn, req fastRequest) *fastResponse {
	k := append(fc.key[:0], req.target...)
	if req.head {
		k = append(k, " HEAD"...)
	}
	for _, v := range fc.accept {
		k = append(append(k, "\nA:"...), v...)
	}
	for _, v := range fc.noneMatch {
		k = append(append(k, "\nN:"...), v...)
	}
	fc.key = k
	if r := l.cache.Load().byKey[string(k)]; r != nil {
		return r
	}
	r := l.record(fc, req)
	if r == nil {
		return nil
	}
	l.cacheMu.Lock()
	defer l.cacheMu.Unlock()
	old := l.cache.Load()
	next := &fastResponseCache{byKey: make(map[string]*fastResponse, len(old.byKey)+1)}
	size := len(r.header) + len(r.body) + len(k)
	if len(old.byKey) < fastCacheEntries && old.bytes+size <= fastCacheBytes {
		for key, v := range old.byKey {
			next.byKey[key] = v
		}
		next.bytes = old.bytes
	}
	next.byKey[string(k)] = r
	next.bytes += size
	l.cache.Store(next)
	return r
}

// record asks the site's handler for the answer to req, as net/http would
// have, and keeps it if it is a 200 or 304 with a known length.
func (l *FastListener) record(fc *fastConn, req fastRequest) (resp *fastResponse) {
	method := http.MethodGet
	if req.head {
		method = http.MethodHead
	}
	target := string(req.target)
	hr := &http.Request{
		Method: method, URL: &url.URL{Path: target}, RequestURI: target,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, RemoteAddr: fc.c.RemoteAddr().String(),
	}
	if req.http10 {
		hr.Proto, hr.ProtoMinor = "HTTP/1.0", 0
	}
	for _, v := range fc.accept {
		hr.Header.Add("Accept-Encoding", string(v))
	}
	for _, v := range fc.noneMatch {
		hr.Header.Add("If-None-Match", string(v))
	}
	rec := &recorder{header: http.Header{}}
	defer func() {
		if recover() != nil {
			resp = nil // net/http will answer it, and recover the panic
		}
	}()
	l.handler.ServeHTTP(rec, hr)
	h := rec.header
	switch {
	case rec.status == 0:
		rec.status = http.StatusOK
		fallthrough
	case rec.status == http.StatusOK:
		if h.Get("Content-Length") != strconv.Itoa(rec.body.Len()) && !(req.head && h.Get("Content-Length") != "") {
			return nil
		}
	case rec.status == http.StatusNotModified:
		h.Del("Content-Type") // as net/http drops them from a 304
		h.Del("Content-Length")
		h.Del("Transfer-Encoding")
	default:
		return nil
	}
	if rec.body.Len() > fastBodyMax || h.Get("Date") != "" || h.Get("Connection") != "" {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(strconv.Itoa(rec.status) + " " + http.StatusText(rec.status) + "\r\n")
	if err := h.Write(&b); err != nil {
		return nil
	}
	return &fastResponse{header: b.Bytes(), body: rec.body.Bytes()} // rec is not used again
}

// recorder is the ResponseWriter an answer is recorded with.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// write sends a recorded answer with the Date line and the Connection line
// req needs, in one write.
func (fc *fastConn) write(resp *fastResponse, date []byte, req fastRequest) error {
	proto := "HTTP/1.1 "
	if req.http10 {
		proto = "HTTP/1.0 " // as net/http answers HTTP/1.0
	}
	out := append(append(fc.out[:0], proto...), resp.header...)
	out = append(out, date...)
	switch {
	case !req.keepAlive && !req.http10:
		out = append(out, "Connection: close\r\n"...)
	case req.keepAlive && req.http10:
		out = append(out, "Connection: keep-alive\r\n"...)
	}
	out = append(out, crlf...)
	fc.out = out
	if len(resp.body) == 0 || req.head {
		_, err := fc.c.Write(out)
		return err
	}
	fc.bufArr = [2][]byte{out, resp.body}
	fc.bufs = fc.bufArr[:]
	_, err := fc.bufs.WriteTo(fc.c) // one writev
	return err
}

// dateLine is the Date header line of the second it was made in.
type dateLine struct {
	unix int64
	line []byte
}

// dateLine returns the Date header line for now, made once a second.
func (l *FastListener) dateLine(now time.Time) []byte {
	if d := l.date.Load(); d != nil && d.unix == now.Unix() {
		return d.line
	}
	line := now.UTC().AppendFormat([]byte("Date: "), http.TimeFormat)
	line = append(line, crlf...)
	l.date.Store(&dateLine{unix: now.Unix(), line: line})
	return line
}

// handedConn is a connection handed to the http.Server: its reads start
// with what the fast path had read and not answered.
type handedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *handedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
