package course

import (
	"sync"

	"github.com/tidemark/tidemark/lessons/text"
)

// loaded reads the bundled lessons once.
var loaded = sync.OnceValues(func() ([]*Lesson, error) {
	return Load(text.Files, text.Root, text.Order)
})

// Lessons returns every bundled lesson, in teaching order. A lesson file
// that does not read is a defect of the build, reported with every problem
// at its file:line:column; the site refuses to start with it.
func Lessons() ([]*Lesson, error) { return loaded() }

// Lookup returns the bundled lesson with slug.
func Lookup(slug string) (*Lesson, bool) {
	all, err := Lessons()
	if err != nil {
		return nil, false
	}
	for _, l := range all {
		if l.Slug == slug {
			return l, true
		}
	}
	return nil, false
}
