package templates

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web/htmltest"
)

// TestScenarioContext draws a scenario page's place in the lessons both
// ways: with the sections that play it, each a link back, and the next
// scenario; and, as no bundled scenario is today, played by no lesson and
// the last of all.
func TestScenarioContext(t *testing.T) {
	doc, _ := render(t, ScenarioPage(ScenarioView{Layout: testLayout("A"), ID: "hwm/a", Title: "A",
		UsedIn: []ScenarioUse{{Lesson: "Lesson", Chapter: "Chapter", Section: "Section", Href: "/lessons/l/c#s"}},
		Next:   &CatalogItem{ID: "hwm/b", Title: "B", Href: "/scenarios/hwm/b"}}))
	uses := doc.ByTestID("scenario-use")
	require.Len(t, uses, 1)
	assert.Equal(t, "/lessons/l/c#s", htmltest.Attr(uses[0], "href"))
	assert.Equal(t, "Lesson, Chapter: Section", htmltest.Text(uses[0]))
	assert.Empty(t, doc.ByTestID("scenario-uses-none"))
	next := doc.One(t, "scenario-next")
	assert.Equal(t, "/scenarios/hwm/b", htmltest.Attr(next, "href"))
	assert.Equal(t, "next", htmltest.Attr(next, "rel"))
	assert.Contains(t, htmltest.Text(next), "Next scenario: B")

	doc, _ = render(t, ScenarioPage(ScenarioView{Layout: testLayout("Z"), ID: "hwm/z", Title: "Z"}))
	assert.Empty(t, doc.ByTestID("scenario-use"))
	assert.Equal(t, "No lesson plays this scenario yet.", htmltest.Text(doc.One(t, "scenario-uses-none")))
	assert.Empty(t, doc.ByTestID("scenario-next"), "the last scenario links to no next one")
}
