package widget

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestStageTwoSourcesOfAKey: two tables each have an order 1 and merge into
// a target keyed by order_id, which keeps one of them. The stage gives each
// source's row of the key a slot of its own, named by its source, the one
// the merge refused marked lost; every fragment stays unique, so a step's
// changes still turn one stage into the next.
func TestStageTwoSourcesOfAKey(t *testing.T) {
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
`
	f, err := scenario.Parse("c.tdm", []byte(src))
	require.NoError(t, err)
	slot := regexp.MustCompile(`(?s)<li class="tm-chip[^"]*" data-testid="slot" data-key="([^"]*)" data-state="([^"]*)".*?</li>`)
	tag := regexp.MustCompile(`<[^>]*>`)
	for sink, want := range map[string][][2]string{
		"merge":  {{"1", "in · orders_eu"}, {"1", "lost · orders_us"}, {"2", "in"}, {"3", "in"}},
		"append": {{"1", "in · orders_eu"}, {"1", "in · orders_us"}, {"2", "in"}, {"3", "in"}},
	} {
		tr, err := engine.Run(f, map[string]string{"sink": sink}, 1, worlds.All())
		require.NoError(t, err)
		for n := 0; n <= tr.Steps(); n++ {
			h := Render(tr, State{Step: n, ShowTruth: true, BasePath: "/x", Live: true, TextOpen: true})
			seen := map[string]bool{}
			for _, m := range regexp.MustCompile(`data-frag="([^"]*)"`).FindAllStringSubmatch(h, -1) {
				assert.False(t, seen[m[1]], "%s step %d: fragment %s drawn twice", sink, n, m[1])
				seen[m[1]] = true
			}
			if n < tr.Steps() {
				continue
			}
			var got [][2]string
			for _, m := range slot.FindAllStringSubmatch(h, -1) {
				words := tag.ReplaceAllString(m[0], " ")
				w := m[2]
				if i := regexp.MustCompile(`· \S+`).FindString(words); i != "" {
					w += " " + i
				}
				got = append(got, [2]string{m[1], w})
			}
			assert.Equal(t, want, got, sink)
		}
		var pairs [][2]int
		for n := 0; n < tr.Steps(); n++ {
			pairs = append(pairs, [2]int{n, n + 1}, [2]int{n + 1, n})
		}
		checkPatches(t, "collision "+sink, tr, State{ShowTruth: true, BasePath: "/x", Live: true}, pairs)
	}
}
