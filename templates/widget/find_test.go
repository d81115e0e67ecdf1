package widget

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestFindComparesNumbers holds targetIndex.find, which searches the
// targets' whole-number keys by their values, to a binary search that
// parses each key it compares, for every key of every target of the
// bundled scenarios and of scenarios with keys that are not numbers and a
// key two sources write, and for keys no target has.
func TestFindComparesNumbers(t *testing.T) {
	scs, err := lessons.Scenarios()
	require.NoError(t, err)
	var files []*scenario.File
	for _, sc := range scs {
		files = append(files, sc.File)
	}
	for i, src := range []string{`scenario t/words "Keys that are words"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
txn A begin=10:00:00 commit=10:00:00 insert orders order_id=7,b,10,a,-3,007
run extract at=10:00:01
`, `scenario t/two "Two sources of a key"
source orders_eu key=order_id
source orders_us key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders_eu,orders_us to=fct_orders
txn E1 begin=10:00:00 commit=10:00:00 insert orders_eu order_id=1,2,x
run extract at=10:00:01
txn U1 begin=10:00:02 commit=10:00:02 insert orders_us order_id=1,3,x
run extract at=10:00:03
`} {
		f, err := scenario.Parse("t.tdm", []byte(src))
		require.NoError(t, err, "scenario %d", i)
		files = append(files, f)
	}

	parsing := func(g *targetIndex, tr *engine.Trace, key string) int {
		want := mvcc.ParseKey(key)
		i, found := slices.BinarySearchFunc(g.keys, want, func(id int32, want mvcc.ParsedKey) int {
			return mvcc.ParseKey(tr.Key(id)).Compare(want)
		})
		if !found {
			return -1
		}
		return i
	}
	var words, numbers, twice bool
	for _, f := range files {
		tr, err := engine.Run(f, nil, 1, worlds.All())
		require.NoError(t, err, f.ID)
		x := indexTrace(tr)
		for gi := range x.targets {
			g := &x.targets[gi]
			keys := []string{"0", "-1", "+7", "zzz", "", "00"}
			for id := range tr.KeyCount() {
				keys = append(keys, tr.Key(int32(id)))
			}
			for _, k := range keys {
				assert.Equal(t, parsing(g, tr, k), g.find(tr, k), "%s target %s key %q", f.ID, g.h.Name, k)
			}
			words = words || len(g.nums) < len(g.keys)
			numbers = numbers || len(g.nums) > 0
			twice = twice || g.from != nil
		}
	}
	assert.True(t, words && numbers && twice, "a target has keys that are not numbers (%v), one has numbers (%v), one a key from two sources (%v)", words, numbers, twice)
}
