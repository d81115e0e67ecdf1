// Package docs holds the reference documents written for the site's
// visitors as well as for the repository's readers, so that the site can
// serve them (web/docpage): the scenario file format and how to embed a
// scenario in other documentation. The other documents here are for the
// people who work on Tidemark, and stay out of the build.
package docs

import "embed"

// FS holds scenarios.md and embedding.md.
//
//go:embed scenarios.md embedding.md
var FS embed.FS
