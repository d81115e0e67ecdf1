package logs_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// World-level tests of the partitioned log: each runs a small scenario
// through the parser, builder and engine and looks at the trace.

// runLog runs a scenario body (everything after the header) with knob values.
func runLog(t *testing.T, body string, set map[string]string) *engine.Trace {
	t.Helper()
	src := "scenario test/log \"A log test\"\n" + body
	f, err := scenario.Parse("log.tdm", []byte(src))
	require.NoError(t, err, src)
	tr, err := engine.Run(f, set, 1, worlds.All())
	require.NoError(t, err, src)
	return tr
}

// clock parses a time of day.
func clock(t *testing.T, s string) vtime.Time {
	t.Helper()
	v, err := vtime.ParseTime(s)
	require.NoError(t, err)
	return v
}

// eventsOf returns the events of a kind with their narration.
func eventsOf(tr *engine.Trace, k engine.Kind) (evs []stepEvent, texts []string) {
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == k {
			evs = append(evs, stepEvent{*e, int32(i + 1)})
			texts = append(texts, tr.Narration(e))
		}
	}
	return evs, texts
}

// stepEvent is an event with its step (its position in the trace, plus one).
type stepEvent struct {
	engine.Event
	Step int32
}

// recordsOf lists every record of the first topic with its partition.
// spelled is a record of the first topic with its key and event id spelled.
type spelled struct {
	topic.Record
	Key, ID string
}

func recordsOf(tr *engine.Trace) map[int][]spelled {
	out := map[int][]spelled{}
	h := logs.Of(tr).Topics[0]
	for p, part := range h.Parts {
		out[p] = []spelled{}
		for i := range part.Records {
			r := &part.Records[i]
			out[p] = append(out[p], spelled{Record: *r, Key: h.Key(r), ID: h.ID(r)})
		}
	}
	return out
}

func keyLines(cmd string, at string, n int) string {
	var b strings.Builder
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "%s at=%s key=%d\n", cmd, at, k)
	}
	return b.String()
}

func TestLogKeyedPlacementIsMurmur2(t *testing.T) {
	tr := runLog(t, `topic orders partitions=7
producer shop to=orders key=order_id
`+keyLines("produce shop", "10:00:01", 60), nil)
	n := 0
	for p, recs := range recordsOf(tr) {
		for _, r := range recs {
			assert.Equal(t, topic.PartitionFor(r.Key, 7), p, "key %s", r.Key)
			n++
		}
	}
	require.Equal(t, 60, n)
	// Kafka's own placement of the string key "1" among 7 partitions.
	_, texts := eventsOf(tr, engine.KindProduce)
	assert.Contains(t, texts[0], fmt.Sprintf("to orders-%d, where murmur2 of key 1 places it", topic.PartitionFor("1", 7)))
}

func TestLogAddPartitionsMovesNoRecord(t *testing.T) {
	tr := runLog(t, `topic orders partitions=3
producer shop to=orders key=order_id
`+keyLines("produce shop", "10:00:01", 40)+`add-partitions orders to=6 at=10:00:05
`+keyLines("produce shop", "10:00:06", 40), nil)
	h := logs.Of(tr).Topics[0]
	evs, texts := eventsOf(tr, engine.KindRebalance)
	require.Len(t, evs, 1)
	assert.Contains(t, texts[0], "raises orders from 3 to 6 partitions; no record moves")
	grew := int(evs[0].Step)
	assert.Equal(t, 3, h.PartitionsAt(grew-1))
	assert.Equal(t, 6, h.PartitionsAt(grew))

	moved := 0
	for p, recs := range recordsOf(tr) {
		for _, r := range recs {
			if int(r.Step) < grew {
				assert.Equal(t, topic.PartitionFor(r.Key, 3), p, "key %s before the change", r.Key)
			} else {
				assert.Equal(t, topic.PartitionFor(r.Key, 6), p, "key %s after the change", r.Key)
				if topic.PartitionFor(r.Key, 3) != p {
					moved++
				}
			}
		}
		// What partition p held before the change is still its prefix, untouched.
		before := logs.Of(tr).RecordsAt("orders", p, grew-1)
		require.LessOrEqual(t, len(before), len(recs))
		for i, r := range before {
			assert.Equal(t, r, recs[i].Record, "partition %d offset %d", p, i)
		}
	}
	assert.Positive(t, moved, "no key's new records went to a different partition")
}

// TestLogProducerLearnsOfNewPartitionsAtItsRefresh: a producer with
// refresh= places keys by the partition count it knew until that long after
// the topic grew, then by the new count; a producer without it learns at
// once; a second growth before the refresh is learned by the same refresh.
func TestLogProducerLearnsOfNewPartitionsAtItsRefresh(t *testing.T) {
	tr := runLog(t, `topic orders partitions=3
producer shop to=orders key=order_id refresh=1m
producer till to=orders key=order_id
add-partitions orders to=5 at=10:00:05
add-partitions orders to=6 at=10:00:10
`+keyLines("produce shop", "10:00:30", 30)+keyLines("produce till", "10:00:30", 30)+keyLines("produce shop", "10:01:30", 30), nil)
	h := logs.Of(tr).Topics[0]
	_, texts := eventsOf(tr, engine.KindRebalance)
	require.Len(t, texts, 3, "two growths and one refresh: %q", texts)
	assert.Contains(t, texts[0], "once producers refresh their metadata (shop after 1m; any other at once)")
	assert.Contains(t, texts[2], "shop refreshes its metadata and learns orders has 6 partitions, not 3")
	n := 0
	for p, recs := range recordsOf(tr) {
		for _, r := range recs {
			want := 6
			if h.Names[r.ProducerRef] == "shop" && r.Time < clock(t, "10:01:05") {
				want = 3 // before its refresh, a minute after the first growth
			}
			assert.Equal(t, topic.PartitionFor(r.Key, want), p, "%s's key %s at %s", h.Names[r.ProducerRef], r.Key, r.Time)
			n++
		}
	}
	require.Equal(t, 90, n)
	for p := 3; p < 6; p++ {
		for _, r := range recordsOf(tr)[p] {
			assert.False(t, h.Names[r.ProducerRef] == "shop" && r.Time < clock(t, "10:01:05"), "shop wrote to new partition %d before it refreshed", p)
		}
	}

	f, err := scenario.Parse("log.tdm", []byte("scenario test/log \"t\"\ntopic orders partitions=3\nproducer shop to=orders refresh=-1s\n"))
	require.NoError(t, err)
	_, err = engine.Run(f, nil, 1, worlds.All())
	require.ErrorContains(t, err, "log.tdm:3:")
	assert.ErrorContains(t, err, "refresh= zero or positive")
}

func TestLogRetentionDeletesWholeSegments(t *testing.T) {
	// Segments: [0 1] (10:00:00, newest 10:00:15), [2] (10:00:25), [3], [4].
	tr := runLog(t, `topic orders partitions=1 retention=1m segment=20s
producer shop to=orders key=order_id
produce shop at=10:00:00 key=1
produce shop at=10:00:15 key=2
produce shop at=10:00:25 key=3
produce shop at=10:01:10 key=4
produce shop at=10:02:00 key=5
`, nil)
	part := logs.Of(tr).Topics[0].Parts[0]
	require.Len(t, part.Records, 5)
	deleted := func(o int64) int32 { return part.DeletedAt(o) }
	at := func(step int32) vtime.Time { return tr.Events[step-1].At }

	// Record 0 is over a minute old from 10:01:01, but its segment's newest
	// record is not until 10:01:16: the segment goes whole, then.
	require.NotEqual(t, int32(topic.Live), deleted(0))
	assert.Equal(t, deleted(0), deleted(1), "one segment, one deletion")
	assert.Equal(t, clock(t, "10:01:16"), at(deleted(0)))
	assert.Equal(t, clock(t, "10:01:26"), at(deleted(2)))
	assert.Equal(t, int32(topic.Live), deleted(3))
	assert.Equal(t, int32(topic.Live), deleted(4))
	assert.Equal(t, engine.KindRetention, tr.Events[deleted(0)-1].Kind)
	assert.Contains(t, tr.Narration(&tr.Events[deleted(0)-1]), "orders-0 offsets 0–1 (newest record 10:00:15)")

	// The log start moves past each deleted segment, and only then.
	assert.Equal(t, int64(0), part.StartAt(deleted(0)-1))
	assert.Equal(t, int64(2), part.StartAt(deleted(0)))
	assert.Equal(t, int64(3), part.StartAt(deleted(2)))
	end := logs.Of(tr).LogAt(tr.Steps())
	assert.Equal(t, int64(3), end[0].Start)
	assert.Equal(t, int64(5), end[0].End)
}

