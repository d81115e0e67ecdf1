package logs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// busyBody: c1 takes five seconds over a batch of six orders; c2 joins in
// the middle of it.
const busyBody = `knob max = 5m | 3s | 5s
knob sink = append | merge
topic orders partitions=2
target fct_orders sink=$sink key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest max-poll-interval=$max
member billing c1 at=10:00:00
` + "%s" + `poll billing c1 at=10:00:02 process=5s
member billing c2 at=10:00:04
poll billing c2 at=10:00:06
poll billing c1 at=10:00:10
poll billing c2 at=10:00:10
`

func busyLog(t *testing.T, set map[string]string) *engine.Trace {
	t.Helper()
	return runLog(t, strings.Replace(busyBody, "%s", keyLines("produce shop", "10:00:01", 6), 1), set)
}

// TestLogRebalanceWaitsForABusyMember: a rebalance completes only when
// every member calls poll again. c1 keeps its partitions while it writes,
// its commit at 10:00:07 is accepted, and only then does c2 get a
// partition, from offsets that already cover the batch: nothing is read twice.
func TestLogRebalanceWaitsForABusyMember(t *testing.T) {
	tr := busyLog(t, nil)
	evs, texts := eventsOf(tr, engine.KindRebalance)
	require.Len(t, texts, 3, strings.Join(texts, "\n"))
	assert.Contains(t, texts[1], "c2 joins billing: a rebalance begins, and billing waits for c1, busy with a batch, to call poll again.")
	assert.Equal(t, "10:00:07", evs[2].At.String())
	assert.Contains(t, texts[2], "c1 calls poll again after its batch, so the rebalance (c2 joins billing) completes: generation 2")
	_, polls := eventsOf(tr, engine.KindPoll)
	assert.Contains(t, polls, "c2 polls, but billing is rebalancing (c2 joins billing) and waits for c1; nothing is read until the rebalance completes.")
	_, commits := eventsOf(tr, engine.KindOffset)
	require.NotEmpty(t, commits)
	assert.Contains(t, commits[0], "c1 commits offset 3 on orders-0, offset 3 on orders-1 after writing the batch")
	read := 0
	for _, r := range logs.Of(tr).Groups[0].Reads {
		read += int(r.To - r.From)
	}
	assert.Equal(t, 6, read, "each of the six records is read once")
	assert.Empty(t, tr.Final().Duplicated)
	assert.Empty(t, tr.Final().Missing)
}

// TestLogEvictionPastMaxPollInterval: a member still busy max.poll.interval
// after its poll leaves the group; the rebalance goes on without it, the
// new owner reads from the committed offsets again, the evicted member's
// write still lands and its commit is refused, and its next poll rejoins.
func TestLogEvictionPastMaxPollInterval(t *testing.T) {
	tr := busyLog(t, map[string]string{"max": "3s"})
	evs, texts := eventsOf(tr, engine.KindRebalance)
	var at []string
	for _, e := range evs {
		at = append(at, e.At.String())
	}
	assert.Equal(t, []string{"10:00:00", "10:00:04", "10:00:05", "10:00:05", "10:00:10"}, at, strings.Join(texts, "\n"))
	assert.Contains(t, texts[2], "c1 has been busy with its batch since its poll at 10:00:02, past max.poll.interval (3s), so its client leaves billing")
	assert.Contains(t, texts[3], "billing drops c1: generation 2 (range assignment) — c2 gets orders-0, orders-1;")
	assert.Contains(t, texts[4], "c1 calls poll again after its eviction and rejoins billing: generation 3")
	_, commits := eventsOf(tr, engine.KindOffset)
	assert.Contains(t, commits, "c1's commit after writing the batch is refused: it is no longer a member of billing, and orders-0, orders-1 belong to the new assignment, which reads them again from the committed offsets.")
	// A group with no target writes nothing: its refused commit came after
	// processing the batch.
	noTarget := strings.Replace(busyBody, " to=fct_orders", "", 1)
	_, commits = eventsOf(runLog(t, strings.Replace(noTarget, "%s", keyLines("produce shop", "10:00:01", 6), 1), map[string]string{"max": "3s"}), engine.KindOffset)
	assert.Contains(t, commits, "c1's commit after processing the batch is refused: it is no longer a member of billing, and orders-0, orders-1 belong to the new assignment, which reads them again from the committed offsets.")
	assert.Equal(t, map[string]int{"1": 2, "2": 2, "3": 2, "4": 2, "5": 2, "6": 2}, tr.Final().Duplicated, "c2 re-read every order, and c1's write landed too")
	tr = busyLog(t, map[string]string{"max": "3s", "sink": "merge"})
	assert.Empty(t, tr.Final().Duplicated, "a merge absorbs the copies")
	// A group whose batches finish in time never evicts anyone.
	tr = busyLog(t, map[string]string{"max": "5s"})
	_, texts = eventsOf(tr, engine.KindRebalance)
	for _, s := range texts {
		assert.NotContains(t, s, "past max.poll.interval")
	}
}

