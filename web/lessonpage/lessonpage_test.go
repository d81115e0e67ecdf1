package lessonpage

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/templates/lesson"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
)

func hwm(t *testing.T) *course.Lesson {
	t.Helper()
	l, ok := course.Lookup("high-water-mark")
	if !ok {
		_, err := course.Lessons()
		t.Fatalf("lesson one does not load: %v", err)
	}
	return l
}

// page renders a lesson page through its route: the contents ("" chapter),
// a chapter, or "glossary".
func page(t *testing.T, slug, chapter string) (htmltest.Doc, string) {
	t.Helper()
	target := "/lessons/" + slug
	if chapter != "" {
		target += "/" + chapter
	}
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.SetPathValue("slug", slug)
	r.SetPathValue("chapter", chapter)
	c, err := render(r)
	require.NoError(t, err, target)
	return renderDoc(t, c)
}

func renderDoc(t *testing.T, c templ.Component) (htmltest.Doc, string) {
	t.Helper()
	var b strings.Builder
	require.NoError(t, c.Render(context.Background(), &b))
	return htmltest.Parse(t, b.String()), b.String()
}

// chapterOf returns the rendered page of the chapter holding section id.
func chapterOf(t *testing.T, l *course.Lesson, id string) htmltest.Doc {
	t.Helper()
	c, ok := l.ChapterOf(id)
	require.True(t, ok, "no chapter holds %s", id)
	doc, _ := page(t, l.Slug, c.ID)
	return doc
}

func within(n *html.Node, testid string) []*html.Node {
	return htmltest.All(n, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == testid })
}

func TestEveryChapterHasItsPageWithSectionsInOrder(t *testing.T) {
	l := hwm(t)
	require.GreaterOrEqual(t, len(l.Chapters), 5, "lesson one is split into chapters")
	for i := range l.Chapters {
		c := &l.Chapters[i]
		doc, _ := page(t, l.Slug, c.ID)
		assert.Equal(t, c.Title, htmltest.Text(doc.One(t, "page-title")))
		assert.Contains(t, htmltest.Text(doc.One(t, "lesson-crumb")), "chapter "+strconv.Itoa(i+1)+" of "+strconv.Itoa(len(l.Chapters)))
		var got, want []string
		for _, n := range doc.ByTestID("lesson-section") {
			got = append(got, htmltest.Attr(n, "data-section"))
		}
		for _, s := range c.Sections {
			want = append(want, s.ID)
		}
		assert.Equal(t, want, got, c.ID)

		// One h1, and no heading level is skipped on the way down.
		require.Len(t, doc.ByTag("h1"), 1)
		level := 1
		for _, n := range htmltest.All(doc.Root, func(n *html.Node) bool {
			return len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
		}) {
			next := int(n.Data[1] - '0')
			assert.LessOrEqual(t, next, level+1, "%s: heading %q skips a level", c.ID, htmltest.Text(n))
			level = next
		}

		// A main section holds its parts, so reading it means reading them.
		for _, s := range c.Sections {
			if s.Level != 3 {
				continue
			}
			n := htmltest.All(doc.Root, func(n *html.Node) bool { return htmltest.Attr(n, "id") == s.ID })
			require.Len(t, n, 1)
			assert.Equal(t, "true", htmltest.Attr(n[0].Parent, "data-main"), "%s is not inside its main section", s.ID)
		}

		// Previous and next.
		prev, next := doc.One(t, "chapter-prev"), doc.One(t, "chapter-next")
		if i > 0 {
			assert.Equal(t, lesson.ChapterHref(l, &l.Chapters[i-1]), htmltest.Attr(prev, "href"))
			assert.Equal(t, "prev", htmltest.Attr(prev, "rel"))
		} else {
			assert.Equal(t, "/lessons/"+l.Slug, htmltest.Attr(prev, "href"))
		}
		if i+1 < len(l.Chapters) {
			assert.Equal(t, lesson.ChapterHref(l, &l.Chapters[i+1]), htmltest.Attr(next, "href"))
			assert.Equal(t, "next", htmltest.Attr(next, "rel"))
		}
		// The table of contents marks this chapter.
		var current []string
		for _, li := range doc.ByTestID("toc-chapter") {
			for _, a := range htmltest.All(li, func(n *html.Node) bool { return n.Data == "a" && htmltest.Attr(n, "aria-current") == "page" }) {
				current = append(current, htmltest.Attr(a, "href"))
			}
		}
		assert.Equal(t, []string{lesson.ChapterHref(l, c)}, current)
	}
}

