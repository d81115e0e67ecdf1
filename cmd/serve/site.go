package main

import (
	"log/slog"
	"net/http"
	"runtime"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/site"
)

// siteOptions returns the options shared by the local server and the
// Cloudflare Worker: the site (web/site), with its assets compressed once
// at startup on a local server; a Worker may start afresh for each request
// and compresses only what it serves.
func siteOptions(logger *slog.Logger) (web.Options, error) {
	opts, err := site.Options(logger)
	opts.Precompress = runtime.GOOS != "js"
	return opts, err
}

// newHandler builds the site's handler with siteOptions.
func newHandler(logger *slog.Logger) (http.Handler, error) {
	opts, err := siteOptions(logger)
	if err != nil {
		return nil, err
	}
	return web.NewHandler(opts)
}