// TestLogEvictedMemberRejoinsUnderPolls: a round of polls includes the
// members max.poll.interval evicted, as their loops call poll again once
// their batch is done, and that poll rejoins the group.
func TestLogEvictedMemberRejoinsUnderPolls(t *testing.T) {
	body := `topic orders partitions=2
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest max-poll-interval=3s
member billing c1 at=10:00:00
member billing c2 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:01 key=2
produce shop at=10:00:01 key=3
poll billing c1 at=10:00:02 process=5s
polls billing from=10:00:03 until=10:00:12 every=1s
`
	tr := runLog(t, body, nil)
	evs, texts := eventsOf(tr, engine.KindRebalance)
	var rejoined string
	for i, s := range texts {
		if strings.Contains(s, "c1 calls poll again after its eviction and rejoins billing") {
			rejoined = evs[i].At.String()
		}
	}
	assert.Equal(t, "10:00:07", rejoined, "the first round after c1's batch is done (at 10:00:07) brings it back:\n"+strings.Join(texts, "\n"))
	assert.Empty(t, tr.Final().Missing)
	_, polls := eventsOf(tr, engine.KindPoll)
	assert.Contains(t, strings.Join(polls, "\n"), "c1 does not poll: it is still processing the batch it polled at 10:00:02", "a round while it is busy says why it reads nothing")
}

// TestLogAutoCommitOnRevoke: with auto-commit a member's client commits
// before it gives up its partitions, at a rebalance and when it leaves (the
// Java consumer in onJoinPrepare and close, librdkafka when it unassigns),
// so the new owner does not read again what was processed before the
// interval came round. Committing by hand commits nothing there.
func TestLogAutoCommitOnRevoke(t *testing.T) {
	body := `knob commit = auto | after
knob where = timer | poll
topic orders partitions=2
target fct_orders sink=append key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=$commit interval=1m reset=earliest auto-commit=$where
member billing c1 at=10:00:00
member billing c2 at=10:00:00
` + keyLines("produce shop", "10:00:01", 4) + `poll billing c1 at=10:00:02
poll billing c2 at=10:00:02
%s
polls billing from=10:00:04 until=10:00:06 every=1s
`
	for change, line := range map[string]string{
		"join":  "member billing c3 at=10:00:03",
		"leave": "leave billing c1 at=10:00:03",
	} {
		b := strings.Replace(body, "%s", line, 1)
		for _, where := range []string{"timer", "poll"} {
			tr := runLog(t, b, map[string]string{"where": where})
			_, commits := eventsOf(tr, engine.KindOffset)
			require.NotEmpty(t, commits, "%s/%s", change, where)
			// The Java consumer also commits the positions the first
			// reset gave when c2's join revokes them: look past those.
			revoke := "Before the rebalance takes c1's partitions, its client auto-commits offset"
			if change == "leave" {
				revoke = "As c1 leaves billing, its client auto-commits offset"
			}
			var said bool
			for _, c := range commits {
				said = said || strings.Contains(c, revoke) && !strings.Contains(c, "offset 0 on orders-0, offset 0 on orders-1")
			}
			assert.True(t, said, "%s/%s: %q", change, where, commits)
			assert.Empty(t, tr.Final().Duplicated, "%s/%s: the new owner starts after what was processed", change, where)
			assert.Empty(t, tr.Final().Missing, "%s/%s", change, where)
		}
		// Committing by hand after the write commits at once, and nothing
		// is committed for the code at a rebalance.
		tr := runLog(t, b, map[string]string{"commit": "after"})
		_, commits := eventsOf(tr, engine.KindOffset)
		for _, c := range commits {
			assert.NotContains(t, c, "auto-commits", change)
		}
	}
}

