// Package lesson holds the templ components of the lesson pages (a
// lesson's contents, its chapters, its glossary) and their view, filled in
// by web/lessonpage. It is apart from package templates because it reads
// the course (lessons/course, and so the Markdown parser), which the other
// pages do without: the Cloudflare Worker, which draws none of the lesson
// pages, links package templates and not this one.
package lesson

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/templates"
)

// LessonView is a page of a lesson — its contents, one of its chapters or
// its glossary — plus what the engine computed for it at render time:
// every embedded scenario's widget and outcome, every prediction's answer
// key and every plot's numbers.
type LessonView struct {
	Layout templates.LayoutView
	Lesson *course.Lesson
	// Chapter is the chapter shown, with its place in the lesson; nil on
	// the contents page and the glossary.
	Chapter *course.Chapter
	Index   int
	// Glossary is set on the glossary page.
	Glossary bool
	// Next is the lesson after this one, if any, for the last chapter's
	// "next" link.
	Next *course.Lesson
	// Embeds holds each embed drawn on the page, keyed by SlotKey: the same
	// scenario may appear in several places, each with its own widget.
	Embeds map[string]EmbedView
	// Answers holds the engine's answer to each prediction of the page, by
	// prediction id.
	Answers map[string]course.Answer
	// Plots holds each plot's numbers, by plot id.
	Plots map[string]PlotView
	// Manifest is the lesson's outline for lesson.js (see ManifestOf).
	Manifest string
}

// LessonHref is the address of a lesson's contents page.
func LessonHref(l *course.Lesson) string { return "/lessons/" + l.Slug }

// ChapterHref is the address of a chapter's page.
func ChapterHref(l *course.Lesson, c *course.Chapter) string { return LessonHref(l) + "/" + c.ID }

// GlossaryHref is the address of a lesson's glossary page.
func GlossaryHref(l *course.Lesson) string { return LessonHref(l) + "/glossary" }

// Href resolves a link of the lesson's text for this page: "#id" names a
// section, plot or prediction, which may sit in another chapter.
func (v LessonView) Href(ref string) string {
	id, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return ref
	}
	c, found := v.Lesson.ChapterOf(id)
	if !found || v.Chapter != nil && c.ID == v.Chapter.ID {
		return ref
	}
	return ChapterHref(v.Lesson, c) + ref
}

// TermHref is where a glossary reference on this page leads: the entry at
// the foot of the chapter, which lists every term the chapter uses, or the
// glossary page.
func (v LessonView) TermHref(id string) string {
	if v.Glossary || v.Chapter != nil && slices.Contains(ChapterTerms(v.Lesson, v.Chapter), id) {
		return "#term-" + id
	}
	return GlossaryHref(v.Lesson) + "#term-" + id
}

// ChapterTerms returns the glossary entries a chapter refers to, in
// glossary order.
func ChapterTerms(l *course.Lesson, c *course.Chapter) []string {
	used := map[string]bool{}
	for _, s := range c.Sections {
		for _, b := range s.Blocks {
			for _, r := range course.BlockText(b) {
				for _, id := range r.Terms() {
					used[id] = true
				}
			}
		}
	}
	var out []string
	for _, t := range l.Glossary {
		if used[t.ID] {
			out = append(out, t.ID)
		}
	}
	return out
}

// Prev and NextChapter are the chapters before and after the one shown.
func (v LessonView) Prev() *course.Chapter {
	if v.Chapter == nil || v.Index == 0 {
		return nil
	}
	return &v.Lesson.Chapters[v.Index-1]
}

func (v LessonView) NextChapter() *course.Chapter {
	if v.Chapter == nil || v.Index+1 >= len(v.Lesson.Chapters) {
		return nil
	}
	return &v.Lesson.Chapters[v.Index+1]
}

// SectionGroup is a main section and the parts (level 3) that follow it;
// the page nests them, so a main section counts as read only once all of
// it has been seen.
type SectionGroup struct {
	Main  course.Section
	Parts []course.Section
}

// Groups returns the chapter's sections, nested.
func Groups(c *course.Chapter) []SectionGroup {
	var out []SectionGroup
	for _, s := range c.Sections {
		if s.Level == 2 || len(out) == 0 {
			out = append(out, SectionGroup{Main: s})
			continue
		}
		out[len(out)-1].Parts = append(out[len(out)-1].Parts, s)
	}
	return out
}

