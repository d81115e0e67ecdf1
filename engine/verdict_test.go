package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
)

// TestVerdict says what the truth finds wrong and which checks noticed, and
// calls a failing check on a clean target a false alarm, or a delay when it
// is a freshness check.
func TestVerdict(t *testing.T) {
	fail := []check.Result{{Name: "row-count", Status: check.Pass}, {Name: "gap-scan", Status: check.Fail}}
	lost := engine.Truth{Missing: []string{"3", "4"}, Duplicated: map[string]int{"2": 2}}
	assert.Equal(t, "2 rows missing, 1 row duplicated", lost.Harm())
	assert.Equal(t, "2 rows missing, 1 row duplicated; noticed by gap-scan", lost.Verdict(fail))
	assert.Equal(t, "2 rows missing, 1 row duplicated; no check noticed", lost.Verdict(fail[:1]))
	clean := engine.Truth{}
	assert.Empty(t, clean.Harm())
	assert.Equal(t, "the target matches the source; noticed by gap-scan (a false alarm)", clean.Verdict(fail))
	assert.Equal(t, "the target matches the source", clean.Verdict(nil))
	late := []check.Result{{Name: "watermark-lag", Status: check.Fail}, {Name: "gap-scan", Status: check.Fail}, {Name: "partition-lag", Status: check.Fail}}
	assert.Equal(t, "the target matches the source; noticed by watermark-lag, partition-lag (a delay, not a loss); gap-scan (a false alarm)", clean.Verdict(late),
		"a freshness check that fails on a clean target saw results held back, which is no false alarm")
	assert.Equal(t, "1 row missing; noticed by watermark-lag, gap-scan, partition-lag", engine.Truth{Missing: []string{"3"}}.Verdict(late))
}
