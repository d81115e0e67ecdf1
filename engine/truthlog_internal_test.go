package engine

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/mvcc"
)

// replayTruth is the truth after step n worked out the slow way: every
// change from the first, the latest of each key winning, keys sorted as
// strings. The truth log's snapshots, ranks and merges must agree with it.
func replayTruth(l *truthLog, n int32) Truth {
	latest := map[int32]truthChange{}
	for _, c := range l.changes {
		if c.step <= n {
			latest[c.id] = c
		}
	}
	tr := Truth{Missing: []string{}, Duplicated: map[string]int{}, Stale: []string{}}
	for id, c := range latest {
		switch c.status {
		case missing:
			tr.Missing = append(tr.Missing, l.keys[id])
		case duplicated:
			tr.Duplicated[l.keys[id]] = int(c.count)
		case stale:
			tr.Stale = append(tr.Stale, l.keys[id])
		}
	}
	mvcc.SortKeys(tr.Missing)
	mvcc.SortKeys(tr.Stale)
	return tr
}

// TruthLogShape reports, for tests outside the package, how many keys the
// trace's truth log names and ranks, and each snapshot's step and whether
// it is kept in key order (not unsorted).
func TruthLogShape(t *Trace) (keys, ranked int, snapSteps []int32, sorted []bool) {
	l := &t.truth
	for _, s := range l.snaps {
		snapSteps = append(snapSteps, s.step)
		sorted = append(sorted, s.bad == nil && slices.IsSorted(s.sorted))
	}
	return len(l.keys), len(l.rank), snapSteps, sorted
}

// ReplayTruth is replayTruth of a trace, for tests outside the package.
func ReplayTruth(t *Trace, n int32) Truth { return replayTruth(&t.truth, n) }

// TestRadixByHighIsStable checks the radix sort orders by the high half and
// keeps equal high halves in their first order.
func TestRadixByHighIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 7, 300, 5000} {
		for _, bound := range []uint32{1, 200, 256, 70000, 1 << 24} {
			xs := make([]uint64, n)
			for i := range xs {
				xs[i] = uint64(r.Uint32N(bound))<<32 | uint64(i)
			}
			want := slices.Clone(xs)
			slices.Sort(want) // low halves are positions: a full sort is the stable one
			got, _ := radixByHigh(xs, nil, bound)
			require.True(t, slices.Equal(want, got), "n=%d bound=%d", n, bound)
		}
	}
}

// TestRankKeys orders names as mvcc.CompareKeys does, numbers first by
// value, and equal names by id.
func TestRankKeys(t *testing.T) {
	keys := []string{"b", "10", "2", "a", "", "2", "-3"}
	rank, order := rankKeys(keys)
	var names []string
	for _, id := range order {
		names = append(names, keys[id])
	}
	assert.Equal(t, []string{"-3", "2", "2", "10", "", "a", "b"}, names)
	assert.Equal(t, []int32{6, 2, 5, 1, 4, 3, 0}, order, "equal names by id")
	for r, id := range order {
		assert.Equal(t, int32(r), rank[id])
	}
}
