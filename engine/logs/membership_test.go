package logs_test

import (
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
// no LeaveGroup, so it keeps its partitions, which nobody else reads, until
// session.timeout.ms has passed without a heartbeat; then the coordinator
// removes it and the others inherit them (and here stop on them too).
func TestLogResetNoneStaticMemberKeepsItsPartitions(t *testing.T) {
	tr := runLog(t, stopBody+"poll billing c2 at=10:03:20 crash=before-commit\n", nil)
	_, resets := eventsOf(tr, engine.KindOffsetReset)
	require.Len(t, resets, 2)
	assert.Contains(t, resets[0], "its application exits, but a static member's close sends no LeaveGroup, so billing keeps it, and its partitions, unread, until it starts again or session.timeout.ms (45s) passes without a heartbeat")
	_, polls := eventsOf(tr, engine.KindPoll)
	assert.Contains(t, polls[len(polls)-2], "c1 stays stopped on its OffsetOutOfRangeException", "10:03:10: within its session")
	evs, rebalances := eventsOf(tr, engine.KindRebalance)
	require.Len(t, rebalances, 6, "the joins, then each session's end and its rebalance")
	// c1 stopped at 10:03:00, c2 at 10:03:01 (the poll that stopped it).
	assert.Equal(t, clock(t, "10:03:45"), evs[2].At)
	assert.Contains(t, rebalances[2], "billing's coordinator has had no heartbeat from c1 for session.timeout.ms (45s), since it exited on its OffsetOutOfRangeException, and removes it from the group; the rebalance that follows hands orders-0 to the others")
	// The rebalance waits for c2, which is down too, until its own
	// session's end, and completes without either.
	assert.Contains(t, rebalances[3], "c1's session times out: a rebalance begins, and billing waits for c2 (a static member whose application exited on its OffsetOutOfRangeException) to start again and rejoin")
	assert.Equal(t, clock(t, "10:03:46"), evs[4].At)
	assert.Contains(t, rebalances[4], "no heartbeat from c2")
	assert.Contains(t, rebalances[5], "c1's session times out; c2's session times out: generation 3 (range assignment) — no member is left")
	g := logs.Of(tr).Groups[0]
	last := g.Assignments[len(g.Assignments)-1]
	assert.Empty(t, last.Holds, "a removed member holds no partition")
	assert.Equal(t, "OffsetOutOfRangeException", g.StoppedAt("c1", tr.Steps()), "listed as exited on it")
}

// staticBody is a group of two static members (membership=static) on two
// partitions, each polling every 5 seconds, whose first member closes its
// consumer at 10:00:10; the tests add the line that starts it again.
const staticBody = `topic orders partitions=2
target fct sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct commit=after reset=earliest membership=static
member billing c1 at=10:00:00
member billing c2 at=10:00:00
traffic shop records=24 from=10:00:01 every=5s keys=24
polls billing from=10:00:02 until=10:02:00 every=5s
leave billing c1 at=10:00:10
`

// TestLogStaticMemberRejoinsWithinItsSession: a static member that closes
// its consumer and starts again within session.timeout.ms gets its
// partitions back without a rebalance, which is what static membership is
// for; meanwhile nobody reads them. Started again later, it finds itself
// removed at the timeout, and joins as anew, with a rebalance each time.
func TestLogStaticMemberRejoinsWithinItsSession(t *testing.T) {
	tr := runLog(t, staticBody+"member billing c1 at=10:00:40\n", nil)
	_, rebalances := eventsOf(tr, engine.KindRebalance)
	require.Len(t, rebalances, 4, "two joins, the close and the restart, and no rebalance after the joins")
	assert.Contains(t, rebalances[2], "c1's application closes its consumer. A static member's close sends no LeaveGroup, so billing keeps it as a member, holding orders-0, which nobody reads")
	assert.Contains(t, rebalances[3], "c1 starts again after closing its consumer and rejoins billing under its group.instance.id within session.timeout.ms (45s): the coordinator hands it back orders-0 without a rebalance")
	g := logs.Of(tr).Groups[0]
	require.Len(t, g.Closes, 1)
	c := g.Closes[0]
	assert.False(t, c.Removed)
	assert.Positive(t, c.Until)
	var gaps int
	for _, r := range g.Reads {
		if r.Partition == 0 && r.To > r.From && int(r.Step) > int(c.Step) {
			assert.GreaterOrEqual(t, r.Step, c.Until, "orders-0 is read by nobody while c1 is closed")
			assert.Equal(t, "c1", g.Members[r.Member], "c1 reads orders-0 again")
			gaps++
		}
	}
	assert.Positive(t, gaps, "c1 reads orders-0 after it starts again")
	assert.True(t, g.ClosedAt("c1", int(c.Step)))
	assert.False(t, g.ClosedAt("c1", int(c.Until)))

	late := runLog(t, staticBody+"member billing c1 at=10:01:30\n", nil)
	evs, rebalances := eventsOf(late, engine.KindRebalance)
	require.Len(t, rebalances, 6, "two joins, the close, the session's end and its rebalance, the join")
	assert.Equal(t, clock(t, "10:00:55"), evs[3].At, "45s after the close")
	assert.Contains(t, rebalances[3], "billing's coordinator has had no heartbeat from c1 for session.timeout.ms (45s), since it closed its consumer")
	assert.Contains(t, rebalances[4], "c1's session times out: generation 3 (range assignment) — c2 gets orders-0, orders-1")
	assert.Contains(t, rebalances[5], "c1 joins billing as a new member, its session having timed out: generation 4")
	lg := logs.Of(late).Groups[0]
	require.Len(t, lg.Closes, 1)
	assert.True(t, lg.Closes[0].Removed)
	assert.Empty(t, lg.StoppedAt("c1", late.Steps()), "a member that closed is not listed as exited")
}

// TestLogStaticMembersRefuseWhatOnlyDynamicOnesDo: a crash= restarts its
// member as a static member, as does membership=static, and a static
// member's client sends no LeaveGroup past max.poll.interval.ms but stops
// its heartbeats, which only session.timeout.ms would end; that is not
// modelled, so a batch held past max-poll-interval= in such a group is
// refused at that line. A leave line is a static member's close. A
// session timeout outside the broker's bounds is refused, and so is a
// crash in a group said to be dynamic.
func TestLogStaticMembersRefuseWhatOnlyDynamicOnesDo(t *testing.T) {
	const head = "scenario test/log \"A log test\"\ntopic orders partitions=1\ntarget fct sink=merge key=order_id\nproducer shop to=orders key=order_id\ngroup billing topic=orders to=fct max-poll-interval=3s"
	for lines, want := range map[string]string{
		"\nmember billing c1 at=10:00:00\nleave billing c1 at=10:00:05\npoll billing c1 at=10:00:01 crash=before-write":           "",
		"\nmember billing c1 at=10:00:00\npoll billing c1 at=10:00:01 crash=before-write\npoll billing c1 at=10:00:02 process=4s": "log.tdm:8:37: a crashed member of billing restarts as a static member (crash= on line 7), and a static member past max.poll.interval.ms sends no LeaveGroup",
		" membership=static\nmember billing c1 at=10:00:00\npoll billing c1 at=10:00:02 process=4s":                               "log.tdm:7:37: group billing has membership=static (line 5), and a static member past max.poll.interval.ms",
		"\nmember billing c1 at=10:00:00\npoll billing c1 at=10:00:01 crash=before-write\npoll billing c1 at=10:00:02 process=3s": "",
		"\nmember billing c1 at=10:00:00\npoll billing c1 at=10:00:01\nleave billing c1 at=10:00:05":                              "",
		" membership=dynamic\nmember billing c1 at=10:00:00\npoll billing c1 at=10:00:01 crash=before-write":                      "log.tdm:7:35: a crashed member restarts keeping its partitions, as only a static member does, but group billing has membership=dynamic (line 5)",
		" membership=sticky\nmember billing c1 at=10:00:00":                                                                       "log.tdm:5:67: expected membership= to be one of dynamic or static",
		" session-timeout=5s\nmember billing c1 at=10:00:00":                                                                      "log.tdm:5:72: expected session-timeout= from 6s to 30m",
		" session-timeout=31m\nmember billing c1 at=10:00:00":                                                                     "log.tdm:5:72: expected session-timeout= from 6s to 30m",
		" session-timeout=30m membership=static\nmember billing c1 at=10:00:00":                                                   "",
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

// TestLogStaticMemberStoppedThenRestarted: a static member that
// auto.offset.reset=none stops has exited, so a leave line changes nothing;
// a member line within its session starts it again (its stop cleared, its
// partitions kept), and the session that times out is counted from the
// stop that follows the restart, not from the first.
func TestLogStaticMemberStoppedThenRestarted(t *testing.T) {
	body := strings.Replace(staticBody, "reset=earliest", "reset=none", 1) + "member billing c1 at=10:00:30\n"
	tr := runLog(t, body, nil)
	evs, rebalances := eventsOf(tr, engine.KindRebalance)
	var said []string
	for i, r := range rebalances {
		if strings.Contains(r, "c1's application has exited already") || strings.Contains(r, "c1 starts again") || strings.Contains(r, "no heartbeat from c1") {
			said = append(said, evs[i].At.String()+" "+r[:40])
		}
	}
	require.Len(t, said, 3, "%q", rebalances)
	assert.True(t, strings.HasPrefix(said[0], "10:00:10 c1's application has exited already"), said[0])
	assert.True(t, strings.HasPrefix(said[1], "10:00:30 c1 starts again after its application"), said[1])
	// c2's join waited for c1, down since its first poll; the restart
	// completes it, and c1 stops again at once on the partition it gets.
	assert.True(t, strings.HasPrefix(said[2], "10:01:15 "), "45s after the stop that followed the restart: %s", said[2])
	g := logs.Of(tr).Groups[0]
	assert.Empty(t, g.Closes, "an exited member's leave closes nothing")
}

// staticPair is a group of two static members on one partition.
const staticPair = `topic orders partitions=1
target fct sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct commit=after reset=earliest membership=static
member billing c1 at=10:00:00
member billing c2 at=10:00:00
`

// TestLogStaticMemberClosesAfterItsBatch: a static member told to leave
// while busy with a batch writes and commits it first, and only then
// closes its consumer, without a LeaveGroup: no commit after the close, and
// no rebalance.
func TestLogStaticMemberClosesAfterItsBatch(t *testing.T) {
	tr := runLog(t, staticPair+`produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02 process=5s
leave billing c1 at=10:00:03
`, nil)
	g := logs.Of(tr).Groups[0]
	require.Len(t, g.Closes, 1)
	closed := g.Closes[0].Step
	assert.Equal(t, clock(t, "10:00:07"), tr.TimeAt(int(closed)), "when its batch is done")
	committed := false
	for _, c := range g.Commits {
		if g.Members[c.Member] == "c1" {
			assert.Less(t, c.Step, closed, "c1 commits after closing its consumer")
			committed = committed || tr.TimeAt(int(c.Step)) == clock(t, "10:00:07")
		}
	}
	assert.True(t, committed, "c1 commits its batch before closing")
	evs, rebalances := eventsOf(tr, engine.KindRebalance)
	var told bool
	for i, r := range rebalances {
		told = told || strings.Contains(r, "c1's application is told to shut down; its poll loop finishes the batch in hand first")
		if strings.Contains(r, "generation 3") {
			assert.Equal(t, clock(t, "10:00:52"), evs[i].At, "the close rebalances nothing: only its session's end, 45s later, does")
		}
	}
	assert.True(t, told)
}

// A dynamic member told to leave while its batch is in hand leaves the
// group after it writes and commits it: its client sends the LeaveGroup
// from close, which the thread that polls calls once the batch is done. It
// used to leave at once, have its commit refused, and its batch read again.
func TestLogDynamicMemberLeavesAfterItsBatch(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct sink=append key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct commit=after reset=earliest
member billing c1 at=10:00:00
member billing c2 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02 process=5s
leave billing c1 at=10:00:03
poll billing c2 at=10:00:20
`, nil)
	g := logs.Of(tr).Groups[0]
	var commit int32 = -1
	for _, c := range g.Commits {
		if g.Members[c.Member] == "c1" {
			commit = c.Step
			assert.Equal(t, clock(t, "10:00:07"), tr.TimeAt(int(c.Step)), "c1 commits when its batch is written")
		}
	}
	require.GreaterOrEqual(t, commit, int32(0), "c1's commit is taken: it is still a member")
	evs, rebalances := eventsOf(tr, engine.KindRebalance)
	var told, left bool
	for i, r := range rebalances {
		told = told || strings.Contains(r, "c1's application is told to shut down; its poll loop finishes the batch in hand first")
		if strings.Contains(r, "generation 3") {
			left = true
			assert.Contains(t, r, "c1, done with its batch, closes its consumer and leaves billing")
			assert.Equal(t, clock(t, "10:00:07"), evs[i].At)
		}
	}
	assert.True(t, told)
	assert.True(t, left, "the group rebalances when c1 has left")
	assert.Empty(t, tr.Final().Duplicated, "c2 reads on from c1's commit: nothing is written twice")
}

// downBody is a static group whose member c1 closes its consumer at
// 10:00:10 while c3 joins at 10:00:15: the join's rebalance must wait for
// c1, which the coordinator still counts.
const downBody = `topic orders partitions=3
target fct sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct commit=after reset=earliest membership=static%s
member billing c1 at=10:00:00
member billing c2 at=10:00:00
traffic shop records=30 from=10:00:01 every=2s keys=30
polls billing from=10:00:02 until=10:01:30 every=5s
leave billing c1 at=10:00:10
member billing c3 at=10:00:15
`

// rebalanceAt returns the time and narration of the first rebalance event
// that contains want, failing when there is none.
func rebalanceAt(t *testing.T, tr *engine.Trace, want string) (vtime.Time, string) {
	t.Helper()
	evs, rebalances := eventsOf(tr, engine.KindRebalance)
	for i, r := range rebalances {
		if strings.Contains(r, want) {
			return evs[i].At, r
		}
	}
	require.Failf(t, "no such rebalance", "%q in %q", want, rebalances)
	return 0, ""
}

// TestLogRebalanceWaitsForADownStaticMember: the classic protocol's join
// waits for every member the coordinator knows, and a static member whose
// consumer is closed is one: a rebalance another member starts meanwhile
// holds every partition, nobody reading, until the static member starts
// again, its session times out, or the rebalance does (max.poll.interval).
func TestLogRebalanceWaitsForADownStaticMember(t *testing.T) {
	t.Run("it starts again", func(t *testing.T) {
		tr := runLog(t, strings.Replace(downBody, "%s", "", 1)+"member billing c1 at=10:00:30\n", nil)
		at, begins := rebalanceAt(t, tr, "c3 joins billing: a rebalance begins")
		assert.Equal(t, clock(t, "10:00:15"), at)
		assert.Contains(t, begins, "waits for c1 (a static member whose consumer is closed) to start again and rejoin")
		at, done := rebalanceAt(t, tr, "generation 3")
		assert.Equal(t, clock(t, "10:00:30"), at, "c1's restart completes it")
		assert.Contains(t, done, "c3 joins billing; c1 rejoins, so the rebalance completes")
		assert.Contains(t, done, "c1 gets orders-0; c2 gets orders-1; c3 gets orders-2")
		_, polls := eventsOf(tr, engine.KindPoll)
		assert.Contains(t, strings.Join(polls, "\n"), "c2 polls, but billing is rebalancing (c3 joins billing) and waits for c1")
		lt := logs.Of(tr)
		step := 0
		for step < tr.Steps() && tr.TimeAt(step+1) <= clock(t, "10:00:20") {
			step++
		}
		a := lt.AssignmentAt("billing", step)
		require.NotNil(t, a)
		assert.True(t, a.Waiting)
		for _, h := range a.Holds {
			assert.Equal(t, h.Member == "c1", h.Busy, "only the member waited for keeps what it holds: %+v", h)
		}
		assert.Empty(t, tr.Final().Missing)
		assert.Empty(t, tr.Final().Duplicated)
	})
	t.Run("its session times out", func(t *testing.T) {
		tr := runLog(t, strings.Replace(downBody, "%s", "", 1), nil)
		at, _ := rebalanceAt(t, tr, "no heartbeat from c1")
		assert.Equal(t, clock(t, "10:00:55"), at)
		at, done := rebalanceAt(t, tr, "generation 3")
		assert.Equal(t, clock(t, "10:00:55"), at)
		assert.Contains(t, done, "c3 joins billing; c1's session times out: generation 3 (range assignment) — c2 gets orders-0, orders-1; c3 gets orders-2")
	})
	t.Run("the rebalance times out first", func(t *testing.T) {
		// The classic protocol removes only dynamic members at the
		// rebalance timeout: the rebalance completes without c1's
		// JoinGroup, c1 stays, is assigned orders-0, which nobody reads,
		// and goes only at its session's end.
		tr := runLog(t, strings.Replace(downBody, "%s", " session-timeout=10m max-poll-interval=30s", 1), nil)
		at, gaveUp := rebalanceAt(t, tr, "has waited max.poll.interval")
		assert.Equal(t, clock(t, "10:00:45"), at, "30s after the rebalance began")
		assert.Contains(t, gaveUp, "billing's rebalance has waited max.poll.interval (30s), its rebalance timeout, for c1 to rejoin: the coordinator completes it without waiting longer, and keeps c1 in the group")
		at, done := rebalanceAt(t, tr, "generation 3")
		assert.Equal(t, clock(t, "10:00:45"), at)
		assert.Contains(t, done, "c3 joins billing; the rebalance times out: generation 3 (range assignment) — c1 gets orders-0; c2 gets orders-1; c3 gets orders-2")
		assert.Contains(t, done, "c1, a static member that is down, is assigned partitions nobody reads until it starts again or its session times out")
		at, _ = rebalanceAt(t, tr, "no heartbeat from c1")
		assert.Equal(t, clock(t, "10:10:10"), at, "its session's end, 10m after its close")
		g := logs.Of(tr).Groups[0]
		require.Len(t, g.Closes, 1)
		assert.True(t, g.Closes[0].Removed)
		assert.Equal(t, tr.TimeAt(int(g.Closes[0].Until)), clock(t, "10:10:10"))
	})
}

// TestLogAutoCommitOfAResetPosition: a partition whose position a reset
// gave, and that poll has returned nothing from, is auto-committed there by
// the Java consumer (its positions, SubscriptionState.allConsumed), and
// not by librdkafka, which commits only the offsets it stored for records
// it handed the code. So after a rebalance the Java group reads on from
// that position, and librdkafka's resets to the log end again, skipping
// what came in between.
func TestLogAutoCommitOfAResetPosition(t *testing.T) {
	body := `knob where = poll | timer
topic orders partitions=2
target fct sink=append key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct commit=auto interval=5s auto-commit=$where reset=latest
produce shop at=10:00:00 key=1
produce shop at=10:00:00 key=2
member billing c1 at=10:00:01
produce shop at=10:00:02 key=3
produce shop at=10:00:02 key=4
poll billing c1 at=10:00:03 process=1s
produce shop at=10:00:04 key=5
member billing c2 at=10:00:05
produce shop at=10:00:06 key=6
poll billing c1 at=10:00:07
poll billing c2 at=10:00:07
poll billing c1 at=10:00:20
poll billing c2 at=10:00:20
`
	java := runLog(t, body, map[string]string{"where": "poll"})
	_, commits := eventsOf(java, engine.KindOffset)
	require.NotEmpty(t, commits)
	assert.Contains(t, commits[0], "Before the rebalance takes c1's partitions, its client auto-commits offset 1 on orders-0, offset 3 on orders-1")
	assert.Equal(t, []string{"1", "2"}, java.Final().Missing, "only what came before the first reset")
	rd := runLog(t, body, map[string]string{"where": "timer"})
	_, commits = eventsOf(rd, engine.KindOffset)
	require.NotEmpty(t, commits)
	assert.Contains(t, commits[0], "Before the rebalance takes c1's partitions, its client auto-commits offset 3 on orders-1:")
	assert.NotContains(t, commits[0], "orders-0")
	assert.Equal(t, []string{"1", "2", "5"}, rd.Final().Missing, "order 5, sent between the two resets, too")
}

// shutdownBody is a group of two on two partitions whose c1 polls a batch
// it works on for a while; each test adds what happens meanwhile.
const shutdownBody = `topic orders partitions=2
target fct sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct commit=after reset=earliest%s
member billing c1 at=10:00:00
member billing c2 at=10:00:00
traffic shop records=8 from=10:00:01 every=250ms keys=8
`

// rebalanceTexts returns the narration of every rebalance event, joined.
func rebalanceTexts(tr *engine.Trace) string {
	_, r := eventsOf(tr, engine.KindRebalance)
	return strings.Join(r, "\n")
}

// TestLogShutdownAfterEviction: an application told to shut down while
// its batch outlasts max.poll.interval closes once the batch is done; its
// client left the group at the eviction, so the close sends nothing, and
// it never polls again to rejoin, whether it was told before the eviction
// or after it.
func TestLogShutdownAfterEviction(t *testing.T) {
	for _, leaveAt := range []string{"10:00:05", "10:00:16"} {
		tr := runLog(t, strings.Replace(shutdownBody, "%s", " max-poll-interval=10s", 1)+
			"poll billing c1 at=10:00:03 process=20s\nleave billing c1 at="+leaveAt+"\npolls billing from=10:00:25 until=10:00:40 every=5s\n", nil)
		all := rebalanceTexts(tr)
		assert.Contains(t, all, "c1's application is told to shut down; its poll loop finishes the batch in hand first", leaveAt)
		assert.Contains(t, all, "c1's application closes its consumer; its client left billing when max.poll.interval passed, so the close sends nothing, and it does not poll again to rejoin.", leaveAt)
		assert.NotContains(t, all, "c1 calls poll again after its eviction and rejoins", leaveAt)
		assert.NotContains(t, all, "c1, done with its batch, closes its consumer and leaves", leaveAt)
		assert.NotContains(t, all, "c1 is not a member of billing", leaveAt)
		g := logs.Of(tr).Groups[0]
		a := g.Assignments[len(g.Assignments)-1]
		require.Len(t, a.Holds, 1, leaveAt)
		assert.Equal(t, "c2", a.Holds[0].Member, "%s: c2 reads both partitions at the end", leaveAt)
	}
}

// TestLogShutdownDuringARebalance: a member that a rebalance waits for
// and that is told to shut down closes after its batch instead of
// polling. A dynamic one's LeaveGroup completes the rebalance, in one
// generation (it used to rebalance twice, the second time saying it
// polled again); a static one's close leaves the rebalance waiting for it,
// until the rebalance times out and completes with it kept.
func TestLogShutdownDuringARebalance(t *testing.T) {
	lines := "poll billing c1 at=10:00:03 process=6s\nmember billing c3 at=10:00:04\nleave billing c1 at=10:00:05\npolls billing from=10:00:10 until=10:00:40 every=5s\n"
	tr := runLog(t, strings.Replace(shutdownBody, "%s", "", 1)+lines, nil)
	all := rebalanceTexts(tr)
	assert.Contains(t, all, "c3 joins billing; c1, done with its batch, closes its consumer and leaves billing: generation 3 (range assignment) — c2 gets orders-0; c3 gets orders-1")
	assert.NotContains(t, all, "generation 4")
	assert.NotContains(t, all, "c1 calls poll again after its batch")

	tr = runLog(t, strings.Replace(shutdownBody, "%s", " membership=static session-timeout=30s max-poll-interval=20s", 1)+lines, nil)
	all = rebalanceTexts(tr)
	assert.NotContains(t, all, "c1 calls poll again after its batch")
	at, done := rebalanceAt(t, tr, "generation 3")
	assert.Equal(t, clock(t, "10:00:24"), at, "the rebalance timeout, 20s after c3's join")
	assert.Contains(t, done, "c1 gets orders-0; c2 gets orders-1; c3 gets nothing")
	assert.Contains(t, done, "c1, a static member that is down, is assigned partitions nobody reads")
}

// TestLogMemberLineWhileShuttingDown: a member line for a member that is
// still finishing its batch before it closes starts its new process once
// the old one has closed; the line used to be lost ("already a member").
func TestLogMemberLineWhileShuttingDown(t *testing.T) {
	tr := runLog(t, strings.Replace(shutdownBody, "%s", "", 1)+
		"poll billing c1 at=10:00:04 process=6s\nleave billing c1 at=10:00:05\nmember billing c1 at=10:00:07\npolls billing from=10:00:15 until=10:00:20 every=5s\n", nil)
	all := rebalanceTexts(tr)
	assert.Contains(t, all, "c1's new process starts; the old one is still finishing its batch before it closes, and the new one joins once it has.")
	assert.NotContains(t, all, "c1 is already a member")
	at, joined := rebalanceAt(t, tr, "generation 4")
	assert.Equal(t, clock(t, "10:00:10"), at)
	assert.Contains(t, joined, "c1 joins billing: generation 4 (range assignment) — c1 gets orders-0; c2 gets orders-1")
}

// TestLogClosedStaticMemberWithoutPartitions: a static member that holds
// no partition (more members than partitions) says so when it closes, when
// a poll line finds it closed, and when it starts again, rather than
// "holding with no partition assigned, which nobody reads".
func TestLogClosedStaticMemberWithoutPartitions(t *testing.T) {
	tr := runLog(t, staticPair+`leave billing c2 at=10:00:02
poll billing c2 at=10:00:03
member billing c2 at=10:00:04
`, nil)
	all := rebalanceTexts(tr)
	_, polls := eventsOf(tr, engine.KindPoll)
	all += "\n" + strings.Join(polls, "\n")
	assert.Contains(t, all, "so billing keeps it as a member, holding no partition, until it starts again")
	assert.Contains(t, all, "c2 does not poll: its consumer is closed, and it holds no partition, but stays a static member until it starts again or its session times out.")
	assert.Contains(t, all, "the coordinator takes it back, with no partition, without a rebalance.")
	assert.NotContains(t, all, "with no partition assigned")
}

// TestLogCrashIntoAWaitingRebalanceIsSaid: a static member that crashes with its
// batch while a rebalance waits for it restarts into that rebalance, and
// says so; it said it kept its partitions without a rebalance.
func TestLogCrashIntoAWaitingRebalanceIsSaid(t *testing.T) {
	tr := runLog(t, strings.Replace(shutdownBody, "%s", "", 1)+
		"poll billing c1 at=10:00:03 process=4s crash=before-commit\nmember billing c3 at=10:00:04\n", nil)
	_, crashes := eventsOf(tr, engine.KindCrash)
	require.Len(t, crashes, 1)
	assert.Contains(t, crashes[0], "c1 crashes after writing the batch and before committing its offsets and restarts under its group.instance.id, and its poll joins the rebalance under way;")
	assert.NotContains(t, crashes[0], "without a rebalance")
	at, _ := rebalanceAt(t, tr, "c1 calls poll again after its batch, so the rebalance (c3 joins billing) completes: generation 3")
	assert.Equal(t, clock(t, "10:00:07"), at)
}
