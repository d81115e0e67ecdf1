package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// snapshot is what a world that has emitted exactly n events shows, read
// from its own live trace before anything later happens.
type snapshot struct {
	counts engine.Counts
	target map[string][]sink.Row
	marks  []check.MarkPoint // last point of each mark, zero if none
	checks []check.Result
}

// truncatedRuns steps a fresh world one event at a time and records, for
// every step n, the state right after the last scheduled action that left
// the trace at n events (phases that emit nothing, such as a run's end, run
// at the same instant and belong to step n).
func truncatedRuns(t *testing.T, f *scenario.File, set map[string]string, seed uint64) []snapshot {
	w, err := engine.Build(f, set, seed, worlds.All())
	require.NoError(t, err)
	var snaps []snapshot
	take := func() {
		tr := w.Trace()
		n := tr.Steps()
		s := snapshot{counts: tr.CountsAt(n), target: map[string][]sink.Row{}, checks: tr.Checks()}
		for _, h := range tr.Targets {
			s.target[h.Name] = present(tr.TargetAt(h.Name, n))
		}
		for _, h := range marksOf(tr) {
			var p check.MarkPoint
			if len(h.Points) > 0 {
				p = h.Points[len(h.Points)-1]
			}
			s.marks = append(s.marks, p)
		}
		if n < len(snaps) {
			snaps[n] = s
		} else {
			snaps = append(snaps, s)
		}
	}
	take()
	for w.Step() {
		take()
	}
	return snaps
}

// present copies rows, forgetting when each will later be removed: a row
// read back at step n from the full trace knows its future, one read from a
// truncated run does not.
func present(rows []sink.Row) []sink.Row {
	out := slices.Clone(rows)
	for i := range out {
		out[i].RemovedStep = 0
	}
	return out
}

// checkSeek compares the full trace's seek functions at every step with the
// truncated run, and the truth recomputed from histories with the truth
// counted as the world ran.
func checkSeek(t *testing.T, name string, f *scenario.File, set map[string]string, seed uint64) {
	full, err := engine.Run(f, set, seed, worlds.All())
	require.NoError(t, err)
	snaps := truncatedRuns(t, f, set, seed)
	require.Len(t, snaps, full.Steps()+1, "%s: one snapshot per step", name)
	for n := 0; n <= full.Steps(); n++ {
		tr := full.TruthAt(n)
		c := full.CountsAt(n)
		require.Equal(t, int(c.Missing), len(tr.Missing), "%s step %d: TruthAt missing %v vs counted %d", name, n, tr.Missing, c.Missing)
		require.Equal(t, int(c.Duplicated), len(tr.Duplicated), "%s step %d: TruthAt duplicated %v vs counted %d", name, n, tr.Duplicated, c.Duplicated)
		require.Equal(t, int(c.Stale), len(tr.Stale), "%s step %d: TruthAt stale %v vs counted %d", name, n, tr.Stale, c.Stale)

		s := snaps[n]
		require.Equal(t, s.counts, c, "%s step %d: counts", name, n)
		for _, h := range full.Targets {
			require.Equal(t, s.target[h.Name], present(full.TargetAt(h.Name, n)), "%s step %d: TargetAt(%s)", name, n, h.Name)
		}
		for i, h := range marksOf(full) {
			got, ok := hwm.Of(full).MarkAt(h, n)
			want := s.marks[i]
			if want.Display == "" { // never stored by step n
				require.False(t, ok, "%s step %d: MarkAt(%s) should not be set", name, n, h.Name)
				continue
			}
			require.True(t, ok, "%s step %d: MarkAt(%s)", name, n, h.Name)
			require.Equal(t, want, got, "%s step %d: MarkAt(%s)", name, n, h.Name)
		}
		require.Equal(t, s.checks, full.ChecksAt(n), "%s step %d: ChecksAt", name, n)
	}
	// Out-of-range steps clamp.
	require.Equal(t, full.TruthAt(full.Steps()), full.TruthAt(full.Steps()+10))
	require.Equal(t, full.TruthAt(0), full.TruthAt(-3))
}

// knobSettings lists the default settings and every single-knob change.
func knobSettings(f *scenario.File) []map[string]string {
	out := []map[string]string{nil}
	for _, k := range f.Knobs {
		for _, v := range k.Values[1:] {
			out = append(out, map[string]string{k.Name: v})
		}
	}
	return out
}

func TestSeekBundled(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, s := range all {
		for _, set := range knobSettings(s.File) {
			name := fmt.Sprintf("%s %v", s.ID, set)
			t.Run(name, func(t *testing.T) { checkSeek(t, name, s.File, set, 1) })
		}
	}
}

func TestSeekGenerated(t *testing.T) {
	n := seeds() / 4
	for seed := range uint64(n) {
		g := randomGen(rand.New(rand.NewPCG(seed, 5)))
		f, err := scenario.Parse("generated.tdm", []byte(g.Text()))
		require.NoError(t, err)
		checkSeek(t, fmt.Sprintf("seed %d\n%s", seed, g.Text()), f, nil, seed)
	}
}

// marksOf returns the stored marks of a trace's high-water-mark world, if any.
func marksOf(tr *engine.Trace) []*hwm.MarkHistory {
	if ht := hwm.Of(tr); ht != nil {
		return ht.Marks
	}
	return nil
}
