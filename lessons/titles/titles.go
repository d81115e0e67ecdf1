// Package titles names the bundled lessons and their chapters without
// carrying their text: all that an oEmbed answer about a lesson's page
// needs. The Cloudflare Worker answers it, and embedding the lessons'
// Markdown (lessons/text) for a few titles would weigh 188 KB in its
// module, which is copied into memory at every request.
//
// titles_gen.go is written from lessons/text by `go generate
// ./lessons/titles` (`make generate` runs it); a test fails when it is out
// of date.
package titles

//go:generate go run ./gen

// lesson is one lesson's titles. The generated table is made of slices
// and strings, which the compiler lays out in the program's data: a map
// would be built when the program starts, as the Worker's does for every
// request.
type lesson struct {
	slug, title string
	chapters    []chapter
}

// chapter is a chapter's id and title.
type chapter struct{ id, title string }

// Of returns the title of lesson slug and its chapters' titles by id (the
// chapter file's name without its number and ".md"), as
// lessons/text.Titles reads them from the files. ok is false for a slug
// that is no bundled lesson. The map is the caller's.
func Of(slug string) (title string, chapters map[string]string, ok bool) {
	for _, l := range all {
		if l.slug != slug {
			continue
		}
		chapters = make(map[string]string, len(l.chapters))
		for _, c := range l.chapters {
			chapters[c.id] = c.title
		}
		return l.title, chapters, true
	}
	return "", nil, false
}