const resetBody = `knob reset = earliest | latest | none
topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=$reset
check consumer-lag
produce shop at=10:00:01 key=1
produce shop at=10:00:01 key=2
produce shop at=10:00:01 key=3
member billing c1 at=10:00:01.500
poll billing c1 at=10:00:02
produce shop at=10:00:03 key=4
produce shop at=10:00:03 key=5
poll billing c1 at=10:00:04
`

func targetKeys(tr *engine.Trace, name string) []string {
	var out []string
	for _, r := range tr.TargetAt(name, tr.Steps()) {
		out = append(out, tr.RowKey(&r))
	}
	return out
}

func TestLogAutoOffsetReset(t *testing.T) {
	t.Run("earliest", func(t *testing.T) {
		tr := runLog(t, resetBody, map[string]string{"reset": "earliest"})
		assert.Equal(t, []string{"1", "2", "3", "4", "5"}, targetKeys(tr, "fct_orders"))
		assert.Empty(t, tr.Final().Missing)
	})
	t.Run("latest", func(t *testing.T) {
		tr := runLog(t, resetBody, map[string]string{"reset": "latest"})
		_, texts := eventsOf(tr, engine.KindOffsetReset)
		require.Len(t, texts, 1)
		assert.Contains(t, texts[0], "auto.offset.reset=latest starts at the log end 3")
		assert.Equal(t, []string{"4", "5"}, targetKeys(tr, "fct_orders"))
		assert.Equal(t, []string{"1", "2", "3"}, tr.Final().Missing)
	})
	t.Run("none", func(t *testing.T) {
		// An error the trace shows, not a Go error: runLog requires Run to succeed.
		tr := runLog(t, resetBody, map[string]string{"reset": "none"})
		_, texts := eventsOf(tr, engine.KindOffsetReset)
		require.Len(t, texts, 1)
		// No committed offset is not an out-of-range one: Kafka's Java
		// client raises NoOffsetForPartitionException before any fetch.
		assert.Contains(t, texts[0], "has no committed offset on orders-0, and auto.offset.reset=none gives no default: its poll raises NoOffsetForPartitionException")
		assert.NotContains(t, texts[0], "out-of-range")
		// The consumer stops as it joins, in the poll that joins (Kafka
		// looks the offsets up before that poll returns); its application
		// exits and its close leaves the group, so each poll line after
		// finds it gone.
		evs, _ := eventsOf(tr, engine.KindOffsetReset)
		assert.Equal(t, clock(t, "10:00:01.500"), evs[0].At)
		_, rebalances := eventsOf(tr, engine.KindRebalance)
		require.Len(t, rebalances, 2)
		assert.Contains(t, rebalances[1], "c1's application exits on its NoOffsetForPartitionException, and closing its consumer leaves billing: generation 2")
		_, polls := eventsOf(tr, engine.KindPoll)
		require.Len(t, polls, 2)
		assert.Contains(t, polls[0], "c1 does not poll: its application exited on its NoOffsetForPartitionException")
		assert.Empty(t, targetKeys(tr, "fct_orders"))
		assert.Equal(t, []string{"1", "2", "3", "4", "5"}, tr.Final().Missing)
		assert.Equal(t, check.Fail, tr.Checks()[0].Status)
	})
}

const commitBody = `knob commit = before | after
knob crash = before-write | before-commit
knob sink = append | merge
topic orders partitions=1
target fct_orders sink=$sink key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=$commit reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:01 key=2
poll billing c1 at=10:00:02
produce shop at=10:00:03 key=3
produce shop at=10:00:03 key=4
poll billing c1 at=10:00:04 process=1s crash=$crash
poll billing c1 at=10:00:07
`

// timesRead counts how often each offset of partition 0 was fetched.
func timesRead(tr *engine.Trace) map[int64]int {
	n := map[int64]int{}
	for _, r := range logs.Of(tr).Groups[0].Reads {
		for o := r.From; o < r.To; o++ {
			n[o]++
		}
	}
	return n
}

func TestLogCommitBeforeOrAfterTheEffect(t *testing.T) {
	t.Run("before, crash before the write: the batch is lost", func(t *testing.T) {
		tr := runLog(t, commitBody, map[string]string{"commit": "before", "crash": "before-write", "sink": "append"})
		assert.Equal(t, []string{"3", "4"}, tr.Final().Missing)
		assert.Equal(t, map[int64]int{0: 1, 1: 1, 2: 1, 3: 1}, timesRead(tr))
		_, crashes := eventsOf(tr, engine.KindCrash)
		require.Len(t, crashes, 1)
		assert.Contains(t, crashes[0], "the committed offsets already cover orders-0 offsets 2–3, so those records are skipped for good")
	})
	t.Run("before, crash before the commit: the commit came first, so the batch is done", func(t *testing.T) {
		tr := runLog(t, commitBody, map[string]string{"commit": "before", "crash": "before-commit", "sink": "append"})
		assert.Empty(t, tr.Final().Missing)
		assert.Empty(t, tr.Final().Duplicated)
		_, crashes := eventsOf(tr, engine.KindCrash)
		require.Len(t, crashes, 1)
		assert.Equal(t, "c1 crashes after writing the batch, whose offsets it committed before writing it, and restarts under its group.instance.id, keeping its partitions without a rebalance; nothing is lost or repeated.", crashes[0])
	})
	t.Run("after, crash before the write: read again, written once", func(t *testing.T) {
		tr := runLog(t, commitBody, map[string]string{"commit": "after", "crash": "before-write", "sink": "append"})
		assert.Empty(t, tr.Final().Missing)
		assert.Empty(t, tr.Final().Duplicated)
		assert.Equal(t, map[int64]int{0: 1, 1: 1, 2: 2, 3: 2}, timesRead(tr))
	})
	t.Run("after, crash before the commit: written twice", func(t *testing.T) {
		tr := runLog(t, commitBody, map[string]string{"commit": "after", "crash": "before-commit", "sink": "append"})
		assert.Equal(t, map[string]int{"3": 2, "4": 2}, tr.Final().Duplicated)
		tr = runLog(t, commitBody, map[string]string{"commit": "after", "crash": "before-commit", "sink": "merge"})
		assert.Empty(t, tr.Final().Duplicated)
		assert.Empty(t, tr.Final().Missing)
	})
}

// TestLogCommitNarrationFitsTheBatch: the commit's narration counts a
// one-record batch as one ("that record", not "those records"), and a
// group with no to= target, which writes nothing, processes its batch.
func TestLogCommitNarrationFitsTheBatch(t *testing.T) {
	body := func(to, commit string) string {
		return "topic orders partitions=1\ntarget out sink=append key=order_id\nproducer shop to=orders key=order_id\n" +
			"group billing topic=orders" + to + " commit=" + commit + " reset=earliest\n" +
			"member billing c1 at=10:00:00\nproduce shop at=10:00:01 key=1\npoll billing c1 at=10:00:02\n" +
			"produce shop at=10:00:03 key=2\nproduce shop at=10:00:03 key=3\npoll billing c1 at=10:00:04\n"
	}
	for _, c := range []struct{ to, commit, one, two string }{
		{" to=out", "before",
			"c1 commits offset 1 on orders-0 before writing the batch: should it crash now, that record counts as done though it is not written.",
			"c1 commits offset 3 on orders-0 before writing the batch: should it crash now, those records count as done though none is written."},
		{"", "before",
			"c1 commits offset 1 on orders-0 before processing the batch: should it crash now, that record counts as done though it is not processed.",
			"c1 commits offset 3 on orders-0 before processing the batch: should it crash now, those records count as done though none is processed."},
		{" to=out", "after",
			"c1 commits offset 1 on orders-0 after writing the batch: the next offset to read.",
			"c1 commits offset 3 on orders-0 after writing the batch: the next offset to read."},
		{"", "after",
			"c1 commits offset 1 on orders-0 after processing the batch: the next offset to read.",
			"c1 commits offset 3 on orders-0 after processing the batch: the next offset to read."},
	} {
		_, commits := eventsOf(runLog(t, body(c.to, c.commit), nil), engine.KindOffset)
		assert.Equal(t, []string{c.one, c.two}, commits, "to=%q commit=%s", c.to, c.commit)
	}
}

