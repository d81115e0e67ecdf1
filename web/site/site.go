// Package site puts the Tidemark site together: the catalog on the home
// page, the lesson pages and the scenario pages, in one web.Options, for
// the exporter (web/export), which writes it out as static files. It is
// the site cmd/serve serves (its siteOptions lists the same pages); a page
// added there belongs here too.
package site

import (
	"log/slog"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// Options returns the site's options, logging to logger (nil: the default).
func Options(logger *slog.Logger) (web.Options, error) {
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
		Logger:    logger,
	}, nil
}
