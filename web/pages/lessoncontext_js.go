//go:build js

package pages

import "github.com/tidemark/tidemark/templates"

// lessonContext finds no lesson on GOOS=js. The one program built so is the
// Cloudflare Worker (cmd/serve), which draws no scenario page: the site's
// static copy holds them, drawn natively with their lesson sections (see
// lessoncontext.go). Leaving the lessons out leaves the Markdown parser out
// of the Worker, which is smaller for it and starts faster.
func lessonContext(string) ([]templates.ScenarioUse, *templates.CatalogItem) { return nil, nil }