// TestLogCrashNarrationFitsTheBatch: a crash says what the member had done
// with its batch in the words of its group: a group with no target
// processes a batch, it writes nothing; and one record lost past a commit
// is "that record".
func TestLogCrashNarrationFitsTheBatch(t *testing.T) {
	body := func(to, commit, crash string) string {
		return "topic orders partitions=1\ntarget out sink=append key=order_id\nproducer shop to=orders key=order_id\n" +
			"group billing topic=orders" + to + " commit=" + commit + " reset=earliest\n" +
			"member billing c1 at=10:00:00\nproduce shop at=10:00:01 key=1\npoll billing c1 at=10:00:02 crash=" + crash + "\n"
	}
	for _, c := range []struct{ to, commit, crash, want string }{
		{" to=out", "before", "before-write", "c1 crashes after polling and before writing the batch and restarts under its group.instance.id, keeping its partitions without a rebalance; the committed offsets already cover orders-0 offset 0, so that record is skipped for good."},
		{"", "before", "before-write", "c1 crashes after polling and before processing the batch and restarts under its group.instance.id, keeping its partitions without a rebalance; the committed offsets already cover orders-0 offset 0, so that record is skipped for good."},
		{"", "after", "before-write", "c1 crashes after polling and before processing the batch and restarts under its group.instance.id, keeping its partitions without a rebalance; the batch is not processed, and nothing was ever committed, so the restart starts at the log start (auto.offset.reset=earliest) and reads orders-0 offset 0 again."},
		{"", "after", "before-commit", "c1 crashes after processing the batch and before committing its offsets and restarts under its group.instance.id, keeping its partitions without a rebalance; the batch is processed but nothing was ever committed, so the restart starts at the log start (auto.offset.reset=earliest) and reads orders-0 offset 0 again."},
		{"", "before", "before-commit", "c1 crashes after processing the batch, whose offsets it committed before processing it, and restarts under its group.instance.id, keeping its partitions without a rebalance; nothing is lost or repeated."},
	} {
		_, crashes := eventsOf(runLog(t, body(c.to, c.commit, c.crash), nil), engine.KindCrash)
		assert.Equal(t, []string{c.want}, crashes, "to=%q commit=%s crash=%s", c.to, c.commit, c.crash)
	}
}

// TestLogCrashOnAnEmptyPoll: a crash planned on a poll that finds nothing
// still happens and is told, and the position a reset gave, which the
// process died before committing, is reset again as it restarts: at the
// log end then, so order 2, sent after the restart, is read.
func TestLogCrashOnAnEmptyPoll(t *testing.T) {
	for _, crash := range []string{"before-write", "before-commit"} {
		t.Run(crash, func(t *testing.T) {
			tr := runLog(t, `topic orders partitions=1
target fct_orders sink=append key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=latest
produce shop at=10:00:00 key=1
member billing c1 at=10:00:01
poll billing c1 at=10:00:02 crash=`+crash+`
produce shop at=10:00:03 key=2
poll billing c1 at=10:00:04
`, nil)
			_, crashes := eventsOf(tr, engine.KindCrash)
			require.Len(t, crashes, 1)
			assert.Equal(t, "c1 crashes on a poll that found nothing, before "+map[string]string{"before-write": "writing", "before-commit": "committing"}[crash]+", and restarts under its group.instance.id, keeping its partitions without a rebalance; nothing is lost or repeated.", crashes[0])
			_, resets := eventsOf(tr, engine.KindOffsetReset)
			require.Len(t, resets, 2, "the reset before the crash, and again after the restart: %q", resets)
			assert.Contains(t, resets[1], "auto.offset.reset=latest starts at the log end 1")
			evs, _ := eventsOf(tr, engine.KindOffsetReset)
			assert.Equal(t, clock(t, "10:00:02"), evs[1].At, "as the process restarts")
			commits := logs.Of(tr).Groups[0].Commits
			require.Len(t, commits, 1, "the crashed poll committed nothing; the next commits after order 2")
			assert.Equal(t, int64(2), commits[0].Offset)
			assert.Equal(t, []string{"1"}, tr.Final().Missing, "latest skips order 1 at the join and again at the restart; order 2 comes after both")
		})
	}
}