func TestContentsPageListsEveryChapterAndSection(t *testing.T) {
	l := hwm(t)
	doc, _ := page(t, l.Slug, "")
	assert.Equal(t, l.Title, htmltest.Text(doc.One(t, "page-title")))
	assert.Equal(t, lesson.ChapterHref(l, &l.Chapters[0]), htmltest.Attr(doc.One(t, "lesson-start"), "href"))
	items := doc.ByTestID("toc-chapter")
	require.Len(t, items, len(l.Chapters))
	var links []string
	for _, a := range htmltest.All(doc.One(t, "toc"), func(n *html.Node) bool { return n.Data == "a" }) {
		links = append(links, htmltest.Attr(a, "href"))
	}
	for i := range l.Chapters {
		c := &l.Chapters[i]
		assert.Equal(t, c.ID, htmltest.Attr(items[i], "data-chapter"))
		assert.Contains(t, links, lesson.ChapterHref(l, c))
		for _, s := range c.MainSections() {
			assert.Contains(t, links, lesson.ChapterHref(l, c)+"#"+s)
		}
	}
	assert.Contains(t, links, "/lessons/"+l.Slug+"/glossary")
	assert.Empty(t, doc.ByTestID("scenario-embed"), "the contents page draws no scenario")
}

func TestUnknownChapterIsNotFound(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/lessons/high-water-mark/nope", nil)
	r.SetPathValue("slug", "high-water-mark")
	r.SetPathValue("chapter", "nope")
	_, err := render(r)
	require.ErrorIs(t, err, web.ErrNotFound)
	assert.Contains(t, err.Error(), `chapter "nope"`)
}

// A learner who follows a chapter's link with a letter off, or a lesson's,
// is told which page it most likely meant and led to the lesson's
// contents, not only to the home page.
func TestMistypedChapterNamesTheChapterItMeant(t *testing.T) {
	notFound := func(target, slug, chapter string) htmltest.Doc {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.SetPathValue("slug", slug)
		r.SetPathValue("chapter", chapter)
		c, err := render(r)
		require.ErrorIs(t, err, web.ErrNotFound)
		require.NotNil(t, c, "%s: no page of its own", target)
		doc, _ := renderDoc(t, c)
		return doc
	}
	doc := notFound("/lessons/high-water-mark/how-it-break", "high-water-mark", "how-it-break")
	near := doc.ByTestID("not-found-near")
	require.Len(t, near, 1)
	// Text puts a space after every text node: " ?" is "</a>?".
	assert.Equal(t, "Did you mean chapter 2, Six ways to lose or repeat a row ?", htmltest.Text(near[0]))
	assert.Equal(t, []string{"/lessons/high-water-mark/how-it-breaks"}, hrefsIn(near[0]))
	up := doc.ByTestID("not-found-up")
	require.Len(t, up, 1)
	assert.Equal(t, []string{"/lessons/high-water-mark"}, hrefsIn(up[0]))

	doc = notFound("/lessons/high-water-mark/glosary", "high-water-mark", "glosary")
	assert.Equal(t, []string{"/lessons/high-water-mark/glossary"}, hrefsIn(doc.ByTestID("not-found-near")[0]))

	doc = notFound("/lessons/high-watermark", "high-watermark", "")
	assert.Equal(t, []string{"/lessons/high-water-mark"}, hrefsIn(doc.ByTestID("not-found-near")[0]))
	assert.Contains(t, htmltest.Text(doc.ByTestID("not-found-what")[0]), `lesson "high-watermark"`)
}

