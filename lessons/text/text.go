// Package text holds Tidemark's lessons as Markdown files, one directory
// per lesson (docs/lessons.md describes the format). Package course reads
// and checks them; this package only embeds them, so nothing else pays for
// the files.
package text

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// Files holds every lesson directory.
//
//go:embed */*.md
var Files embed.FS

// Root is how errors name the directory Files stands for.
const Root = "lessons/text"

// Order lists the lessons in teaching order. A lesson is its directory of
// files plus its line here: adding a lesson needs nothing else (`make
// generate` then brings lessons/titles up to date).
var Order = []string{
	"high-water-mark",
	"guarantee-chain",
}

// Titles reads the titles of lesson slug without parsing its Markdown: the
// lesson's, from the first "# " line of lesson.md, and each chapter's, by
// its id (the file name without its number and ".md"), from its first
// "# " line. Package lessons/titles is generated from it, for a server
// that only names pages (an oEmbed answer) and so needs neither the text
// nor the Markdown parser; package course reads the same titles and a test
// holds the two to each other. ok is false for a lesson that is not in
// Order.
func Titles(slug string) (lesson string, chapters map[string]string, ok bool) {
	if !slices.Contains(Order, slug) {
		return "", nil, false
	}
	entries, err := fs.ReadDir(Files, slug)
	if err != nil {
		return "", nil, false
	}
	chapters = map[string]string{}
	for _, en := range entries {
		name := en.Name()
		b, err := fs.ReadFile(Files, slug+"/"+name)
		if err != nil {
			continue
		}
		title := firstHeading(string(b))
		switch num, id, found := strings.Cut(strings.TrimSuffix(name, ".md"), "-"); {
		case name == "lesson.md":
			lesson = title
		case found && num != "" && strings.Trim(num, "0123456789") == "":
			chapters[id] = title
		}
	}
	return lesson, chapters, lesson != ""
}

// firstHeading returns the text of the first level-one ATX heading of a
// Markdown file, without an attribute block such as {#id}.
func firstHeading(md string) string {
	for line := range strings.Lines(md) {
		if h, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "# "); ok {
			if i := strings.Index(h, " {"); i >= 0 && strings.HasSuffix(h, "}") {
				h = h[:i]
			}
			return strings.TrimSpace(h)
		}
	}
	return ""
}
