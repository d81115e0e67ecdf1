// Package text holds Tidemark's lessons as Markdown files, one directory
// per lesson (docs/lessons.md describes the format). Package course reads
// and checks them; this package only embeds them, so nothing else pays for
// the files.
package text

import "embed"

// Files holds every lesson directory.
//
//go:embed */*.md
var Files embed.FS

// Root is how errors name the directory Files stands for.
const Root = "lessons/text"

// Order lists the lessons in teaching order. A lesson is its directory of
// files plus its line here: adding a lesson needs nothing else.
var Order = []string{
	"high-water-mark",
	"guarantee-chain",
}