func TestEmbedsShowTheEngineOutcome(t *testing.T) {
	l := hwm(t)
	doc := chapterOf(t, l, "visibility-gap")
	var visibility []*html.Node
	for _, e := range doc.ByTestID("scenario-embed") {
		if htmltest.Attr(e, "data-scenario") == "hwm/visibility-gap" && htmltest.Attr(e, "data-knobs") == "mark=timestamp predicate=gt" {
			visibility = append(visibility, e)
		}
	}
	require.NotEmpty(t, visibility)
	missing := within(visibility[0], "embed-missing")
	require.Len(t, missing, 1)
	assert.Equal(t, "3, 4", htmltest.Text(missing[0]), "the T1–T4 timeline loses orders 3 and 4")

	// Advance-before and advance-after side by side.
	sides := chapterOf(t, l, "storing").ByTestID("compare-side")
	require.Len(t, sides, 2)
	var knobs []string
	for _, s := range sides {
		e := within(s, "scenario-embed")
		require.Len(t, e, 1)
		assert.Equal(t, "hwm/advance-order", htmltest.Attr(e[0], "data-scenario"))
		knobs = append(knobs, htmltest.Attr(e[0], "data-knobs"))
	}
	assert.Contains(t, knobs[0], "advance=before")
	assert.Contains(t, knobs[1], "advance=after")

	// Six checks, each with its catch and miss where a scenario shows it,
	// the check each is about marked in words.
	checks := chapterOf(t, l, "checks")
	assert.Len(t, checks.ByTestID("check-row"), 6)
	pairs := checks.ByTestID("check-pair")
	assert.GreaterOrEqual(t, len(pairs), 5)
	for _, p := range pairs {
		for _, e := range within(p, "scenario-embed") {
			focus := within(e, "embed-focus")
			require.Len(t, focus, 1, "embed %s marks no check", htmltest.Attr(e, "data-embed-id"))
			assert.Equal(t, htmltest.Attr(e, "data-focus"), htmltest.Attr(focus[0].Parent, "data-check"))
		}
	}
}

// TestEmbedsOpenWhereTheirTextPoints checks an embed with a step opens its
// widget at that step, in the server's drawing and for the browser.
func TestEmbedsOpenWhereTheirTextPoints(t *testing.T) {
	l := hwm(t)
	doc := chapterOf(t, l, "checks")
	n := 0
	for _, e := range doc.ByTestID("scenario-embed") {
		step := htmltest.Attr(e, "data-step")
		if step == "0" {
			continue
		}
		n++
		host := within(e, "widget-host")[0]
		assert.Contains(t, strings.Split(htmltest.Attr(host, "data-query"), "&"), "step="+step)
		w := within(host, "widget")[0]
		assert.Equal(t, step, htmltest.Attr(w, "data-step"), "the server drew embed %s at another step", htmltest.Attr(e, "data-embed-id"))
		own := htmltest.Attr(within(e, "embed-link")[0], "href")
		assert.Contains(t, own, "step="+step)
		assert.Equal(t, own+"&present=on", htmltest.Attr(within(e, "embed-present")[0], "href"), "the embed's link to present it opens where its own does")
	}
	assert.GreaterOrEqual(t, n, 5, "the checks chapter opens its repeats at the step each is about")
}

