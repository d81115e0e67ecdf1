//go:build !js

package main

import (
	"log/slog"
	"net/http"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/site"
)

// siteOptions returns the options shared by the local server and the
// Cloudflare Worker: the site of web/site, with its catalog read when the
// home page is first drawn (so that a Worker's new isolate reads no lesson
// for a picture).
func siteOptions(logger *slog.Logger) web.Options {
	return web.Options{
		LoadCatalog: site.Catalog,
		Pages:       site.Pages(),
		// A local server compresses every asset once, at startup. (On a
		// Worker the platform serves and compresses the assets, and this
		// does nothing.)
		Precompress: true,
		Logger:      logger,
	}
}

// newHandler builds the local server's handler with siteOptions. It reads
// the catalog first, so that a server with a broken lesson or scenario
// does not start.
func newHandler(logger *slog.Logger) (http.Handler, error) {
	if _, _, err := site.Catalog(); err != nil {
		return nil, err
	}
	return web.NewHandler(siteOptions(logger))
}
