package stream_test

import (
	"fmt"
	"strings"
	"time"

	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
	"github.com/tidemark/tidemark/engine/worlds"
)

// one is a scenario's first lines: a topic of one partition, a producer,
// a target, and a stream reading the topic.
const one = `scenario t/x "X"
topic sales
producer a to=sales key=sale_id
target out sink=merge key=window
stream s from=sales
`

// head is a scenario's first lines: a topic of three partitions, a
// producer pinned to each, a target, and a stream reading the topic.
const head = `scenario t/x "X"
topic sales partitions=3
producer a to=sales key=sale_id partition=0
producer b to=sales key=sale_id partition=1
producer c to=sales key=sale_id partition=2
target out sink=merge key=window
stream s from=sales
`

func parse(t *testing.T, src string) *scenario.File {
	t.Helper()
	f, err := scenario.Parse("s.tdm", []byte(src))
	require.NoError(t, err)
	return f
}

func run(t *testing.T, src string) (*engine.Trace, *stream.Trace) {
	t.Helper()
	tr, err := engine.Run(parse(t, src), nil, 1, worlds.All())
	require.NoError(t, err)
	st := stream.Of(tr)
	require.NotNil(t, st)
	return tr, st
}

func at(s string) vtime.Time {
	t, err := vtime.ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

// Every bad line names its file:line:col and what was expected.
func TestBadLines(t *testing.T) {
	for _, tc := range []struct{ line, pos, want string }{
		{"stream s2 from=nope", "s.tdm:8:16", `unknown topic "nope"`},
		{"stream s2", "s.tdm:8:1", "stream needs from=TOPIC"},
		{"stream s2 from=sales lag=-1s", "s.tdm:8:26", "expected lag= to be zero or positive"},
		{"stream s2 from=sales clock=zz", "s.tdm:8:28", `unknown clock "zz"`},
		{"stream s2 from=sales event-time=arrival", "s.tdm:8:33", "expected event-time= to be one of payload or timestamp"},
		{"stream sales from=sales", "s.tdm:8:8", `stream name "sales" is already used`},
		{"watermark nope bound=1s", "s.tdm:8:11", `unknown stream "nope"`},
		{"watermark s bound=-1s", "s.tdm:8:19", "the out-of-orderness bound cannot be negative"},
		{"watermark s emit=per-record bound=-500ms", "s.tdm:8:35", "the out-of-orderness bound cannot be negative"},
		{"watermark s interval=0s", "s.tdm:8:22", "the watermark interval must be positive"},
		{"watermark s bound=1s interval=-1s", "s.tdm:8:31", "the watermark interval must be positive"},
		{"watermark s idleness=0s", "s.tdm:8:22", `expected idleness= to be off or a positive duration`},
		{"watermark s bound=soon", "s.tdm:8:19", "expected a duration such as 2s, 500ms or 1m for bound="},
		{"watermark s idleness=soon", "s.tdm:8:22", `expected idleness= to be off or a positive duration`},
		{"watermark s emit=sometimes", "s.tdm:8:18", "expected emit= to be one of periodic or per-record"},
		{"watermark s scope=global", "s.tdm:8:19", "expected scope= to be one of per-partition or per-source"},
		{"window w from=s tumbling size=1m side=out", "s.tdm:8:39", "side= receives the late records sent to the side output, and this line drops them; add late=side-output, or leave side= out"},
		{"window w from=s tumbling size=1m late=drop side=out", "s.tdm:8:49", "side= receives the late records sent to the side output"},
		{"stream t from=sales\njoin j left=s right=t between=0s..1m side=out", "s.tdm:9:43", "side= receives the late records sent to the side output"},
		{"watermark s\nwatermark s", "s.tdm:9:11", "stream s already has a watermark line, at s.tdm:8:1"},
		{"watermark s bound=1s\nwatermark   s bound=2s", "s.tdm:9:13", "stream s already has a watermark line, at s.tdm:8:1"},
		{"filter s", "s.tdm:8:1", "filter needs min-amount=, max-amount= or keys="},
		{"filter s keys=3..1", "s.tdm:8:15", "expected a key range such as 90..94"},
		{"filter s min-amount=x", "s.tdm:8:21", "expected a whole number"},
		{"filter s min-amount=10 max-amount=5", "s.tdm:8:35", "this filter keeps no amount: min-amount=10 is above max-amount=5"},
		{"filter s max-amount=5\nfilter s min-amount=10", "s.tdm:9:21", "this filter keeps no amount: min-amount=10 is above max-amount=5 (several filter lines all apply)"},
		{"map s", "s.tdm:8:1", "map needs shift= or scale="},
		{"map s shift=48h", "s.tdm:8:13", "expected shift= within a day"},
		{"key-by s maybe", "s.tdm:8:10", "expected `key-by s key` or `key-by s none`"},
		{"key-by s", "s.tdm:8:8", "expected `key-by s key` or `key-by s none`"},
		{"key-by s key none", "s.tdm:8:14", "expected `key-by s key` or `key-by s none`"},
		{"window w from=s tumbling size=1m\nkey-by s none", "s.tdm:9:8", "key-by s comes after a window, join, aggregate or sink reads the stream, yet shapes what they all read; put it before them"},
		{"window w from=s tumbling size=1m\nfilter s min-amount=5", "s.tdm:9:8", "filter s comes after a window, join, aggregate or sink reads the stream"},
		{"sink k from=s to=out\nmap s scale=100", "s.tdm:9:5", "map s comes after a window, join, aggregate or sink reads the stream"},
		{"map s scale=0", "s.tdm:8:13", "scale=0 would make every amount 0"},
		{"filter s keys=1..5\nfilter s keys=6..9", "s.tdm:9:15", "this filter keeps no key: keys=6..9 names none of the keys an earlier filter line keeps"},
		{"window w from=s", "s.tdm:8:1", "expected one of tumbling, sliding or session after window w"},
		{"window w from=s hopping size=1m", "s.tdm:8:17", `expected tumbling, sliding or session, found "hopping"`},
		{"window w from=s tumbling size=10s slide=5s", "s.tdm:8:35", "a tumbling window takes size= and offset=, not slide="},
		{"window w from=s tumbling size=10s gap=5s", "s.tdm:8:35", "a tumbling window takes size= and offset=, not gap="},
		{"window w from=s session gap=30s size=1m", "s.tdm:8:33", "a session window takes gap=, not size="},
		{"window w from=s sliding size=1m slide=10s gap=5s", "s.tdm:8:43", "a sliding window takes size=, slide= and offset=, not gap="},
		{"window w from=s tumbling size=10s extra", "s.tdm:8:35", `unexpected word "extra" in window`},
		{"window w from=s count tumbling size=10s", "s.tdm:8:17", `unexpected word "count" in window; an aggregate is chosen by agg=count`},
		{"window w from=s tumbling sliding size=10s", "s.tdm:8:26", "a window has one kind; window w is already tumbling"},
		{"window w from=s tumbling size=1m time=processing late=side-output", "s.tdm:8:50", "late= is for late records, and a processing-time window has none"},
		{"window w from=s tumbling", "s.tdm:8:17", "a tumbling window needs a positive size"},
		{"window w from=s tumbling size=0s", "s.tdm:8:31", "a tumbling window needs a positive size"},
		{"window w from=s tumbling size=1m offset=1m", "s.tdm:8:41", "a tumbling window's offset must be shorter than its size"},
		{"window w from=s sliding size=1m", "s.tdm:8:17", "a sliding window needs a positive size and slide"},
		{"window w from=s sliding size=-1m slide=1s", "s.tdm:8:30", "a sliding window needs a positive size and slide"},
		{"window w from=s sliding size=1m slide=0s", "s.tdm:8:39", "a sliding window needs a positive size and slide"},
		{"window w from=s sliding size=1m slide=10s offset=-10s", "s.tdm:8:50", "a sliding window's offset must be shorter than its slide"},
		{"window w from=s sliding size=1h slide=1ms", "s.tdm:8:39", "puts each record in more than 1000 windows"},
		{"window w from=s session gap=0s", "s.tdm:8:29", "a session window needs a positive gap"},
		{"window w from=s session", "s.tdm:8:17", "a session window needs a positive gap"},
		{"window w from=s tumbling size=1m lateness=-1s", "s.tdm:8:43", "allowed lateness cannot be negative"},
		{"window w from=s tumbling size=1m time=processing lateness=1s", "s.tdm:8:59", "allowed lateness applies to event-time windows only"},
		{"window w from=s tumbling size=1m agg=avg", "s.tdm:8:38", "expected agg= to be one of count, sum, min or max"},
		{"window w from=s tumbling size=1m to=nope", "s.tdm:8:37", `unknown target "nope"`},
		{"window w from=nope tumbling size=1m", "s.tdm:8:15", `unknown stream "nope"`},
		{"key-by s key\nkey-by s none", "s.tdm:9:8", "stream s already has a key-by line, at s.tdm:8:1"},
		{"window w from=s tumbling size=1m late=side-output to=out side=out", "s.tdm:8:63", "side=out is also to=; late records go to a table of their own"},
		{"stream s2 from=sales\njoin j left=s right=s2 between=0s..1s late=side-output to=out side=out", "s.tdm:9:68", "side=out is also to="},
		{"window w from=sales tumbling size=1m", "s.tdm:8:15", `"sales" is not a stream: it names the topic declared at s.tdm:2:7`},
		{"window w from=s tumbling size=1m to=sales", "s.tdm:8:37", `"sales" is not a target: it names the topic declared at s.tdm:2:7`},
		{"join j left=s right=s between=0s..1s", "s.tdm:8:21", "a join reads two streams; left= and right= both name s"},
		{"stream s2 from=sales\njoin j left=s right=s2 between=1s..0s", "s.tdm:9:32", "lower bound 1s is above its upper bound 0s"},
		{"stream s2 from=sales\njoin j between=10s..-10s left=s right=s2", "s.tdm:9:16", "lower bound 10s is above its upper bound -10s"},
		{"stream s2 from=sales\njoin j left=s right=s2 exclusive=both late=side-output between=5m..1m to=out", "s.tdm:9:64", "lower bound 5m is above its upper bound 1m"},
		{"stream s2 from=sales\njoin j left=s right=nope between=1s..0s", "s.tdm:9:34", "lower bound 1s is above its upper bound 0s"},
		{"stream s2 from=sales\njoin j left=s right=s2 between=0s..0s exclusive=upper", "s.tdm:9:49", "a join between=0s..0s with exclusive=upper holds no instant"},
		{"stream s2 from=sales\njoin j left=s right=s2 between=-1ms..0s exclusive=both", "s.tdm:9:51", "a join between=-1ms..0s with exclusive=both holds no instant"},
		{"stream s2 from=sales\njoin j left=s right=s2 between=soon", "s.tdm:9:32", "expected between=LOWER..UPPER"},
		{"stream s2 from=sales\nkey-by s2 none\njoin j left=s right=s2 between=0s..1s", "s.tdm:10:21", "a join needs both streams keyed the same way"},
		{"stall s partition=5 at=10:00:00 until=10:00:01", "s.tdm:8:19", "whose partitions are 0 to 2; found partition 5"},
		{"stall s partition=0 at=10:00:01 until=10:00:00", "s.tdm:8:39", "stall needs until= after at="},
		{"stall s at=10:00:00 until=10:00:01", "s.tdm:8:1", "stall needs partition=P"},
		{"delay s partition=0 from=10:00:00 until=10:00:01", "s.tdm:8:1", "delay needs by=D"},
		{"delay s partition=0 from=10:00:00 until=10:00:01 by=-1s", "s.tdm:8:53", "expected by= to be positive"},
		{"producer d to=sales partition=3", "s.tdm:8:31", "topic sales has partitions 0 to 2; expected partition= to name one of them, found 3"},
		{"produce a at=10:00:00 event=09:00:00 event-lag=1s", "s.tdm:8:38", "give event= or event-lag=, not both"},
		{"produce a at=10:00:00 event-lag=-1s", "s.tdm:8:33", "expected event-lag= to be zero or positive"},
		{"produce a at=10:00:00 amount=x", "s.tdm:8:30", "expected a whole number"},
		{"traffic a records=5 from=10:00:00 event-lag=5s..1s", "s.tdm:8:45", "expected event-lag=MIN..MAX with two durations"},
		{"traffic a records=5 from=10:00:00 amount=9..1", "s.tdm:8:42", "expected amount=MIN..MAX with two whole numbers"},
		{"offline a at=10:00:01 until=10:00:00", "s.tdm:8:29", "offline needs until= after at="},
		{"offline a at=10:00:00 until=10:00:01 backlog=later", "s.tdm:8:46", "expected backlog= to be one of send or none"},
		{"burst a at=10:00:00", "s.tdm:8:1", "burst needs records=N"},
		{"burst a at=10:00:00 records=3 event-every=-1s", "s.tdm:8:43", "expected event-every= to be zero or positive"},
		{"burst nope at=10:00:00 records=3", "s.tdm:8:7", `unknown producer "nope"`},
		{"check watermark-lag max=soon", "s.tdm:8:25", "expected max= to be a positive duration such as 30s for watermark-lag"},
		{"check late-records max=-1", "s.tdm:8:24", "expected a whole number from 0 to"},
		{"check recount max=3", "s.tdm:8:15", "max= is the threshold of consumer-lag"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			_, err := engine.Build(parse(t, head+tc.line+"\n"), nil, 1, worlds.All())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.pos+": ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A stream reads the log: composed without the log world, a stream line
// says so; and the stream world's claims are refused when misspelled.
func TestStreamNeedsTheLog(t *testing.T) {
	f := parse(t, "scenario t/x \"X\"\nsource orders\nstream s from=sales\n")
	_, err := engine.Build(f, nil, 1, []engine.Domain{hwm.Domain, stream.Domain})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s.tdm:3:1: a stream reads a topic of the log world, and this engine is composed without it")

	for src, want := range map[string]string{
		head + "expect windows wrongg=none\n": "s.tdm:8:16: unknown claim wrongg= for expect windows; expected wrong=",
		head + "expect lates dropped=1\n":     `s.tdm:8:8: unknown kind of claim "lates"; expected key=value claims such as missing=3, or one of check, mark, windows, late, joins, checkpoints, transactions, buffers, replays, reads and its claims`,
		// A claim's value of the wrong form is an error as the file is read, not a failed claim.
		head + "expect buffers lost=x\n":           `s.tdm:8:21: expected buffers lost= to be a count, a whole number such as 0 or 3, found "x"`,
		head + "expect late dropped=-1\n":          `s.tdm:8:21: expected late dropped= to be a count, a whole number such as 0 or 3, found "-1"`,
		head + "expect windows wrong=10:00,soon\n": `s.tdm:8:22: expected windows wrong= to be none or times such as 10:00:00,10:01:00, found "10:00,soon"`,
	} {
		_, err := engine.CheckExpectations(parse(t, src), 1, worlds.All())
		require.Error(t, err, src)
		assert.EqualError(t, err, want)
	}
	outs, err := engine.CheckExpectations(parse(t, head+"produce a at=10:00:00 key=1\nexpect windows wrong=none\n"), 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, outs, 1)
	assert.NoError(t, outs[0].Err, "a stream with no window has no wrong window")
	outs, err = engine.CheckExpectations(parse(t, "scenario t/x \"X\"\ntopic t\nexpect late dropped=0\n"), 1, worlds.All())
	require.NoError(t, err)
	assert.ErrorContains(t, outs[0].Err, "nothing in this scenario makes late claims")
}

// The watermark is the largest event time seen, less the bound, less 1 ms;
// a window fires when it reaches end - 1; a late record is accepted while
// the watermark is before end - 1 + lateness and dropped once it reaches
// it, as Flink's isWindowLate has it (cleanup time <= watermark).
func TestWatermarkFormulaAndTheLatenessBoundary(t *testing.T) {
	src := one + `watermark s bound=2s emit=per-record
key-by s none
window w from=s tumbling size=10s lateness=3s to=out
produce a at=10:00:10 event=10:00:10
produce a at=10:00:11 event=10:00:05
produce a at=10:00:14 event=10:00:14
produce a at=10:00:15 event=10:00:06
produce a at=10:00:16 event=10:00:15
produce a at=10:00:17 event=10:00:07
produce a at=10:00:18 event=10:00:15.999
produce a at=10:00:19 event=10:00:08
`
	tr, st := run(t, src)
	var marks []string
	for _, w := range st.Watermarks {
		if w.Part == -1 && w.Value != watermark.End {
			marks = append(marks, w.Value.String())
		}
	}
	assert.Equal(t, []string{"10:00:07.999", "10:00:11.999", "10:00:12.999", "10:00:13.998"}, marks, "event time - 2s - 1ms, only forward")
	require.Len(t, st.Late, 3)
	assert.Equal(t, window.Accepted, window.Fate(st.Late[0].Fate), "10:00:06 arrives at watermark 10:00:11.999 < 10:00:12.999: kept")
	assert.Equal(t, at("10:00:11.999"), st.Late[0].Watermark)
	assert.Equal(t, window.Dropped, window.Fate(st.Late[1].Fate), "10:00:07 arrives at watermark 10:00:12.999 = end - 1 + lateness: dropped")
	assert.Equal(t, at("10:00:12.999"), st.Late[1].Watermark)
	assert.Equal(t, window.Dropped, window.Fate(st.Late[2].Fate))
	// [10:00:00, 10:00:10) fired with 10:00:05 when the watermark passed
	// 10:00:09.999, then again with the accepted 10:00:06; the next window
	// fires at the end of input with 10:00:10, :14, :15 and :15.999.
	var fired []string
	for _, f := range st.Firings {
		fired = append(fired, f.Window.String()+" n"+itoa(int(f.N))+" count "+itoa(int(f.Acc.Count)))
	}
	assert.Equal(t, []string{"[10:00:00, 10:00:10) n1 count 1", "[10:00:00, 10:00:10) n2 count 2", "[10:00:10, 10:00:20) n1 count 4"}, fired)
	assert.Equal(t, []vtime.Time{at("10:00:00")}, st.WrongStarts(tr.Steps()), "two records of the first window were dropped")
	a, d, so := st.LateCounts(tr.Steps())
	assert.Equal(t, [3]int{1, 2, 0}, [3]int{a, d, so})
	assert.Contains(t, st.WhyLate(1), "allowed lateness 3s, which keeps the window only until the watermark reaches 10:00:12.999, and the watermark was already 10:00:12.999")
}

func itoa(n int) string { return strconv.Itoa(n) }

// A stream's watermark is the minimum over its partitions; a partition
// that reads nothing holds it back until it is marked idle, judged at the
// ticks, after more than the idleness has passed since the first tick that
// found nothing new.
func TestMinimumOverPartitionsAndIdleness(t *testing.T) {
	src := head + `watermark s bound=0s interval=1s idleness=5s
key-by s none
window w from=s tumbling size=10s
traffic a records=20 from=10:00:00 every=1s keys=3
produce b at=10:00:00 key=1
produce c at=10:00:00 key=1
produce c at=10:00:20 key=2
`
	_, st := run(t, src)
	idleAt := map[int]vtime.Time{}
	for _, w := range st.Watermarks {
		if w.Part >= 0 && w.Idle {
			if _, seen := idleAt[int(w.Part)]; !seen {
				idleAt[int(w.Part)] = st.StepTime(w.Step)
			}
		}
	}
	// b and c stop at 10:00:00; the tick at 10:00:01 finds nothing new and
	// starts their countdown; more than 5s later, at the tick of 10:00:07,
	// they are idle.
	assert.Equal(t, at("10:00:07"), idleAt[1])
	assert.Equal(t, at("10:00:07"), idleAt[2])
	// Until then the minimum is theirs: 09:59:59.999; then a's alone.
	for _, w := range st.Watermarks {
		if w.Part == -1 && w.Value != watermark.End {
			assert.True(t, w.Value == at("09:59:59.999") || st.StepTime(w.Step) >= at("10:00:07"), "%s at step %d", w.Value, w.Step)
		}
	}
	// c reads again at 10:00:20: it rejoins the minimum at its next tick.
	var back bool
	for _, w := range st.Watermarks {
		if w.Part == 2 && !w.Idle && st.StepTime(w.Step) >= at("10:00:20") {
			back = true
		}
	}
	assert.True(t, back, "partition 2 turns active again")
}

// A stall holds a partition's records until it ends, then reads them in
// offset order; a delay reads the records appended in its span later,
// never before the partition's earlier records.
func TestStallAndDelayMoveArrivals(t *testing.T) {
	src := head + `produce a at=10:00:00 key=1
produce a at=10:00:02 key=2
produce a at=10:00:09 key=3
produce b at=10:00:00 key=4
produce b at=10:00:01 key=5
produce b at=10:00:06 key=6
stall s partition=0 at=10:00:01 until=10:00:05
delay s partition=1 from=10:00:00 until=10:00:02 by=10s
`
	_, st := run(t, src)
	read := map[[2]int]vtime.Time{}
	for _, a := range st.Arrivals {
		read[[2]int{int(a.Part), int(a.Off)}] = st.StepTime(a.Step)
	}
	assert.Equal(t, at("10:00:00"), read[[2]int{0, 0}], "before the stall")
	assert.Equal(t, at("10:00:05"), read[[2]int{0, 1}], "appended during the stall, read when it ends")
	assert.Equal(t, at("10:00:09"), read[[2]int{0, 2}], "after it")
	assert.Equal(t, at("10:00:10"), read[[2]int{1, 0}], "appended in the delay: 10s later")
	assert.Equal(t, at("10:00:11"), read[[2]int{1, 1}])
	assert.Equal(t, at("10:00:11"), read[[2]int{1, 2}], "after the delay, but never before the record ahead of it")
	require.Len(t, st.Streams[0].Slows, 2)
}

// Faults from the widget stall or delay a partition now, and a burst sends
// a producer's events at once; a bad fault is refused with a reason.
func TestStreamFaults(t *testing.T) {
	src := head + `watermark s bound=0s
traffic a records=10 from=10:00:00 every=1s keys=3
`
	f := parse(t, src)
	base, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	after := 3 // a few steps in
	for _, tc := range []struct {
		name  string
		fault engine.Fault
		check func(t *testing.T, st *stream.Trace)
	}{
		{"stall", engine.Fault{Kind: stream.FaultStall, Stream: "s", Partition: 0, For: 5 * vtime.Second}, func(t *testing.T, st *stream.Trace) {
			require.Len(t, st.Streams[0].Slows, 1)
			assert.True(t, st.Streams[0].Slows[0].Stall)
		}},
		{"delay", engine.Fault{Kind: stream.FaultDelay, Stream: "s", Partition: 0, For: 5 * vtime.Second, By: 3 * vtime.Second}, func(t *testing.T, st *stream.Trace) {
			require.Len(t, st.Streams[0].Slows, 1)
			assert.Equal(t, 3*vtime.Second, st.Streams[0].Slows[0].By)
		}},
		{"burst", engine.Fault{Kind: logs.FaultBurst, Producer: "b", Records: 4, For: 8 * vtime.Second}, func(t *testing.T, st *stream.Trace) {
			n := 0
			for _, a := range st.Arrivals {
				if a.Part == 1 {
					n++
				}
			}
			assert.Equal(t, 4, n, "the burst's four records are read from b's partition")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fault.AfterStep = after
			tr, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{tc.fault})
			require.NoError(t, err)
			assert.NotEqual(t, base.Steps(), tr.Steps(), "the fault changes the run")
			tc.check(t, stream.Of(tr))
		})
	}
	for _, tc := range []struct {
		fault engine.Fault
		want  string
	}{
		{engine.Fault{Kind: stream.FaultStall, Stream: "t", For: vtime.Second}, `unknown stream "t"; this scenario's streams are s`},
		{engine.Fault{Kind: stream.FaultStall, Stream: "s", Partition: 3, For: vtime.Second}, "stream s reads partitions 0 to 2 of sales, not 3"},
		{engine.Fault{Kind: stream.FaultStall, Stream: "s"}, "a stall needs a positive length"},
		{engine.Fault{Kind: stream.FaultDelay, Stream: "s", For: vtime.Second}, "a delay needs a positive amount"},
		{engine.Fault{Kind: logs.FaultBurst, Producer: "z", Records: 1}, `unknown producer "z"`},
		{engine.Fault{Kind: logs.FaultBurst, Producer: "a", Records: 0}, "a burst sends 1 to 10000 events, not 0"},
	} {
		tc.fault.AfterStep = after
		_, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{tc.fault})
		assert.ErrorContains(t, err, tc.want)
	}
	f2 := parse(t, "scenario t/x \"X\"\ntopic t\nproducer p to=t\nproduce p at=10:00:00 key=1\n")
	_, err = engine.RunWithFaults(f2, nil, 1, worlds.All(), []engine.Fault{{AfterStep: 1, Kind: stream.FaultStall, Stream: "s", For: vtime.Second}})
	assert.ErrorIs(t, err, stream.ErrNoStream)
}

// A partition's clock runs ahead: producer a, pinned to partition 0, has its
// own clock stepped forward by a minute before anything is sent, so its
// events say they happened a minute after they did. With one watermark
// generator for the source, a drives it: after the tick at 10:00:00 the
// watermark is 10:01:00 - 0s - 1 ms = 10:00:59.999, and every later record
// of b and c (10:00:10 to 10:00:50, five each) falls in a 10-second window
// whose last instant, at most 10:00:59.999, the watermark has reached:
// ten dropped. Per partition the slow partitions hold the minimum and
// nothing is late. Only a's times move, though the three read one clock.
func TestAPartitionsClockRunsAhead(t *testing.T) {
	fault := engine.Fault{AfterStep: 0, Kind: logs.FaultProducerClock, Producer: "a", By: vtime.Minute}
	for scope, dropped := range map[string]int{"per-source": 10, "per-partition": 0} {
		src := head + "watermark s bound=0s scope=" + scope + "\nwindow w from=s tumbling size=10s to=out\n" +
			"traffic a records=6 from=10:00:00 every=10s keys=6\ntraffic b records=6 from=10:00:00 every=10s keys=6\ntraffic c records=6 from=10:00:00 every=10s keys=6\n"
		tr, err := engine.RunWithFaults(parse(t, src), nil, 1, worlds.All(), []engine.Fault{fault})
		require.NoError(t, err, scope)
		e := tr.Events[0]
		assert.Equal(t, engine.KindClockJump, e.Kind)
		assert.Contains(t, tr.Narration(&e), "a's own clock (partition 0 of sales) is stepped forward by 1m", scope)
		st := stream.Of(tr)
		accepted, d, side := st.LateCounts(tr.Steps())
		assert.Equal(t, [3]int{0, dropped, 0}, [3]int{accepted, d, side}, scope)
		for _, part := range []int{0, 1} {
			r, _ := st.Record(st.ArrivalID(int32(part)))
			require.NotNil(t, r)
			want := at("10:00:00")
			if part == 0 {
				want = at("10:01:00")
			}
			assert.Equal(t, want, r.UpdatedAt, "%s: partition %d's first event time", scope, part)
			assert.Equal(t, want, r.Time, "%s: and its timestamp, the producer's clock at the send", scope)
		}
		if scope == "per-source" {
			require.NotEmpty(t, st.Late)
			assert.Equal(t, at("10:00:59.999"), st.Late[0].Watermark)
			assert.Equal(t, at("10:00:10"), st.Late[0].Time)
		}
	}
	f := parse(t, head+"traffic a records=2 from=10:00:00 every=1s keys=2\n")
	for _, tc := range []struct {
		fault engine.Fault
		want  string
	}{
		{engine.Fault{Kind: logs.FaultProducerClock, Producer: "z", By: vtime.Second}, `unknown producer "z"; this scenario's producers are a, b, c`},
		{engine.Fault{Kind: logs.FaultProducerClock, Producer: "a"}, "a producer's clock is stepped by a non-zero amount of at most a day either way, not 0s"},
		{engine.Fault{Kind: logs.FaultProducerClock, Producer: "a", By: 25 * vtime.Hour}, "not 25h"},
	} {
		_, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{tc.fault})
		assert.ErrorContains(t, err, tc.want)
	}
}

// A processing-time window fires when the stream's clock reaches its end,
// whatever the records' event times, and is never late.
func TestProcessingTimeWindowsFireOnTheClock(t *testing.T) {
	src := head + `clock job skew=2s
clock ahead skew=1h
producer d to=sales key=sale_id partition=0 clock=ahead
stream p from=sales clock=job
key-by p none
window w from=p tumbling size=10s time=processing to=out
produce a at=10:00:01 event=09:00:00
produce d at=10:00:05
produce a at=10:00:09 key=3
`
	tr, st := run(t, src)
	require.NotEmpty(t, st.Firings)
	f := st.Firings[0]
	assert.Equal(t, window.Window{Start: at("10:00:00"), End: at("10:00:10")}, f.Window, "by the job's clock, 2s ahead: the reads at 10:00:01 and 10:00:05 read 10:00:03 and 10:00:07")
	assert.Equal(t, int64(2), f.Acc.Count)
	assert.Equal(t, at("10:00:08"), tr.Events[f.Step-1].At, "its clock reads 10:00:10, just past the window's last instant, at true time 10:00:08")
	assert.Empty(t, st.Late)
	assert.NotEmpty(t, st.WrongStarts(tr.Steps()), "compared with the truth by event time, it is wrong")
}

// Late records past the lateness go to the side output's target, and the
// counter leaves them out.
func TestSideOutput(t *testing.T) {
	src := one + `target late sink=append key=event
watermark s bound=0s emit=per-record
key-by s none
window w from=s tumbling size=10s late=side-output to=out side=late
produce a at=10:00:20 event=10:00:20
produce a at=10:00:21 event=10:00:01 id=lost-one
check late-records
`
	tr, st := run(t, src)
	require.Len(t, st.Late, 1)
	assert.Equal(t, window.SideOutput, window.Fate(st.Late[0].Fate))
	rows := tr.TargetAt("late", tr.Steps())
	require.Len(t, rows, 1)
	assert.Equal(t, "lost-one", tr.RowKey(&rows[0]))
	c := tr.Checks()
	require.Len(t, c, 1)
	assert.Equal(t, "pass", string(c[0].Status))
	assert.Contains(t, c[0].Detail, "w sent 1 to its side output, which the counter leaves out")
	said := tr.Narration(&tr.Events[st.Late[0].Step-1])
	assert.Contains(t, said, "the record goes to the late-data side output")
	assert.NotContains(t, said, "nothing here reads", "the side output has a target")

	// With no side= target nothing reads the side output: as in Flink, the
	// record is gone, and neither the counter nor a table shows it.
	tr, st = run(t, strings.Replace(src, " side=late", "", 1))
	require.Len(t, st.Late, 1)
	said = tr.Narration(&tr.Events[st.Late[0].Step-1])
	assert.Contains(t, said, "the late-data side output, which nothing here reads: the record is gone, and no counter shows it")
	assert.Contains(t, st.WhyLate(0), "so the record went to the late-data side output, which nothing here reads: the record is gone, and no counter shows it.")
	assert.Empty(t, tr.TargetAt("late", tr.Steps()))
}

// The core's truth follows a window's row: missing until it fires, fine
// when it says what the truth does, stale when a late record adds to the
// truth, fine again when the window fires again with it.
func TestCoreTruthFollowsAWindowsRow(t *testing.T) {
	src := one + `watermark s bound=0s emit=per-record
key-by s none
window w from=s tumbling size=10s lateness=1m to=out
produce a at=10:00:01 event=10:00:01
produce a at=10:00:11 event=10:00:11
produce a at=10:00:12 event=10:00:02
`
	tr, _ := run(t, src)
	status := func(n int) string {
		tt := tr.TruthAt(n)
		switch {
		case len(tt.Missing) > 0 && tt.Missing[0] == "10:00:00":
			return "missing"
		case len(tt.Stale) > 0 && tt.Stale[0] == "10:00:00":
			return "stale"
		}
		return "fine"
	}
	var seen []string
	for n := 1; n <= tr.Steps(); n++ {
		if s := status(n); len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
	}
	assert.Equal(t, []string{"missing", "fine", "stale", "fine"}, seen)
}

// An interval join pairs records of one key within its bounds; a record
// behind the join's watermark is dropped and its pairs never made.
// TestJoinPairsEqualKeys reads the keys of the two sides in opposite
// orders: the join pairs order 1 with payment 1, and a key one side never
// has finds no partner, in the run, the truth and the batch recount alike.
func TestJoinPairsEqualKeys(t *testing.T) {
	src := `scenario t/x "X"
topic orders
topic payments
producer shop to=orders key=order_id
producer bank to=payments key=order_id
target paid sink=merge key=order_id
produce shop at=10:00:00 key=1
produce shop at=10:00:01 key=2
produce bank at=10:00:02 key=2
produce bank at=10:00:03 key=1
produce bank at=10:00:04 key=3
stream o from=orders
stream p from=payments
join j left=o right=p between=0s..10m to=paid
check join-recount
expect joins unjoined=0
`
	tr, err := engine.Run(parse(t, src), nil, 1, worlds.All())
	require.NoError(t, err)
	st := stream.Of(tr)
	require.Len(t, st.Pairs, 2)
	pairs := map[string]string{}
	for _, p := range st.Pairs {
		pairs[st.RecordName(p.Left)] = st.RecordName(p.Right)
	}
	assert.Equal(t, map[string]string{"shop-1": "bank-2", "shop-2": "bank-1"}, pairs, "order 1 with payment 1 (bank's second record), order 2 with payment 2")
	want, got := st.JoinTruth(0, tr.Steps())
	assert.Len(t, want, 2)
	assert.Equal(t, want, got)
	assert.Contains(t, tr.Narration(&tr.Events[st.Pairs[0].Step-1]), "joins shop-2")
}

func TestJoinPairsAndUnjoined(t *testing.T) {
	src := `scenario t/x "X"
topic orders
topic payments
producer shop to=orders key=order_id
producer bank to=payments key=order_id
target paid sink=merge key=order_id
stream o from=orders
stream p from=payments
watermark o bound=0s emit=per-record
watermark p bound=0s emit=per-record idleness=1s
join j left=o right=p between=0s..30s to=paid
produce shop at=10:00:00 key=1
produce bank at=10:00:10 key=1
produce shop at=10:00:20 key=2
produce shop at=10:01:00 key=3
produce bank at=10:01:10 key=2 event=10:00:25
expect joins unjoined=1
expect missing=2
`
	f := parse(t, src)
	outs, err := engine.CheckExpectations(f, 1, worlds.All())
	require.NoError(t, err)
	for _, o := range outs {
		assert.NoError(t, o.Err)
	}
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	st := stream.Of(tr)
	require.Len(t, st.Pairs, 1)
	assert.Equal(t, "shop-1", st.RecordName(st.Pairs[0].Left))
	assert.Equal(t, "bank-1", st.RecordName(st.Pairs[0].Right))
	require.Len(t, st.Late, 1)
	assert.True(t, st.Late[0].Join)
	assert.Equal(t, at("10:00:59.999"), st.Late[0].Watermark, "orders' watermark alone, payments being idle")
	assert.Contains(t, tr.Narration(&tr.Events[st.Late[0].Step-1]), "the record is dropped and never joins")

	// Sent to the side output with no side= target, a late record is gone.
	tr, err = engine.Run(parse(t, strings.Replace(src, "between=0s..30s", "between=0s..30s late=side-output", 1)), nil, 1, worlds.All())
	require.NoError(t, err)
	st = stream.Of(tr)
	require.Len(t, st.Late, 1)
	assert.Contains(t, tr.Narration(&tr.Events[st.Late[0].Step-1]), "the record goes to the late-data side output, which nothing here reads: the record is gone")

	// side=none says the same, so a knob can choose it against a target;
	// a side= naming no target is an error at its value.
	tr, err = engine.Run(parse(t, strings.Replace(src, "between=0s..30s", "between=0s..30s late=side-output side=none", 1)), nil, 1, worlds.All())
	require.NoError(t, err)
	st = stream.Of(tr)
	require.Len(t, st.Late, 1)
	assert.Empty(t, st.Joins[0].Side)
	assert.Contains(t, tr.Narration(&tr.Events[st.Late[0].Step-1]), "which nothing here reads: the record is gone")
	_, err = engine.Run(parse(t, strings.Replace(src, "between=0s..30s", "between=0s..30s late=side-output side=nowhere", 1)), nil, 1, worlds.All())
	require.Error(t, err)
	assert.Regexp(t, `^s\.tdm:\d+:\d+: unknown target "nowhere"`, err.Error())

	// With side=, the target receives it, keyed by its event id.
	withSide := strings.Replace(src, "between=0s..30s", "between=0s..30s late=side-output side=late_payments", 1)
	withSide = strings.Replace(withSide, "target paid sink=merge key=order_id\n", "target paid sink=merge key=order_id\ntarget late_payments sink=append key=event\n", 1)
	// Its value is what the stream read: the amount, scaled by a map.
	withSide = strings.Replace(withSide, "key=2 event=10:00:25", "key=2 event=10:00:25 amount=7", 1)
	withSide = strings.Replace(withSide, "stream p from=payments\n", "stream p from=payments\nmap p scale=2\n", 1)
	tr, err = engine.Run(parse(t, withSide), nil, 1, worlds.All())
	require.NoError(t, err)
	st = stream.Of(tr)
	require.Len(t, st.Late, 1)
	said := tr.Narration(&tr.Events[st.Late[0].Step-1])
	assert.Contains(t, said, "the record goes to the late-data side output")
	assert.NotContains(t, said, "nothing here reads")
	rows := tr.TargetAt("late_payments", tr.Steps())
	require.Len(t, rows, 1)
	assert.Equal(t, "bank-2", tr.RowKey(&rows[0]))
	assert.Equal(t, int64(14), rows[0].Amount)
	assert.Equal(t, "late_payments", st.Joins[0].Side)
}

// Explain says why a window's row stands as it does: the truth, what the
// row says and when it was written, the records that came too late; and
// nothing for a key of another world.
func TestExplainAWindowsRow(t *testing.T) {
	f := parse(t, one+`watermark s bound=0s emit=per-record
key-by s none
window w from=s tumbling size=10s to=out
produce a at=10:00:01 event=10:00:01
produce a at=10:00:11 event=10:00:11
produce a at=10:00:12 event=10:00:02
`)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	why := stream.Explain(tr, "10:00:00", tr.Steps())
	assert.Contains(t, why, "Window [10:00:00, 10:00:10) of w: the truth is count 2 over 2 records")
	assert.Contains(t, why, "its row says count 1, written when it fired at 10:00:10.999 (10:00:11)")
	assert.Contains(t, why, "1 came after its end: a-3 (event time 10:00:02, read at 10:00:12, dropped)")
	assert.Contains(t, why, "it does not say what the truth does.")
	assert.Contains(t, stream.Explain(tr, "10:00:10", 3), "it has not fired yet: the watermark is 10:00:00.999 and it fires when the watermark reaches 10:00:19.999")
	assert.Empty(t, stream.Explain(tr, "nope", tr.Steps()))

	// A processing-time window fires once the clock has passed its last
	// instant, at its end, as Flink's processing-time timers fire a
	// millisecond after their time; the explanation says the instant it
	// fires at, as the firing's own step does.
	pt, err := engine.Run(parse(t, one+`key-by s none
window w from=s tumbling size=10s time=processing to=out
produce a at=10:00:01
produce a at=10:00:12
`), nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Contains(t, stream.Explain(pt, "10:00:00", 2), "it has not fired yet: it fires when the stream's clock reaches 10:00:10")
	fired := false
	for i := range pt.Events {
		if strings.Contains(pt.Narration(&pt.Events[i]), "the clock reaches 10:00:10, just past the last instant of [10:00:00, 10:00:10)") {
			fired = true
		}
	}
	assert.True(t, fired, "the firing's step names the same instant")

	jt, err := engine.Run(parse(t, `scenario t/x "X"
topic orders
topic payments
producer shop to=orders key=order_id
producer bank to=payments key=order_id
target paid sink=merge key=order_id
stream o from=orders
stream p from=payments
watermark o bound=0s emit=per-record
watermark p bound=0s emit=per-record idleness=1s
join j left=o right=p between=0s..30s to=paid
produce shop at=10:00:20 key=2
produce shop at=10:01:00 key=3
produce bank at=10:01:10 key=2 event=10:00:25
`), nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Contains(t, stream.Explain(jt, "2", jt.Steps()), "Key 2 of j: the truth has 1 pair in the interval, the join has emitted 0; bank-1 arrived at 10:01:10 from payments-0")
}

// TestWhyLateForAWindowThatNeverFired explains a late record whose window
// no record reached in time: it never fired (in Flink it does not exist
// until a record creates it), so within the allowed lateness the record
// fires it for the first time, and past it the record is dropped.
func TestWhyLateForAWindowThatNeverFired(t *testing.T) {
	src := one + `watermark s bound=0s emit=per-record
key-by s none
window w from=s tumbling size=10s lateness=10s to=out
produce a at=10:00:25 event=10:00:25
produce a at=10:00:26 event=10:00:12
produce a at=10:00:27 event=10:00:03
`
	_, st := run(t, src)
	require.Len(t, st.Late, 2)
	require.Equal(t, window.Accepted, window.Fate(st.Late[0].Fate))
	assert.Contains(t, st.WhyLate(0), "puts it in [10:00:10, 10:00:20), which had held no record, so it never fired, though the watermark had passed its end")
	assert.Contains(t, st.WhyLate(0), "the window fired at once, late, with the record alone.")
	require.Equal(t, window.Dropped, window.Fate(st.Late[1].Fate))
	assert.Contains(t, st.WhyLate(1), "puts it in [10:00:00, 10:00:10), which had held no record, so it never fired")
	assert.Contains(t, st.WhyLate(1), "so the record was dropped and counted in numLateRecordsDropped.")
}

// TestProcessingTimeRecordAtTheWindowsLastInstant: a record read at the last
// millisecond of its processing-time window sets a timer for the instant it
// was read at, which fires a millisecond later, at the window's end, as
// Flink's processing-time timers do (the run looped forever without a step
// once, when the operator's clock would not run a timer for the time it
// already stood at).
func TestProcessingTimeRecordAtTheWindowsLastInstant(t *testing.T) {
	src := `scenario test/pt "A record at a window's last instant"
topic clicks partitions=1
producer app to=clicks key=user_id
target per_minute sink=merge key=minute
stream taps from=clicks
key-by taps none
window counts from=taps tumbling size=1m time=processing to=per_minute
produce app at=10:00:59.999 key=1
produce app at=10:01:30 key=2
`
	done := make(chan *engine.Trace, 1)
	go func() {
		tr, _ := run(t, src)
		done <- tr
	}()
	var tr *engine.Trace
	select {
	case tr = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end")
	}
	var fires []string
	for i := range tr.Events {
		if tr.Events[i].Kind == engine.KindFire {
			fires = append(fires, tr.Narration(&tr.Events[i]))
		}
	}
	require.NotEmpty(t, fires)
	assert.Contains(t, fires[0], "the clock reaches 10:01:00, just past the last instant of [10:00:00, 10:01:00); it fires [10:00:00, 10:01:00) count 1")
	assert.Empty(t, tr.Final().Missing)
}

// TestFinalCheckpointCommitsWhatTheEndFired: a window the end of input fires
// after the last periodic checkpoint writes into a two-phase sink's open
// transaction, and the final checkpoint commits it (it stayed pending, and
// the row was missing from the table).
func TestFinalCheckpointCommitsWhatTheEndFired(t *testing.T) {
	tr, st := run(t, `scenario test/2pc-end "A two-phase window at the end of input"
topic clicks partitions=1
producer app to=clicks key=user_id
target per_minute sink=append key=minute
produce app at=10:00:00 key=1
produce app at=10:00:10 key=1
stream taps from=clicks
key-by taps none
window counts from=taps tumbling size=1m to=per_minute commit=two-phase
checkpoint every=5s
`)
	assert.Empty(t, tr.Final().Missing)
	require.NotEmpty(t, st.Job.Checkpoints)
	last := st.Job.Checkpoints[len(st.Job.Checkpoints)-1]
	assert.True(t, last.Final, "the last checkpoint is the final one")
	var commits []string
	for i := range tr.Events {
		if n := tr.Narration(&tr.Events[i]); strings.Contains(n, " commits transaction") {
			commits = append(commits, n)
		}
	}
	require.Len(t, commits, 1)
	assert.Contains(t, commits[0], "1 row becomes visible")
}

// TestWatermarkLagSeesNoWatermarkAtAll: a partition that never produces,
// with no idleness, holds the watermark at none for the whole run; the lag
// alert sees Flink's Long.MIN_VALUE watermark and fires (it said it had
// nothing to measure, going quiet in the very case it is for).
func TestWatermarkLagSeesNoWatermarkAtAll(t *testing.T) {
	tr, _ := run(t, `scenario test/no-wm "One partition never produces"
topic clicks partitions=2
producer a to=clicks key=user_id partition=0
target per_minute sink=merge key=minute
traffic a records=4 from=10:00:00 every=40s keys=1
stream taps from=clicks
watermark taps bound=0s
key-by taps none
window counts from=taps tumbling size=1m to=per_minute
check watermark-lag
`)
	var got *check.Result
	for _, c := range tr.Checks() {
		if c.Name == "watermark-lag" {
			got = &c
		}
	}
	require.NotNil(t, got)
	assert.Equal(t, check.Fail, got.Status)
	assert.Contains(t, got.Detail, "counts had records but no watermark at all for 2m (by 10:02:00)")
}

// TestJobSentencesWithNothingBehindThem: an expiry before any checkpoint
// has completed says a failure would start from the beginning (it said the
// last usable checkpoint was "older than ever"), and a failure at the
// commit of a checkpoint with no transactions says there was none to
// commit (it said the commits never reached the table).
func TestJobSentencesWithNothingBehindThem(t *testing.T) {
	narrations := func(tr *engine.Trace, part string) []string {
		var out []string
		for i := range tr.Events {
			if n := tr.Narration(&tr.Events[i]); strings.Contains(n, part) {
				out = append(out, n)
			}
		}
		return out
	}
	tr, _ := run(t, `scenario test/expire "A checkpoint that expires behind a blocked buffer"
topic clicks partitions=1
producer app to=clicks key=click_id
target fct_clicks sink=merge key=click_id
traffic app records=30 from=10:00:00 every=100ms keys=unique
stream taps from=clicks
checkpoint every=2s timeout=1s
sink load from=taps to=fct_clicks rate=2/s buffer=5 overflow=block
`)
	expiries := narrations(tr, "expires: it began")
	require.NotEmpty(t, expiries)
	assert.Contains(t, expiries[0], "no checkpoint has completed yet, so a failure now would start the job from the beginning")

	tr, _ = run(t, `scenario test/commit-empty "Fail at the commit of a checkpoint with nothing to commit"
topic orders partitions=1
producer shop to=orders key=order_id
target fct_orders sink=append key=order_id
produce shop at=10:00:01 key=1
produce shop at=10:00:12 key=2
stream orders_in from=orders
sink load from=orders_in to=fct_orders commit=two-phase
checkpoint every=10s from=10:00:00
fail load at=10:00:00 point=commit restart=1s
`)
	fails := narrations(tr, "load fails")
	require.NotEmpty(t, fails)
	assert.Contains(t, fails[0], "load fails as checkpoint 1 completes, where the sinks commit its transactions; it has none, so no row waits on the commit")
}

// TestPerSourceWatermarkPerReader: a per-source strategy runs once per
// reader, as one applied after a Flink source runs once per subtask. With
// one reader over three partitions the fastest drives the watermark and
// the delayed partition's records are dropped; with a reader per
// partition the window takes the minimum over the readers, and nothing is.
func TestPerSourceWatermarkPerReader(t *testing.T) {
	// The bundled stream/watermark-fastest-partition, per source.
	src := head + `traffic a records=36 from=10:00:00 every=10s keys=1000
traffic b records=36 from=10:00:00 every=10s keys=1000
traffic c records=36 from=10:00:00 every=10s keys=1000
watermark s bound=5s scope=per-source
key-by s none
window per_minute from=s tumbling size=1m to=out
delay s partition=1 from=10:00:00 until=10:04:00 by=45s
`
	dropped := func(src string) (int, string) {
		tr, st := run(t, src)
		_, d, _ := st.LateCounts(tr.Steps())
		var ticks string
		for i := range tr.Events {
			if n := tr.Narration(&tr.Events[i]); strings.Contains(n, "readers") {
				ticks = n
				break
			}
		}
		return d, ticks
	}
	one, _ := dropped(src)
	assert.Equal(t, 12, one)
	three, tick := dropped(strings.Replace(src, "stream s from=sales", "stream s from=sales parallelism=3", 1))
	assert.Zero(t, three, "each reader's generator waits for its own partition")
	assert.Contains(t, tick, "the minimum over its 3 readers")
}

// TestOverdueTimerNarrated: a processing-time window whose end passed while
// the job was down fires when it restores, and its narration says the
// clock is past the window's last instant rather than at it.
func TestOverdueTimerNarrated(t *testing.T) {
	tr, _ := run(t, one+`traffic a records=30 from=10:00:00 every=1s keys=unique
key-by s none
window w from=s tumbling size=10s time=processing to=out
checkpoint every=10s from=10:00:05.5
fail w at=10:00:08.5 restart=5s
`)
	var fires []string
	for i := range tr.Events {
		if n := tr.Narration(&tr.Events[i]); strings.HasPrefix(n, "w: the clock") {
			fires = append(fires, n)
		}
	}
	require.NotEmpty(t, fires)
	assert.Contains(t, fires[0], "w: the clock, at 10:00:13.500, is past the last instant of [10:00:00, 10:00:10); it fires")
	assert.Contains(t, fires[1], "w: the clock reaches 10:00:20, just past the last instant of [10:00:10, 10:00:20)")
}

// TestSlidingGapNarrated: a sliding window shorter than its slide leaves
// gaps; a record that falls in one is in no window, and its read says so,
// since no count and no firing ever will.
func TestSlidingGapNarrated(t *testing.T) {
	tr, _ := run(t, `scenario test/gap "Gaps between sliding windows"
topic clicks partitions=1
producer app to=clicks key=user_id
target per_min sink=merge key=minute
traffic app records=3 from=10:00:00 every=20s keys=2
stream taps from=clicks
watermark taps bound=5s
key-by taps none
window w from=taps sliding size=30s slide=1m to=per_min
`)
	var gaps []string
	for i := range tr.Events {
		if text := tr.Narration(&tr.Events[i]); strings.Contains(text, "falls between") {
			gaps = append(gaps, text)
		}
	}
	require.Len(t, gaps, 1, "only the record at 10:00:40 is outside [10:00:00, 10:00:30) and [10:01:00, 10:01:30)")
	// The report folds routine reads into a count; this one gets its own line.
	st := stream.Of(tr)
	for i := range tr.Events {
		if tr.Events[i].Kind == engine.KindArrive {
			text := tr.Narration(&tr.Events[i])
			assert.Equal(t, !strings.Contains(text, "falls between"), st.Routine(i), text)
		}
	}
	assert.Contains(t, gaps[0], "it happened at 10:00:40; it falls between w's windows (each 30s long, one every 1m), so none of them counts it, and nothing counts it as dropped")
}

// TestRecountOfSessionWindows: the recount redraws windows by their
// bounds, which a session's gaps decide; with only sessions written it
// says so rather than that none has closed yet, and a tumbling window
// beside them is recounted.
func TestRecountOfSessionWindows(t *testing.T) {
	base := one + `target out2 sink=merge key=window
watermark s bound=0s emit=per-record
window w from=s session gap=5s to=out
produce a at=10:00:01 event=10:00:01
produce a at=10:00:20 event=10:00:20
check recount
`
	tr, _ := run(t, base)
	c := tr.Checks()
	require.Len(t, c, 1)
	assert.Equal(t, "not-run", string(c[0].Status))
	assert.Contains(t, c[0].Detail, "only session windows have written results, and a session's bounds come from its own records' gaps")

	tr, _ = run(t, base+"window t from=s tumbling size=10s to=out2\n")
	c = tr.Checks()
	require.Len(t, c, 1)
	assert.Equal(t, "pass", string(c[0].Status), c[0].Detail)
}

// TestProcessingTimeWindowOpenAtItsLastInstant: a processing-time window
// still takes a record read at its last instant and fires at its end (a
// Flink processing-time timer fires a millisecond after its time), so at
// that last instant it is neither closed for the recount nor cleared on
// the chart.
func TestProcessingTimeWindowOpenAtItsLastInstant(t *testing.T) {
	tr, st := run(t, one+`key-by s none
window w from=s tumbling size=10s time=processing to=out
produce a at=09:59:55
produce a at=10:00:01
produce a at=10:00:09.999
produce a at=10:00:12
check recount
`)
	last := -1
	for i := range st.Arrivals {
		if tr.Events[st.Arrivals[i].Step-1].At == at("10:00:09.999") {
			last = int(st.Arrivals[i].Step)
		}
	}
	require.Positive(t, last, "the record of 10:00:09.999 is read then")
	c := tr.ChecksAt(last)
	require.Len(t, c, 1)
	assert.Equal(t, "pass", string(c[0].Status), c[0].Detail)
	for _, ws := range st.WindowsAt(0, last, at("09:59:00"), at("10:01:00")) {
		if ws.Window.Start == at("10:00:00") {
			assert.False(t, ws.Cleared, "the window takes records until its end")
		}
	}
	require.Len(t, st.Firings, 3)
	assert.Equal(t, int64(2), st.Firings[1].Acc.Count, "the record read at the last instant is in the window")
}

// TestFilterLinesAllApply: a record passes several filter lines only when
// it passes each, so two lines keep the keys both name and the amounts
// within both ranges; a later line never widens an earlier one.
func TestFilterLinesAllApply(t *testing.T) {
	tr, st := run(t, one+`key-by s none
filter s keys=1,2 min-amount=10
filter s keys=2,3,4 min-amount=5 max-amount=100
filter s max-amount=1000
window w from=s tumbling size=1m agg=sum to=out
produce a at=10:00:01 key=1 amount=20
produce a at=10:00:02 key=2 amount=7
produce a at=10:00:03 key=2 amount=50
produce a at=10:00:04 key=3 amount=30
produce a at=10:00:05 key=2 amount=500
`)
	require.NotNil(t, st)
	rows := tr.TargetAt("out", tr.Steps())
	require.Len(t, rows, 1)
	assert.Equal(t, int64(50), rows[0].Amount, "only key 2 with amount 50 is kept: keys 1 and 3 are each outside one keys=, 7 below min-amount=10, 500 above max-amount=100")
	assert.Empty(t, tr.Final().Stale, "the truth applies the same filter")
}

// TestFilteredReadIsNotFolded: a read the filter keeps out of the windows
// is not routine, so the report's timeline gives it a line of its own
// rather than counting it among the records read.
func TestFilteredReadIsNotFolded(t *testing.T) {
	tr, st := run(t, one+`watermark s bound=0s emit=per-record
key-by s none
filter s min-amount=10
window w from=s tumbling size=1m to=out
produce a at=10:00:01 event=10:00:01 amount=20
produce a at=10:00:02 event=10:00:02 amount=5
`)
	var kept, dropped int
	for i := range tr.Events {
		if tr.Events[i].Kind != engine.KindArrive {
			continue
		}
		if strings.Contains(tr.Narration(&tr.Events[i]), "the filter keeps it out") {
			dropped++
			assert.False(t, st.Routine(i))
		} else {
			kept++
			assert.True(t, st.Routine(i))
		}
	}
	assert.Equal(t, 1, kept)
	assert.Equal(t, 1, dropped)
}

// TestLateRecordInSlidingGap: a late record that falls between sliding
// windows is dropped and counted, as Flink counts a skipped late element;
// the run used to index an empty list of windows and crash.
func TestLateRecordInSlidingGap(t *testing.T) {
	tr, st := run(t, `scenario t/gap-late "A late record in a sliding gap"
topic sales
producer a to=sales key=sale_id
target out sink=merge key=window
stream s from=sales
watermark s bound=0s emit=per-record
window w from=s sliding size=30s slide=1m to=out
produce a at=10:01:10 event=10:01:10
produce a at=10:01:12 event=10:00:40
`)
	require.Len(t, st.Late, 1)
	assert.Equal(t, window.Dropped, window.Fate(st.Late[0].Fate))
	var text string
	for i := range tr.Events {
		if tr.Events[i].Kind == engine.KindLate {
			text = tr.Narration(&tr.Events[i])
		}
	}
	const why = "event time 10:00:40 falls between windows, after [10:00:00, 10:00:30), so no window holds it; with an allowed lateness of 0s it is late once the watermark reaches 10:00:40, its event time plus the lateness, and the watermark is already 10:01:09.999, so the record is dropped and counted in numLateRecordsDropped"
	assert.Contains(t, text, why)
	assert.NotContains(t, text, "nothing counts it as dropped")
	// A learner who clicks it reads the same (it said the window before
	// the gap held it).
	assert.Contains(t, st.WhyLate(0), why)
	assert.NotContains(t, st.WhyLate(0), "puts it in")
}

// The window panel places a processing-time window's records by the
// stream's own clock, as the operator does: with a skewed clock, the
// counts it draws are those the windows fired with.
func TestProcessingTimeWindowsByTheStreamsClock(t *testing.T) {
	tr, st := run(t, `scenario t/x "X"
clock reader skew=30s
topic sales partitions=1
producer till to=sales key=sale_id
traffic till records=20 from=10:00:20 every=1s keys=unique
stream s from=sales clock=reader
key-by s none
window w from=s tumbling size=1m time=processing
`)
	fired := map[vtime.Time]int64{}
	for _, f := range st.Firings {
		fired[f.Window.Start] += f.Acc.Count
	}
	require.Equal(t, map[vtime.Time]int64{at("10:00:00"): 10, at("10:01:00"): 10}, fired, "read at 10:00:20–10:00:39 by a clock 30s ahead")
	drawn := map[vtime.Time]int64{}
	for _, ws := range st.WindowsAt(0, tr.Steps(), at("09:59:00"), at("10:03:00")) {
		drawn[ws.Window.Start] = int64(ws.Count)
	}
	assert.Equal(t, fired, drawn)
}

// A source that comes back from idle without a newer event time is active
// again, and its watermark does not move: the tick says so rather than
// that it moves to where it already was.
func TestBackFromIdleWithoutMoving(t *testing.T) {
	tr, _ := run(t, `scenario t/x "X"
topic sales partitions=1
producer till1 to=sales key=sale_id
target out sink=merge key=minute
produce till1 at=10:00:00 key=1 amount=5
produce till1 at=10:00:30 key=2 event=10:00:00 amount=5
stream tills from=sales
watermark tills bound=0s idleness=10s
key-by tills none
window w from=tills tumbling size=1m to=out
`)
	steps := narrating(tr, "reads again and rejoins the minimum")
	require.Len(t, steps, 1)
	assert.Equal(t, "Tick at 10:00:30: sales-0 reads again and rejoins the minimum at 09:59:59.999; tills is active again, and its watermark stays at 09:59:59.999.", tr.Narration(&tr.Events[steps[0]]))
}

// bridgedSessions has key 1's sessions [10:00:00, 10:00:15),
// [10:00:20, 10:00:30) and [10:00:40, 10:00:50), and a record read late,
// within the allowed lateness, that bridges the last two.
const bridgedSessions = `scenario t/x "X"
topic sales partitions=1
producer till1 to=sales key=sale_id
target out sink=merge key=session
produce till1 at=10:00:00 key=1 amount=5
produce till1 at=10:00:05 key=1 amount=5
produce till1 at=10:00:20 key=1 amount=5
produce till1 at=10:00:40 key=1 amount=5
produce till1 at=10:01:05 key=1 event=10:00:30 amount=5
stream tills from=sales
watermark tills bound=0s emit=per-record
window w from=tills session gap=10s lateness=5m to=out
`

// A record that bridges two sessions says so: the window merges them with
// it into one, which then fires under bounds no row had before; a record
// that only extends a session says nothing of it.
func TestSessionMergeIsNarrated(t *testing.T) {
	tr, _ := run(t, bridgedSessions)
	steps := narrating(tr, "it bridges")
	require.Len(t, steps, 1, "10:00:05 only extends the first session")
	assert.Contains(t, tr.Narration(&tr.Events[steps[0]]), "it bridges 2 of key 1's sessions, which w merges with it into one, [10:00:20, 10:00:50)")
}

// A record of a sliding window that one of its windows, already closed for
// good, skips while another takes it: not late, not counted, and a window
// short of it; its line says so instead of being folded away.
func TestSlidingWindowClosedForOneRecord(t *testing.T) {
	tr, st := run(t, `scenario t/x "X"
topic sales partitions=1
producer till1 to=sales key=sale_id
target out sink=merge key=minute
traffic till1 records=20 from=10:00:00 every=10s keys=3 amount=1..5
produce till1 at=10:02:10 key=1 event=10:01:30
stream tills from=sales
key-by tills none
window w from=tills sliding size=2m slide=1m to=out
`)
	assert.Empty(t, st.Late, "another window takes it: Flink counts nothing")
	steps := narrating(tr, "it also falls in")
	require.Len(t, steps, 1)
	assert.Contains(t, tr.Narration(&tr.Events[steps[0]]), "it happened at 10:01:30, 40s before it was read; it also falls in w's [10:00:00, 10:02:00), closed for good: the watermark 10:01:59.999 has reached its last instant plus the allowed lateness of 0s, so that window skips it")
	assert.False(t, st.Routine(steps[0]), "its own line on the timeline")
}

// TestKeylessResendIsOneEventToTheTruth: a keyless event resent under a new
// id is a new key to the target written by a stream's sink, but the truth
// knows both rows copy the one event, as it does for a consumer group;
// this holds when a source table has a row with the event's key too, so
// that the event is a row of the producer's own (the record's Src).
func TestKeylessResendIsOneEventToTheTruth(t *testing.T) {
	body := `source customers key=customer_id
txn SEED begin=09:59:00 commit=09:59:00 insert customer_id=1..3 amount=1
topic orders partitions=1
producer shop to=orders
target fct sink=append key=order_id
produce shop at=10:00:01 id=1
produce shop at=10:00:02 id=2 fail=timeout retry=app ids=regenerate
`
	for name, reader := range map[string]string{
		"stream": "stream orders_in from=orders\nsink load from=orders_in to=fct\n",
		"group":  "group billing topic=orders to=fct commit=after\nmember billing c1 at=10:00:00\npoll billing c1 at=10:00:05\n",
	} {
		tr, err := engine.Run(parse(t, "scenario test/keyless \"keyless\"\n"+body+reader), nil, 1, worlds.All())
		require.NoError(t, err)
		assert.Equal(t, map[string]int{"2": 2}, tr.Final().Duplicated, name)
		assert.Empty(t, tr.Final().Missing, name)
	}
}

// A session window is in the chart's view while it is open, growing as
// records extend it and replaced by the session a bridging record makes,
// not only once it has fired.
func TestOpenSessionsAsTheyGrow(t *testing.T) {
	tr, st := run(t, bridgedSessions)
	var states []string
	for n := 0; n <= tr.Steps(); n++ {
		var ws []string
		for _, x := range st.WindowsAt(0, n, at("09:59:00"), at("10:02:00")) {
			ws = append(ws, fmt.Sprintf("%s n=%d fired=%d", x.Window, x.Count, x.Fired))
		}
		if s := strings.Join(ws, "; "); len(states) == 0 || states[len(states)-1] != s {
			states = append(states, s)
		}
	}
	assert.Equal(t, []string{
		"",
		"[10:00:00, 10:00:10) n=1 fired=0",
		"[10:00:00, 10:00:15) n=2 fired=0", // extended: the first is gone
		"[10:00:00, 10:00:15) n=2 fired=0; [10:00:20, 10:00:30) n=1 fired=0",
		"[10:00:00, 10:00:15) n=2 fired=1; [10:00:20, 10:00:30) n=1 fired=0",
		"[10:00:00, 10:00:15) n=2 fired=1; [10:00:20, 10:00:30) n=1 fired=0; [10:00:40, 10:00:50) n=1 fired=0",
		"[10:00:00, 10:00:15) n=2 fired=1; [10:00:20, 10:00:30) n=1 fired=1; [10:00:40, 10:00:50) n=1 fired=0",
		// The late record bridges the two: [10:00:40, 10:00:50), which never
		// fired, is gone; [10:00:20, 10:00:30) stays drawn for the row its
		// firing wrote.
		"[10:00:00, 10:00:15) n=2 fired=1; [10:00:20, 10:00:30) n=1 fired=1; [10:00:20, 10:00:50) n=3 fired=0",
		"[10:00:00, 10:00:15) n=2 fired=1; [10:00:20, 10:00:30) n=1 fired=1; [10:00:20, 10:00:50) n=3 fired=1",
	}, states)
}

// TestAProducersVersionsAreNotTheJobsResults: a job counting per region
// into a table keyed on the region writes rows whose key is also the key
// of the producer's events; the truth keeps the job's result rows apart,
// so that the versions numbering the producer's records rise with each
// event of a key, whatever the job's sink does. They used to share one
// counter, and the log's labels went backwards (1v14 then 1v12) and
// changed with the sink.
func TestAProducersVersionsAreNotTheJobsResults(t *testing.T) {
	versions := func(commit string) []int32 {
		tr, _ := run(t, `scenario t/regions "Regions"
topic sales partitions=1
producer tills to=sales key=region
target region_totals sink=upsert key=region
traffic tills records=40 from=10:00:00 every=500ms keys=4
stream sales_in from=sales
aggregate totals from=sales_in agg=count to=region_totals commit=`+commit+`
checkpoint every=5s
`)
		l := logs.Of(tr)
		h := l.Topics[0]
		recs := l.RecordsAt("sales", 0, tr.Steps())
		require.Len(t, recs, 40)
		last := map[string]int32{}
		var out []int32
		for i := range recs {
			k := h.Key(&recs[i])
			assert.Equal(t, last[k]+1, recs[i].Seq, "offset %d: key %s's next event", i, k)
			last[k] = recs[i].Seq
			out = append(out, recs[i].Seq)
		}
		return out
	}
	assert.Equal(t, versions("auto"), versions("two-phase"), "the sink does not number the producer's events")
}
