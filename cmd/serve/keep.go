//go:build !js

package main

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
)

// Kept responses: the site's handler marks a response it may be asked for
// again, byte for byte (a static file: web.Keeper), and names the request
// fields it depends on; the adapter keeps what the handler wrote and
// answers the same method, target and field values with it, without
// building an http.Request or running the handler (docs/security.md, "The
// HTTP server"; docs/performance.md, "Server: kept responses"). The handler
// still decides every answer: a request the handler has not answered in
// the same terms is passed to it.
//
// What a visitor can make the server keep is bounded: at most maxKept
// responses, none for a target or field values longer than maxKeptKey
// or for a target that is not a path
// (a static file's name with a query of the visitor's choosing, or an
// Accept-Encoding of their own, is a new key), and no more once full. A
// kept body is the handler's shared one (web.SharedWriter), not a copy.
const (
	maxKept    = 1024
	maxKeptKey = 512
)

// keptResponses are the responses kept so far. Many connections read it at
// once; it changes only when a response is added.
type keptResponses struct {
	mu      sync.RWMutex
	targets map[string]*keptTarget // by method, a space and the request target as sent
	count   int                    // responses kept, at most maxKept
}

// keptTarget is what the handler answered for one method and target: the
// fields it said its answer depends on, and one response per set of their
// values. Invariant: fields never changes once the target is added; a
// handler that named other fields for the same target is not kept.
type keptTarget struct {
	fields    []string
	responses map[string]*keptResponse // by valuesKey over fields
}

// keptResponse is a response as the adapter wrote it: status, the header
// fields in the order they were written (after WriteHeader's filtering),
// and the shared body, nil for none.
type keptResponse struct {
	status int
	header [][2]string
	body   []byte
}

func newKeptResponses() *keptResponses {
	return &keptResponses{targets: make(map[string]*keptTarget)}
}

// targetKey appends the key of req's method and target to b.
func targetKey(b []byte, req *fasthttp.Request) []byte {
	b = append(b, req.Header.Method()...)
	b = append(b, ' ')
	return append(b, req.Header.RequestURI()...)
}

// valuesKey appends to b the values of fields in h, each field's values in
// the order they came, as the handler reads them (the names as net/http's
// header map has them: fasthttp gives canonical names, see netHeader). A
// value ends with 0 and a field with 1; a field the request lacks is an
// empty run, so that none can pass for another.
func valuesKey(b []byte, h *fasthttp.RequestHeader, fields []string) []byte {
	for _, f := range fields {
		for k, v := range h.All() {
			if string(k) == f {
				b = append(b, v...)
				b = append(b, 0)
			}
		}
		b = append(b, 1)
	}
	return b
}

// find returns the kept response to req, or nil.
func (k *keptResponses) find(req *fasthttp.Request) *keptResponse {
	var buf [256]byte
	key := targetKey(buf[:0], req)
	k.mu.RLock()
	defer k.mu.RUnlock()
	t := k.targets[string(key)]
	if t == nil {
		return nil
	}
	return t.responses[string(valuesKey(key[:0], &req.Header, t.fields))]
}

// add keeps r as the answer to req, whose handler named fields, unless the
// store is full, a key is too long, or the target was kept with other
// fields.
func (k *keptResponses) add(req *fasthttp.Request, fields []string, r *keptResponse) {
	tk := targetKey(nil, req)
	vk := valuesKey(nil, &req.Header, fields)
	if len(tk) > maxKeptKey || len(vk) > maxKeptKey || !strings.HasPrefix(string(req.Header.RequestURI()), "/") {
		return // too long, or an absolute address as target (see keptHostOK)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.count >= maxKept {
		return
	}
	t := k.targets[string(tk)]
	if t == nil {
		t = &keptTarget{fields: fields, responses: make(map[string]*keptResponse)}
		k.targets[string(tk)] = t
	} else if !slices.Equal(t.fields, fields) {
		return
	}
	if _, ok := t.responses[string(vk)]; ok {
		return
	}
	t.responses[string(vk)] = r
	k.count++
}

// answer writes r to ctx's response, as the handler's writer did.
func (r *keptResponse) answer(ctx *fasthttp.RequestCtx) {
	rh := &ctx.Response.Header
	rh.DisableNormalizing()
	for _, f := range r.header {
		rh.Add(f[0], f[1])
	}
	ctx.SetStatusCode(r.status)
	if r.body != nil {
		ctx.Response.SetBodyRaw(r.body)
	}
}

// keepable reports whether a response with status may be kept: a whole
// answer or a "not modified", never an error (which may pass).
func keepable(status int) bool {
	return status == http.StatusOK || status == http.StatusNotModified
}