func TestLogAutoCommitInterval(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=auto interval=3s reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:01.500
produce shop at=10:00:04 key=2
poll billing c1 at=10:00:04.500
produce shop at=10:00:08 key=3
`, nil)
	when, offsets := firstGroupCommits(tr)
	// The timer fires every 3 s from the join, and commits the position.
	assert.Equal(t, []string{"10:00:03", "10:00:06"}, when)
	assert.Equal(t, []int64{1, 2}, offsets)
	_, texts := eventsOf(tr, engine.KindOffset)
	require.Len(t, texts, 2)
	assert.Contains(t, texts[0], "auto-commit timer (every 3s) commits offset 1 on orders-0")
}

const retryBody = `knob idempotence = off | on
knob retry = client | broker | app | session
topic orders partitions=3
producer shop to=orders idempotent=$idempotence key=order_id
produce shop at=10:00:01 key=1
produce shop at=10:00:02 key=2 fail=timeout retry=$retry
produce shop at=10:00:03 key=3
`

func TestLogIdempotentProducer(t *testing.T) {
	copies := func(tr *engine.Trace, key string) int {
		n := 0
		for _, recs := range recordsOf(tr) {
			for _, r := range recs {
				if r.Key == key {
					n++
				}
			}
		}
		return n
	}
	for _, c := range []struct {
		idem, retry string
		want        int
	}{
		{"off", "client", 2},
		{"on", "client", 1},   // same producer id and sequence: the broker drops the copy
		{"on", "broker", 1},   // broker, the older spelling of client
		{"on", "app", 2},      // a new send from the same session gets a new sequence
		{"on", "session", 2},  // a new producer id: the broker cannot link the two
		{"off", "session", 2}, // nothing to de-duplicate with either
	} {
		tr := runLog(t, retryBody, map[string]string{"idempotence": c.idem, "retry": c.retry})
		assert.Equal(t, c.want, copies(tr, "2"), "idempotence=%s retry=%s", c.idem, c.retry)
		assert.Equal(t, 1, copies(tr, "1"))
		assert.Equal(t, 1, copies(tr, "3"))
		_, texts := eventsOf(tr, engine.KindProduce)
		has := func(part string) bool {
			return slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, part) })
		}
		if c.idem == "on" && c.retry != "app" && c.retry != "session" {
			assert.True(t, has("drops the copy"), texts)
		}
		// Only an idempotent producer has a producer id (Kafka gives one
		// to no other), so only its restart is said to get a new one.
		if c.retry == "session" {
			assert.Equal(t, c.idem == "on", has("gets producer id"), texts)
			assert.Equal(t, c.idem == "off", has("without idempotence nothing links the resend"), texts)
		}
	}
}

// A group learns of new partitions at its leader's metadata refresh:
// refresh=0s, the default, is the luckiest phase of Kafka's
// metadata.max.age.ms, and the narration says so rather than let an
// instant rebalance pass for Kafka's behaviour; a later refresh is named.
func TestLogGroupNoticesNewPartitionsAtItsRefresh(t *testing.T) {
	body := `topic orders partitions=2
producer shop to=orders key=order_id
group billing topic=orders commit=after reset=earliest refresh=$refresh
member billing c1 at=10:00:00
add-partitions orders to=4 at=10:00:03
knob refresh = 0s | 1m "when the group notices"
`
	for _, c := range []struct{ refresh, at, says string }{
		{"0s", "10:00:03", "billing notices orders now has 4 partitions at once here, where a Kafka group's leader notices at its next metadata refresh (metadata.max.age.ms, up to 5m later by default): generation 2"},
		{"1m", "10:01:03", "billing's leader refreshes its metadata 1m after the change and notices orders now has 4 partitions: generation 2"},
	} {
		evs, texts := eventsOf(runLog(t, body, map[string]string{"refresh": c.refresh}), engine.KindRebalance)
		require.Len(t, evs, 3, texts) // the join, the operator's change, the group's notice
		assert.Equal(t, c.at, evs[2].At.String(), c.refresh)
		assert.Contains(t, texts[2], c.says, c.refresh)
	}
}

func TestLogRebalance(t *testing.T) {
	tr := runLog(t, `topic orders partitions=4
producer shop to=orders key=order_id
group billing topic=orders commit=after reset=earliest refresh=1s
member billing c1 at=10:00:00
`+keyLines("produce shop", "10:00:00.500", 30)+`member billing c2 at=10:00:01
poll billing c1 at=10:00:01.500
leave billing c1 at=10:00:02
add-partitions orders to=6 at=10:00:03
`, nil)
	evs, texts := eventsOf(tr, engine.KindRebalance)
	var group []string
	var at []string
	for i, e := range evs {
		if tr.Actor(&e.Event) == "billing" {
			group = append(group, texts[i])
			at = append(at, e.At.String())
		}
	}
	require.Len(t, group, 4, strings.Join(texts, "\n"))
	assert.Equal(t, []string{"10:00:00", "10:00:01", "10:00:02", "10:00:04"}, at, "join, join, leave, and add-partitions after refresh=1s")
	assert.Contains(t, group[0], "c1 joins billing: generation 1 (range assignment) — c1 gets orders-0, orders-1, orders-2, orders-3;")
	assert.Contains(t, group[1], "c2 joins billing: generation 2 (range assignment) — c1 gets orders-0, orders-1; c2 gets orders-2, orders-3;")
	assert.Contains(t, group[2], "c1 leaves billing: generation 3 (range assignment) — c2 gets orders-0, orders-1, orders-2, orders-3;")
	assert.Contains(t, group[3], "billing's leader refreshes its metadata 1s after the change and notices orders now has 6 partitions: generation 4 (range assignment) — c2 gets orders-0, orders-1, orders-2, orders-3, orders-4, orders-5;")
	// After the second join c1 reads only what it owns.
	reads := logs.Of(tr).Groups[0].Reads
	require.NotEmpty(t, reads)
	for _, r := range reads {
		assert.Contains(t, []int16{0, 1}, r.Partition)
	}
}

const lagBody = `topic orders partitions=2
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
` + "%s" + `
produce shop at=10:00:01 key=1
produce shop at=10:00:01 key=2
produce shop at=10:00:01 key=3
produce shop at=10:00:01 key=4
produce shop at=10:00:01 key=5
`

func TestCheckConsumerLagThreshold(t *testing.T) {
	// Five records, none read: lag is their count on each partition.
	lag := map[int]int{}
	for _, k := range []string{"1", "2", "3", "4", "5"} {
		lag[topic.PartitionFor(k, 2)]++
	}
	most := max(lag[0], lag[1])
	result := func(line string) check.Result {
		tr := runLog(t, fmt.Sprintf(lagBody, line), nil)
		rs := tr.Checks()
		require.Len(t, rs, 1)
		return rs[0]
	}
	r := result("check consumer-lag")
	assert.Equal(t, check.Fail, r.Status, r.Detail)
	r = result(fmt.Sprintf("check consumer-lag max=%d", most))
	assert.Equal(t, check.Pass, r.Status, r.Detail)
	assert.Contains(t, r.Detail, fmt.Sprintf("within %d of its end", most))
	r = result(fmt.Sprintf("check consumer-lag max=%d", most-1))
	assert.Equal(t, check.Fail, r.Status, r.Detail)
	assert.Contains(t, r.Detail, fmt.Sprintf("more than %d behind", most-1))

	for line, want := range map[string]string{
		"check gap-scan max=3":       "max= is the threshold of consumer-lag",
		"check consumer-lag max=-1":  "expected a whole number from 0",
		"check consumer-lag max=ten": "expected a whole number from 0",
	} {
		src := "scenario test/log \"A log test\"\n" + fmt.Sprintf(lagBody, line)
		f, err := scenario.Parse("log.tdm", []byte(src))
		require.NoError(t, err)
		_, err = engine.Build(f, nil, 1, worlds.All())
		require.ErrorContains(t, err, want, line)
	}
}

// TestLogKeylessRecords: records sent without a key all go to the partition
// the producer sticks to (Kafka's sticky partitioner for null keys), and
// each is its own event, known by its event id. A target keyed on the event
// id holds the id each record carried, so a resend built afresh lands as a
// new key: no merge absorbs it and no uniqueness check sees it, and only the
// truth, which knows the application meant one event, reports the copy.
func TestLogKeylessRecords(t *testing.T) {
	const body = `knob sink = merge | append
topic orders partitions=4
target fct_events sink=$sink key=event_id
producer shop to=orders key=event_id
group billing topic=orders to=fct_events commit=after reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:01
produce shop at=10:00:02
produce shop at=10:00:03 fail=timeout retry=app
produce shop at=10:00:04
poll billing c1 at=10:00:05
check uniqueness
`
	for _, sink := range []string{"merge", "append"} {
		tr := runLog(t, body, map[string]string{"sink": sink})
		var parts []int
		var keys, ids []string
		for p, recs := range recordsOf(tr) {
			for _, r := range recs {
				assert.False(t, r.Keyed)
				parts = append(parts, p)
				keys = append(keys, r.Key)
				ids = append(ids, r.ID)
			}
		}
		require.Len(t, keys, 5, "four sends, one resent")
		for _, p := range parts {
			assert.Equal(t, parts[0], p, "keyless records stick to one partition")
		}
		assert.Equal(t, []string{"shop-1", "shop-2", "shop-3", "shop-3", "shop-5"}, keys, "the event the application meant is named by its first id")
		assert.Equal(t, []string{"shop-1", "shop-2", "shop-3", "shop-4", "shop-5"}, ids, "the resend carries a regenerated id")
		assert.Equal(t, []string{"shop-1", "shop-2", "shop-3", "shop-4", "shop-5"}, targetKeys(tr, "fct_events"), "sink=%s: a row holds the id its record carried", sink)
		assert.Empty(t, tr.Final().Missing)
		assert.Equal(t, map[string]int{"shop-3": 2}, tr.Final().Duplicated, "sink=%s: the resend is a copy of one event, which only the truth knows", sink)
		checks := tr.Checks()
		require.Len(t, checks, 1)
		assert.Equal(t, check.Pass, checks[0].Status, "sink=%s: every event id is in the target once: %s", sink, checks[0].Detail)
		_, texts := eventsOf(tr, engine.KindProduce)
		assert.Contains(t, texts[0], "shop sends event shop-1; it is sent without a record key (its line has no key=), so it goes to the partition the producer sticks to")
	}
}

// A producer's event is its key's next version, whichever line sends it:
// a produce line and a traffic line name the same key "1" as one key, and a
// second producer feeding the same target continues the key's versions, so
// the merge keeps the event sent last and truth agrees with it.
func TestLogProducerEventsAreTheKeysNextVersion(t *testing.T) {
	tr := runLog(t, `topic orders partitions=2
target fct sink=merge key=order_id
producer shop to=orders key=order_id
producer backoffice to=orders key=order_id
group billing topic=orders to=fct commit=after reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
traffic shop records=3 from=10:00:02 every=1s keys=1
produce backoffice at=10:00:06 key=1
produce shop at=10:00:07 key=01
poll billing c1 at=10:00:10
`, nil)
	var seqs []int32
	var keys, ids []string
	for _, recs := range recordsOf(tr) {
		for _, r := range recs {
			seqs = append(seqs, r.Seq)
			keys = append(keys, r.Key)
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(seqs)
	assert.Equal(t, []int32{1, 1, 2, 3, 4, 5}, seqs, "key 1 has versions 1 to 5 across both producers and both kinds of line; key 01 is another key")
	assert.ElementsMatch(t, []string{"1", "1", "1", "1", "1", "01"}, keys)
	assert.Contains(t, ids, "backoffice-1", "a record's event id is its producer's name and running number")
	assert.Contains(t, ids, "shop-5")

	rows := tr.TargetAt("fct", tr.Steps())
	require.Len(t, rows, 2)
	for _, r := range rows {
		if tr.RowKey(&r) == "1" {
			assert.EqualValues(t, 5, r.Seq, "the merge keeps the newest version, the one sent last")
		}
	}
	truth := tr.Final()
	assert.Empty(t, truth.Missing)
	assert.Empty(t, truth.Stale)
	assert.Empty(t, truth.Duplicated)
}

// A traffic line spread thin over a vast key range finds its keys by name
// rather than in an array by number; the records are the same either way:
// each names a key of the range, and each key's versions count its sends.
func TestLogTrafficOverAVastKeyRange(t *testing.T) {
	for _, keys := range []int{20, 10_000_000} {
		tr := runLog(t, fmt.Sprintf(`topic orders partitions=4
producer shop to=orders key=order_id
traffic shop records=300 from=10:00:00 every=10ms keys=%d
`, keys), nil)
		sent := map[string]int32{}
		n := 0
		for _, recs := range recordsOf(tr) {
			for _, r := range recs {
				k, err := strconv.Atoi(r.Key)
				require.NoError(t, err, "keys=%d: key %q", keys, r.Key)
				assert.True(t, k >= 1 && k <= keys, "keys=%d: key %d out of range", keys, k)
				n++
			}
		}
		require.Equal(t, 300, n)
		// Versions count sends in send order, which is step order.
		var all []spelled
		for _, recs := range recordsOf(tr) {
			all = append(all, recs...)
		}
		slices.SortFunc(all, func(a, b spelled) int { return int(a.Step - b.Step) })
		for _, r := range all {
			sent[r.Key]++
			assert.Equal(t, sent[r.Key], r.Seq, "keys=%d: key %s", keys, r.Key)
		}
		if keys == 20 {
			assert.Len(t, sent, 20, "300 sends over 20 keys reach every key")
		}
	}
}

// TestLogGroupMembersAreBounded refuses a member line past the most members
// a group may have, at the name it adds, and takes any number of lines that
// name members it already has.
func TestLogGroupMembersAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("scenario test/log \"A log test\"\ntopic orders partitions=2\ngroup billing topic=orders\n")
	for i := range 10_000 {
		fmt.Fprintf(&b, "member billing c%d at=10:00:00\n", i)
	}
	b.WriteString("leave billing c1 at=10:00:01\nmember billing c1 at=10:00:02\n")
	f, err := scenario.Parse("log.tdm", []byte(b.String()))
	require.NoError(t, err)
	_, err = engine.Build(f, nil, 1, worlds.All())
	require.NoError(t, err, "10,000 members, one of them leaving and joining again")

	b.WriteString("member billing c10000 at=10:00:03\n")
	f, err = scenario.Parse("log.tdm", []byte(b.String()))
	require.NoError(t, err)
	_, err = engine.Build(f, nil, 1, worlds.All())
	require.EqualError(t, err, "log.tdm:10006:16: group billing already has 10000 members; a group has at most 10000")
}

// TestLogMemberLinesNameJoinedMembers refuses a poll, pause or leave line
// whose member no member line joins to the group, wherever that member line
// stands, and names the members it probably meant.
func TestLogMemberLinesNameJoinedMembers(t *testing.T) {
	head := "scenario test/log \"A log test\"\ntopic orders partitions=2\ngroup billing topic=orders\n"
	build := func(body string) error {
		f, err := scenario.Parse("log.tdm", []byte(head+body))
		require.NoError(t, err)
		_, err = engine.Build(f, nil, 1, worlds.All())
		return err
	}
	require.NoError(t, build("poll billing c1 at=10:00:00\nmember billing c1 at=10:00:01\nleave billing c1 at=10:00:02\npoll billing c1 at=10:00:03\n"),
		"a member may poll before it joins and after it leaves: the run says it is assigned nothing")
	for line, want := range map[string]string{
		"poll billing c3 at=10:00:02":                  "log.tdm:6:14: no line `member billing c3 at=…` joins c3 to group billing; did you mean c1 or c2?",
		"pause billing c-1 at=10:00:02 until=10:00:05": "log.tdm:6:15: no line `member billing c-1 at=…` joins c-1 to group billing; did you mean c1 or c2?",
		"leave billing reader at=10:00:02":             "log.tdm:6:15: no line `member billing reader at=…` joins reader to group billing",
	} {
		assert.EqualError(t, build("member billing c1 at=10:00:00\nmember billing c2 at=10:00:00\n"+line+"\n"), want, line)
	}
}

// TestLogPositionPastTheLogEnd: a committed offset past the log end is out
// of range as one below the log start is, and auto.offset.reset decides
// (the consumer found "nothing new" and the lag read -2, while order 1 was
// never read).
func TestLogPositionPastTheLogEnd(t *testing.T) {
	body := `knob reset = earliest | latest | none
topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=$reset committed=3
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02
produce shop at=10:00:04 key=2
poll billing c1 at=10:00:05
`
	for reset, want := range map[string]struct {
		says    string
		missing []string
	}{
		"earliest": {"auto.offset.reset=earliest starts again at the log start 0", []string{}},
		"latest":   {"auto.offset.reset=latest goes back to the log end 1", []string{"1"}},
		"none":     {"auto.offset.reset=none allows no reset", []string{"1", "2"}},
	} {
		t.Run(reset, func(t *testing.T) {
			tr := runLog(t, body, map[string]string{"reset": reset})
			_, texts := eventsOf(tr, engine.KindOffsetReset)
			require.Len(t, texts, 1)
			assert.Contains(t, texts[0], "its position 3 is past the log end 1")
			assert.Contains(t, texts[0], want.says)
			assert.Equal(t, want.missing, tr.Final().Missing)
		})
	}
}

// TestLogSecondPauseSaysItReplacesTheFirst: a pause while paused sets the
// time the member resumes, and says so (it said nothing of the first, and
// the member read before the time the timeline had given).
func TestLogSecondPauseSaysItReplacesTheFirst(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:00 key=1
pause billing c1 at=10:00:01 until=10:00:05
pause billing c1 at=10:00:02 until=10:00:03
poll billing c1 at=10:00:04
`, nil)
	_, pauses := eventsOf(tr, engine.KindPause)
	require.Len(t, pauses, 2)
	assert.Equal(t, "c1, paused until 10:00:05, is paused until 10:00:03 instead; records keep arriving and its lag grows.", pauses[1])
	assert.Empty(t, tr.Final().Missing, "the poll at 10:00:04 reads: the pause ended at 10:00:03")
}

