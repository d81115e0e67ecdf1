//go:build !(tm_hwm || tm_log || tm_stream)

package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine/scenario"
)

// TestNear: the closest names first, ties in the order given, at most
// three, none for a name far from all or equal to one.
func TestNear(t *testing.T) {
	known := []string{"runs", "run", "reset", "read", "rollback", "ran"}
	assert.Equal(t, []string{"runs", "run", "ran"}, scenario.Near("rnu", known), "all two edits away: in the order given")
	assert.Equal(t, []string{"run", "ran", "runs"}, scenario.Near("rn", known))
	assert.Empty(t, scenario.Near("run", []string{"run"}))
	assert.Empty(t, scenario.Near("colour", known))
	assert.Equal(t, []string{"extract"}, scenario.Near("extrct", []string{"load", "extract"}))
	assert.Equal(t, "; did you mean gap-scan?", scenario.DidYouMean("gap-scna", []string{"uniqueness", "gap-scan"}))
	assert.Empty(t, scenario.DidYouMean("x", nil))
}
