// Package site puts the Tidemark site together: the catalog on the home
// page, the lesson pages and the scenario pages. cmd/serve serves it and the
// exporter (web/export) writes it out as static files, which the Cloudflare
// Worker serves; a page added here is in all three.
package site

import (
	"log/slog"
	"net/http"
	"slices"

	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/chainpage"
	"github.com/tidemark/tidemark/web/docpage"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// Options returns the site's options, logging to logger (nil: the default),
// with the catalog read at once: it fails when a lesson or scenario file
// does not read.
func Options(logger *slog.Logger) (web.Options, error) {
	lessons, scenarios, err := Catalog()
	if err != nil {
		return web.Options{}, err
	}
	return web.Options{
		Lessons:   lessons,
		Scenarios: scenarios,
		Pages:     Pages(),
		Logger:    logger,
	}, nil
}

// Pages returns the site's routes besides the home page, the static files
// and the health check: the lesson pages, the chain builder, the
// reference documents and the scenario pages.
func Pages() []web.Page {
	return slices.Concat(lessonpage.Routes(), chainpage.Routes(), docpage.Routes(), pages.Routes(), indexes())
}

// indexes send the addresses a visitor may guess for the list of lessons
// or of scenarios (/lessons, /scenarios) to that list on the home page:
// they answered 404, and /scenarios a redirect to a 404. A 302, so that a
// page of its own there later is not hidden by a browser's cache.
func indexes() []web.Page {
	to := func(section string) http.Handler { return http.RedirectHandler("/#"+section, http.StatusFound) }
	return []web.Page{
		{Pattern: "GET /lessons", Handler: to("lessons")},
		{Pattern: "GET /lessons/{$}", Handler: to("lessons")},
		{Pattern: "GET /scenarios", Handler: to("scenarios")},
		{Pattern: "GET /scenarios/{$}", Handler: to("scenarios")},
	}
}

// Catalog lists the lessons and the bundled scenarios for the home page.
// It fails when a lesson or scenario file does not read, naming every
// problem at its file:line:column.
func Catalog() (lessons, scenarios []templates.CatalogItem, err error) {
	if scenarios, err = pages.Catalog(); err != nil {
		return nil, nil, err
	}
	if lessons, err = lessonpage.Catalog(); err != nil {
		return nil, nil, err
	}
	return lessons, scenarios, nil
}