// TestLogBusyMemberDoesNotPoll: a consumer's loop polls again only once its
// code is done with a batch, so a round that comes due while it processes
// reads nothing, and the commits of its batches land in order.
func TestLogBusyMemberDoesNotPoll(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:00 key=1
produce shop at=10:00:00 key=2
poll billing c1 at=10:00:01 max=1 process=3s
produce shop at=10:00:02 key=3
poll billing c1 at=10:00:02
poll billing c1 at=10:00:05
`, nil)
	_, polls := eventsOf(tr, engine.KindPoll)
	require.Len(t, polls, 3, "%q", polls)
	assert.Equal(t, "c1 does not poll: it is still processing the batch it polled at 10:00:01 (until 10:00:04), and a consumer's loop calls poll again only once its code is done with a batch.", polls[1])
	assert.Contains(t, polls[2], "offsets 1–2", "the next poll reads on from where the first batch ended")
	var last int64 = -1
	commits := logs.Of(tr).Groups[0].Commits
	require.Len(t, commits, 2)
	for _, c := range commits {
		assert.Greater(t, c.Offset, last, "a commit goes backwards: %+v", commits)
		last = c.Offset
	}
	assert.Empty(t, tr.Final().Missing)
}

// TestLogCDCDelete: change capture publishes a delete as a delete event; a
// merge target deletes the row, and one that only appends cannot, which
// the truth shows as a stale row and the narration says.
func TestLogCDCDelete(t *testing.T) {
	const body = `source orders key=order_id updated_at=txn-start
topic orders_cdc partitions=1
target fct_orders sink=$sink key=order_id
cdc capture from=orders to=orders_cdc
group loader topic=orders_cdc to=fct_orders commit=after reset=earliest
member loader c1 at=10:00:00
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1 amount=120
txn T2 begin=10:00:01 commit=10:00:01 insert order_id=2 amount=75
poll loader c1 at=10:00:02
txn T3 begin=10:00:03 commit=10:00:03 delete order_id=1
poll loader c1 at=10:00:05
`
	for _, tc := range []struct {
		sink, write string
		stale       []string
	}{
		{"merge", "c1 deletes order 1 from fct_orders, as the change events say.", nil},
		{"append", "c1 reads the delete of order 1, which fct_orders cannot apply: a table that is only ever inserted into keeps it.", []string{"1"}},
	} {
		tr := runLog(t, "knob sink = merge | append \"How the loader writes\"\n"+body, map[string]string{"sink": tc.sink})
		_, produced := eventsOf(tr, engine.KindProduce)
		require.Len(t, produced, 3, tc.sink)
		assert.Contains(t, produced[2], "the delete of 1 → orders_cdc-0@2", tc.sink)
		_, writes := eventsOf(tr, engine.KindWrite)
		require.Len(t, writes, 2, tc.sink)
		assert.Equal(t, tc.write, writes[1], tc.sink)
		if tc.stale == nil {
			assert.Empty(t, tr.Final().Stale, tc.sink)
		} else {
			assert.Equal(t, tc.stale, tr.Final().Stale, tc.sink)
		}
		assert.Empty(t, tr.Final().Missing, tc.sink)
	}
}

// TestLogEvictedBusyMemberRejoinsWhenDone: a member evicted for passing
// max.poll.interval is still in its code with the batch; a poll that comes
// due before it is done does not happen, and it rejoins on the first one
// after.
func TestLogEvictedBusyMemberRejoinsWhenDone(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest max-poll-interval=2s
member billing c1 at=10:00:00
produce shop at=10:00:00 key=1
poll billing c1 at=10:00:01 process=5s
poll billing c1 at=10:00:04
poll billing c1 at=10:00:07
`, nil)
	_, polls := eventsOf(tr, engine.KindPoll)
	require.GreaterOrEqual(t, len(polls), 3, "%q", polls)
	assert.Equal(t, "c1 does not poll: it is still processing the batch it polled at 10:00:01 (until 10:00:06), and a consumer's loop calls poll again only once its code is done with a batch.", polls[1])
	var rejoined []int
	for i := range tr.Events {
		if text := tr.Narration(&tr.Events[i]); strings.Contains(text, "rejoins billing") {
			rejoined = append(rejoined, i)
			assert.Equal(t, clock(t, "10:00:07"), tr.Events[i].At, text)
		}
	}
	assert.NotEmpty(t, rejoined, "c1 rejoins on its poll at 10:00:07")
	assert.Empty(t, tr.Final().Missing)
}

