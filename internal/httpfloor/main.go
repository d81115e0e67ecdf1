// Command httpfloor serves files saved from the site, with the site's
// headers, and nothing else: the fastest a Go server of that kind can
// answer the same bytes, for `make loadtest` (cmd/serve/loadtest.sh) to
// set beside Tidemark and nginx.
//
//	httpfloor -server nethttp|fasthttp -addr HOST:PORT -root DIR -csp POLICY PATH...
//
// Each PATH is read from DIR+PATH, with its gzip form from DIR+PATH+".gz";
// a path ending in .css is a static file (cached for a year), any other a
// page (revalidated). A request that accepts gzip gets the gzip form. With
// -server nethttp the handler runs under net/http's server with the
// timeouts cmd/serve had on it; with -server fasthttp under fasthttp's, as
// cmd/serve now runs.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// file is one saved response body in both forms, with its type and cache
// policy.
type file struct {
	body, gz   []byte
	typ, cache string
}

func main() {
	server := flag.String("server", "nethttp", "nethttp or fasthttp")
	addr := flag.String("addr", "127.0.0.1:18482", "address to listen on")
	root := flag.String("root", ".", "folder the saved files are in")
	csp := flag.String("csp", "", "the Content-Security-Policy the site sends")
	flag.Parse()
	files := map[string]file{}
	for _, p := range flag.Args() {
		body, err := os.ReadFile(*root + p)
		if err != nil {
			fail(err)
		}
		gz, err := os.ReadFile(*root + p + ".gz")
		if err != nil {
			fail(err)
		}
		f := file{body: body, gz: gz, typ: "text/html; charset=utf-8", cache: "no-cache"}
		if strings.HasSuffix(p, ".css") {
			f.typ, f.cache = "text/css; charset=utf-8", "public, max-age=31536000, immutable"
		}
		files[p] = f
	}
	headers := func(set func(k, v string), f file, gzip bool) []byte {
		set("Content-Security-Policy", *csp)
		set("X-Frame-Options", "SAMEORIGIN")
		set("X-Content-Type-Options", "nosniff")
		set("Referrer-Policy", "strict-origin-when-cross-origin")
		set("Content-Type", f.typ)
		set("Cache-Control", f.cache)
		set("Vary", "Accept-Encoding")
		if gzip {
			set("Content-Encoding", "gzip")
			return f.gz
		}
		return f.body
	}
	switch *server {
	case "nethttp":
		srv := &http.Server{Addr: *addr, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
			WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				f, ok := files[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				h := w.Header()
				body := headers(func(k, v string) { h[k] = []string{v} }, f, strings.Contains(r.Header.Get("Accept-Encoding"), "gzip"))
				h["Content-Length"] = []string{strconv.Itoa(len(body))}
				_, _ = w.Write(body)
			})}
		fail(srv.ListenAndServe())
	case "fasthttp":
		srv := &fasthttp.Server{ReadTimeout: 10 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
			NoDefaultServerHeader: true,
			Handler: func(ctx *fasthttp.RequestCtx) {
				f, ok := files[string(ctx.Path())]
				if !ok {
					ctx.NotFound()
					return
				}
				gzip := strings.Contains(string(ctx.Request.Header.Peek("Accept-Encoding")), "gzip")
				ctx.Response.SetBodyRaw(headers(ctx.Response.Header.Set, f, gzip))
			}}
		fail(srv.ListenAndServe(*addr))
	default:
		fail(fmt.Errorf("-server %q: want nethttp or fasthttp", *server))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "httpfloor:", err)
	os.Exit(1)
}
