// Package lessonpage serves the lesson pages: it runs every scenario a lesson
// embeds and grades every prediction with the engine, and hands the results
// to the templates as a view.
package lessonpage

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
)

// Routes returns the lesson pages.
func Routes() []web.Page {
	return []web.Page{{Pattern: "GET /lessons/{slug}", Render: render}}
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
	layout := web.NewLayoutView(l.Title, "lesson.js")
	layout.Description = l.Summary
	layout.Stylesheets = []string{web.AssetURL("lesson.css")}
	layout.Nav[1].Current = true
	v, err := NewView(l, layout)
	if err != nil {
		return nil, err
	}
	return templates.LessonPage(v), nil
}

// NewView runs the engine for every embed and prediction of l.
func NewView(l *course.Lesson, layout templates.LayoutView) (templates.LessonView, error) {
	v := templates.LessonView{Layout: layout, Lesson: l, Embeds: map[string]templates.EmbedView{}, Answers: map[string]course.Answer{}}
	for _, e := range l.Embeds() {
		key := templates.EmbedKey(e)
		if _, done := v.Embeds[key]; done {
			continue
		}
		ev, err := embedView(l, e)
		if err != nil {
			return v, fmt.Errorf("lesson %s: %w", l.Slug, err)
		}
		v.Embeds[key] = ev
	}
	for _, p := range l.Predictions() {
		a, err := course.Grade(p)
		if err != nil {
			return v, fmt.Errorf("lesson %s: %w", l.Slug, err)
		}
		v.Answers[p.ID] = a
	}
	return v, nil
}

func embedView(l *course.Lesson, e course.Embed) (templates.EmbedView, error) {
	sc, ok := lessons.Lookup(e.Scenario)
	if !ok {
		return templates.EmbedView{}, fmt.Errorf("embed: scenario %q is not bundled", e.Scenario)
	}
	tr, err := engine.Run(sc.File, e.Knobs, 1)
	if err != nil {
		return templates.EmbedView{}, fmt.Errorf("embed %s: %w", e.Scenario, err)
	}
	ev := templates.EmbedView{
		ID: sc.ID, Title: sc.Title, About: sc.About, Caption: course.Plain(e.Caption, l), Focus: e.Focus,
		Href: templates.ScenarioHref(sc.ID, e.Knobs),
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
	for i, s := range tr.Events {
		ev.Steps = append(ev.Steps, fmt.Sprintf("%s — %s", s.At, tr.Narration(&tr.Events[i])))
	}
	return ev, nil
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
