package main

import (
	"log/slog"
	"net/http"
	"runtime"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// siteOptions returns the options shared by the local server and the
// Cloudflare Worker: the catalog on the home page, the lesson pages and the
// scenario pages.
func siteOptions(logger *slog.Logger) (web.Options, error) {
	scenarios, err := pages.Catalog()
	if err != nil {
		return web.Options{}, err
	}
	lessons, err := lessonpage.Catalog()
	if err != nil {
		return web.Options{}, err
	}
	return web.Options{
		Lessons:   lessons,
		Scenarios: scenarios,
		Pages:     append(lessonpage.Routes(), pages.Routes()...),
		// A local server compresses every asset once at startup; a Worker may
		// start afresh for each request and compresses only what it serves.
		Precompress: runtime.GOOS != "js",
		Logger:      logger,
	}, nil
}

// newHandler builds the site's handler with siteOptions.
func newHandler(logger *slog.Logger) (http.Handler, error) {
	opts, err := siteOptions(logger)
	if err != nil {
		return nil, err
	}
	return web.NewHandler(opts)
}
