package lessonpage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
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
	v, err := NewView(context.Background(), l, web.NewLayoutView(l.Title, "lesson.js"))
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

// TestEmbedsAreWidgets checks every embed carries the real widget, each with
// its own element-id prefix and knobs, folded, linking to its scenario page,
// with the engine's outcome beneath it as its text equivalent.
func TestEmbedsAreWidgets(t *testing.T) {
	doc, l := renderLesson(t)
	embeds := doc.ByTestID("scenario-embed")
	require.Len(t, embeds, len(templates.Slots(l)))
	seen := map[string]bool{}
	for _, e := range embeds {
		hosts := htmltest.All(e, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "widget-host" })
		require.Len(t, hosts, 1, "embed %s has no widget", htmltest.Attr(e, "data-scenario"))
		h := hosts[0]
		id := htmltest.Attr(h, "data-id")
		assert.Regexp(t, `^emb[0-9]+$`, id)
		assert.False(t, seen[id], "widget id %s repeats", id)
		seen[id] = true
		assert.Equal(t, id, htmltest.Attr(e, "data-embed-id"))
		assert.Equal(t, "on", htmltest.Attr(h, "data-embedded"))
		assert.Equal(t, "/scenarios/"+htmltest.Attr(e, "data-scenario"), htmltest.Attr(h, "data-base"))
		assert.True(t, htmltest.HasAttr(h, "data-query"), "embed %s opens with the page's address instead of its own knobs", id)
		assert.NotEmpty(t, htmltest.Attr(h, "data-source"))
		assert.True(t, htmltest.HasAttr(h, "data-tidemark-wasm"))
		// The widget draws its ids under the embed's prefix, with the
		// timeline folded.
		w := htmltest.All(h, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "widget" })
		require.Len(t, w, 1)
		assert.Equal(t, id+"-widget", htmltest.Attr(w[0], "id"))
		tl := htmltest.All(h, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "timeline" })
		require.Len(t, tl, 1)
		assert.False(t, htmltest.HasAttr(tl[0], "open"), "embed %s: the timeline should be folded", id)
		// Each embed's knob values reach its widget: the checked radios are
		// the embed's settings.
		for _, kv := range strings.Fields(htmltest.Attr(e, "data-knobs")) {
			name, val, _ := strings.Cut(kv, "=")
			radio := htmltest.All(h, func(n *html.Node) bool { return htmltest.Attr(n, "id") == id+"-knob-"+name+"-"+val })
			require.Len(t, radio, 1, "embed %s knob %s", id, kv)
			assert.True(t, htmltest.HasAttr(radio[0], "checked"), "embed %s: knob %s is not set in its widget", id, kv)
		}
		// The text equivalent comes after the widget.
		summary := htmltest.All(e, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "embed-summary" })
		require.Len(t, summary, 1)
		assert.Len(t, htmltest.All(summary[0], func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "embed-missing" }), 1)
	}
	assert.Greater(t, len(seen), 20)
}

// TestLessonPageLoadsTheWidgetScripts renders the page through its route and
// checks the engine loader and widget glue come before lesson.js.
func TestLessonPageLoadsTheWidgetScripts(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/lessons/high-water-mark", nil)
	r.SetPathValue("slug", "high-water-mark")
	c, err := render(r)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, c.Render(context.Background(), &b))
	doc := htmltest.Parse(t, b.String())
	var srcs []string
	for _, s := range doc.ByTag("script") {
		src := htmltest.Attr(s, "src")
		srcs = append(srcs, src[strings.LastIndex(src, "/")+1:])
	}
	var order []string
	for _, want := range []string{"wasm_exec", "app", "widget", "lesson"} {
		i := slices.IndexFunc(srcs, func(s string) bool { return strings.HasPrefix(s, want+".") })
		require.GreaterOrEqual(t, i, 0, "the lesson page does not load %s.js (scripts: %v)", want, srcs)
		order = append(order, srcs[i])
	}
	assert.True(t, slices.IsSortedFunc(order, func(a, b string) int {
		return slices.Index(srcs, a) - slices.Index(srcs, b)
	}), "scripts out of order: %v", srcs)
}

// TestLoadPlotComesFromTheEngine checks the 10x/100x plot: an SVG with a
// role and a label, and a table with the engine's count for every point.
func TestLoadPlotComesFromTheEngine(t *testing.T) {
	doc, _ := renderLesson(t)
	plots := doc.ByTestID("plot")
	require.Len(t, plots, 1)
	p := plots[0]
	svg := htmltest.All(p, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "plot-svg" })
	require.Len(t, svg, 1)
	assert.Equal(t, "img", htmltest.Attr(svg[0], "role"))
	label := htmltest.Attr(svg[0], "aria-label")

	lost := func(knobs map[string]string) int {
		tr, err := course.RunScenario("hwm/load", knobs)
		require.NoError(t, err)
		return len(tr.Final().Missing)
	}
	table := htmltest.All(p, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "plot-table" })
	require.Len(t, table, 1)
	rows := htmltest.All(table[0], func(n *html.Node) bool { return n.Data == "tr" })
	require.Len(t, rows, 4, "a header and one row per load")
	for i, load := range []string{"1s", "10s", "100s"} {
		cells := htmltest.All(rows[i+1], func(n *html.Node) bool { return n.Data == "td" })
		require.Len(t, cells, 2)
		ts, lsn := lost(map[string]string{"load": load}), lost(map[string]string{"load": load, "mark": "lsn"})
		assert.Equal(t, strconv.Itoa(ts), htmltest.Attr(cells[0], "data-value"), "timestamp mark at %s", load)
		assert.Equal(t, strconv.Itoa(lsn), htmltest.Attr(cells[1], "data-value"), "log position at %s", load)
		assert.Contains(t, label, strconv.Itoa(ts)+" at "+[]string{"1x", "10x", "100x"}[i])
	}
	// One marker per point, two lines.
	assert.Len(t, htmltest.All(svg[0], func(n *html.Node) bool { return n.Data == "polyline" }), 2)
	assert.Len(t, htmltest.All(svg[0], func(n *html.Node) bool { return htmltest.HasAttr(n, "data-value") }), 6)
}

// TestProgressPanelNamesEveryLesson checks the progress panel lists every
// lesson on the site (an import uses it to tell which entries match
// nothing) and carries the dialogs that import and clearing open.
func TestProgressPanelNamesEveryLesson(t *testing.T) {
	doc, _ := renderLesson(t)
	panel := doc.One(t, "progress")
	var slugs []string
	for _, l := range course.Lessons() {
		slugs = append(slugs, l.Slug)
	}
	assert.Equal(t, strings.Join(slugs, " "), htmltest.Attr(panel, "data-lessons"))
	for _, id := range []string{"progress-import-dialog", "progress-confirm"} {
		assert.Equal(t, "dialog", doc.One(t, id).Data, "%s is not a dialog", id)
	}
	for _, id := range []string{"progress-notice", "progress-message"} {
		assert.Equal(t, "polite", htmltest.Attr(doc.One(t, id), "aria-live"), "%s is not a live region", id)
	}
}
