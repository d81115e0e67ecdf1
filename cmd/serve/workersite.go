package main

import (
	"log/slog"
	"net/http"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// newWorkerHandler builds the handler of the Worker's Go program
// (worker.go): the routes whose answers a copy of the site in static files
// cannot hold (pictures of any step and of a linked scenario, /oembed, the
// sandbox's posts), besides the health check. Leaving out the pages' routes
// leaves their drawing out of the module, which keeps it under the free
// plan's 3 MB. A path that is no file and no route here answers 404, and
// the Worker's entry (entry.mjs) then sends the copy's not-found page.
//
// The Worker starts its Go program for every request, so building this
// handler reads nothing: each route reads what it needs (a bundled
// scenario, the lessons) when a request first asks for it.
//
// It builds natively too, so that tests and benchmarks serve and time
// what the Worker runs (workersite_test.go).
func newWorkerHandler(logger *slog.Logger) (http.Handler, error) {
	h, err := web.NewHandler(web.Options{
		Pages:  pages.DynamicRoutes(),
		Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	return headers(recovered(h, logger)), nil
}

// unavailable answers every request with 500 and why the handler could not
// be built: the Worker's Go program serves it rather than end, so that the
// glue, which waits for the program to be ready, does not leave the request
// waiting until the platform gives up on it.
func unavailable(err error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Tidemark could not start: "+err.Error(), http.StatusInternalServerError)
	})
}

// recovered answers 500 for a request whose handler panics before it has
// written anything, and logs the panic. A net/http server recovers such a
// panic itself; in a Worker it would end the Go program with the request
// unanswered.
func recovered(h http.Handler, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &wroteWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				logger.Error("serve: panic", "method", r.Method, "url", r.URL.String(), "panic", p)
				if !rw.wrote {
					http.Error(w, "Tidemark failed to answer this request", http.StatusInternalServerError)
				}
			}
		}()
		h.ServeHTTP(rw, r)
	})
}

// wroteWriter records whether a response has begun.
type wroteWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *wroteWriter) WriteHeader(status int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *wroteWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the library's writer.
func (w *wroteWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// headers serves HEAD as github.com/syumai/workers needs it: with no body
// and no Content-Length. The library sends a response that has a
// Content-Length through a stream of exactly that many bytes, which fails
// when none come, as none do for HEAD (a picture states its length); a
// net/http server would drop the body itself.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		head := &headWriter{ResponseWriter: w}
		h.ServeHTTP(head, r)
		w.Header().Del("Content-Length")
		if head.status != 0 {
			w.WriteHeader(head.status)
		}
	})
}

// headWriter keeps the status of a response to HEAD until its handler is
// done, and drops its body.
type headWriter struct {
	http.ResponseWriter
	status int
}

func (w *headWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *headWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(b), nil
}

// Unwrap gives http.ResponseController the library's writer.
func (w *headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
