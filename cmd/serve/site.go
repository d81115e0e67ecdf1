package main

import (
	"log/slog"
	"runtime"

	"github.com/tidemark/tidemark/web"
)

// siteOptions returns the options shared by the local server and the
// Cloudflare Worker. The lesson and scenario lists stay empty until the
// lessons package has a catalog to offer.
func siteOptions(logger *slog.Logger) web.Options {
	return web.Options{
		// A local server compresses every asset once at startup; a Worker may
		// start afresh for each request and compresses only what it serves.
		Precompress: runtime.GOOS != "js",
		Logger:      logger,
	}
}
