// Package lessonpage serves the lesson pages: it runs every scenario a lesson
// embeds and grades every prediction with the engine, and hands the results
// to the templates as a view.
package lessonpage

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/templates/lesson"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// Routes returns the lesson pages: a lesson's contents, each of its
// chapters, and its glossary. A lesson page is a pure function of the build
// (it runs every scenario it embeds and grades every prediction) and of the
// address it is reached at (its link preview names it), so the site renders
// it once per address and keeps it.
func Routes() []web.Page {
	return []web.Page{
		{Pattern: "GET /lessons/{slug}", Render: render, Reuse: true, Vary: pages.OriginHeaders},
		{Pattern: "GET /lessons/{slug}/{chapter}", Render: render, Reuse: true, Vary: pages.OriginHeaders},
		// A copy in static files links each page as a directory
		// (docs/deploy.md); the server answers its links too.
		{Pattern: "GET /lessons/{slug}/{$}", Render: render, Reuse: true, Vary: pages.OriginHeaders},
		{Pattern: "GET /lessons/{slug}/{chapter}/{$}", Render: render, Reuse: true, Vary: pages.OriginHeaders},
	}
}

// Catalog lists the lessons for the home page. It fails when a lesson file
// does not read, naming every problem at its file:line:column, so a site
// with a broken lesson does not start.
func Catalog() ([]templates.CatalogItem, error) {
	all, err := course.Lessons()
	if err != nil {
		return nil, fmt.Errorf("lessons: %w", err)
	}
	var out []templates.CatalogItem
	for _, l := range all {
		out = append(out, templates.CatalogItem{ID: l.Slug, Title: l.Title, Summary: l.Summary, Href: lesson.LessonHref(l)})
	}
	return out, nil
}

// Paths lists the address of every lesson page: each lesson's contents,
// chapters and glossary, for a server that renders them before its first
// visitor does. It is empty when the lessons do not load.
func Paths() []string {
	all, _ := course.Lessons()
	var out []string
	for _, l := range all {
		out = append(out, lesson.LessonHref(l))
		for i := range l.Chapters {
			out = append(out, lesson.ChapterHref(l, &l.Chapters[i]))
		}
		out = append(out, lesson.GlossaryHref(l))
	}
	return out
}

func render(r *http.Request) (templ.Component, error) {
	slug := r.PathValue("slug")
	l, ok := course.Lookup(slug)
	if !ok {
		if _, err := course.Lessons(); err != nil {
			return nil, fmt.Errorf("lessons: %w", err)
		}
		v := notFound(fmt.Sprintf("lesson %q", slug))
		all, _ := course.Lessons()
		var slugs []string
		byslug := map[string]*course.Lesson{}
		for _, o := range all {
			slugs = append(slugs, o.Slug)
			byslug[o.Slug] = o
		}
		for _, s := range scenario.Near(slug, slugs) {
			v.Near = append(v.Near, templates.NavLink{Label: byslug[s].Title, Href: lesson.LessonHref(byslug[s])})
		}
		return templates.NotFound(v), fmt.Errorf("lesson %q: %w", slug, web.ErrNotFound)
	}
	id := r.PathValue("chapter")
	var c *course.Chapter
	var index int
	title := l.Title
	switch id {
	case "":
	case "glossary":
		title = "Glossary — " + l.Title
	default:
		var found bool
		if c, index, found = l.Chapter(id); !found {
			// A chapter spelled a letter off, or an old link: name the
			// chapters it most likely meant, and the lesson's contents.
			v := notFound(fmt.Sprintf("chapter %q of lesson %q", id, slug))
			ids := []string{"glossary"}
			for i := range l.Chapters {
				ids = append(ids, l.Chapters[i].ID)
			}
			for _, near := range scenario.Near(id, ids) {
				if near == "glossary" {
					v.Near = append(v.Near, templates.NavLink{Label: "the glossary", Href: lesson.GlossaryHref(l)})
				} else if c, i, ok := l.Chapter(near); ok {
					v.Near = append(v.Near, templates.NavLink{Label: fmt.Sprintf("chapter %d, %s", i+1, c.Title), Href: lesson.ChapterHref(l, c)})
				}
			}
			v.Up = templates.NavLink{Label: "Go to the contents of " + l.Title + ", with every chapter", Href: lesson.LessonHref(l)}
			return templates.NotFound(v), fmt.Errorf("chapter %q of lesson %q: %w", id, slug, web.ErrNotFound)
		}
		title = c.Title + " — " + l.Title
	}
	// The widget's scripts (engine loader, then the widget glue) come first,
	// so every embed is taken over by the engine; lesson.js adds predictions
	// and progress.
	layout := web.NewLayoutView(title, "lesson.js")
	if c != nil {
		layout = pages.WidgetLayout(title, append(slices.Clone(pages.Scripts), "lesson.js")...)
	}
	layout.Description = l.Summary
	layout.Stylesheets = []string{web.AssetURL("lesson.css")}
	layout.Nav[1].Current = true
	layout.Preview = pages.Preview(r, strings.TrimSuffix(r.URL.Path, "/"), "", "article")
	switch {
	case id == "glossary":
		return lesson.LessonGlossary(lesson.LessonView{Layout: layout, Lesson: l, Glossary: true}), nil
	case c == nil:
		return lesson.LessonContents(lesson.LessonView{Layout: layout, Lesson: l, Manifest: lesson.ManifestOf(l)}), nil
	}
	v, err := NewView(r.Context(), l, index, layout)
	if err != nil {
		return nil, err
	}
	if len(v.Embeds) == 0 {
		v.Layout.Modules = nil // no widget: nothing will fetch the engine
	}
	return lesson.LessonChapter(v), nil
}