// Manifest is the outline of a lesson that lesson.js reads from every page
// of it: its chapters with their sections and predictions, and each
// prediction's question and options with the author's answer (Verify
// holds it equal to the engine's), so progress from any chapter can be
// counted, previewed and imported on every page. Others names the site's
// other lessons and their questions (without their answers), so a preview
// of an import that touches them reads in words rather than ids.
type Manifest struct {
	Lesson      string                      `json:"lesson"`
	Title       string                      `json:"title"`
	Chapters    []ManifestChapter           `json:"chapters"`
	Predictions map[string]ManifestQuestion `json:"predictions"`
	Others      map[string]ManifestOther    `json:"others"`
}

// ManifestOther is another lesson of the site, as a Manifest names it: its
// title and its predictions by id.
type ManifestOther struct {
	Title     string                   `json:"title"`
	Questions map[string]OtherQuestion `json:"questions"`
}

// OtherQuestion is a prediction of another lesson: its question and its
// options' labels by id, without the answer, which only its own lesson's
// pages grade.
type OtherQuestion struct {
	Question string            `json:"question"`
	Options  map[string]string `json:"options"`
}

// ManifestChapter is one chapter in a Manifest.
type ManifestChapter struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Href        string   `json:"href"`
	Sections    []string `json:"sections"` // the main sections, which progress counts
	Anchors     []string `json:"anchors"`  // every section, for an address that names one
	Predictions []string `json:"predictions"`
}

// ManifestQuestion is one prediction in a Manifest.
type ManifestQuestion struct {
	Chapter  string           `json:"chapter"`
	Question string           `json:"question"`
	Options  []ManifestOption `json:"options"`
}

// ManifestOption is one option of a prediction in a Manifest.
type ManifestOption struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Right bool   `json:"right"`
}

// ManifestOf returns l's outline as JSON.
func ManifestOf(l *course.Lesson) string {
	m := Manifest{Lesson: l.Slug, Title: l.Title, Predictions: map[string]ManifestQuestion{}, Others: map[string]ManifestOther{}}
	all, _ := course.Lessons()
	for _, o := range all {
		if o.Slug == l.Slug {
			continue
		}
		other := ManifestOther{Title: o.Title, Questions: map[string]OtherQuestion{}}
		for i := range o.Chapters {
			for _, p := range o.Chapters[i].Predictions() {
				q := OtherQuestion{Question: p.Question.Plain(), Options: map[string]string{}}
				for _, opt := range p.Options {
					q.Options[opt.ID] = opt.Label.Plain()
				}
				other.Questions[p.ID] = q
			}
		}
		m.Others[o.Slug] = other
	}
	for i := range l.Chapters {
		c := &l.Chapters[i]
		mc := ManifestChapter{ID: c.ID, Title: c.Title, Href: ChapterHref(l, c), Sections: c.MainSections(), Predictions: []string{}}
		for _, s := range c.Sections {
			mc.Anchors = append(mc.Anchors, s.ID)
		}
		for _, p := range c.Predictions() {
			mc.Predictions = append(mc.Predictions, p.ID)
			q := ManifestQuestion{Chapter: c.ID, Question: p.Question.Plain()}
			for _, o := range p.Options {
				q.Options = append(q.Options, ManifestOption{ID: o.ID, Label: o.Label.Plain(), Right: slices.Contains(p.Answer, o.ID)})
			}
			m.Predictions[p.ID] = q
		}
		m.Chapters = append(m.Chapters, mc)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic("templates: a manifest of strings always marshals: " + err.Error())
	}
	return string(b)
}

// SlotKey names the place of an embed on a chapter page: its section, the
// block's index in the section, and the embed's index within the block
// (for a checks table, 2×row for the catch and 2×row+1 for the miss).
func SlotKey(section string, block, sub int) string {
	return section + "/" + strconv.Itoa(block) + "/" + strconv.Itoa(sub)
}

// Slot is one embed the chapter page draws, at its place.
type Slot struct {
	Key   string
	Embed course.Embed
}

// Slots returns every embed a chapter draws, in page order. A prediction's
// scenario is not drawn (its reveal links to it), so it is not a slot.
func Slots(c *course.Chapter) []Slot {
	var out []Slot
	for _, s := range c.Sections {
		for bi, b := range s.Blocks {
			add := func(sub int, e course.Embed) {
				out = append(out, Slot{Key: SlotKey(s.ID, bi, sub), Embed: e})
			}
			switch b := b.(type) {
			case course.Embeds:
				for i, e := range b {
					add(i, e)
				}
			case course.Compare:
				add(0, b.Sides[0].Embed)
				add(1, b.Sides[1].Embed)
			case course.Checks:
				for i, r := range b.Rows {
					if r.Caught.Scenario != "" {
						add(2*i, r.Caught)
						add(2*i+1, r.Missed)
					}
				}
			}
		}
	}
	return out
}

