package text_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/lessons/text"
)

// TestTitlesAreTheCoursesTitles holds the titles read without the Markdown
// parser to the ones package course reads with it, for every lesson and
// chapter.
func TestTitlesAreTheCoursesTitles(t *testing.T) {
	for _, slug := range text.Order {
		l, ok := course.Lookup(slug)
		require.True(t, ok, slug)
		title, chapters, ok := text.Titles(slug)
		require.True(t, ok, slug)
		assert.Equal(t, l.Title, title, slug)
		want := map[string]string{}
		for _, c := range l.Chapters {
			want[c.ID] = c.Title
		}
		assert.Equal(t, want, chapters, slug)
	}
	_, _, ok := text.Titles("no-such-lesson")
	assert.False(t, ok)
	_, _, ok = text.Titles("../high-water-mark")
	assert.False(t, ok)
}
