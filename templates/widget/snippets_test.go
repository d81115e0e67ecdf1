package widget

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine"
)

// TestOutcome: a picture's alternative text counts what the truth holds,
// each kind in words, and says so when nothing is wrong.
func TestOutcome(t *testing.T) {
	assert.Equal(t, "every row in the target once, in its latest version", Outcome(engine.Counts{}))
	assert.Equal(t, "1 row not in the target", Outcome(engine.Counts{Missing: 1}))
	assert.Equal(t, "3 rows not in the target, 1 row duplicated, 2 rows in an old version", Outcome(engine.Counts{Missing: 3, Duplicated: 1, Stale: 2}))
	assert.Equal(t, "2 rows duplicated", Outcome(engine.Counts{Duplicated: 2}))
}
