//go:build js && wasm

package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"syscall/js"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// main serves the site on Cloudflare Workers. `make worker` builds it into
// build/worker with the glue of cmd/serve/worker.mjs, and the files of
// web/static as Workers static assets, which the platform answers before
// the Worker runs; cmd/serve/wrangler.jsonc deploys the lot (see
// docs/deploy.md).
//
// The glue starts this program once per isolate, not once per request:
// main builds the handler, hands the glue a function that answers one
// request, and waits. Every request then costs only what its handler does.
// The pages are the site exported as static files, which the platform
// serves: the Worker's handler has only the routes a static copy cannot
// answer (see workerOptions).
func main() {
	// A Worker's isolate has 128 MB in all: keep the Go heap well inside
	// it, and the kept pages smaller than on a server.
	debug.SetMemoryLimit(workerMemoryLimit)
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	handler, err := web.NewHandler(workerOptions(logger))
	if err != nil {
		logger.Error("serve: " + err.Error())
		js.Global().Call("tidemarkFailed", err.Error())
		return
	}
	js.Global().Call("tidemarkReady", js.FuncOf(func(this js.Value, args []js.Value) any {
		return serveRequest(handler, args)
	}))
	select {} // the glue calls back into the program for each request
}

// workerOptions returns the Worker handler's options: the routes whose
// answers a copy of the site in static files cannot hold (pictures of any
// step and of a linked scenario, /oembed, the sandbox's posts), besides the
// health check. Leaving out the pages' routes leaves their drawing out of
// the module, which keeps it under the free plan's 3 MB (about 180 KB less
// gzip). A path that is no file and no route here answers 404, and the
// glue then sends the copy's not-found page.
func workerOptions(logger *slog.Logger) web.Options {
	return web.Options{
		Pages:      pages.DynamicRoutes(),
		CacheBytes: workerCacheBytes,
		Logger:     logger,
	}
}

const (
	// workerMemoryLimit is the Go runtime's soft memory limit in a Worker.
	workerMemoryLimit = 64 << 20
	// workerCacheBytes bounds the pages a Worker keeps (web.Options.CacheBytes).
	workerCacheBytes = 8 << 20
)

// serveRequest answers one request for the glue, which passes the method,
// the URL, the headers as [name, value] pairs and the body (a Uint8Array,
// or null for GET and HEAD). It returns a Promise of {status, headers,
// body}, body a Uint8Array.
func serveRequest(handler http.Handler, args []js.Value) any {
	method, url, headers, body := args[0].String(), args[1].String(), args[2], args[3]
	var reqBody []byte
	if body.Truthy() {
		reqBody = make([]byte, body.Length())
		js.CopyBytesToGo(reqBody, body)
	}
	var executor js.Func
	executor = js.FuncOf(func(this js.Value, p []js.Value) any {
		executor.Release()
		resolve, reject := p[0], p[1]
		go func() {
			res, err := respond(handler, method, url, headers, reqBody)
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(res)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

// respond runs the handler on the request and converts its response.
func respond(handler http.Handler, method, url string, headers js.Value, body []byte) (res js.Value, err error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return js.Value{}, fmt.Errorf("worker: %s %s: %w", method, url, err)
	}
	for i := range headers.Length() {
		pair := headers.Index(i)
		req.Header.Add(pair.Index(0).String(), pair.Index(1).String())
	}
	req.RemoteAddr = req.Header.Get("Cf-Connecting-Ip")
	w := &recorder{header: http.Header{}, status: http.StatusOK}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("worker: %s %s: panic: %v", method, url, p)
		}
	}()
	handler.ServeHTTP(w, req)
	return w.toJS(), nil
}

// recorder keeps what the handler writes.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(status int) {
	if !w.wrote {
		w.wrote, w.status = true, status
	}
}

func (w *recorder) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// toJS returns the response as the glue takes it. A Content-Length the
// handler set is dropped: the runtime sets its own, from the body it sends
// (which it may compress).
func (w *recorder) toJS() js.Value {
	pairs := js.Global().Get("Array").New()
	for name, values := range w.header {
		if name == "Content-Length" {
			continue
		}
		for _, v := range values {
			pairs.Call("push", js.ValueOf([]any{name, v}))
		}
	}
	body := js.Null()
	if w.body.Len() > 0 {
		body = js.Global().Get("Uint8Array").New(w.body.Len())
		js.CopyBytesToJS(body, w.body.Bytes())
	}
	return js.ValueOf(map[string]any{"status": w.status, "headers": pairs, "body": body})
}
