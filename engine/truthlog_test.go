package engine_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

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
		w, err := engine.Build(f, nil, 7, worlds.All())
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(3, 4))
		half := w.Planned() / 2
		for w.Trace().Steps() < half && w.Step() {
		}
		// Mid-run: no ranks yet, snapshots unsorted.
		mid := w.Trace()
		keys, ranked, _, _ := engine.TruthLogShape(mid)
		require.NotEqual(t, keys, ranked, "ranks are made when the run ends")
		for range 20 {
			n := r.IntN(mid.Steps() + 1)
			require.Equal(t, engine.ReplayTruth(mid, int32(n)), mid.TruthAt(n), "%s mid-run, step %d", mark, n)
		}
		tr := w.Run()
		keys, ranked, snaps, sorted := engine.TruthLogShape(tr)
		require.Equal(t, keys, ranked, "ranks are made when the run ends")
		require.Greater(t, len(snaps), 3, "the trace takes several snapshots")
		for i := range sorted {
			require.True(t, sorted[i], "a finished snapshot is in key order")
		}
		steps := []int32{0, 1, int32(tr.Steps())}
		for _, s := range snaps {
			steps = append(steps, s, s-1, s+1) // either side of a snapshot
		}
		for range 40 {
			steps = append(steps, int32(r.IntN(tr.Steps()+1)))
		}
		sawMissing := false
		for _, n := range steps {
			n = max(0, min(n, int32(tr.Steps())))
			want := engine.ReplayTruth(tr, n)
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
