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

	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// Routes returns the lesson pages. A lesson page is a pure function of the
// build (it runs every scenario it embeds and grades every prediction), so
// the site renders it once and keeps it.
func Routes() []web.Page {
	return []web.Page{{Pattern: "GET /lessons/{slug}", Render: render, Reuse: true}}
}

// Catalog lists the lessons for the home page.
func Catalog() []templates.CatalogItem {
	var out []templates.CatalogItem
	for _, l := range course.Lessons() {
		out = append(out, templates.CatalogItem{ID: l.Slug, Title: l.Title, Summary: l.Summary, Href: "/lessons/" + l.Slug})
	}
	return out
}

func render(r *http.Request) (templ.Component, error) {
	l, ok := course.Lookup(r.PathValue("slug"))
	if !ok {
		return nil, fmt.Errorf("lesson %q: %w", r.PathValue("slug"), web.ErrNotFound)
	}
	// The widget's scripts (engine loader, then the widget glue) come first,
	// so every embed is taken over by the engine; lesson.js adds predictions
	// and progress.
	layout := pages.WidgetLayout(l.Title, append(slices.Clone(pages.Scripts), "lesson.js")...)
	layout.Description = l.Summary
	layout.Stylesheets = []string{web.AssetURL("lesson.css")}
	layout.Nav[1].Current = true
	v, err := NewView(r.Context(), l, layout)
	if err != nil {
		return nil, err
	}
	if len(v.Embeds) == 0 {
		v.Layout.Modules = nil // no widget: nothing will fetch the engine
	}
	return templates.LessonPage(v), nil
}

// NewView runs the engine for every embed, prediction and plot of l.
func NewView(ctx context.Context, l *course.Lesson, layout templates.LayoutView) (templates.LessonView, error) {
	v := templates.LessonView{Layout: layout, Lesson: l, Embeds: map[string]templates.EmbedView{},
		Answers: map[string]course.Answer{}, Plots: map[string]templates.PlotView{}}
	for i, sl := range templates.Slots(l) {
		ev, err := embedView(ctx, l, sl.Embed, "emb"+strconv.Itoa(i+1))
		if err != nil {
			return v, fmt.Errorf("lesson %s: %w", l.Slug, err)
		}
		v.Embeds[sl.Key] = ev
	}
	for _, p := range l.Predictions() {
		a, err := course.Grade(p)
		if err != nil {
			return v, fmt.Errorf("lesson %s: %w", l.Slug, err)
		}
		v.Answers[p.ID] = a
	}
	for _, s := range l.Sections {
		for _, b := range s.Blocks {
			if p, ok := b.(course.Plot); ok {
				pv, err := plotView(p)
				if err != nil {
					return v, fmt.Errorf("lesson %s: plot %s: %w", l.Slug, p.ID, err)
				}
				v.Plots[p.ID] = pv
			}
		}
	}
	return v, nil
}

// embedView runs e's scenario and draws its widget under the element-id
// prefix id, folded as an embed, with links to its scenario page.
func embedView(ctx context.Context, l *course.Lesson, e course.Embed, id string) (templates.EmbedView, error) {
	sc, ok := lessons.Lookup(e.Scenario)
	if !ok {
		return templates.EmbedView{}, fmt.Errorf("embed: scenario %q is not bundled", e.Scenario)
	}
	q := url.Values{}
	for k, val := range e.Knobs {
		q.Set(k, val)
	}
	tr, host, err := pages.Widget(ctx, sc.File, q, "/scenarios/"+sc.ID, id, true)
	if err != nil {
		return templates.EmbedView{}, fmt.Errorf("embed %s: %w", e.Scenario, err)
	}
	host.Query, host.OwnQuery = course.KnobQuery(e.Knobs), true
	ev := templates.EmbedView{
		ID: sc.ID, Title: sc.Title, About: sc.About, Caption: course.Plain(e.Caption, l), Focus: e.Focus,
		Href: templates.ScenarioHref(sc.ID, e.Knobs), Widget: host,
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
		ev.Knobs = append(ev.Knobs, templates.KnobSetting{Name: k.Name, Label: label, Value: val, Default: val == k.Default})
	}
	f := tr.Final()
	ev.Missing = orNone(f.Missing)
	var dupes []string
	for _, k := range sortedKeys(f.Duplicated) {
		dupes = append(dupes, fmt.Sprintf("%s ×%d", k, f.Duplicated[k]))
	}
	ev.Dupes, ev.Stale = orNone(dupes), orNone(f.Stale)
	for _, c := range tr.Checks() {
		ev.Checks = append(ev.Checks, templates.EmbedCheck{Name: c.Name, Status: string(c.Status), Detail: c.Detail, Catches: c.Catches, Misses: c.Misses})
	}
	return ev, nil
}

// plotView runs p's scenario for every value of its X knob and, when it has
// one, every value of its Series knob, and counts the rows each run lost.
func plotView(p course.Plot) (templates.PlotView, error) {
	sc, ok := lessons.Lookup(p.Scenario)
	if !ok {
		return templates.PlotView{}, fmt.Errorf("scenario %q is not bundled", p.Scenario)
	}
	xk := sc.File.Knob(p.X)
	if xk == nil {
		return templates.PlotView{}, fmt.Errorf("scenario %s has no knob %q", p.Scenario, p.X)
	}
	series := []string{""}
	if p.Series != "" {
		sk := sc.File.Knob(p.Series)
		if sk == nil {
			return templates.PlotView{}, fmt.Errorf("scenario %s has no knob %q", p.Scenario, p.Series)
		}
		series = sk.Values
	}
	label := func(m map[string]string, v string) string {
		if l, ok := m[v]; ok {
			return l
		}
		return v
	}
	pv := templates.PlotView{ID: p.ID, Caption: p.Caption, XTitle: p.XTitle, YTitle: "Rows lost"}
	for _, x := range xk.Values {
		pv.X = append(pv.X, label(p.XLabels, x))
	}
	for _, sv := range series {
		s := templates.PlotSeries{Name: label(p.Labels, sv)}
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
				return templates.PlotView{}, err
			}
			s.Values = append(s.Values, len(tr.Final().Missing))
			s.Href = append(s.Href, templates.ScenarioHref(p.Scenario, knobs))
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
