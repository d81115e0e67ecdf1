package course

import (
	"slices"

	"github.com/tidemark/tidemark/lessons"
)

// Use is a place in a lesson that plays a scenario: an embed, a
// prediction (or one of its claims) or a plot, in a section.
type Use struct {
	Lesson  *Lesson
	Chapter *Chapter
	Section Section
}

// Uses returns the sections of the bundled lessons that play scenario id,
// in teaching order, each section once.
func Uses(id string) []Use {
	all, err := Lessons()
	if err != nil {
		return nil
	}
	var out []Use
	for _, l := range all {
		for i := range l.Chapters {
			c := &l.Chapters[i]
			for _, s := range c.Sections {
				if slices.Contains(sectionScenarios(s), id) {
					out = append(out, Use{Lesson: l, Chapter: c, Section: s})
				}
			}
		}
	}
	return out
}

// sectionScenarios returns the scenarios a section plays, in order, with
// repeats.
func sectionScenarios(s Section) []string {
	var out []string
	for _, b := range s.Blocks {
		for _, e := range blockEmbeds(b) {
			out = append(out, e.Scenario)
		}
		switch b := b.(type) {
		case Predict:
			out = append(out, b.Scenario)
			for _, o := range b.Options {
				if o.Claim.Scenario != "" {
					out = append(out, o.Claim.Scenario)
				}
			}
		case Plot:
			out = append(out, b.Scenario)
		}
	}
	return out
}

// ScenarioOrder returns every bundled scenario's id in the order a learner
// meets them: first those the lessons play, in teaching order, then the
// rest by id.
func ScenarioOrder() []string {
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if all, err := Lessons(); err == nil {
		for _, l := range all {
			for _, s := range l.Sections() {
				for _, id := range sectionScenarios(s) {
					add(id)
				}
			}
		}
	}
	scenarios, _ := lessons.Scenarios()
	for _, sc := range scenarios {
		add(sc.ID)
	}
	return out
}

// NextScenario returns the scenario after id in ScenarioOrder, if any.
func NextScenario(id string) (string, bool) {
	order := ScenarioOrder()
	i := slices.Index(order, id)
	if i < 0 || i+1 >= len(order) {
		return "", false
	}
	return order[i+1], true
}