func TestPredictionsCarryTheEngineAnswerKey(t *testing.T) {
	l := hwm(t)
	for i := range l.Chapters {
		c := &l.Chapters[i]
		doc, _ := page(t, l.Slug, c.ID)
		forms := doc.ByTestID("prediction")
		ps := c.Predictions()
		require.Len(t, forms, len(ps))
		for i, f := range forms {
			p := ps[i]
			assert.Equal(t, p.ID, htmltest.Attr(f, "data-prediction"))
			ans, err := course.Grade(p)
			require.NoError(t, err)
			assert.Equal(t, strings.Join(ans.Correct(), " "), htmltest.Attr(f, "data-correct"))
			opts := within(f, "prediction-option")
			require.Len(t, opts, len(p.Options))
			for j, o := range opts {
				want := "false"
				if ans.Verdicts[j].True {
					want = "true"
				}
				assert.Equal(t, want, htmltest.Attr(o, "data-verdict"), "%s option %s", p.ID, p.Options[j].ID)
			}
			reveal := within(f, "prediction-reveal")
			require.Len(t, reveal, 1, "no-JS reveal for %s", p.ID)
			assert.Equal(t, "details", reveal[0].Data)
			assert.Len(t, within(f, "prediction-retry"), 1, "%s offers no second try", p.ID)
		}
	}
}

// TestOutlineIsTheWholeLesson checks every page of a lesson carries its
// outline for lesson.js: every chapter with its sections and predictions,
// and each prediction's options with the engine's verdicts.
func TestOutlineIsTheWholeLesson(t *testing.T) {
	l := hwm(t)
	for _, chapter := range []string{"", l.Chapters[0].ID, l.Chapters[len(l.Chapters)-1].ID} {
		doc, _ := page(t, l.Slug, chapter)
		var m lesson.Manifest
		require.NoError(t, json.Unmarshal([]byte(htmltest.Attr(doc.One(t, "lesson"), "data-outline")), &m))
		assert.Equal(t, l.Slug, m.Lesson)
		require.Len(t, m.Chapters, len(l.Chapters))
		var sections []string
		for i, c := range m.Chapters {
			assert.Equal(t, l.Chapters[i].ID, c.ID)
			assert.Equal(t, lesson.ChapterHref(l, &l.Chapters[i]), c.Href)
			sections = append(sections, c.Sections...)
		}
		assert.Equal(t, l.MainSections(), sections)
		assert.Equal(t, strings.Join(sections, " "), htmltest.Attr(doc.One(t, "lesson"), "data-sections"))
		require.Len(t, m.Predictions, len(l.Predictions()))
		for _, p := range l.Predictions() {
			ans, err := course.Grade(p)
			require.NoError(t, err)
			q := m.Predictions[p.ID]
			require.Len(t, q.Options, len(p.Options), p.ID)
			for i, o := range q.Options {
				assert.Equal(t, ans.Verdicts[i].True, o.Right, "%s option %s", p.ID, o.ID)
			}
		}
		// The site's other lessons are named by title, and their
		// predictions by question and option labels, without answers.
		all, err := course.Lessons()
		require.NoError(t, err)
		require.Len(t, m.Others, len(all)-1)
		assert.NotContains(t, m.Others, l.Slug)
		for _, o := range all {
			if o.Slug == l.Slug {
				continue
			}
			other := m.Others[o.Slug]
			assert.Equal(t, o.Title, other.Title)
			require.Len(t, other.Questions, len(o.Predictions()), o.Slug)
			for _, p := range o.Predictions() {
				q := other.Questions[p.ID]
				assert.Equal(t, p.Question.Plain(), q.Question, p.ID)
				require.Len(t, q.Options, len(p.Options), p.ID)
				for _, opt := range p.Options {
					assert.Equal(t, opt.Label.Plain(), q.Options[opt.ID], "%s option %s", p.ID, opt.ID)
				}
			}
		}
		outline := htmltest.Attr(doc.One(t, "lesson"), "data-outline")
		for id, q := range m.Others {
			for pid := range q.Questions {
				assert.NotContains(t, outline, `"`+pid+`":{"chapter"`, "%s's answer key is on another lesson's page", id)
			}
		}
	}
}

