package logs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// runLesson runs a lesson's scenario with knob values.
func runLesson(t *testing.T, id string, set map[string]string) *engine.Trace {
	t.Helper()
	sc, ok := lessons.Lookup(id)
	require.True(t, ok, id)
	tr, err := engine.Run(sc.File, set, 1, worlds.All())
	require.NoError(t, err)
	return tr
}

// holds is who holds what, as an Assignment's Holds lists it.
func holds(hs ...logs.Holding) []logs.Holding { return hs }

// TestAssignmentsOfARebalanceThatWaits: in dist/rebalance, as its narration
// says, c1 gets both partitions in generation 1 (step 1); c2's join at step 9
// begins a rebalance that waits for c1, busy with its batch, which keeps
// orders-0 and orders-1 while c2 reads nothing; and at step 13 the
// rebalance completes, generation 2 giving c1 orders-0 and c2 orders-1.
func TestAssignmentsOfARebalanceThatWaits(t *testing.T) {
	tr := runLesson(t, "dist/rebalance", nil)
	l := logs.Of(tr)
	require.Len(t, l.Groups, 1)
	assert.Equal(t, []logs.Assignment{
		{Step: 1, Generation: 1, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1}})},
		{Step: 9, Generation: 1, Waiting: true, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1}, Busy: true}, logs.Holding{Member: "c2"})},
		{Step: 13, Generation: 2, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0}}, logs.Holding{Member: "c2", Partitions: []int16{1}})},
	}, l.Groups[0].Assignments, "one assignment per change, not per step")

	assert.Nil(t, l.AssignmentAt("billing", 0), "before c1 joins, nobody is assigned anything")
	for step, gen := range map[int]int32{1: 1, 8: 1, 9: 1, 12: 1, 13: 2, 15: 2, 99: 2} {
		a := l.AssignmentAt("billing", step)
		require.NotNil(t, a, step)
		assert.Equal(t, gen, a.Generation, "step %d", step)
		assert.Equal(t, step >= 9 && step < 13, a.Waiting, "step %d", step)
		assert.Empty(t, a.Unheld, "step %d", step)
	}
	assert.Equal(t, &l.Groups[0].Assignments[2], l.AssignmentAt("billing", 14))
	assert.Nil(t, l.AssignmentAt("shipping", 14), "no such group")
	assert.Nil(t, (*logs.Trace)(nil).AssignmentAt("billing", 14), "a trace without a log has no group")

	// The roundrobin knob: the same two generations, the same shares.
	rr := logs.Of(runLesson(t, "dist/rebalance", map[string]string{"assign": "roundrobin"}))
	assert.Equal(t, l.Groups[0].Assignments, rr.Groups[0].Assignments)
}

// TestAssignmentsOfAnEviction: with max.poll.interval at 3s, c1 is
// evicted at step 10 and nobody holds orders-0 or orders-1 until the
// rebalance at step 11 gives c2 both (generation 2); c1's poll at step 17
// rejoins it and generation 3 shares them again.
func TestAssignmentsOfAnEviction(t *testing.T) {
	l := logs.Of(runLesson(t, "dist/rebalance", map[string]string{"max-poll": "3s"}))
	assert.Equal(t, []logs.Assignment{
		{Step: 1, Generation: 1, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1}})},
		{Step: 9, Generation: 1, Waiting: true, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1}, Busy: true}, logs.Holding{Member: "c2"})},
		{Step: 10, Generation: 1, Waiting: true, Holds: holds(logs.Holding{Member: "c2"}), Unheld: []int16{0, 1}},
		{Step: 11, Generation: 2, Holds: holds(logs.Holding{Member: "c2", Partitions: []int16{0, 1}})},
		{Step: 17, Generation: 3, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0}}, logs.Holding{Member: "c2", Partitions: []int16{1}})},
	}, l.Groups[0].Assignments)
}

// TestAssignmentsOfAPartitionChange: in dist/partition-change c1 takes all
// three partitions at step 1 and shares them with c2 at step 2
// (generation 2); the operator's new partitions 3 to 5 are nobody's at
// step 13, until the group notices them at step 14 and generation 3 gives
// c1 0–2 and c2 3–5. With roundrobin the shares would differ; the
// scenario's range assignment is what its narration names.
func TestAssignmentsOfAPartitionChange(t *testing.T) {
	l := logs.Of(runLesson(t, "dist/partition-change", nil))
	require.Len(t, l.Groups, 1)
	assert.Equal(t, []logs.Assignment{
		{Step: 1, Generation: 1, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1, 2}})},
		{Step: 2, Generation: 2, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1}}, logs.Holding{Member: "c2", Partitions: []int16{2}})},
		{Step: 13, Generation: 2, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1}}, logs.Holding{Member: "c2", Partitions: []int16{2}}), Unheld: []int16{3, 4, 5}},
		{Step: 14, Generation: 3, Holds: holds(logs.Holding{Member: "c1", Partitions: []int16{0, 1, 2}}, logs.Holding{Member: "c2", Partitions: []int16{3, 4, 5}})},
	}, l.Groups[0].Assignments)
	a := l.AssignmentAt("serving", 21)
	require.NotNil(t, a)
	assert.Equal(t, int32(3), a.Generation)
	assert.Equal(t, []int16{3, 4, 5}, a.Holds[1].Partitions, "c2 reads the new partitions at step 21")
}

// TestAssignmentWhenOneOfTwoBusyMembersFinishes: a rebalance that waits
// for c1 and c2 goes on waiting for c2 once c1 is done with its batch, and
// from that step c1 is no longer said to keep anything; c3, who joined,
// holds nothing until the rebalance completes.
func TestAssignmentWhenOneOfTwoBusyMembersFinishes(t *testing.T) {
	tr := runLog(t, `topic orders partitions=2
target fct_orders sink=append key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
member billing c2 at=10:00:00
`+keyLines("produce shop", "10:00:01", 6)+`poll billing c1 at=10:00:02 process=3s
poll billing c2 at=10:00:02 process=6s
member billing c3 at=10:00:03
`, nil)
	l := logs.Of(tr)
	as := l.Groups[0].Assignments
	require.Len(t, as, 5, "%+v", as)
	waits := func(a logs.Assignment) (busy []string) {
		for _, h := range a.Holds {
			if h.Busy {
				busy = append(busy, h.Member)
			}
		}
		return busy
	}
	assert.True(t, as[2].Waiting)
	assert.Equal(t, []string{"c1", "c2"}, waits(as[2]), "c3's join waits for both")
	assert.True(t, as[3].Waiting)
	assert.Equal(t, []string{"c2"}, waits(as[3]), "c1 is done with its batch")
	assert.Empty(t, as[3].Holds[0].Partitions, "c1, done, has given its partition up while the rebalance waits")
	assert.Equal(t, []int16{0}, as[3].Unheld, "so nobody holds p0 until it completes")
	assert.Equal(t, []int16{1}, as[3].Holds[1].Partitions, "c2 keeps what it is busy with")
	_, texts := eventsOf(tr, engine.KindOffset)
	require.NotEmpty(t, texts)
	require.Contains(t, texts[0], "c1 commits")
	c1commit := -1
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == engine.KindOffset && tr.Narration(e) == texts[0] {
			c1commit = i + 1
			break
		}
	}
	assert.Equal(t, int32(c1commit), as[3].Step, "from c1's commit on, the step its batch ends")
	assert.False(t, as[4].Waiting)
	assert.Equal(t, int32(3), as[4].Generation)
	assert.Len(t, as[4].Holds, 3)
}
