package titles

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons/text"
)

// TestTitlesAreTheFilesTitles holds the generated titles to the lesson
// files, lesson by lesson and chapter by chapter.
func TestTitlesAreTheFilesTitles(t *testing.T) {
	const stale = "lessons/titles/titles_gen.go is out of date: run `go generate ./lessons/titles` (or `make generate`)"
	require.Len(t, all, len(text.Order), stale)
	for _, slug := range text.Order {
		wantTitle, wantChapters, ok := text.Titles(slug)
		require.True(t, ok, slug)
		title, chapters, ok := Of(slug)
		require.True(t, ok, "%s: %s", slug, stale)
		assert.Equal(t, wantTitle, title, stale)
		assert.Equal(t, wantChapters, chapters, stale)
	}
	_, _, ok := Of("no-such-lesson")
	assert.False(t, ok)
}

// TestOfReturnsACopy checks that a caller cannot change the titles.
func TestOfReturnsACopy(t *testing.T) {
	_, chapters, ok := Of(text.Order[0])
	require.True(t, ok)
	for id := range chapters {
		chapters[id] = "changed"
	}
	_, again, _ := Of(text.Order[0])
	assert.NotContains(t, again, "changed")
	for _, title := range again {
		assert.NotEqual(t, "changed", title)
	}
}