// TestLogAutoCommitInsidePoll: with auto-commit=poll (the Java consumer)
// the commit runs at the start of a poll once the interval has passed, and
// covers only the batches the code has finished; with the timer (librdkafka)
// it runs on its own, over everything polled.
func TestLogAutoCommitInsidePoll(t *testing.T) {
	body := `knob where = timer | poll
topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=auto interval=3s reset=earliest auto-commit=$where
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:01.500
produce shop at=10:00:02 key=2
poll billing c1 at=10:00:02.500 process=2s crash=before-write
produce shop at=10:00:05 key=3
poll billing c1 at=10:00:05
poll billing c1 at=10:00:09
`
	tr := runLog(t, body, nil)
	when, offsets := firstGroupCommits(tr)
	assert.Equal(t, []string{"10:00:03", "10:00:07.500"}, when, "the timer fires every 3s whatever the code is doing, counted from the join and then from the restart at 10:00:04.500, and commits where the position has moved")
	assert.Equal(t, []int64{2, 3}, offsets)
	assert.Equal(t, []string{"2"}, tr.Final().Missing, "the timer committed order 2 before the crash lost it")

	tr = runLog(t, body, map[string]string{"where": "poll"})
	when, offsets = firstGroupCommits(tr)
	assert.Equal(t, []string{"10:00:09"}, when, "no poll between 10:00:03 and the crash, and the crash finished nothing")
	assert.Equal(t, []int64{3}, offsets)
	assert.Empty(t, tr.Final().Missing, "the restart read order 2 again")
	_, texts := eventsOf(tr, engine.KindOffset)
	require.Len(t, texts, 1)
	assert.Contains(t, texts[0], "c1's poll, the auto-commit interval (3s) having passed, first commits offset 3 on orders-0")

	// The log's once-a-second housekeeping, which a topic's retention
	// turns on, runs the timers of librdkafka's auto-commit only: a Java
	// consumer still commits inside its poll, and only what it finished.
	retained := strings.Replace(body, "topic orders partitions=1", "topic orders partitions=1 retention=1h", 1)
	tr = runLog(t, retained, map[string]string{"where": "poll"})
	when, offsets = firstGroupCommits(tr)
	assert.Equal(t, []string{"10:00:09"}, when, "no timer commits for a Java consumer, whatever else ticks")
	assert.Equal(t, []int64{3}, offsets)
	assert.Empty(t, tr.Final().Missing, "the restart read order 2 again")
}

// TestLogAutoCommitTimerStartsWithTheProcess: a consumer that crashes
// and restarts is a new process, whose client times auto.commit.interval.ms
// from its own start (librdkafka's timer, the Java consumer's
// nextAutoCommitTimer), not in the phase of the process that died: commits
// at 10:00:05 and 10:00:10, a restart at 10:00:12, and the next is due at
// 10:00:17, not 10:00:15.
func TestLogAutoCommitTimerStartsWithTheProcess(t *testing.T) {
	body := `knob where = timer | poll
topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=auto interval=5s reset=earliest auto-commit=$where
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02
produce shop at=10:00:06 key=2
poll billing c1 at=10:00:07
produce shop at=10:00:11 key=3
poll billing c1 at=10:00:11 process=1s crash=before-commit
produce shop at=10:00:13 key=4
poll billing c1 at=10:00:14
poll billing c1 at=10:00:18
`
	crashText := func(tr *engine.Trace) string {
		_, texts := eventsOf(tr, engine.KindCrash)
		require.Len(t, texts, 1)
		return texts[0]
	}
	tr := runLog(t, body, nil)
	when, offsets := firstGroupCommits(tr)
	assert.Equal(t, []string{"10:00:05", "10:00:10", "10:00:17"}, when, "the restarted client's timer counts from 10:00:12")
	assert.Equal(t, []int64{1, 2, 4}, offsets)
	assert.Contains(t, crashText(tr), "the new process's auto-commit interval (5s) counts from its start, so its next auto-commit is due at 10:00:17")

	tr = runLog(t, body, map[string]string{"where": "poll"})
	when, offsets = firstGroupCommits(tr)
	assert.Equal(t, []string{"10:00:07", "10:00:18"}, when, "the poll at 10:00:14 comes before the restarted consumer's interval has passed; the one at 10:00:18 after")
	assert.Equal(t, []int64{1, 4}, offsets)
	assert.Contains(t, crashText(tr), "its next auto-commit is due at 10:00:17")
}