// Embed returns the view of the embed at key; ok is false when the page was
// built without it.
func (v LessonView) Embed(key string) (EmbedView, bool) {
	ev, ok := v.Embeds[key]
	return ev, ok
}

// EmbedView is one scenario shown in a lesson: its interactive widget, drawn
// by the server and taken over by the browser's engine, and the outcome the
// engine computed on the server as the widget's text equivalent.
type EmbedView struct {
	ID      string
	Title   string
	About   string
	Caption course.Rich
	Step    int // the step the widget opens at
	Widget  templates.WidgetHost
	Knobs   []KnobSetting
	Href    string // the scenario page with these knobs
	Missing string // "none" or "3, 4"
	Dupes   string
	Stale   string
	Checks  []EmbedCheck
	Focus   string // the check the text is about, or ""
}

// PresentHref is the embed's scenario page in presenter mode, at the same
// step and knobs: what a teacher takes to a projector.
func (e EmbedView) PresentHref() string {
	if strings.Contains(e.Href, "?") {
		return e.Href + "&present=on"
	}
	return e.Href + "?present=on"
}

// KnobSetting is one knob and the value an embed uses.
type KnobSetting struct {
	Name, Label, Value string
	Default            bool
}

// FocusLine returns the focused check's line, if the embed has one.
func (e EmbedView) FocusLine() (EmbedCheck, bool) {
	for _, c := range e.Checks {
		if c.Name == e.Focus {
			return c, true
		}
	}
	return EmbedCheck{}, false
}

// EmbedCheck is one check's verdict at the end of an embedded scenario.
type EmbedCheck struct {
	Name, Status, Detail, Catches, Misses string
}

// StatusText is the verdict in words, so it never rests on colour alone.
func (c EmbedCheck) StatusText() string {
	switch c.Status {
	case "pass":
		return "✓ pass"
	case "fail":
		return "✗ fail"
	}
	return "– not run"
}

func itoa(n int) string { return strconv.Itoa(n) }

// PlotView is a chart of rows lost against a knob, with the numbers the
// engine produced for each point, drawn as SVG with a table beside it.
type PlotView struct {
	ID      string
	Caption string
	XTitle  string
	YTitle  string
	X       []string // the labels along the horizontal axis, in order
	Series  []PlotSeries
}

// PlotSeries is one line of a plot: a value per X label.
type PlotSeries struct {
	Name   string
	Values []int
	Href   []string // the scenario page for each point
}

// The plot's drawing area, in SVG user units.
const (
	plotW, plotH                             = 480, 260
	plotLeft, plotRight, plotTop, plotBottom = 56, 16, 16, 48
)

// Top is the value at the top of the y axis: the largest value rounded up to
// a tick, and at least one tick.
func (p PlotView) Top() int {
	top := 0
	for _, s := range p.Series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	step := p.tick(top)
	return max(step, (top+step-1)/step*step)
}

func (p PlotView) tick(top int) int {
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000} {
		if top/s <= 6 {
			return s
		}
	}
	return 1000
}

// YTicks are the values marked on the y axis.
func (p PlotView) YTicks() []int {
	top := p.Top()
	step := p.tick(top)
	var out []int
	for v := 0; v <= top; v += step {
		out = append(out, v)
	}
	return out
}

// XAt and YAt place a point in the drawing.
func (p PlotView) XAt(i int) int {
	if len(p.X) < 2 {
		return plotLeft + (plotW-plotLeft-plotRight)/2
	}
	return plotLeft + 24 + i*(plotW-plotLeft-plotRight-48)/(len(p.X)-1)
}

func (p PlotView) YAt(v int) int {
	return plotH - plotBottom - v*(plotH-plotTop-plotBottom)/p.Top()
}

// Points is the SVG polyline of a series.
func (p PlotView) Points(s PlotSeries) string {
	var b strings.Builder
	for i, v := range s.Values {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(p.XAt(i)) + "," + strconv.Itoa(p.YAt(v)))
	}
	return b.String()
}

// Label is the plot in one sentence, for its aria-label.
func (p PlotView) Label() string {
	parts := make([]string, len(p.Series))
	for i, s := range p.Series {
		vals := make([]string, len(s.Values))
		for j, v := range s.Values {
			vals[j] = strconv.Itoa(v) + " at " + p.X[j]
		}
		parts[i] = s.Name + ": " + strings.Join(vals, ", ")
	}
	return p.Caption + ". " + strings.Join(parts, "; ") + "."
}

// columnName is the name of table t's column i, which a phone's stacked
// table prints above each cell (lesson.css), or "" past the header's end.
func columnName(t course.Table, i int) string {
	if i >= len(t.Head) {
		return ""
	}
	return t.Head[i].Plain()
}