// TestLogPollAsBatchFinishes: a poll that comes due at the instant the
// member's code is done with its batch, or twice at one instant with no
// processing time, happens right after the batch; it is not refused.
func TestLogPollAsBatchFinishes(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:00 key=1
produce shop at=10:00:00 key=2
produce shop at=10:00:00 key=3
poll billing c1 at=10:00:01 max=1 process=3s
poll billing c1 at=10:00:04 max=1
poll billing c1 at=10:00:05 max=1
poll billing c1 at=10:00:05 max=1
`, nil)
	_, polls := eventsOf(tr, engine.KindPoll)
	require.Len(t, polls, 4, "%q", polls)
	assert.Equal(t, "c1 polls orders-0 offset 1 (2).", polls[1], "the poll at the batch's end reads after it")
	assert.Equal(t, "c1 polls orders-0 offset 2 (3).", polls[2])
	assert.Equal(t, "c1 polls orders-0 and finds nothing new.", polls[3])
	assert.Empty(t, tr.Final().Missing)
}

// TestLogCDCDeleteReplayedFindsNothing: a batch read again after a crash
// replays a delete whose row a newer insert has replaced; the merge keeps
// the newer row, and the write says the delete found nothing to delete.
func TestLogCDCDeleteReplayedFindsNothing(t *testing.T) {
	tr := runLog(t, `source orders key=order_id updated_at=txn-start
topic orders_cdc partitions=1
target fct_orders sink=merge key=order_id
cdc capture from=orders to=orders_cdc
group loader topic=orders_cdc to=fct_orders commit=after reset=earliest
member loader c1 at=10:00:00
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1 amount=120
txn T2 begin=10:00:01 commit=10:00:01 delete order_id=1
txn T3 begin=10:00:02 commit=10:00:02 insert order_id=1 amount=130
poll loader c1 at=10:00:03 crash=before-commit
poll loader c1 at=10:00:05
`, nil)
	_, writes := eventsOf(tr, engine.KindWrite)
	require.Len(t, writes, 2)
	assert.Equal(t, "c1 merges orders 1, 1 into fct_orders and deletes order 1, as the change events say.", writes[0])
	assert.Equal(t, "c1 merges orders 1, 1 into fct_orders and finds nothing to delete for the delete events of order 1: no row, or one newer than the delete; the merge absorbs 2 rows already present.", writes[1])
	assert.Empty(t, tr.Final().Missing)
	assert.Empty(t, tr.Final().Stale)
}

// TestLogCDCDedupByChange: a group deduplicating by event id tells change
// capture records apart by their commit's position and row, so every
// change of a row lands; only one read again is dropped.
func TestLogCDCDedupByChange(t *testing.T) {
	tr := runLog(t, `source orders key=order_id updated_at=txn-start
topic orders_cdc partitions=1
target fct_orders sink=append key=order_id
cdc capture from=orders to=orders_cdc
group loader topic=orders_cdc to=fct_orders commit=after reset=earliest dedup=event-id
member loader c1 at=10:00:00
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1 amount=120
txn T2 begin=10:00:01 commit=10:00:01 insert order_id=2 amount=75
txn T3 begin=10:00:02 commit=10:00:02 update order_id=1 amount=130
poll loader c1 at=10:00:03
`, nil)
	assert.Len(t, tr.TargetAt("fct_orders", tr.Steps()), 3, "two inserts and an update: three changes, each new")
	_, writes := eventsOf(tr, engine.KindWrite)
	require.Len(t, writes, 1)
	assert.Contains(t, writes[0], "every event id is new to it")
}

// TestLogCDCDedupTwoChangesInOneCommit: two changes of one row in one
// transaction are two change events, and a group deduplicating by event
// id writes both.
func TestLogCDCDedupTwoChangesInOneCommit(t *testing.T) {
	tr := runLog(t, `source orders key=order_id updated_at=txn-start
topic orders_cdc partitions=1
target fct_orders sink=append key=order_id
cdc capture from=orders to=orders_cdc
group loader topic=orders_cdc to=fct_orders commit=after reset=earliest dedup=event-id
member loader c1 at=10:00:00
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1 amount=120 update order_id=1 amount=130
poll loader c1 at=10:00:03
`, nil)
	assert.Len(t, tr.TargetAt("fct_orders", tr.Steps()), 2)
	assert.Empty(t, tr.Final().Stale)
}

// TestResnapshotCarriesNoDelete: a row deleted while the consumers were
// stopped, its delete event gone with retention, stays in the target after
// a re-snapshot, which copies live rows only; the narration says so, and
// that the operator stopped the group before resetting its offsets, as
// Kafka requires of an offset reset.
func TestResnapshotCarriesNoDelete(t *testing.T) {
	tr := runLog(t, `source orders key=order_id
topic orders_cdc partitions=1 retention=1m segment=10s
target fct_orders sink=merge key=order_id
cdc capture from=orders to=orders_cdc
group loader topic=orders_cdc to=fct_orders commit=after reset=none committed=0
member loader c1 at=10:00:00
txn T1 begin=10:00:01 commit=10:00:01 insert order_id=1
poll loader c1 at=10:00:02
leave loader c1 at=10:00:03
txn T2 begin=10:00:10 commit=10:00:10 delete order_id=1
member loader c1 at=10:03:00
poll loader c1 at=10:03:01
resnapshot loader at=10:03:05
`, nil)
	_, resets := eventsOf(tr, engine.KindReset)
	require.NotEmpty(t, resets)
	last := resets[len(resets)-1]
	assert.Contains(t, last, "copies all 0 live rows into the target, but no delete: a row deleted since the consumers stopped stays there")
	assert.Contains(t, last, "with loader's consumers stopped (Kafka resets the offsets of an empty group only)")
	assert.Len(t, tr.Final().Stale, 1, "the deleted row is still in the target")
}

// captureCrashBody is a connector that publishes T1 before its 10:01:00
// flush and T2 and T3 after it, crashes at 10:01:30 and is down while T4
// commits.
const captureCrashBody = `knob sink = append | merge "How the loader writes"
knob flush = 60s | 10s "How often the connector saves its position"
source orders key=order_id
topic orders_cdc partitions=1
target fct_orders sink=$sink key=order_id
cdc capture from=orders to=orders_cdc flush=$flush
group loader topic=orders_cdc to=fct_orders
member loader c1 at=10:00:00
polls loader from=10:00:00 until=10:03:00 every=5s
txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1
txn T2 begin=10:01:10 commit=10:01:10 insert order_id=2
txn T3 begin=10:01:20 commit=10:01:20 insert order_id=3
crash capture at=10:01:30 restart=20s
txn T4 begin=10:01:40 commit=10:01:40 insert order_id=4
`

// TestCaptureCrashRepublishesSinceTheSavedPosition: a change capture
// connector that crashes resumes from the position it last saved, as
// Debezium under Kafka Connect does, so the transactions it published after
// that flush reach the topic twice: an append target duplicates their rows,
// a merge target absorbs them. Saving more often repeats less.
func TestCaptureCrashRepublishesSinceTheSavedPosition(t *testing.T) {
	for _, sink := range []string{"append", "merge"} {
		tr := runLog(t, captureCrashBody, map[string]string{"sink": sink})
		_, crashes := eventsOf(tr, engine.KindCrash)
		require.Len(t, crashes, 2, sink)
		assert.Contains(t, crashes[0], "It last saved its position at 10:01:00")
		assert.Contains(t, crashes[0], "T2, T3, published since, are in the topic")
		assert.Contains(t, crashes[1], "after lsn 1001, the position it saved: 2 transactions it published before the crash, then 1 committed while it was down")
		_, produced := eventsOf(tr, engine.KindProduce)
		require.Len(t, produced, 6, sink)
		assert.Contains(t, produced[3], "publishes T2 (lsn 1002) again")
		assert.Contains(t, produced[4], "publishes T3 (lsn 1003) again")
		assert.Contains(t, produced[5], "reads T4 (lsn 1004)")
		if sink == "append" {
			assert.Equal(t, map[string]int{"2": 2, "3": 2}, tr.Final().Duplicated)
		} else {
			assert.Empty(t, tr.Final().Duplicated)
		}
		assert.Empty(t, tr.Final().Missing, sink)
	}

	tr := runLog(t, captureCrashBody, map[string]string{"flush": "10s"})
	_, crashes := eventsOf(tr, engine.KindCrash)
	require.Len(t, crashes, 2)
	assert.Contains(t, crashes[0], "saved its position at 10:01:30 (it saves every 10s, Kafka Connect's offset.flush.interval.ms) and has published nothing since")
	assert.Contains(t, crashes[1], "after lsn 1003, the position it saved: 0 transactions it published before the crash, then 1 committed while it was down")
	assert.Empty(t, tr.Final().Duplicated)
	assert.Empty(t, tr.Final().Missing)
}

// TestRecordsAreStampedWhenSent: a record's timestamp is the producer's
// clock at the send (Kafka's CreateTime), which Debezium leaves to the
// producer: an application that publishes a second after its commit stamps
// the later time, and a restarted connector stamps the records it sends
// again with the time it sends them, not the time of the first send.
func TestRecordsAreStampedWhenSent(t *testing.T) {
	tr := runLog(t, `source orders key=order_id
topic order_events partitions=1
publish shop from=orders to=order_events delay=1s
txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1
`, nil)
	recs := recordsOf(tr)[0]
	require.Len(t, recs, 1)
	assert.Equal(t, clock(t, "10:00:11"), recs[0].Time, "sent a second after the commit")

	tr = runLog(t, captureCrashBody, nil)
	var stamps []string
	for _, r := range recordsOf(tr)[0] {
		stamps = append(stamps, r.Key+"@"+r.Time.String())
	}
	// T2 and T3 are sent again when the connector restarts at 10:01:50.
	assert.Equal(t, []string{"1@10:00:10", "2@10:01:10", "3@10:01:20", "2@10:01:50", "3@10:01:50", "4@10:01:50"}, stamps)
}

// TestCaptureCrashLineErrors: the connector's settings and crash are
// checked where they are written.
func TestCaptureCrashLineErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"source orders key=order_id\ntopic t partitions=1\ncdc capture from=orders to=t flush=0s\n", "log.tdm:4:36: expected flush= to be a positive duration"},
		{"source orders key=order_id\ntopic t partitions=1\ncdc capture from=orders to=t\ncrash capture at=10:00:01 restart=-1s\n", "log.tdm:5:35: expected restart= to be zero or positive"},
		{"source orders key=order_id\ntopic t partitions=1\npublish shop from=orders to=t\ncrash shop at=10:00:01 restart=5s\n", "log.tdm:5:24: unknown argument restart="},
		{"source orders key=order_id\ntopic t partitions=1\npublish shop from=orders to=t flush=5s\n", "log.tdm:4:"},
		{"topic t partitions=1\ncrash nobody at=10:00:01\n", "unknown application \"nobody\"; crash names a `cdc` connector or a `publish` application"},
	} {
		f, err := scenario.Parse("log.tdm", []byte("scenario test/log \"A log test\"\n"+c.body))
		require.NoError(t, err)
		_, err = engine.Run(f, nil, 1, worlds.All())
		require.Error(t, err, c.body)
		assert.Contains(t, err.Error(), c.want, c.body)
	}
}

// TestLogResetAtAssignment: a partition with no committed offset gets its
// position by auto.offset.reset as it is assigned, since the poll that
// joins looks it up before returning, not at the member's next poll line:
// latest starts at the log end of the join, so an order sent after it is
// read, and after add-partitions a new partition starts at its end as the
// group takes it.
func TestLogResetAtAssignment(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=latest
produce shop at=09:59:59 key=1
member billing c1 at=10:00:00
produce shop at=10:00:10 key=2
poll billing c1 at=10:00:20
check offset-gap
`, nil)
	evs, texts := eventsOf(tr, engine.KindOffsetReset)
	require.Len(t, texts, 1)
	assert.Equal(t, clock(t, "10:00:00"), evs[0].At, "as the member joins")
	assert.Contains(t, texts[0], "auto.offset.reset=latest starts at the log end 1")
	assert.Equal(t, []string{"2"}, targetKeys(tr, "fct_orders"))
	assert.Equal(t, []string{"1"}, tr.Final().Missing, "only what the log held at the join")

	tr = runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=latest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02
