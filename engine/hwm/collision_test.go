package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestCollision: two regional tables each have an order 1, and both merge
// into one target keyed by order_id. The target holds one row for two
// committed source rows, so the truth reports one missing, as PostgreSQL's
// target would be missing it; a count of the source against the target for
// a closed interval sees the difference, and a uniqueness check does not.
func TestCollision(t *testing.T) {
	const src = `scenario test/collision "Two tables, one key"
knob sink = merge | append
source orders_eu key=order_id
source orders_us key=order_id
target fct_orders sink=$sink key=order_id
pipeline extract from=orders_eu,orders_us to=fct_orders
txn E1 begin=10:00:00 commit=10:00:00 insert orders_eu order_id=1,2
run extract at=10:00:01
txn U1 begin=10:00:02 commit=10:00:02 insert orders_us order_id=1,3
run extract at=10:00:03
check reconciliation closed=10:00:00..10:00:02
check uniqueness
`
	f, err := scenario.Parse("c.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, []string{"1"}, tr.Final().Missing, "orders_us's order 1 never reached the target")
	assert.Empty(t, tr.Final().Duplicated)
	assert.Len(t, tr.TargetAt("fct_orders", tr.Steps()), 3)
	verdicts := map[string]check.Status{}
	for _, c := range tr.Checks() {
		verdicts[c.Name] = c.Status
	}
	assert.Equal(t, check.Fail, verdicts["reconciliation-closed-interval"], "the source holds four rows stamped in the interval, the target three")
	assert.Equal(t, check.Pass, verdicts["uniqueness"])
	assert.Contains(t, hwm.Explain(tr, "1", tr.Steps()), "orders_us")

	// Appended rather than merged, both rows are there: nothing is missing
	// to the truth, and the team's uniqueness check sees order 1 twice.
	tr, err = engine.Run(f, map[string]string{"sink": "append"}, 1, worlds.All())
	require.NoError(t, err)
	assert.Empty(t, tr.Final().Missing)
	assert.Empty(t, tr.Final().Duplicated, "two tables' order 1 are two rows, each there once")
	for _, c := range tr.Checks() {
		if c.Name == "uniqueness" {
			assert.Equal(t, check.Fail, c.Status)
		}
	}
}
