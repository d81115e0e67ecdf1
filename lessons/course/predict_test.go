package course

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/check"
)

func TestGradeRunsTheEngine(t *testing.T) {
	p := Prediction{
		ID: "t", Scenario: "hwm/visibility-gap",
		Options: []Option{
			{ID: "present", Claim: Claim{Kind: Present, Keys: []string{"3"}}},
			{ID: "missing", Claim: Claim{Kind: Missing, Keys: []string{"3"}}},
			{ID: "exact", Claim: Claim{Kind: MissingExactly, Keys: []string{"3", "4"}}},
			{ID: "lsn-clean", Claim: Claim{Kind: Clean, Scenario: "hwm/visibility-gap", Knobs: map[string]string{"mark": "lsn"}}},
			{ID: "gap-fails", Claim: Claim{Kind: CheckStatus, Check: "gap-scan", Status: check.Fail}},
			{ID: "mono-fails", Claim: Claim{Kind: CheckStatus, Check: "monotonicity", Status: check.Fail}},
		},
	}
	ans, err := Grade(p)
	require.NoError(t, err)
	assert.Equal(t, []string{"missing", "exact", "lsn-clean", "gap-fails"}, ans.Correct())
	assert.True(t, ans.Grade("missing"))
	assert.False(t, ans.Grade("present"))
	assert.False(t, ans.Grade("nonsense"))
	assert.Equal(t, "missing: 3, 4", ans.Verdicts[0].Evidence)
}

func TestGradeRefusesWhatItCannotRun(t *testing.T) {
	for name, p := range map[string]Prediction{
		"unknown scenario": {ID: "x", Scenario: "hwm/nope", Options: []Option{{ID: "a", Claim: Claim{Kind: Clean}}}},
		"bad knob":         {ID: "x", Scenario: "hwm/visibility-gap", Knobs: map[string]string{"mark": "sundial"}, Options: []Option{{ID: "a", Claim: Claim{Kind: Clean}}}},
		"check not run":    {ID: "x", Scenario: "hwm/ties", Options: []Option{{ID: "a", Claim: Claim{Kind: CheckStatus, Check: "monotonicity", Status: check.Pass}}}},
		"no keys":          {ID: "x", Scenario: "hwm/ties", Options: []Option{{ID: "a", Claim: Claim{Kind: Missing}}}},
		"unknown kind":     {ID: "x", Scenario: "hwm/ties", Options: []Option{{ID: "a", Claim: Claim{Kind: "vibes"}}}},
		"empty count":      {ID: "x", Scenario: "hwm/ties", Options: []Option{{ID: "a", Claim: Claim{Kind: MissingCount}}}},
		"reversed count":   {ID: "x", Scenario: "hwm/ties", Options: []Option{{ID: "a", Claim: Claim{Kind: MissingCount, Min: 5, Max: 2}}}},
	} {
		_, err := Grade(p)
		assert.Error(t, err, name)
	}
}

func TestGradeCountsMissingRows(t *testing.T) {
	// The load scenario at 1x loses a handful of its 60 orders to a
	// timestamp mark, at 100x nearly all, and with a log position none.
	p := Prediction{
		ID: "t", Scenario: "hwm/load",
		Options: []Option{
			{ID: "few", Claim: Claim{Kind: MissingCount, Min: 1, Max: 9}},
			{ID: "many", Claim: Claim{Kind: MissingCount, Min: 41}},
			{ID: "many-at-100x", Claim: Claim{Kind: MissingCount, Min: 41, Scenario: "hwm/load", Knobs: map[string]string{"load": "100s"}}},
		},
	}
	ans, err := Grade(p)
	require.NoError(t, err)
	assert.Equal(t, []string{"few", "many-at-100x"}, ans.Correct())
	assert.Equal(t, "4 rows missing", ans.Verdicts[0].Evidence)
}