func TestControlsAreLabelledAndNoInlineCode(t *testing.T) {
	l := hwm(t)
	for _, chapter := range append(chapterIDs(l), "", "glossary") {
		doc, _ := page(t, l.Slug, chapter)
		labels := map[string]bool{}
		for _, l := range doc.ByTag("label") {
			labels[htmltest.Attr(l, "for")] = true
		}
		for _, in := range doc.ByTag("input") {
			assert.True(t, labels[htmltest.Attr(in, "id")], "%s: input %q has no label", chapter, htmltest.Attr(in, "id"))
		}
		for _, b := range doc.ByTag("button") {
			assert.NotEmpty(t, strings.TrimSpace(htmltest.Text(b)), "a button without text")
		}
		assert.Empty(t, doc.CSPViolations())
		ids := map[string]bool{}
		for _, n := range htmltest.All(doc.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "id") }) {
			id := htmltest.Attr(n, "id")
			assert.False(t, ids[id], "%s: id %q repeats", chapter, id)
			ids[id] = true
		}
	}
}

func chapterIDs(l *course.Lesson) []string {
	var out []string
	for _, c := range l.Chapters {
		out = append(out, c.ID)
	}
	return out
}

// TestTermLinksLand checks every glossary reference on a chapter lands on
// an entry: at the foot of the chapter, or on the glossary page, which
// holds them all.
func TestTermLinksLand(t *testing.T) {
	l := hwm(t)
	gdoc, _ := page(t, l.Slug, "glossary")
	all := map[string]bool{}
	for _, n := range gdoc.ByTestID("glossary-term") {
		all[htmltest.Attr(n, "id")] = true
	}
	assert.Len(t, all, len(l.Glossary))
	for _, want := range []string{"mvcc", "lsn", "idempotent-write", "at-least-once", "reconciliation"} {
		assert.True(t, all["term-"+want], want)
	}
	n := 0
	for _, id := range chapterIDs(l) {
		doc, _ := page(t, l.Slug, id)
		here := map[string]bool{}
		for _, n := range doc.ByTestID("glossary-term") {
			here[htmltest.Attr(n, "id")] = true
		}
		for _, a := range doc.ByTestID("term-link") {
			n++
			href := htmltest.Attr(a, "href")
			if frag, ok := strings.CutPrefix(href, "#"); ok {
				assert.True(t, here[frag], "%s: term link %s has no entry on the page", id, href)
			} else {
				frag, ok := strings.CutPrefix(href, "/lessons/"+l.Slug+"/glossary#")
				assert.True(t, ok && all[frag], "%s: term link %s", id, href)
			}
		}
	}
	assert.Greater(t, n, 30)
}

// TestEmbedsAreWidgets checks every embed carries the real widget, each with
// its own element-id prefix and knobs, folded, linking to its scenario page,
// with the engine's outcome beneath it as its text equivalent.
func TestEmbedsAreWidgets(t *testing.T) {
	l := hwm(t)
	total := 0
	for i := range l.Chapters {
		c := &l.Chapters[i]
		doc, _ := page(t, l.Slug, c.ID)
		embeds := doc.ByTestID("scenario-embed")
		require.Len(t, embeds, len(lesson.Slots(c)))
		total += len(embeds)
		seen := map[string]bool{}
		for _, e := range embeds {
			hosts := within(e, "widget-host")
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
			w := within(h, "widget")
			require.Len(t, w, 1)
			assert.Equal(t, id+"-widget", htmltest.Attr(w[0], "id"))
			tl := within(h, "timeline")
			require.Len(t, tl, 1)
			assert.False(t, htmltest.HasAttr(tl[0], "open"), "embed %s: the timeline should be folded", id)
			for _, kv := range strings.Fields(htmltest.Attr(e, "data-knobs")) {
				name, val, _ := strings.Cut(kv, "=")
				radio := htmltest.All(h, func(n *html.Node) bool { return htmltest.Attr(n, "id") == id+"-knob-"+name+"-"+val })
				require.Len(t, radio, 1, "embed %s knob %s", id, kv)
				assert.True(t, htmltest.HasAttr(radio[0], "checked"), "embed %s: knob %s is not set in its widget", id, kv)
			}
			summary := within(e, "embed-summary")
			require.Len(t, summary, 1)
			assert.Len(t, within(summary[0], "embed-missing"), 1)
		}
	}
	assert.Greater(t, total, 20)
}

