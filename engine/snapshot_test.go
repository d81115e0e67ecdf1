package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestSeekAgreesWithHistories checks, at every step of every bundled
// scenario, that Seek's snapshot says what the slower history readers say.
func TestSeekAgreesWithHistories(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		tr, err := engine.Run(sc.File, nil, 1, worlds.All())
		require.NoError(t, err, sc.ID)
		for n := 0; n <= tr.Steps(); n++ {
			s := tr.Seek(n)
			assert.Equal(t, n, s.Step)
			truth := tr.TruthAt(n)
			assert.Equal(t, engine.Counts{Missing: int32(len(truth.Missing)), Duplicated: int32(len(truth.Duplicated)), Stale: int32(len(truth.Stale))},
				s.Counts, "%s step %d", sc.ID, n)
			assert.Equal(t, truth, s.Truth, "%s step %d", sc.ID, n)
			if ht := hwm.Of(tr); ht != nil {
				marks := ht.MarksAt(n)
				require.Len(t, marks, len(ht.Marks))
				for i, h := range ht.Marks {
					p, _ := ht.MarkAt(h, n)
					assert.Equal(t, p, marks[i], "%s step %d mark %s", sc.ID, n, h.Name)
				}
			}
			require.Len(t, s.Targets, len(tr.Targets))
			for i, h := range tr.Targets {
				var got []sink.Row
				s.Targets[i].Each(func(r sink.Row) bool { got = append(got, r); return true })
				assert.Equal(t, tr.TargetAt(h.Name, n), got, "%s step %d target %s", sc.ID, n, h.Name)
			}
		}
	}
}

// TestSeekEachStops checks that a view stops when its reader has seen enough.
func TestSeekEachStops(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	seen := 0
	tr.Seek(tr.Steps()).Targets[0].Each(func(sink.Row) bool { seen++; return false })
	assert.Equal(t, 1, seen)
}

// TestProcessedThrough checks that a pipeline with one mark per table claims
// only the smallest of them, and claims nothing while one is unset.
func TestProcessedThrough(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/per-partition-marks")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, map[string]string{"marks": "per-table"}, 1, worlds.All())
	require.NoError(t, err)
	_, _, ok = hwm.Of(tr).ProcessedThrough("extract", 0)
	assert.False(t, ok, "no mark is stored before the first run")
	p, marks, ok := hwm.Of(tr).ProcessedThrough("extract", tr.Steps())
	require.True(t, ok)
	assert.Equal(t, 2, marks)
	lowest := ""
	for _, h := range hwm.Of(tr).Marks {
		q, _ := hwm.Of(tr).MarkAt(h, tr.Steps())
		if lowest == "" || q.Display < lowest {
			lowest = q.Display
		}
	}
	assert.Equal(t, lowest, p.Display, "the smallest of the marks")

	global, err := engine.Run(sc.File, map[string]string{"marks": "global"}, 1, worlds.All())
	require.NoError(t, err)
	_, _, ok = hwm.Of(global).ProcessedThrough("extract", global.Steps())
	assert.False(t, ok, "one global mark needs no minimum")
}

// TestLagCountsDeletedRecords checks lag is reported as Kafka's tools do:
// the log end less the committed offset, records retention deleted included.
func TestLagCountsDeletedRecords(t *testing.T) {
	sc, ok := lessons.Lookup("dist/retention-lag")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	seen := false
	for n := 0; n <= tr.Steps(); n++ {
		for _, p := range logs.Of(tr).LogAt(n) {
			for _, g := range p.Groups {
				if g.Committed >= 0 {
					assert.Equal(t, p.End-g.Committed, g.Lag, "step %d", n)
					seen = seen || g.Committed < p.Start
				}
			}
		}
	}
	assert.True(t, seen, "the scenario has a committed offset below the log start")
}