// NewView runs the engine for every embed, prediction and plot of chapter
// index of l. A prediction whose answer in the lesson file the engine does
// not confirm is an error: the page would grade learners against a key
// its author did not mean.
func NewView(ctx context.Context, l *course.Lesson, index int, layout templates.LayoutView) (lesson.LessonView, error) {
	c := &l.Chapters[index]
	v := lesson.LessonView{Layout: layout, Lesson: l, Chapter: c, Index: index, Embeds: map[string]lesson.EmbedView{},
		Answers: map[string]course.Answer{}, Plots: map[string]lesson.PlotView{}, Manifest: lesson.ManifestOf(l)}
	if all, err := course.Lessons(); err == nil {
		for i, x := range all {
			if x.Slug == l.Slug && i+1 < len(all) {
				v.Next = all[i+1]
			}
		}
	}
	var worlds pages.Worlds
	for i, sl := range lesson.Slots(c) {
		ev, w, err := embedView(ctx, sl.Embed, "emb"+strconv.Itoa(i+1))
		if err != nil {
			return v, fmt.Errorf("%s: %w", sl.Embed.Pos, err)
		}
		v.Embeds[sl.Key] = ev
		worlds |= w
	}
	shareModule(&v, worlds)
	for _, p := range c.Predictions() {
		a, err := course.Grade(p)
		if err != nil {
			return v, fmt.Errorf("%s: %w", p.Pos, err)
		}
		if want, got := sortedCopy(p.Answer), sortedCopy(a.Correct()); !slices.Equal(want, got) {
			return v, fmt.Errorf("%s: prediction %s: the lesson's answer is %v but the engine finds %v true", p.Pos, p.ID, want, got)
		}
		v.Answers[p.ID] = a
	}
	for _, s := range c.Sections {
		for _, b := range s.Blocks {
			if p, ok := b.(course.Plot); ok {
				pv, err := plotView(p)
				if err != nil {
					return v, fmt.Errorf("%s: plot %s: %w", p.Pos, p.ID, err)
				}
				v.Plots[p.ID] = pv
			}
		}
	}
	return v, nil
}

// shareModule gives every widget of the chapter the smallest engine build
// that runs worlds, the worlds of all of their scenarios, and preloads it:
// the page starts one module (the first widget's), which must run every
// scenario on the page.
func shareModule(v *lesson.LessonView, worlds pages.Worlds) {
	if len(v.Embeds) == 0 {
		return
	}
	module := worlds.Module()
	url, ok := pages.ModuleURL(module)
	if !ok {
		return
	}
	for k, ev := range v.Embeds {
		ev.Widget.Module, ev.Widget.WasmURL = module, url
		v.Embeds[k] = ev
	}
	pages.UseModule(&v.Layout, url)
}

