package main

import (
	"log/slog"
	"net/http"

	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// siteOptions returns the options shared by the local server and the
// Cloudflare Worker: the catalog on the home page, the lesson pages and the
// scenario pages. The catalog is read when the home page is first drawn
// (see catalog).
func siteOptions(logger *slog.Logger) web.Options {
	return web.Options{
		LoadCatalog: catalog,
		Pages:       append(lessonpage.Routes(), pages.Routes()...),
		// A local server compresses every asset once, at startup. (On a
		// Worker the platform serves and compresses the assets, and this
		// does nothing.)
		Precompress: true,
		Logger:      logger,
	}
}

// catalog lists the lessons and the bundled scenarios for the home page.
// It fails when a lesson or scenario file does not read, naming every
// problem at its file:line:column.
func catalog() (lessons, scenarios []templates.CatalogItem, err error) {
	if scenarios, err = pages.Catalog(); err != nil {
		return nil, nil, err
	}
	if lessons, err = lessonpage.Catalog(); err != nil {
		return nil, nil, err
	}
	return lessons, scenarios, nil
}

// newHandler builds the local server's handler with siteOptions. It reads
// the catalog first, so that a server with a broken lesson or scenario
// does not start.
func newHandler(logger *slog.Logger) (http.Handler, error) {
	if _, _, err := catalog(); err != nil {
		return nil, err
	}
	return web.NewHandler(siteOptions(logger))
}