// TestChapterLoadsTheWidgetScripts renders a chapter through its route and
// checks the engine loader and widget glue come before lesson.js.
func TestChapterLoadsTheWidgetScripts(t *testing.T) {
	l := hwm(t)
	doc, _ := page(t, l.Slug, l.Chapters[1].ID)
	var srcs []string
	for _, s := range doc.ByTag("script") {
		src := htmltest.Attr(s, "src")
		srcs = append(srcs, src[strings.LastIndex(src, "/")+1:])
	}
	var order []string
	for _, want := range []string{"wasm_exec", "app", "widget", "lesson"} {
		i := slices.IndexFunc(srcs, func(s string) bool { return strings.HasPrefix(s, want+".") })
		require.GreaterOrEqual(t, i, 0, "the chapter does not load %s.js (scripts: %v)", want, srcs)
		order = append(order, srcs[i])
	}
	assert.True(t, slices.IsSortedFunc(order, func(a, b string) int {
		return slices.Index(srcs, a) - slices.Index(srcs, b)
	}), "scripts out of order: %v", srcs)
}

// TestLoadPlotComesFromTheEngine checks the 10x/100x plot: an SVG with a
// role and a label, and a table with the engine's count for every point.
func TestLoadPlotComesFromTheEngine(t *testing.T) {
	doc := chapterOf(t, hwm(t), "scale")
	plots := doc.ByTestID("plot")
	require.Len(t, plots, 1)
	p := plots[0]
	svg := within(p, "plot-svg")
	require.Len(t, svg, 1)
	assert.Equal(t, "img", htmltest.Attr(svg[0], "role"))
	label := htmltest.Attr(svg[0], "aria-label")

	lost := func(knobs map[string]string) int {
		tr, err := course.RunScenario("hwm/load", knobs)
		require.NoError(t, err)
		return len(tr.Final().Missing)
	}
	table := within(p, "plot-table")
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
	assert.Len(t, htmltest.All(svg[0], func(n *html.Node) bool { return n.Data == "polyline" }), 2)
	assert.Len(t, htmltest.All(svg[0], func(n *html.Node) bool { return htmltest.HasAttr(n, "data-value") }), 6)
}

// TestProgressPanelHasItsDialogs checks the progress panel carries the
// dialogs that import and clearing open, and live regions for its news.
// (The lessons an import can match are the outline's: see
// TestOutlineIsTheWholeLesson.)
func TestProgressPanelHasItsDialogs(t *testing.T) {
	l := hwm(t)
	for _, chapter := range []string{"", l.Chapters[0].ID} {
		doc, _ := page(t, l.Slug, chapter)
		for _, id := range []string{"progress-import-dialog", "progress-confirm"} {
			assert.Equal(t, "dialog", doc.One(t, id).Data, "%s is not a dialog", id)
		}
		for _, id := range []string{"progress-notice", "progress-message"} {
			assert.Equal(t, "polite", htmltest.Attr(doc.One(t, id), "aria-live"), "%s is not a live region", id)
		}
	}
}

// codePlaceholder stands for a piece of code in the visible text: not a letter,
// a digit nor punctuation.
const codePlaceholder = "□"

var (
	// Markup that did not render: emphasis marks, glossary braces, a code
	// span's backticks, a link's brackets, a directive's fence (anywhere: a
	// fence that ran on into a paragraph shows at the end of its text).
	leftMarkup = regexp.MustCompile("\\*\\*|__|\\{[a-z0-9|-]+\\}|\\{[^}\\n]*\\|[^}\\n]*\\}|`|\\]\\(|:::")
	// A space before a comma, full stop, colon, semicolon or closing
	// bracket, or after an opening one, as where a template's line break
	// or a dropped piece falls inside a sentence ("at-least-once , its").
	spaceBeforePunctuation = regexp.MustCompile(`[ \t][,.;:!?)]|\([ \t]`)
	// Words run together: a letter straight after a colon, semicolon or
	// closing bracket, or an opening bracket or an arrow straight after a
	// letter, as where two pieces of markup meet with no space between them
	// ("Predict first:In", "False:Every", "committed(engine:",
	// "duplicates→").
	runTogether = regexp.MustCompile(`\p{L}[:;]\p{L}|\p{L}\(\p{L}|\)\p{L}|[a-z]\.\p{Lu}|\p{L}→|←\p{L}`)
)

