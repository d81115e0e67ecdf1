package widget

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestTruthTextReadsOnlyWhatItNames holds the stage's truth sentence, which
// reads the keys only until its lists are full and takes how many there
// are from the snapshot's counts, to the sentence TruthText makes of the
// whole truth spelled out, at every step of every bundled scenario and of
// the benchmarks' ten-thousand-step trace (thousands of keys missing).
func TestTruthTextReadsOnlyWhatItNames(t *testing.T) {
	scs, err := lessons.Scenarios()
	require.NoError(t, err)
	files := []*scenario.File{}
	for _, sc := range scs {
		files = append(files, sc.File)
	}
	f, err := scenario.Parse("bench.tdm", []byte(tenK))
	require.NoError(t, err)
	files = append(files, f)

	var dup, stale, more bool
	for _, f := range files {
		tr, err := engine.Run(f, nil, 1, worlds.All())
		require.NoError(t, err, f.ID)
		for n := 0; n <= tr.Steps(); n++ {
			at := tr.Seek(n)
			want := TruthText(tr.TruthAt(n))
			if !assert.Equal(t, want, truthText(&atStep{t: tr, at: at}), "%s step %d", f.ID, n) {
				break
			}
			dup = dup || at.Counts.Duplicated > 0
			stale = stale || at.Counts.Stale > 0
			more = more || at.Counts.Missing > maxListed
		}
	}
	assert.True(t, dup && stale && more, "some step has a key duplicated (%v), one stale (%v), and more keys missing than are named (%v)", dup, stale, more)
}

// TestTruthTextSaysWhatIsOnItsWay: at a step where a key is missing from
// the target but a later step writes it, the truth line says so apart
// from keys that are lost, as the target's slots do; at the end, a key
// still missing is simply missing.
func TestTruthTextSaysWhatIsOnItsWay(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	text := func(knobs map[string]string, n int) string {
		tr, err := engine.Run(sc.File, knobs, 1, worlds.All())
		require.NoError(t, err)
		return truthText(&atStep{t: tr, at: tr.Seek(n), n: int32(n), ix: indexTrace(tr)})
	}
	// At step 14 the lsn mark has not read order 3 yet, and will.
	assert.Equal(t, "not in the target yet: 3.", text(map[string]string{"mark": "lsn"}, 14))
	// The timestamp mark has skipped it for good.
	assert.Equal(t, "not in the target: 3.", text(nil, 14))
	assert.Equal(t, "not in the target: 3, 4.", text(nil, 999))
}