add-partitions orders to=2 at=10:00:05
`+keyLines("produce shop", "10:00:06", 6)+`poll billing c1 at=10:00:10
`, nil)
	assert.Empty(t, tr.Final().Missing, "the new partition's position is its end when the group takes it, before the sends")
}

// TestLogCrashWhileARebalanceWaits: a member that crashes while a
// rebalance waits for its batch joins that rebalance, and its partitions
// are reset by auto.offset.reset once, at the new assignment; the
// offset-gap check lists the skip once.
func TestLogCrashWhileARebalanceWaits(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=latest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:01.500 key=2
poll billing c1 at=10:00:02 process=5s crash=before-write
member billing c2 at=10:00:03
produce shop at=10:00:04 key=3
check offset-gap
`, nil)
	evs, texts := eventsOf(tr, engine.KindOffsetReset)
	require.Len(t, texts, 1, "%q", texts)
	revs, rebalances := eventsOf(tr, engine.KindRebalance)
	require.NotEmpty(t, rebalances)
	assert.Contains(t, rebalances[len(rebalances)-1], "generation 2")
	assert.Greater(t, evs[0].Step, revs[len(revs)-1].Step, "the reset follows the generation-2 assignment")
	require.Len(t, logs.Of(tr).Groups[0].Resets, 1)
	assert.Equal(t, check.Fail, tr.Checks()[0].Status)
	assert.Equal(t, "billing skipped orders-0 offsets 0–2 (auto.offset.reset=latest)", tr.Checks()[0].Detail)
}

// TestLogCrashWithNothingCommitted: a consumer that crashes before its
// first commit finds no committed offset when it restarts, so
// auto.offset.reset applies again: latest skips the batch it had read,
// and the crash says so rather than promising a re-read; earliest reads it
// again.
func TestLogCrashWithNothingCommitted(t *testing.T) {
	body := `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=$reset
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:01.500 key=2
poll billing c1 at=10:00:02 crash=before-write
produce shop at=10:00:04 key=3
poll billing c1 at=10:00:05
`
	tr := runLog(t, strings.ReplaceAll(body, "$reset", "latest"), nil)
	_, crashes := eventsOf(tr, engine.KindCrash)
	require.Len(t, crashes, 1)
	assert.Contains(t, crashes[0], "nothing was ever committed on orders-0 (offsets 0–1): auto.offset.reset=latest starts the restart at the log end, past them for good")
	assert.NotContains(t, crashes[0], "again")
	assert.Equal(t, []string{"1", "2"}, tr.Final().Missing)

	tr = runLog(t, strings.ReplaceAll(body, "$reset", "earliest"), nil)
	_, crashes = eventsOf(tr, engine.KindCrash)
	require.Len(t, crashes, 1)
	assert.Contains(t, crashes[0], "the batch is not written, and nothing was ever committed, so the restart starts at the log start (auto.offset.reset=earliest) and reads orders-0 offsets 0–1 again")
	assert.Empty(t, tr.Final().Missing)

	// A crash in a later batch, nothing committed yet (a Java consumer's
	// auto-commit waits for a poll after its interval): the restart reads
	// from the log start, the batch before this one too, not from where
	// this batch began.
	later := strings.ReplaceAll(body, "$reset", "earliest")
	later = strings.Replace(later, "poll billing c1 at=10:00:02 crash=before-write\nproduce shop at=10:00:04 key=3\npoll billing c1 at=10:00:05",
		"poll billing c1 at=10:00:02\nproduce shop at=10:00:03 key=3\npoll billing c1 at=10:00:04 crash=before-write\npoll billing c1 at=10:00:06", 1)
	later = strings.Replace(later, "commit=after", "commit=auto auto-commit=poll", 1)
	tr = runLog(t, later, nil)
	_, crashes = eventsOf(tr, engine.KindCrash)
	require.Len(t, crashes, 1)
	assert.Contains(t, crashes[0], "nothing was ever committed, so the restart starts at the log start (auto.offset.reset=earliest) and reads orders-0 offsets 0–2 again")
	assert.Empty(t, tr.Final().Missing)

	// A batch over two partitions, one committed before and one never: the
	// crash does not say nothing was ever committed, and each partition's
	// range starts where its restart does.
	tr = runLog(t, `topic orders partitions=2
target fct_orders sink=merge key=order_id
producer a to=orders key=order_id partition=0
producer b to=orders key=order_id partition=1
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
produce a at=10:00:01 key=1
poll billing c1 at=10:00:02
produce a at=10:00:03 key=2
produce b at=10:00:03 key=3
poll billing c1 at=10:00:04 crash=before-write
poll billing c1 at=10:00:05
`, nil)
	_, crashes = eventsOf(tr, engine.KindCrash)
	require.Len(t, crashes, 1)
	assert.NotContains(t, crashes[0], "ever committed")
	assert.Contains(t, crashes[0], "the restart reads orders-0 offset 1, orders-1 offset 0 again")
}