func sortedCopy(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// embedView runs e's scenario and draws its widget under the element-id
// prefix id, folded as an embed, with links to its scenario page. It also
// returns the worlds the scenario runs, for the page's choice of module.
func embedView(ctx context.Context, e course.Embed, id string) (lesson.EmbedView, pages.Worlds, error) {
	sc, ok := lessons.Lookup(e.Scenario)
	if !ok {
		return lesson.EmbedView{}, 0, fmt.Errorf("embed: scenario %q is not bundled", e.Scenario)
	}
	q := url.Values{}
	for k, val := range e.Knobs {
		q.Set(k, val)
	}
	if e.Step > 0 {
		q.Set("step", strconv.Itoa(e.Step))
	}
	tr, host, err := pages.Widget(ctx, sc.File, q, nil, "/scenarios/"+sc.ID, id, true)
	if err != nil {
		return lesson.EmbedView{}, 0, fmt.Errorf("embed %s: %w", e.Scenario, err)
	}
	// The browser opens the widget with the embed's own settings and step,
	// not the page's address.
	host.Query, host.OwnQuery = q.Encode(), true
	href := lesson.ScenarioHref(sc.ID, e.Knobs)
	if e.Step > 0 {
		href += map[bool]string{true: "&", false: "?"}[len(e.Knobs) > 0] + "step=" + strconv.Itoa(e.Step)
	}
	ev := lesson.EmbedView{
		ID: sc.ID, Title: sc.Title, About: sc.About, Caption: e.Caption, Focus: e.Focus, Step: e.Step,
		Href: href, Widget: host,
	}
	for _, k := range sc.File.Knobs {
		val := k.Default
		if x, ok := e.Knobs[k.Name]; ok {
			val = x
		}
		label := k.Label
		if label == "" {
			label = k.Name
		}
		ev.Knobs = append(ev.Knobs, lesson.KnobSetting{Name: k.Name, Label: label, Value: val, Default: val == k.Default})
	}
	f := tr.Final()
	ev.Missing = orNone(f.Missing)
	var dupes []string
	for _, k := range sortedKeys(f.Duplicated) {
		dupes = append(dupes, fmt.Sprintf("%s ×%d", k, f.Duplicated[k]))
	}
	ev.Dupes, ev.Stale = orNone(dupes), orNone(f.Stale)
	for _, c := range tr.Checks() {
		ev.Checks = append(ev.Checks, lesson.EmbedCheck{Name: c.Name, Status: string(c.Status), Detail: c.Detail, Catches: c.Catches, Misses: c.Misses})
	}
	return ev, pages.WorldsOf(tr), nil
}

// plotView runs p's scenario for every value of its X knob and, when it has
// one, every value of its Series knob, and counts the rows each run lost.
func plotView(p course.Plot) (lesson.PlotView, error) {
	sc, ok := lessons.Lookup(p.Scenario)
	if !ok {
		return lesson.PlotView{}, fmt.Errorf("scenario %q is not bundled", p.Scenario)
	}
	xk := sc.File.Knob(p.X)
	if xk == nil {
		return lesson.PlotView{}, fmt.Errorf("scenario %s has no knob %q", p.Scenario, p.X)
	}
	series := []string{""}
	if p.Series != "" {
		sk := sc.File.Knob(p.Series)
		if sk == nil {
			return lesson.PlotView{}, fmt.Errorf("scenario %s has no knob %q", p.Scenario, p.Series)
		}
		series = sk.Values
	}
	label := func(m map[string]string, v string) string {
		if l, ok := m[v]; ok {
			return l
		}
		return v
	}
	pv := lesson.PlotView{ID: p.ID, Caption: p.Caption, XTitle: p.XTitle, YTitle: "Rows lost"}
	for _, x := range xk.Values {
		pv.X = append(pv.X, label(p.XLabels, x))
	}
	for _, sv := range series {
		s := lesson.PlotSeries{Name: label(p.Labels, sv)}
		if sv == "" {
			s.Name = pv.YTitle
		}
		for _, x := range xk.Values {
			knobs := map[string]string{p.X: x}
			if sv != "" {
				knobs[p.Series] = sv
			}
			tr, err := course.RunScenario(p.Scenario, knobs)
			if err != nil {
				return lesson.PlotView{}, err
			}
			s.Values = append(s.Values, len(tr.Final().Missing))
			s.Href = append(s.Href, lesson.ScenarioHref(p.Scenario, knobs))
		}
		pv.Series = append(pv.Series, s)
	}
	return pv, nil
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	// Keys are business keys; numeric order reads best and strings sort them
	// correctly only at equal length.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (len(out[j]) < len(out[j-1]) || len(out[j]) == len(out[j-1]) && out[j] < out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// notFound is the not-found page for what, with the site's layout; the
// caller adds the pages the address most likely meant.
func notFound(what string) templates.NotFoundView {
	layout := web.NewLayoutView("Not found", "app.js")
	layout.Nav[1].Current = true
	return templates.NotFoundView{Layout: layout, What: what}
}
