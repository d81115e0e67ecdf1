package course

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons"
)

func TestUsesNameTheSectionsThatPlayAScenario(t *testing.T) {
	uses := Uses("hwm/visibility-gap")
	var where []string
	for _, u := range uses {
		assert.Equal(t, "high-water-mark", u.Lesson.Slug)
		where = append(where, u.Chapter.ID+"#"+u.Section.ID)
	}
	// The visibility-gap pair, and the checks table's rows.
	assert.Equal(t, []string{"position-or-timestamp#visibility-gap", "checks#checks"}, where)
	// A scenario a prediction's claim runs counts too.
	var promise []string
	for _, u := range Uses("hwm/advance-order") {
		promise = append(promise, u.Section.ID)
	}
	assert.Contains(t, promise, "promises")
	assert.Empty(t, Uses("no/such-scenario"))
}

func TestScenarioOrderFollowsTheLessonsThenTheRest(t *testing.T) {
	order := ScenarioOrder()
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	assert.ElementsMatch(t, func() []string {
		var ids []string
		for _, s := range all {
			ids = append(ids, s.ID)
		}
		return ids
	}(), order, "every bundled scenario once")
	// Lesson one starts with the ties (its first prediction asks about them), then the two clocks.
	assert.Equal(t, []string{"hwm/ties", "hwm/clock-skew"}, order[:2])
	next, ok := NextScenario("hwm/ties")
	assert.True(t, ok)
	assert.Equal(t, "hwm/clock-skew", next)
	_, ok = NextScenario(order[len(order)-1])
	assert.False(t, ok, "the last scenario has no next")
}
