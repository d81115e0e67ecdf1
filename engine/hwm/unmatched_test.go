package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestUpdateOfNoRow: an update of a key no transaction inserted matches
// nothing, as PostgreSQL's UPDATE reports zero rows. No row appears, no run
// reads one, and a transaction that changed nothing takes no log position,
// so a log-position mark after it is the last real commit's.
func TestUpdateOfNoRow(t *testing.T) {
	const src = world + `txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:01 commit=10:00:01 update order_id=4 amount=5
txn T3 begin=10:00:01 commit=10:00:02 update order_id=1,5
run extract at=10:00:03
`
	f, err := scenario.Parse("u.tdm", []byte(src))
	require.NoError(t, err)
	for _, mark := range []string{"timestamp", "lsn"} {
		tr, err := engine.Run(f, map[string]string{"mark": mark}, 1, worlds.All())
		require.NoError(t, err)
		h := hwm.Of(tr)
		require.Len(t, h.Runs, 1)
		assert.Equal(t, []string{"1"}, h.Runs[0].Keys, "mark=%s: the run reads order 1 only", mark)
		said := map[string][]string{}
		for i := range tr.Events {
			e := &tr.Events[i]
			said[tr.Actor(e)] = append(said[tr.Actor(e)], tr.Narration(e))
		}
		assert.Equal(t, "T2 updates order 4 in orders, but no such row exists (none committed, none written by T2), so the statement matches nothing and changes nothing.", said["T2"][1])
		assert.Equal(t, "T2 commits at 10:00:01 having changed no row, so it takes no log position and new readers see nothing new.", said["T2"][2])
		assert.Contains(t, said["T3"][1], "T3 updates order 1 in orders")
		assert.Contains(t, said["T3"][1], "It also names order 5, which has no row, so nothing happens to it.")
		assert.Equal(t, "T3 commits at 10:00:02 as lsn 1002; order 1 is now visible to new readers.", said["T3"][2])
		assert.Empty(t, tr.Final().Missing)
		assert.Empty(t, tr.Final().Stale)
		if mark == "lsn" {
			p, _ := h.MarkAt(h.Marks[0], tr.Steps())
			assert.Equal(t, "lsn 1002", p.Display, "two commits reached the log")
		}
	}
}

// TestUpdateToZero: `update ... amount=0` sets the amount to 0, as UPDATE
// ... SET amount = 0 does; an update without amount= keeps the old one.
func TestUpdateToZero(t *testing.T) {
	const src = world + `txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2 amount=5
txn T2 begin=10:00:01 commit=10:00:01 update order_id=1 amount=0 update order_id=2
run extract at=10:00:02
`
	f, err := scenario.Parse("z.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, map[string]string{"mark": "lsn"}, 1, worlds.All())
	require.NoError(t, err)
	amounts := map[string]int64{}
	for _, r := range tr.TargetAt("fct_orders", tr.Steps()) {
		amounts[tr.RowKey(&r)] = r.Amount
	}
	assert.Equal(t, map[string]int64{"1": 0, "2": 5}, amounts)
}
