package logs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// faultLog is a small log world for the log faults: six customers updated
// twice on a three-partition topic, read by one consumer.
const faultLog = `scenario test/log-faults "Log faults"
topic customers partitions=3
target dim_customer sink=upsert key=customer_id
producer crm to=customers key=customer_id
group serving topic=customers to=dim_customer commit=after reset=earliest
member serving c1 at=10:00:00
produce crm at=10:00:01 key=1
produce crm at=10:00:01 key=2
produce crm at=10:00:01 key=3
produce crm at=10:00:01 key=4
produce crm at=10:00:01 key=5
produce crm at=10:00:01 key=6
poll serving c1 at=10:00:03
produce crm at=10:00:06 key=1
produce crm at=10:00:06 key=2
produce crm at=10:00:06 key=3
produce crm at=10:00:06 key=4
produce crm at=10:00:06 key=5
produce crm at=10:00:06 key=6
poll serving c1 at=10:00:08
poll serving c1 at=10:00:30
`

func faultFile(t *testing.T, src string) *scenario.File {
	t.Helper()
	f, err := scenario.Parse("faults.tdm", []byte(src))
	require.NoError(t, err)
	return f
}

// firstStep is the step of the first event of kind k, or 0.
func firstStep(tr *engine.Trace, k engine.Kind) int {
	for i := range tr.Events {
		if tr.Events[i].Kind == k {
			return i + 1
		}
	}
	return 0
}

func TestFaultAddPartitionForksTheLog(t *testing.T) {
	f := faultFile(t, faultLog)
	orig, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	at := firstStep(orig, engine.KindPoll)
	require.Positive(t, at)

	fork, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{{AfterStep: at, Kind: logs.FaultAddPartition, Topic: "customers"}})
	require.NoError(t, err)
	require.Len(t, fork.Faults, 1)

	// The step right after the fault is the operator's change, narrated.
	e := fork.Events[at]
	assert.Equal(t, engine.KindRebalance, e.Kind)
	assert.Contains(t, fork.Narration(&e), "raises customers from 3 to 4 partitions")
	assert.Equal(t, 3, len(logs.Of(orig).LogAt(orig.Steps())))
	assert.Equal(t, 4, len(logs.Of(fork).LogAt(fork.Steps())))
	assert.Equal(t, 3, len(logs.Of(fork).LogAt(at)), "the partition is added after the step, not before")
	// The group notices and rebalances, and later keys are placed mod 4.
	_, texts := eventsOf(fork, engine.KindRebalance)
	assert.True(t, slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "notices customers now has 4 partitions") }), texts)
	assert.Positive(t, logs.Of(fork).LogAt(fork.Steps())[3].End, "some second update lands on the new partition")
	assert.NotEqual(t, orig.Steps(), fork.Steps())
}

func TestFaultPauseForksTheConsumer(t *testing.T) {
	f := faultFile(t, faultLog)
	orig, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	at := firstStep(orig, engine.KindPoll) - 1 // just before the first poll
	fork, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{{AfterStep: at, Kind: logs.FaultPause, Group: "serving", Member: "c1", For: 10 * vtime.Second}})
	require.NoError(t, err)

	e := fork.Events[at]
	assert.Equal(t, engine.KindPause, e.Kind)
	assert.Contains(t, fork.Narration(&e), "c1 pauses fetching until 10:00:11")
	// The polls at 10:00:03 and 10:00:08 fetch nothing; the one at 10:00:30 reads everything.
	_, texts := eventsOf(fork, engine.KindPause)
	require.Len(t, texts, 3, texts)
	assert.Contains(t, texts[1], "is paused (until 10:00:11) and fetches nothing")
	assert.Empty(t, fork.Final().Missing)
	c, _ := eventsOf(orig, engine.KindOffset)
	cf, _ := eventsOf(fork, engine.KindOffset)
	assert.Len(t, c, 2)
	assert.Len(t, cf, 1, "one poll is left to read and commit")
	// Where the original's first poll committed, the fork's group lags all six.
	lag := func(tr *engine.Trace, n int) int64 {
		var sum int64
		for _, p := range logs.Of(tr).LogAt(n) {
			sum += p.Groups[0].Lag
		}
		return sum
	}
	assert.Zero(t, lag(orig, int(c[0].Step)))
	paused, _ := eventsOf(fork, engine.KindPause)
	assert.Equal(t, int64(6), lag(fork, int(paused[1].Step)))
}

func TestFaultPauseKeepsALongerPause(t *testing.T) {
	src := faultLog + "pause serving c1 at=10:00:02 until=10:00:20\n"
	f := faultFile(t, src)
	orig, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	at := firstStep(orig, engine.KindPause)
	fork, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{{AfterStep: at, Kind: logs.FaultPause, Group: "serving", Member: "c1", For: vtime.Second}})
	require.NoError(t, err)
	e := fork.Events[at]
	assert.Contains(t, fork.Narration(&e), "until 10:00:20")
}

func TestLogFaultsRefusedWhereInapplicable(t *testing.T) {
	f := faultFile(t, faultLog)
	noLog := faultFile(t, "scenario test/nolog \"No log\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\ntxn T1 begin=10:00:00 commit=10:00:01 insert order_id=1\nrun extract at=10:00:02\n")
	for _, tc := range []struct {
		name string
		file *scenario.File
		f    engine.Fault
		want string
	}{
		{"no log", noLog, engine.Fault{AfterStep: 1, Kind: logs.FaultAddPartition, Topic: "orders"}, "no partitioned log"},
		{"no log pause", noLog, engine.Fault{AfterStep: 1, Kind: logs.FaultPause, Group: "g", Member: "c1", For: vtime.Second}, "no partitioned log"},
		{"unknown topic", f, engine.Fault{AfterStep: 2, Kind: logs.FaultAddPartition, Topic: "orders"}, `unknown topic "orders"; this scenario's topics are customers`},
		{"unknown group", f, engine.Fault{AfterStep: 2, Kind: logs.FaultPause, Group: "billing", Member: "c1", For: vtime.Second}, `unknown group "billing"; this scenario's groups are serving`},
		{"not yet a member", f, engine.Fault{AfterStep: 0, Kind: logs.FaultPause, Group: "serving", Member: "c1", For: vtime.Second}, "c1 is not a member of serving at this step"},
		{"no length", f, engine.Fault{AfterStep: 2, Kind: logs.FaultPause, Group: "serving", Member: "c1"}, "a pause needs a positive length"},
		{"unknown kind", f, engine.Fault{AfterStep: 2, Kind: "flood"}, `unknown fault "flood"; expected jump, crash, add-partition, pause, burst, producer-clock, stall, delay, fail or slow`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.RunWithFaults(tc.file, nil, 1, worlds.All(), []engine.Fault{tc.f})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := engine.RunWithFaults(noLog, nil, 1, worlds.All(), []engine.Fault{{AfterStep: 1, Kind: logs.FaultPause}})
	assert.ErrorIs(t, err, logs.ErrNoLog)
}
