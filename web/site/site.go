// Package site puts the Tidemark site together: the catalog on the home
// page, the lesson pages and the scenario pages, in one web.Options. The
// local server and the Cloudflare Worker (cmd/serve) serve it, and the
// exporter (web/export) writes it out as static files, so all three are
// the same site.
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