// TestTextRendersWhole renders every page of every lesson and checks the
// reader sees no markup that failed to render and no words run together.
func TestTextRendersWhole(t *testing.T) {
	all, err := course.Lessons()
	require.NoError(t, err)
	for _, l := range all {
		for _, chapter := range append(chapterIDs(l), "", "glossary") {
			doc, _ := page(t, l.Slug, chapter)
			main := htmltest.All(doc.Root, func(n *html.Node) bool { return n.Data == "main" })
			require.Len(t, main, 1)
			text := htmltest.VisibleText(main[0], codePlaceholder)
			for _, m := range leftMarkup.FindAllStringIndex(text, -1) {
				t.Errorf("%s/%s: markup shows as written: %q", l.Slug, chapter, around(text, m))
			}
			for _, m := range runTogether.FindAllStringIndex(text, -1) {
				t.Errorf("%s/%s: words run together: %q", l.Slug, chapter, around(text, m))
			}
			for _, line := range strings.Split(text, "\n") {
				line = strings.Join(strings.Fields(line), " ")
				for _, m := range spaceBeforePunctuation.FindAllStringIndex(line, -1) {
					t.Errorf("%s/%s: a space before punctuation: %q", l.Slug, chapter, around(line, m))
				}
			}
		}
	}
}

func around(s string, m []int) string {
	return s[max(0, m[0]-30):min(len(s), m[1]+30)]
}

// TestTextCheckCatchesTheOldFaults feeds the text check the faults a
// learner found on the old page, so it is known to catch them.
func TestTextCheckCatchesTheOldFaults(t *testing.T) {
	for _, s := range []string{
		"**{retention|Retention} bounds every one of these.**",
		"Predict first:In the ties scenario",
		"False:Every order exactly once",
		"picks it up once it is committed(engine: missing: 3, 4)",
		"Next: Gaps or duplicates→",
		"Make the sink keyed, re-run the interval, and count. :::",
		"This hop: at-least-once , its repeats absorbed by the sink",
	} {
		assert.True(t, leftMarkup.MatchString(s) || runTogether.MatchString(s) || spaceBeforePunctuation.MatchString(s), "the check misses %q", s)
	}
	for _, s := range []string{"at 10:00:02, then", "(engine: missing: 3, 4)", "order 3 (T3).", "fills in " + codePlaceholder + ", and"} {
		assert.False(t, leftMarkup.MatchString(s) || runTogether.MatchString(s) || spaceBeforePunctuation.MatchString(s), "the check flags %q", s)
	}
}

// TestPagesWithoutWidgetsFetchNoEngine checks the contents and glossary
// pages, which draw no scenario, neither preload the engine's module nor
// load the widget's scripts.
func TestPagesWithoutWidgetsFetchNoEngine(t *testing.T) {
	l := hwm(t)
	for _, chapter := range []string{"", "glossary"} {
		doc, _ := page(t, l.Slug, chapter)
		for _, link := range doc.ByTag("link") {
			assert.NotEqual(t, "preload", htmltest.Attr(link, "rel"), "%q preloads %s", chapter, htmltest.Attr(link, "href"))
		}
		for _, s := range doc.ByTag("script") {
			src := htmltest.Attr(s, "src")
			assert.Contains(t, src, "/lesson.", "%q loads %s", chapter, src)
		}
	}
}

// hrefsIn lists the addresses of the links under n, in order.
func hrefsIn(n *html.Node) []string {
	var out []string
	for _, a := range htmltest.All(n, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "a" }) {
		out = append(out, htmltest.Attr(a, "href"))
	}
	return out
}
