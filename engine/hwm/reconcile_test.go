package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestSameWindowCountsClaimedWindows: the same-window reconciliation is a
// team's query over the windows the pipeline claims, one per stored mark.
// A run that crashed mid-write before storing its mark claimed nothing (the
// next run reads its window again), so it is not counted; one that stored
// its mark and crashed before writing claimed a window it never wrote.
func TestSameWindowCountsClaimedWindows(t *testing.T) {
	const src = `scenario test/reconcile "Crashed runs"
knob advance = after | before
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders advance=$advance
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2
knob crash = mid-write | after-mark
run extract at=10:00:01 crash=$crash
run extract at=10:00:03
check reconciliation
`
	f, err := scenario.Parse("r.tdm", []byte(src))
	require.NoError(t, err)
	verdict := func(set map[string]string) check.Result {
		tr, err := engine.Run(f, set, 1, worlds.All())
		require.NoError(t, err)
		for _, c := range tr.Checks() {
			if c.Name == "reconciliation-same-window" {
				return c
			}
		}
		t.Fatal("no reconciliation-same-window verdict")
		return check.Result{}
	}
	r := verdict(map[string]string{"advance": "after", "crash": "mid-write"})
	assert.Equal(t, check.Pass, r.Status, "the crashed run stored no mark; the next run wrote its window: %s", r.Detail)
	assert.Contains(t, r.Detail, "1 run agrees")
	r = verdict(map[string]string{"advance": "before", "crash": "after-mark"})
	assert.Equal(t, check.Fail, r.Status, "the crashed run stored its mark and wrote nothing: %s", r.Detail)
	assert.Contains(t, r.Detail, "source counted 2, target received 0")
}
