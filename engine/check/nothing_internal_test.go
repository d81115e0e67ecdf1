package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNothingToJudge: with no stored mark, no run and no overlap window,
// as every observation of the build without the high-water-mark world
// has, each check of marks and runs answers nothingToJudge, which that
// build's hwm_none.go answers in its place. With a pipeline that keeps no
// mark, the checks of marks say so.
func TestNothingToJudge(t *testing.T) {
	checks := map[string]func(Observation) Result{
		"monotonicity":               monotonicity,
		"rate-of-change":             func(o Observation) Result { return rateOfChange(Config{JumpFactor: 10}, o) },
		"reconciliation-same-window": reconcileSameWindow,
		"zero-advance":               zeroAdvance,
		"overlap-reread":             overlapReread,
	}
	for _, o := range []Observation{{}, {Pipelines: true}, {Started: true, Now: 36_000_000}} {
		for name, run := range checks {
			got := run(o)
			assert.Equal(t, nothingToJudge(name, o), got, "%s on %+v", name, o)
			assert.Equal(t, NotRun, got.Status, name)
			assert.NotEmpty(t, got.Detail, name)
		}
	}
	assert.Equal(t, noMarkKept, nothingToJudge("monotonicity", Observation{Pipelines: true}).Detail)
	assert.Equal(t, "no run has claimed a window yet", nothingToJudge("reconciliation-same-window", Observation{Pipelines: true}).Detail)
}
