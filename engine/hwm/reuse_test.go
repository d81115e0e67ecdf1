package hwm_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestReusedStatesChangeNoTrace: a workload reuses the state of a
// transaction that has ended for its next one, on the promise that nothing
// reads a state after its commit or rollback. Were anything to (a step
// queued for a transaction already over, the change capture keeping a
// pointer into it), it would read another transaction's name, session or
// writes, and the trace would differ from one where every transaction has
// a state of its own. Each workload below runs both ways, under every
// setting of its knobs, and the JSON reports must match byte for byte.
func TestReusedStatesChangeNoTrace(t *testing.T) {
	files := map[string]*scenario.File{}
	sc, ok := lessons.Lookup("hwm/load")
	require.True(t, ok)
	files[sc.ID] = sc.File
	// Workloads that end transactions every way a workload can: sessions
	// shared or plentiful, rollbacks, transactions that overlap a little
	// or a lot, explicit transactions beside them, a run
	// that crashes, and change capture (with a restart) reading every commit.
	for _, sessions := range []int{1, 3, 100} {
		for _, rollback := range []int{0, 30} {
			for _, longest := range []string{"0s", "3s", "40s"} {
				name := fmt.Sprintf("test/reuse-s%d-r%d-d%s", sessions, rollback, longest)
				src := fmt.Sprintf(`scenario %s "Reused states"
knob sink = merge | append
source orders key=order_id updated_at=txn-start
target fct_orders sink=$sink key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
topic orders_cdc partitions=2
cdc capture from=orders to=orders_cdc flush=10s
group loader topic=orders_cdc to=fct_orders commit=after reset=earliest
member loader c1 at=10:00:00
polls loader from=10:00:00 until=10:03:00 every=5s
workload orders txns=120 from=10:00:00 every=700ms duration=0s..%s rows=2 sessions=%d rollback=%d prefix=W
txn E1 begin=10:00:05 commit=10:00:09 session=e1 insert order_id=100001
txn E2 begin=10:00:31 rollback=10:00:33 session=e2 insert order_id=100002
runs extract from=10:00:10 until=10:02:30 every=10s
run extract at=10:00:45 crash=between
crash capture at=10:01:00 restart=15s
`, name, longest, sessions, rollback)
				f, err := scenario.Parse(name+".tdm", []byte(src))
				require.NoError(t, err)
				files[name] = f
			}
		}
	}
	traces := 0
	for name, f := range files {
		for _, set := range f.KnobSettings() {
			for _, seed := range []uint64{1, 7} {
				reused := reportOf(t, f, set, seed)
				restore := hwm.SetReuseEndedStates(false)
				own := reportOf(t, f, set, seed)
				restore()
				require.NotContains(t, string(reused), `"error"`, name)
				if reused != own {
					i := 0
					for i < len(reused) && i < len(own) && reused[i] == own[i] {
						i++
					}
					t.Fatalf("%s %v seed %d: the traces differ from byte %d:\nreused: %s\nown:    %s", name, set, seed, i, around(reused, i), around(own, i))
				}
				traces++
			}
		}
	}
	require.Equal(t, 2*(6+2*18), traces, "every workload, knob setting and seed")
}

// reportOf runs f and returns its JSON report, or the error as text.
func reportOf(t *testing.T, f *scenario.File, set map[string]string, seed uint64) string {
	t.Helper()
	tr, err := engine.Run(f, set, seed, worlds.All())
	if err != nil {
		return `{"error": ` + fmt.Sprintf("%q", err.Error()) + `}`
	}
	b, err := json.Marshal(report.Build(tr))
	require.NoError(t, err)
	return string(b)
}

// around is the text of s near byte i.
func around(s string, i int) string {
	return strings.ToValidUTF8(s[max(0, i-80):min(len(s), i+80)], "?")
}
