//go:build !js

package pages

import (
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/templates/lesson"
)

// lessonContext returns the lesson sections that play scenario id, and the
// scenario a learner meets after it.
func lessonContext(id string) ([]templates.ScenarioUse, *templates.CatalogItem) {
	var uses []templates.ScenarioUse
	for _, u := range course.Uses(id) {
		uses = append(uses, templates.ScenarioUse{
			Lesson: u.Lesson.Title, Chapter: u.Chapter.Title, Section: u.Section.Title,
			Href: lesson.ChapterHref(u.Lesson, u.Chapter) + "#" + u.Section.ID,
		})
	}
	var next *templates.CatalogItem
	if n, ok := course.NextScenario(id); ok {
		if sc, ok := lessons.Lookup(n); ok {
			next = &templates.CatalogItem{ID: sc.ID, Title: sc.Title, Href: "/scenarios/" + sc.ID}
		}
	}
	return uses, next
}