// TestLogAutoCommitTimerKeepsItsOwnInstant: a member that joins between two
// of the log's once-a-second ticks commits at its own interval from the
// join, not at the next whole second; and a timer queued for such an
// instant does not keep the ticking going once nothing else is left.
func TestLogAutoCommitTimerKeepsItsOwnInstant(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1 retention=1h
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=auto interval=1s reset=earliest
member billing c1 at=10:00:00.500
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:01
produce shop at=10:00:03 key=2
poll billing c1 at=10:00:03
`, nil)
	when, _ := firstGroupCommits(tr)
	assert.Equal(t, []string{"10:00:01.500", "10:00:03.500"}, when)
	last := tr.Events[len(tr.Events)-1].At
	assert.Equal(t, "10:00:03.500", last.String(), "the run ends with the last commit")
}

// TestLogAutoCommitAfterTheLastPoll: a consumer that auto-commits is
// still running after the scenario's last line, so its timer (or, for the
// Java consumer, its idle loop's next poll) commits what it read within
// interval= of that poll; the group is not left behind by one batch only
// because nothing came later. A group committing by hand commits nothing
// more.
func TestLogAutoCommitAfterTheLastPoll(t *testing.T) {
	body := `knob commit = auto | after
knob where = timer | poll
topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=$commit interval=5s reset=earliest auto-commit=$where
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02
`
	for _, where := range []string{"timer", "poll"} {
		tr := runLog(t, body, map[string]string{"where": where})
		g := logs.Of(tr).Groups[0]
		require.Len(t, g.Commits, 1, where)
		assert.Equal(t, int64(1), g.Commits[0].Offset, where)
		assert.Equal(t, "10:00:05", tr.Events[g.Commits[0].Step-1].At.String(), where+": the interval after the member joined")
		assert.Equal(t, tr.Steps(), int(g.Commits[0].Step), where+": the commit is the last step")
	}
	tr := runLog(t, body, map[string]string{"commit": "after"})
	g := logs.Of(tr).Groups[0]
	require.Len(t, g.Commits, 1)
	assert.Equal(t, "10:00:02", tr.Events[g.Commits[0].Step-1].At.String(), "committed after the write, and nothing after that")
}

// TestLogGroupSettingErrors: the new group settings refuse bad values at
// their place in the line.
func TestLogGroupSettingErrors(t *testing.T) {
	for setting, want := range map[string]string{
		"max-poll-interval=0s":   "log.tdm:5:65: expected max-poll-interval= to be positive, such as 5m",
		"max-poll-interval=soon": "expected a duration such as 2s",
		"auto-commit=thread":     "expected auto-commit= to be one of timer or poll",
		// A timer under a second would fire less often than it says.
		"interval=300ms": "log.tdm:5:56: expected interval= of 1s or more (auto.commit.interval.ms; a shorter one is not modelled)",
	} {
		src := "scenario test/log \"A log test\"\ntopic orders partitions=1\ntarget fct sink=merge key=order_id\nproducer shop to=orders key=order_id\ngroup billing topic=orders to=fct commit=auto " + setting + "\n"
		f, err := scenario.Parse("log.tdm", []byte(src))
		require.NoError(t, err)
		_, err = engine.Build(f, nil, 1, worlds.All())
		require.ErrorContains(t, err, want, setting)
	}
	// interval= and auto-commit= say how auto-commit runs: a group that
	// commits by hand refuses them rather than ignore them, unless a knob
	// sets its commit=, which one line then serves for every value.
	for setting, want := range map[string]string{
		"commit=after interval=3s":       "log.tdm:5:48: interval= says how auto-commit runs, and this group commits with commit=after; give commit=auto, or leave interval= out",
		"auto-commit=poll":               "log.tdm:5:35: auto-commit= says how auto-commit runs, and this group commits with commit=after; give commit=auto, or leave auto-commit= out",
		"commit=before auto-commit=poll": "log.tdm:5:49: auto-commit= says how auto-commit runs, and this group commits with commit=before; give commit=auto, or leave auto-commit= out",
		"commit=$c interval=3s":          "",
	} {
		src := "scenario test/log \"A log test\"\ntopic orders partitions=1\ntarget fct sink=merge key=order_id\nproducer shop to=orders key=order_id\ngroup billing topic=orders to=fct " + setting + "\nknob c = after | auto\n"
		f, err := scenario.Parse("log.tdm", []byte(src))
		require.NoError(t, err)
		_, err = engine.Build(f, nil, 1, worlds.All())
		if want == "" {
			require.NoError(t, err, setting)
			continue
		}
		require.EqualError(t, err, want, setting)
	}
}

// TestLogLineValueErrors: a log line whose value is out of range is refused
// at that value, not at the start of the line; a missing one at the line.
func TestLogLineValueErrors(t *testing.T) {
	const head = "scenario test/log \"A log test\"\ntopic orders partitions=1\ntarget fct sink=merge key=order_id\nproducer shop to=orders key=order_id\ngroup billing topic=orders to=fct\n"
	for line, want := range map[string]string{
		"topic t2 partitions=1 retention=-1s":                      "log.tdm:6:33: expected retention= and segment=",
		"topic t2 partitions=1 segment=-1s":                        "log.tdm:6:31: expected retention= and segment=",
		"producer p2 to=orders key=order_id clock=wall":            "log.tdm:6:42: unknown clock \"wall\"",
		"traffic shop from=10:00:00 every=1s":                      "log.tdm:6:1: traffic needs records=N",
		"traffic shop records=5 from=10:00:00 every=0s":            "log.tdm:6:44: traffic needs every= with a positive duration",
		"traffic shop records=5 from=10:00:00 every=1ms scale=10":  "log.tdm:6:54: traffic's scale= would send",
		"polls billing from=10:00:05 until=10:00:00 every=1s":      "log.tdm:6:35: polls needs every= positive",
		"polls billing from=10:00:00 until=10:00:05 every=0s":      "log.tdm:6:50: polls needs every= positive",
		"pause billing c1 at=10:00:05 until=10:00:00":              "log.tdm:6:36: pause needs until= at or after at=",
		"offline shop at=10:00:05 until=10:00:00":                  "log.tdm:6:32: offline needs until= after at=",
		"burst shop at=10:00:05":                                   "log.tdm:6:1: burst needs records=N",
		"produce shop at=10:00:00 key=1 retry=app retry-after=-1s": "log.tdm:6:54: retry-after= is how much later",
		// How a failed send is resent means nothing for a send that does
		// not fail; a fail= a knob sets serves every value.
		"produce shop at=10:00:00 key=1 retry=app":                                  "log.tdm:6:32: retry= says how a failed send is resent, and this send does not fail; give fail=timeout or fail=lost, or leave retry= out",
		"produce shop at=10:00:00 key=1 fail=none ids=keep":                         "log.tdm:6:42: ids= says how a failed send is resent",
		"produce shop at=10:00:00 key=1 fail=none retry=none":                       "",
		"knob f = none | timeout\nproduce shop at=10:00:00 key=1 fail=$f retry=app": "",
		// An event is sent at or after it happens, as event-lag= says.
		"produce shop at=10:00:05 key=1 event=10:05:00":                           "log.tdm:6:38: expected event= at or before the send at=10:00:05: an event cannot be sent before it happens",
		"produce shop at=10:00:05 key=1 event=10:00:05":                           "",
		"burst shop at=10:00:05 records=3 event-from=10:05:00":                    "log.tdm:6:45: expected event-from= at or before the send at=10:00:05",
		"burst shop at=10:00:05 records=3 event-from=10:00:00 event-every=5s":     "log.tdm:6:66: expected the burst's 3 events, from 10:00:00 every 5s, to happen at or before its send at=10:00:05",
		"burst shop at=10:00:05 records=3 event-every=5s":                         "log.tdm:6:46: event-every= spreads the events from event-from=",
		"burst shop at=10:00:05 records=3 event-from=10:00:00 event-every=2500ms": "",
		// The truth follows a producer's rows into one target: a second
		// group copying them elsewhere would have every row judged stale.
		"target fct2 sink=merge key=order_id\ngroup audit topic=orders to=fct2": "log.tdm:7:29: the rows of shop already reach fct, and the truth follows them into one target; group audit copying them into fct2 as well is not modelled",
		"group audit topic=orders":        "",
		"group audit topic=orders to=fct": "",
	} {
		f, err := scenario.Parse("log.tdm", []byte(head+line+"\n"))
		require.NoError(t, err, line)
		_, err = engine.Build(f, nil, 1, worlds.All())
		if want == "" { // a second group that writes nowhere, or to the same target, is fine
			assert.NoError(t, err, line)
			continue
		}
		assert.ErrorContains(t, err, want, line)
	}
}

// firstGroupCommits returns when the first group of trace tr committed,
// and the offsets it committed, in order.
func firstGroupCommits(tr *engine.Trace) (when []string, offsets []int64) {
	for _, c := range logs.Of(tr).Groups[0].Commits {
		when = append(when, tr.Events[c.Step-1].At.String())
		offsets = append(offsets, c.Offset)
	}
	return when, offsets
}

// TestLogJavaAutoCommitIntervalRestartsAtTheJoin: the Java consumer
// (auto-commit=poll) starts its auto-commit interval again when a
// rebalance completes its join (ConsumerCoordinator's onJoinComplete):
// after c2 joins at 10:00:03, c1's next commit inside a poll is due at
// 10:00:08, so its poll at 10:00:06 commits nothing and the one at
// 10:00:09 does. librdkafka's timer keeps the phase of the first join.
func TestLogJavaAutoCommitIntervalRestartsAtTheJoin(t *testing.T) {
	body := `knob where = poll | timer
topic orders partitions=2
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=auto interval=5s reset=earliest auto-commit=$where
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:01 key=2
poll billing c1 at=10:00:02
member billing c2 at=10:00:03
produce shop at=10:00:04 key=2
poll billing c1 at=10:00:04
poll billing c1 at=10:00:06
poll billing c1 at=10:00:09
`
	when, _ := firstGroupCommits(runLog(t, body, nil))
	assert.Equal(t, []string{"10:00:03", "10:00:03", "10:00:09"}, when, "the revocation's commit on both partitions at the rebalance, then the first poll 5s after the join")
	when, _ = firstGroupCommits(runLog(t, body, map[string]string{"where": "timer"}))
	assert.Contains(t, when, "10:00:05", "librdkafka's timer keeps the phase of c1's join at 10:00:00")
}

// TestLogEvictedMemberCommitIsRefusedWhileTheRebalanceWaits: c1 and c2
// are both busy when c3 joins; max.poll.interval evicts c1 while the
// rebalance still waits for c2, so the generation has not moved when c1
// finishes its batch. The coordinator has removed c1 all the same and
// refuses its commit, as the eviction's narration says, so the new owner
// reads c1's record again.
func TestLogEvictedMemberCommitIsRefusedWhileTheRebalanceWaits(t *testing.T) {
	tr := runLog(t, `topic orders partitions=2
target fct_orders sink=append key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest max-poll-interval=3s
member billing c1 at=10:00:00
member billing c2 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:01 key=2
poll billing c1 at=10:00:02 process=4s
poll billing c2 at=10:00:03 process=10s
member billing c3 at=10:00:03
poll billing c3 at=10:00:20
`, nil)
	_, commits := eventsOf(tr, engine.KindOffset)
	require.NotEmpty(t, commits)
	assert.Contains(t, commits[0], "c1's commit after writing the batch is refused: it is no longer a member of billing")
	for _, c := range logs.Of(tr).Groups[0].Commits {
		assert.NotEqual(t, "c1", logs.Of(tr).Groups[0].Members[c.Member], "no commit of c1's is stored")
	}
	assert.Len(t, tr.Final().Duplicated, 2, "c3 writes both records again")
}

// TestLogRebalanceWaitingForTwoBusyMembersAgrees: a rebalance that waits
// for two busy members names both with plural verbs, and keeps their
// partitions apart from what follows them.
func TestLogRebalanceWaitingForTwoBusyMembersAgrees(t *testing.T) {
	tr := runLog(t, `topic orders partitions=2
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
member billing c2 at=10:00:00
`+keyLines("produce shop", "10:00:01", 6)+`poll billing c1 at=10:00:02 process=5s
poll billing c2 at=10:00:02 process=5s
member billing c3 at=10:00:04
poll billing c1 at=10:00:10
poll billing c2 at=10:00:10
`, nil)
	var waits []string
	for i := range tr.Events {
		if n := tr.Narration(&tr.Events[i]); strings.Contains(n, "a rebalance begins") {
			waits = append(waits, n)
		}
	}
	require.NotEmpty(t, waits)
	assert.Contains(t, waits[0], "waits for c1 and c2, busy with their batches, to call poll again. Until then c1 and c2 keep orders-0, orders-1; their commits are still accepted")
}