// TestLogPauseAcrossARebalance: a rebalance forgets pauses, so a member
// paused until later pauses what it is assigned again, and says so; a
// partition it takes over stays unread until the pause ends, like its own.
func TestLogPauseAcrossARebalance(t *testing.T) {
	tr := runLog(t, `topic orders partitions=2
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
member billing c2 at=10:00:00
pause billing c1 at=10:00:01 until=10:05:00
`+keyLines("produce shop", "10:00:02", 3)+`leave billing c2 at=10:00:10
poll billing c1 at=10:00:20
poll billing c1 at=10:05:00
`, nil)
	_, rebalances := eventsOf(tr, engine.KindRebalance)
	assert.Contains(t, rebalances[len(rebalances)-1], "c1's code pauses the partitions it is assigned again, until 10:05:00, since a rebalance forgets pauses")
	_, pauses := eventsOf(tr, engine.KindPause)
	require.Len(t, pauses, 2)
	assert.Contains(t, pauses[1], "is paused (until 10:05:00) and fetches nothing")
	assert.Empty(t, tr.Final().Missing, "read once the pause ends")
}

// TestLogLagPhraseIsTheChecksLag: the narration of a paused member counts
// lag as the consumer-lag check and kafka-consumer-groups do, the log end
// minus the committed offset, even once retention has moved the log start
// past the commit.
func TestLogLagPhraseIsTheChecksLag(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1 retention=1m segment=20s
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=none committed=0
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:05
pause billing c1 at=10:00:06 until=10:05:00
produce shop at=10:00:10 key=2
produce shop at=10:00:40 key=3
produce shop at=10:01:30 key=4
poll billing c1 at=10:01:40
check consumer-lag
`, nil)
	_, pauses := eventsOf(tr, engine.KindPause)
	require.Len(t, pauses, 2)
	assert.Contains(t, pauses[1], "orders-0 lag 3.")
	assert.Contains(t, tr.Checks()[0].Detail, "lag 3 (committed 1, end 4)")
}

// TestLogEventsAreRowsOfTheirOwn: a producer's events whose key a source
// table also has (a table a stream looks values up in) are rows of their
// own to the truth: the table's versions do not number them, so a key's
// events go 1, 2, 3 across the table's update, and a merge keeps the
// last. Before, the table's insert and update took versions of the same
// row, the third event came as a second version 3, and the merge refused it.
func TestLogEventsAreRowsOfTheirOwn(t *testing.T) {
	tr := runLog(t, `source customers key=customer_id
txn SEED begin=09:59:00 commit=09:59:00 insert customer_id=1 amount=1
topic orders partitions=1
target fct sink=merge key=customer_id
producer shop to=orders key=customer_id
group billing topic=orders to=fct commit=after reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:02 key=1
txn UPGRADE begin=10:00:03 commit=10:00:03 update customer_id=1 amount=2
produce shop at=10:00:04 key=1
poll billing c1 at=10:00:05
`, nil)
	var seqs []int32
	for _, r := range recordsOf(tr)[0] {
		seqs = append(seqs, r.Seq)
	}
	assert.Equal(t, []int32{1, 2, 3}, seqs)
	rows := tr.TargetAt("fct", tr.Steps())
	require.Len(t, rows, 1)
	assert.EqualValues(t, 3, rows[0].Seq)
	assert.Empty(t, tr.Final().Stale)
	assert.Empty(t, tr.Final().Missing)
}

// TestTrafficScaleReadsWithOrWithoutTheX: scale=10 is read as scale=10x, N
// times the records over the same span (docs/scenarios.md, "Options of
// other lines").
func TestTrafficScaleReadsWithOrWithoutTheX(t *testing.T) {
	const body = "topic orders partitions=2\ntarget fct sink=merge key=order_id\nproducer shop to=orders key=order_id\n" +
		"traffic shop records=5 from=10:00:00 every=1s keys=100 "
	plain := runLog(t, body+"scale=10\n", nil)
	x := runLog(t, body+"scale=10x\n", nil)
	assert.Equal(t, x.Events, plain.Events)
	assert.Len(t, plain.Events, 50, "ten times the five records, over the same five seconds")
	assert.Equal(t, clock(t, "10:00:04.900"), plain.Events[len(plain.Events)-1].At)
}

// TestLogFewerPartitionsChangeNothing: asking for fewer partitions than a
// topic has is narrated, counted in the singular when it is one, and
// changes nothing.
func TestLogFewerPartitionsChangeNothing(t *testing.T) {
	tr := runLog(t, `topic orders partitions=3
add-partitions orders to=1 at=10:00:05
`, nil)
	_, texts := eventsOf(tr, engine.KindRebalance)
	assert.Equal(t, []string{"An operator asks for 1 partition on orders, which already has 3; partitions can only be added, so nothing changes."}, texts)
}

// TestMergeAbsorbedIsCounted: a producer's retry lands order 2 twice and a
// keyed merge absorbs the copy; the uniqueness check sees every key once
// and, as with the other worlds' merges, says how many writes the merge
// absorbed, counted from the write's step on (a MERGE reports the rows it
// matched). It said "3 keys, each once" alone.
func TestMergeAbsorbedIsCounted(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:02 key=2 fail=timeout retry=app
produce shop at=10:00:03 key=3
poll billing c1 at=10:00:05
check uniqueness
`, nil)
	evs, _ := eventsOf(tr, engine.KindWrite)
	require.Len(t, evs, 1)
	assert.Equal(t, "3 keys, each once; the merge absorbed 1 duplicate write", tr.Checks()[0].Detail)
	assert.Equal(t, "the target is empty", tr.ChecksAt(int(evs[0].Step) - 1)[0].Detail, "before the write, nothing is absorbed yet")
	assert.Equal(t, "3 keys, each once; the merge absorbed 1 duplicate write", tr.ChecksAt(int(evs[0].Step))[0].Detail, "from the write's own step")
}

// TestLogNarrationCountsOneInTheSingular: a group with no target narrates
// its batch, and a re-snapshot its copy, counting one as one: they said
// "processes 1 records" and "copies all 1 live rows".
func TestLogNarrationCountsOneInTheSingular(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
producer shop to=orders key=order_id
group ana topic=orders reset=earliest
member ana a1 at=10:00:00
produce shop at=10:00:01 key=1
poll ana a1 at=10:00:02
produce shop at=10:00:03 key=2
produce shop at=10:00:03 key=3
poll ana a1 at=10:00:04
`, nil)
	_, writes := eventsOf(tr, engine.KindWrite)
	assert.Equal(t, []string{"a1 processes 1 record.", "a1 processes 2 records."}, writes)

	tr = runLog(t, `source orders key=order_id
topic orders_cdc partitions=1 retention=1m segment=10s
target fct_orders sink=merge key=order_id
cdc capture from=orders to=orders_cdc
group loader topic=orders_cdc to=fct_orders commit=after reset=none committed=0
member loader c1 at=10:00:00
txn T1 begin=10:00:01 commit=10:00:01 insert order_id=1
poll loader c1 at=10:00:02
leave loader c1 at=10:00:03
txn T2 begin=10:00:10 commit=10:00:10 update order_id=1 amount=2
member loader c1 at=10:03:00
poll loader c1 at=10:03:01
resnapshot loader at=10:03:05
`, nil)
	_, resets := eventsOf(tr, engine.KindReset)
	require.NotEmpty(t, resets)
	assert.Contains(t, resets[len(resets)-1], "one consistent read of orders copies the 1 live row into the target")
}
