package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/scenario"
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

// TestTruthLogAgreesWithReplay builds traces large enough to take many
// snapshots (tens of thousands of keys, thousands missing at a time with a
// timestamp mark) and compares the truth at many steps with a replay from
// the first change, on the finished trace and, mid-run, on an unfinished one.
func TestTruthLogAgreesWithReplay(t *testing.T) {
	txns := 20000
	if testing.Short() {
		txns = 3000
	}
	for _, mark := range []string{"timestamp", "lsn"} {
		src := `scenario t/truth "truth log"
source orders key=order_id updated_at=txn-start cache=20
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders mark=` + mark + ` advance=after
workload orders txns=` + strconv.Itoa(txns) + ` from=10:00:00 every=36ms duration=0s..2s sessions=16 rollback=5
runs extract from=10:00:00 until=10:20:00 every=3.6s
`
		f, err := scenario.Parse("t.tdm", []byte(src))
		require.NoError(t, err)
		w, err := Build(f, nil, 7)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(3, 4))
		half := w.hint.events / 2
		for w.trace.Steps() < half && w.Step() {
		}
		// Mid-run: no ranks yet, snapshots unsorted.
		l := &w.trace.truth
		require.NotEqual(t, len(l.keys), len(l.rank), "ranks are made when the run ends")
		for range 20 {
			n := int32(r.IntN(w.trace.Steps() + 1))
			require.Equal(t, replayTruth(l, n), l.at(n).truth(), "%s mid-run, step %d", mark, n)
		}
		tr := w.Run()
		require.Equal(t, len(l.keys), len(l.rank), "ranks are made when the run ends")
		require.Greater(t, len(l.snaps), 3, "the trace takes several snapshots")
		for _, s := range l.snaps {
			require.Nil(t, s.bad)
			require.True(t, slices.IsSorted(s.sorted), "a finished snapshot is in key order")
		}
		steps := []int32{0, 1, int32(tr.Steps())}
		for _, s := range l.snaps {
			steps = append(steps, s.step, s.step-1, s.step+1) // either side of a snapshot
		}
		for range 40 {
			steps = append(steps, int32(r.IntN(tr.Steps()+1)))
		}
		sawMissing := false
		for _, n := range steps {
			n = max(0, min(n, int32(tr.Steps())))
			want := replayTruth(l, n)
			require.Equal(t, want, tr.TruthAt(int(n)), "%s step %d", mark, n)
			sawMissing = sawMissing || len(want.Missing) > 100
			// The view's lookups agree with its list.
			v := tr.Seek(int(n)).Truth
			require.Equal(t, len(want.Missing)+len(want.Duplicated)+len(want.Stale), v.Len())
			for i := 0; i < v.Len(); i += max(1, v.Len()/50) {
				id, s, rows := v.At(i)
				s2, rows2 := v.Of(id)
				assert.Equal(t, s, s2)
				assert.Equal(t, rows, rows2)
			}
		}
		if mark == "timestamp" {
			assert.True(t, sawMissing, "the timestamp mark loses many rows, so the merge is exercised")
		}
	}
}

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
