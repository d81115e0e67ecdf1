package lessonpage

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
)

func renderLesson(t *testing.T) (htmltest.Doc, *course.Lesson) {
	t.Helper()
	l, ok := course.Lookup("high-water-mark")
	require.True(t, ok)
	v, err := NewView(l, web.NewLayoutView(l.Title, "lesson.js"))
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, templates.LessonPage(v).Render(context.Background(), &b))
	return htmltest.Parse(t, b.String()), l
}

func TestLessonSectionsInOrderWithHeadings(t *testing.T) {
	doc, l := renderLesson(t)
	assert.Equal(t, l.Title, htmltest.Text(doc.One(t, "page-title")))
	var got []string
	for _, n := range doc.ByTestID("lesson-section") {
		got = append(got, htmltest.Attr(n, "data-section"))
	}
	var want []string
	for _, s := range l.Sections {
		want = append(want, s.ID)
	}
	assert.Equal(t, want, got)

	// One h1, and no heading level is skipped on the way down.
	require.Len(t, doc.ByTag("h1"), 1)
	level := 1
	for _, n := range htmltest.All(doc.Root, func(n *html.Node) bool {
		return len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
	}) {
		next := int(n.Data[1] - '0')
		assert.LessOrEqual(t, next, level+1, "heading %q skips a level", htmltest.Text(n))
		level = next
	}
}

func TestEmbedsShowTheEngineOutcome(t *testing.T) {
	doc, _ := renderLesson(t)
	embeds := doc.ByTestID("scenario-embed")
	require.NotEmpty(t, embeds)
	var visibility []*html.Node
	for _, e := range embeds {
		id := htmltest.Attr(e, "data-scenario")
		assert.True(t, strings.HasPrefix(id, "hwm/"), id)
		if id == "hwm/visibility-gap" && htmltest.Attr(e, "data-knobs") == "mark=timestamp predicate=gt" {
			visibility = append(visibility, e)
		}
	}
	require.NotEmpty(t, visibility)
	missing := htmltest.All(visibility[0], func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "embed-missing" })
	require.Len(t, missing, 1)
	assert.Equal(t, "3, 4", htmltest.Text(missing[0]), "the T1–T4 timeline loses orders 3 and 4")

	// Advance-before and advance-after side by side.
	sides := doc.ByTestID("compare-side")
	require.Len(t, sides, 2)
	var knobs []string
	for _, s := range sides {
		e := htmltest.All(s, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "scenario-embed" })
		require.Len(t, e, 1)
		assert.Equal(t, "hwm/advance-order", htmltest.Attr(e[0], "data-scenario"))
		knobs = append(knobs, htmltest.Attr(e[0], "data-knobs"))
	}
	assert.Contains(t, knobs[0], "advance=before")
	assert.Contains(t, knobs[1], "advance=after")

	// Six checks, each with its catch and miss where a scenario shows it.
	assert.Len(t, doc.ByTestID("check-row"), 6)
	assert.GreaterOrEqual(t, len(doc.ByTestID("check-pair")), 5)
}

func TestPredictionsCarryTheEngineAnswerKey(t *testing.T) {
	doc, l := renderLesson(t)
	forms := doc.ByTestID("prediction")
	ps := l.Predictions()
	require.Len(t, forms, len(ps))
	for i, f := range forms {
		p := ps[i]
		assert.Equal(t, p.ID, htmltest.Attr(f, "data-prediction"))
		ans, err := course.Grade(p)
		require.NoError(t, err)
		assert.Equal(t, strings.Join(ans.Correct(), " "), htmltest.Attr(f, "data-correct"))
		opts := htmltest.All(f, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "prediction-option" })
		require.Len(t, opts, len(p.Options))
		for j, o := range opts {
			want := "false"
			if ans.Verdicts[j].True {
				want = "true"
			}
			assert.Equal(t, want, htmltest.Attr(o, "data-verdict"), "%s option %s", p.ID, p.Options[j].ID)
		}
		reveal := htmltest.All(f, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "prediction-reveal" })
		require.Len(t, reveal, 1, "no-JS reveal for %s", p.ID)
		assert.Equal(t, "details", reveal[0].Data)
	}
}

func TestControlsAreLabelledAndNoInlineCode(t *testing.T) {
	doc, _ := renderLesson(t)
	labels := map[string]bool{}
	for _, l := range doc.ByTag("label") {
		labels[htmltest.Attr(l, "for")] = true
	}
	for _, in := range doc.ByTag("input") {
		assert.True(t, labels[htmltest.Attr(in, "id")], "input %q has no label", htmltest.Attr(in, "id"))
	}
	for _, b := range doc.ByTag("button") {
		assert.NotEmpty(t, strings.TrimSpace(htmltest.Text(b)), "a button without text")
	}
	assert.Empty(t, doc.CSPViolations())
	ids := map[string]bool{}
	for _, n := range htmltest.All(doc.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "id") }) {
		id := htmltest.Attr(n, "id")
		assert.False(t, ids[id], "id %q repeats", id)
		ids[id] = true
	}
}

func TestGlossaryTermsLinked(t *testing.T) {
	doc, l := renderLesson(t)
	terms := doc.ByTestID("glossary-term")
	require.Len(t, terms, len(l.Glossary))
	anchors := map[string]bool{}
	for _, n := range terms {
		anchors[htmltest.Attr(n, "id")] = true
	}
	links := doc.ByTestID("term-link")
	require.NotEmpty(t, links)
	for _, a := range links {
		href := htmltest.Attr(a, "href")
		assert.True(t, anchors[strings.TrimPrefix(href, "#")], "term link %s", href)
	}
	for _, want := range []string{"mvcc", "lsn", "idempotent-write", "at-least-once", "reconciliation"} {
		assert.True(t, anchors["term-"+want], want)
	}
	assert.True(t, slices.ContainsFunc(links, func(a *html.Node) bool { return htmltest.Attr(a, "href") == "#term-mvcc" }))
}
