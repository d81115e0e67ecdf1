//go:build !js

package main

import (
	"log/slog"
	"net/http"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/site"
)

// newHandler builds the local server's handler: the site of web/site, with
// every static file compressed once, at startup. It fails when a lesson or
// scenario file does not read, so that such a server does not start. (The
// Cloudflare Worker serves the site exported as static files and has only
// the routes a copy cannot answer: see worker.go.)
func newHandler(logger *slog.Logger) (http.Handler, error) {
	opts, err := site.Options(logger)
	if err != nil {
		return nil, err
	}
	opts.Precompress = true
	return web.NewHandler(opts)
}
