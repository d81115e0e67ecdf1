package logs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// stopBody is a group of two whose committed offset retention deletes
// while both members are paused; reset=none makes the first fetch fail.
const stopBody = `topic orders partitions=2 retention=1m segment=10s
target fct sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct commit=after reset=none committed=0
member billing c1 at=10:00:00
member billing c2 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:01 key=2
pause billing c1 at=10:00:02 until=10:03:00
pause billing c2 at=10:00:02 until=10:03:00
produce shop at=10:02:50 key=3
produce shop at=10:02:50 key=4
poll billing c1 at=10:03:00
poll billing c2 at=10:03:01
poll billing c1 at=10:03:10
`

// TestLogResetNoneExitsAndTheOthersInherit: auto.offset.reset=none raises
// out of poll; the application exits and closes its consumer, which, as a
// dynamic member, leaves the group. Its partition goes to the other member,
// whose poll raises the same error, so the group empties one member at a
// time, and nobody holds a partition it will never read.
func TestLogResetNoneExitsAndTheOthersInherit(t *testing.T) {
	tr := runLog(t, stopBody, nil)
	_, resets := eventsOf(tr, engine.KindOffsetReset)
	require.Len(t, resets, 2)
	assert.Contains(t, resets[0], "c1's fetch on orders-0 fails")
	// c2 fails on the partition c1 had, and its own, since the rebalance
	// gave it both.
	assert.Contains(t, resets[1], "c2's fetch on orders-0 fails")
	_, rebalances := eventsOf(tr, engine.KindRebalance)
	require.Len(t, rebalances, 4) // two joins, two exits
	assert.Contains(t, rebalances[2], "c1's application exits on its OffsetOutOfRangeException, and closing its consumer leaves billing: generation 3 (range assignment) — c2 gets orders-0, orders-1")
	assert.Contains(t, rebalances[3], "c2's application exits on its OffsetOutOfRangeException, and closing its consumer leaves billing: generation 4 (range assignment) — no member is left")
	_, polls := eventsOf(tr, engine.KindPoll)
	assert.Contains(t, polls[len(polls)-1], "c1 does not poll: its application exited on its OffsetOutOfRangeException")
	g := logs.Of(tr).Groups[0]
	last := g.Assignments[len(g.Assignments)-1]
	assert.Empty(t, last.Holds, "an exited member holds no partition")
	assert.Equal(t, []int16{0, 1}, last.Unheld)
}

// TestLogResetNoneResnapshotRestartsExited: the re-snapshot starts the
// consumers that exited again, in one rebalance after it, and they read on
// from the positions it committed.
func TestLogResetNoneResnapshotRestartsExited(t *testing.T) {
	tr := runLog(t, stopBody+"resnapshot billing at=10:03:05\nproduce shop at=10:03:20 key=5\npoll billing c1 at=10:03:30\npoll billing c2 at=10:03:30\n", nil)
	_, rebalances := eventsOf(tr, engine.KindRebalance)
	require.Len(t, rebalances, 5)
	assert.Contains(t, rebalances[4], "The operator restarts c1 and c2, which join billing: generation 5 (range assignment) — c1 gets orders-0; c2 gets orders-1")
	_, writes := eventsOf(tr, engine.KindWrite)
	require.NotEmpty(t, writes)
	assert.Contains(t, writes[len(writes)-1], "order 5")
}

// TestLogResetNoneStaticMemberKeepsItsPartitions: in a group whose members
// restart as static members after a crash, a stopped member's close sends
// no LeaveGroup, so it keeps its partitions and nobody else reads them.
func TestLogResetNoneStaticMemberKeepsItsPartitions(t *testing.T) {
	tr := runLog(t, stopBody+"poll billing c2 at=10:03:20 crash=before-commit\n", nil)
	_, resets := eventsOf(tr, engine.KindOffsetReset)
	require.Len(t, resets, 2)
	assert.Contains(t, resets[0], "its application exits, but a static member's close sends no LeaveGroup, and with no session timeout modelled it keeps its partitions")
	_, rebalances := eventsOf(tr, engine.KindRebalance)
	assert.Len(t, rebalances, 2, "the joins only: no member leaves")
	_, polls := eventsOf(tr, engine.KindPoll)
	assert.Contains(t, polls[len(polls)-2], "c1 stays stopped on its OffsetOutOfRangeException")
}

// TestLogStaticMembersRefuseWhatOnlyDynamicOnesDo: a crash= restarts its
// member as a static member, and a static member's client sends no
// LeaveGroup on close or past max.poll.interval.ms; with no session timeout
// to end its membership, a leave line, or a batch held past
// max-poll-interval=, in such a group is refused at that line.
func TestLogStaticMembersRefuseWhatOnlyDynamicOnesDo(t *testing.T) {
	const head = "scenario test/log \"A log test\"\ntopic orders partitions=1\ntarget fct sink=merge key=order_id\nproducer shop to=orders key=order_id\ngroup billing topic=orders to=fct max-poll-interval=3s\nmember billing c1 at=10:00:00\n"
	for lines, want := range map[string]string{
		"leave billing c1 at=10:00:05\npoll billing c1 at=10:00:01 crash=before-write":           "log.tdm:7:1: a crashed member of billing restarts as a static member (crash= on line 8), and a static member sends no LeaveGroup",
		"poll billing c1 at=10:00:01 crash=before-write\nleave billing c1 at=10:00:05":           "log.tdm:8:1: a crashed member of billing restarts",
		"poll billing c1 at=10:00:01 crash=before-write\npoll billing c1 at=10:00:02 process=4s": "log.tdm:8:37: a crashed member of billing restarts",
		"poll billing c1 at=10:00:01 crash=before-write\npoll billing c1 at=10:00:02 process=3s": "",
		"poll billing c1 at=10:00:01\nleave billing c1 at=10:00:05":                              "",
	} {
		f, err := scenario.Parse("log.tdm", []byte(head+lines+"\n"))
		require.NoError(t, err, lines)
		_, err = engine.Build(f, nil, 1, worlds.All())
		if want == "" {
			assert.NoError(t, err, lines)
			continue
		}
		assert.ErrorContains(t, err, want, lines)
	}
}
