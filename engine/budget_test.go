package engine_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// within runs fn and fails the test if it takes longer than d: the inputs
// below used to hang or exhaust memory, and a test that hangs reports nothing.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}

func parse(t *testing.T, src string) *scenario.File {
	t.Helper()
	f, err := scenario.Parse("b.tdm", []byte(src))
	require.NoError(t, err)
	return f
}

// budgetMsg is the message of a budget of n passed while building.
func budgetMsg(pos string, n int) string {
	s := strconv.Itoa(n)
	return pos + ": this scenario would schedule more than " + s + " events, rows, keys, partitions and runs; the limit here is " + s
}

// TestKeyRangeAtTheEdgeOfInt64: a range ending at math.MaxInt64 names its
// keys and ends; one spanning all of int64 is refused by its size, which
// used to overflow; neither hangs.
func TestKeyRangeAtTheEdgeOfInt64(t *testing.T) {
	within(t, 10*time.Second, func() {
		tr, err := engine.Run(parse(t, world+"txn T1 begin=10:00:00 commit=10:00:00 insert order_id=9223372036854775807..9223372036854775807\nrun extract at=10:00:01\n"), nil, 1, worlds.All())
		require.NoError(t, err)
		require.Len(t, hwm.Of(tr).Txns, 1)
		assert.Equal(t, []string{"9223372036854775807"}, hwm.Of(tr).Txns[0].Stmts[0].Keys)

		tr, err = engine.Run(parse(t, world+"txn T1 begin=10:00:00 commit=10:00:00 insert order_id=9223372036854775805..9223372036854775807\n"), nil, 1, worlds.All())
		require.NoError(t, err)
		assert.Equal(t, []string{"9223372036854775805", "9223372036854775806", "9223372036854775807"}, hwm.Of(tr).Txns[0].Stmts[0].Keys)

		tr, err = engine.Run(parse(t, world+"txn T1 begin=10:00:00 commit=10:00:00 insert order_id=-9223372036854775808..-9223372036854775807\n"), nil, 1, worlds.All())
		require.NoError(t, err)
		assert.Equal(t, []string{"-9223372036854775808", "-9223372036854775807"}, hwm.Of(tr).Txns[0].Stmts[0].Keys)

		_, err = engine.Run(parse(t, world+"txn T1 begin=10:00:00 commit=10:00:00 insert order_id=-9223372036854775808..9223372036854775807\n"), nil, 1, worlds.All())
		require.Error(t, err)
		assert.Equal(t, `b.tdm:6:55: expected a key range such as 90..94 (whole numbers, at most 100000 keys), found "-9223372036854775808..9223372036854775807"`, err.Error())

		_, err = engine.Run(parse(t, world+"txn T1 begin=10:00:00 commit=10:00:00 insert order_id=-1..9223372036854775807\n"), nil, 1, worlds.All())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "at most 100000 keys")
	})
}

// TestBudgetStopsTheBuilderAtTheLine: each scenario of issue 9 that took
// a server down is refused at the first line that would pass the budget,
// quickly, with a *BudgetError the caller can recognise.
func TestBudgetStopsTheBuilderAtTheLine(t *testing.T) {
	manyRuns := world + strings.Repeat("runs extract from=00:00:00 until=00:16:40 every=1ms\n", 10)
	manyInserts := world + "begin T1 at=10:00:00\n" + strings.Repeat("insert T1 at=10:00:00 count=100000\n", 667) + "commit T1 at=10:00:01\n"
	manyRanges := world + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=" +
		strings.TrimSuffix(strings.Repeat("1..99999,", 300), ",") + "\n"
	tests := []struct {
		name  string
		src   string
		limit int
		pos   string
	}{
		{"runs every millisecond, server budget", manyRuns, 200_000, "b.tdm:6:1"},
		{"667 inserts of 100000 rows", manyInserts, engine.DefaultBudget, "b.tdm:56:1"},
		{"667 inserts, server budget", manyInserts, 200_000, "b.tdm:7:1"},
		{"a workload of ten million transactions", world + "workload txns=10000000 rows=1000 from=10:00:00 every=1ms\n", engine.DefaultBudget, "b.tdm:6:1"},
		{"ranges that add up", manyRanges, engine.DefaultBudget, "b.tdm:6:1"},
		{"traffic of ten million records", "scenario t/x \"X\"\ntopic t partitions=4\nproducer p to=t\ntraffic p records=10000000 from=10:00:00 every=1ms keys=10000000\n", engine.DefaultBudget, "b.tdm:4:1"},
		{"a burst of ten million records", "scenario t/x \"X\"\ntopic t partitions=4\nproducer p to=t\nburst p at=10:00:00 records=10000000\n", engine.DefaultBudget, "b.tdm:4:1"},
		// 45 KB that kept half a billion keys before the first record (a post took the server past 3 GB).
		{"a stream's filter of half a billion keys", "scenario t/x \"X\"\ntopic t partitions=4\nproducer p to=t\nstream s from=t\nfilter s keys=" + strings.TrimSuffix(strings.Repeat("1..99999,", 5000), ","), engine.DefaultBudget, "b.tdm:5:1"},
		{"a stream's filter past the server budget", "scenario t/x \"X\"\ntopic t partitions=4\nproducer p to=t\nstream s from=t\nfilter s keys=1..99999,100000..199999,7,8\n", 200_000, "b.tdm:5:1"},
		// A partition costs nothing to write down but holds state in the
		// topic and in every group and stream on it: 16 KB of topic lines
		// kept 333 MB, 50 KB of group lines 722 MB, and a post of them drew a
		// page of 333 MB over half a minute.
		{"600 topics of 1024 partitions", "scenario t/x \"X\"\n" + lines(600, "topic t%d partitions=1024"), 5_000, "b.tdm:6:1"},
		{"2500 groups on 1024 partitions", "scenario t/x \"X\"\ntopic t partitions=1024\n" + lines(2500, "group g%d topic=t"), 5_000, "b.tdm:6:1"},
		{"2000 streams on 1024 partitions", "scenario t/x \"X\"\ntopic t partitions=1024\n" + lines(2000, "stream s%d from=t"), 5_000, "b.tdm:6:1"},
		{"groups on a topic raised to 1024 partitions", "scenario t/x \"X\"\ntopic t partitions=1\n" + lines(6, "group g%d topic=t") + "add-partitions t at=10:00:00 to=1024\n", 5_000, "b.tdm:9:1"},
		{"groups after a topic is raised to 1024 partitions", "scenario t/x \"X\"\ntopic t partitions=1\nadd-partitions t at=10:00:00 to=1024\n" + lines(2500, "group g%d topic=t"), 5_000, "b.tdm:7:1"},
		{"polls every millisecond", "scenario t/x \"X\"\ntopic t partitions=4\ngroup g topic=t\npolls g from=00:00:00 until=00:16:39 every=1ms\n", 200_000, "b.tdm:4:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := parse(t, tc.src)
			within(t, 20*time.Second, func() {
				_, err := engine.BuildWithBudget(f, nil, 1, worlds.All(), tc.limit)
				require.Error(t, err)
				var be *engine.BudgetError
				require.True(t, errors.As(err, &be), "a %T: %v", err, err)
				assert.Equal(t, budgetMsg(tc.pos, tc.limit), err.Error())
				assert.False(t, be.Running)
				assert.Equal(t, tc.limit, be.Limit)
			})
		})
	}
}

// TestPartitionsKeptAreBounded: each partition a topic, group or stream
// keeps is a lane the widget draws, so past engine's MaxHeld in all a
// scenario is refused at the line that would pass it, whatever its budget
// (135 streams on a topic of 1,024 partitions drew a page of 40 MB).
func TestPartitionsKeptAreBounded(t *testing.T) {
	for _, tc := range []struct{ name, src, msg string }{
		{"streams", "scenario t/x \"X\"\ntopic t partitions=1024\n" + lines(8, "stream s%d from=t"),
			"b.tdm:10:16: t's 1024 partitions would bring the partitions kept in all (by topics, groups and streams) to 9216; a scenario keeps at most 8192"},
		{"groups", "scenario t/x \"X\"\ntopic t partitions=1024\n" + lines(8, "group g%d topic=t"),
			"b.tdm:10:16: t's 1024 partitions would bring the partitions kept in all (by topics, groups and streams) to 9216; a scenario keeps at most 8192"},
		{"topics", "scenario t/x \"X\"\n" + lines(9, "topic t%d partitions=1024"),
			"b.tdm:10:7: t9's 1024 partitions would bring the partitions kept in all (by topics, groups and streams) to 9216; a scenario keeps at most 8192"},
		{"a topic grown under its readers", "scenario t/x \"X\"\ntopic t partitions=1\n" + lines(8, "group g%d topic=t") + "add-partitions t at=10:00:00 to=1024\n",
			"b.tdm:11:33: growing t to 1024 partitions would bring the partitions kept in all (by topics, groups and streams) to 9216; a scenario keeps at most 8192"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.Build(parse(t, tc.src), nil, 1, worlds.All())
			require.Error(t, err)
			assert.Equal(t, tc.msg, err.Error())
		})
	}
	// At the bound itself, it builds.
	_, err := engine.Build(parse(t, "scenario t/x \"X\"\ntopic t partitions=1024\n"+lines(7, "stream s%d from=t")), nil, 1, worlds.All())
	assert.NoError(t, err)
}

// lines returns n lines of format, each with its number from 1.
func lines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

// TestBudgetStopsARun: work nobody can count while building (here, runs
// that re-read a thousand rows through an overlap an hour wide) stops the
// world when it would pass the budget: Step reports no further event, Err
// says where it stopped, and Run returns that error rather than a trace cut
// short, whose rows would look missing only because the run stopped.
func TestBudgetStopsARun(t *testing.T) {
	src := `scenario t/x "X"
source orders key=order_id
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp overlap=1h
txn T1 begin=10:00:00 commit=10:00:00 insert count=200
runs extract from=10:00:01 until=10:08:20 every=1s
`
	f := parse(t, src)
	const limit = 50_000
	w, err := engine.BuildWithBudget(f, nil, 1, worlds.All(), limit)
	require.NoError(t, err, "the lines themselves fit")
	within(t, 20*time.Second, func() { w.Run() })
	err = w.Err()
	require.Error(t, err)
	var be *engine.BudgetError
	require.True(t, errors.As(err, &be))
	assert.True(t, be.Running)
	assert.Positive(t, be.Step)
	assert.Equal(t, be.Step, w.Trace().Steps(), "the error names the last step run")
	assert.False(t, w.Step(), "a stopped world runs nothing more")
	assert.True(t, w.Done())
	assert.Equal(t, "b.tdm: running stopped at "+be.At.String()+" after step "+strconv.Itoa(be.Step)+
		": this scenario would schedule more than 50000 events, rows, keys, partitions and runs (retries, polls and rows read again count as they happen); the limit here is 50000", err.Error())

	tr, err := engine.RunWithBudget(f, nil, 1, worlds.All(), limit)
	assert.Nil(t, tr)
	assert.ErrorAs(t, err, &be)

	tr, err = engine.RunWithBudget(f, nil, 1, worlds.All(), 10*limit)
	require.NoError(t, err, "a larger budget runs it to the end")
	assert.Equal(t, 500, len(hwm.Of(tr).Runs))
}

// TestBudgetCountsExactly: every bundled scenario under every knob setting
// runs within exactly the budget it needs and stops one unit short of it,
// so the budget is one count kept the same way while building and running.
// It finds the need by bisection, which also shows a budget never changes a
// trace that fits it.
func TestBudgetCountsExactly(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		for _, set := range sc.File.KnobSettings() {
			want, err := engine.Run(sc.File, set, 1, worlds.All())
			require.NoError(t, err)
			lo, hi := 1, 1<<20 // lo fails (or is untried), hi fits
			_, err = engine.RunWithBudget(sc.File, set, 1, worlds.All(), hi)
			require.NoError(t, err, "%s %v", sc.ID, set)
			for hi-lo > 1 {
				mid := (lo + hi) / 2
				if _, err := engine.RunWithBudget(sc.File, set, 1, worlds.All(), mid); err != nil {
					var be *engine.BudgetError
					require.ErrorAs(t, err, &be, "%s %v: only the budget may refuse it", sc.ID, set)
					lo = mid
				} else {
					hi = mid
				}
			}
			got, err := engine.RunWithBudget(sc.File, set, 1, worlds.All(), hi)
			require.NoError(t, err)
			assert.Equal(t, want.Steps(), got.Steps(), "%s %v", sc.ID, set)
			assert.Equal(t, want.Final(), got.Final(), "%s %v", sc.ID, set)
			// Every event costs at least its scheduling, so the need is at
			// least the steps.
			assert.GreaterOrEqual(t, hi, want.Steps(), "%s %v", sc.ID, set)
		}
	}
}

// TestBudgetOfZeroMeansTheDefault keeps Build's meaning for callers that
// pass no budget.
func TestBudgetOfZeroMeansTheDefault(t *testing.T) {
	f := parse(t, world+"runs extract from=00:00:00 until=00:16:40 every=1s\nworkload txns=5000000 from=10:00:00 every=1ms\n")
	_, err := engine.BuildWithBudget(f, nil, 1, worlds.All(), 0)
	assert.EqualError(t, err, budgetMsg("b.tdm:7:1", engine.DefaultBudget))
	_, err = engine.Build(f, nil, 1, worlds.All())
	assert.EqualError(t, err, budgetMsg("b.tdm:7:1", engine.DefaultBudget))
	_, err = engine.BuildWithBudget(f, nil, 1, worlds.All(), 11*5_000_000)
	assert.NoError(t, err, "a larger budget takes it")
}

// TestLongNamesCountInTheBudget: a sentence kept in the trace repeats the
// names in it, which a scenario may make as long as it likes, so a long one
// counts as more than one event: ten thousand runs of a pipeline with a
// 10 KB name would otherwise keep 300 MB of narration within a budget
// meant for a few tens.
func TestLongNamesCountInTheBudget(t *testing.T) {
	name := strings.Repeat("p", 10_000)
	src := "scenario t/x \"X\"\nsource orders key=order_id\ntarget fct_orders sink=merge key=order_id\n" +
		"pipeline " + name + " from=orders to=fct_orders\nruns " + name + " from=10:00:00 until=12:46:39 every=1s\n"
	_, err := engine.RunWithBudget(parse(t, src), nil, 1, worlds.All(), 200_000)
	var be *engine.BudgetError
	require.ErrorAs(t, err, &be)
	assert.True(t, be.Running)

	short := strings.ReplaceAll(src, name, "extract")
	tr, err := engine.RunWithBudget(parse(t, short), nil, 1, worlds.All(), 200_000)
	require.NoError(t, err, "the same runs with a short name fit")
	assert.Len(t, hwm.Of(tr).Runs, 10_000)
}

// TestBudgetStopsAStream: what a stream does is charged as it happens — a
// read, each window a record falls into, a firing — so a sliding window of
// a thousand windows a record stops the run at the budget, while the same
// records through a tumbling window fit.
func TestBudgetStopsAStream(t *testing.T) {
	src := `scenario t/x "X"
topic t partitions=4
producer p to=t
traffic p records=2000 from=10:00:00 every=10ms keys=50
stream s from=t
window w from=s sliding size=1000s slide=1s
`
	f := parse(t, src)
	const limit = 200_000
	_, err := engine.BuildWithBudget(f, nil, 1, worlds.All(), limit)
	require.NoError(t, err, "the lines themselves fit")
	_, err = engine.RunWithBudget(f, nil, 1, worlds.All(), limit)
	var be *engine.BudgetError
	require.ErrorAs(t, err, &be)
	assert.True(t, be.Running)

	tumbling := strings.Replace(src, "sliding size=1000s slide=1s", "tumbling size=1s", 1)
	_, err = engine.RunWithBudget(parse(t, tumbling), nil, 1, worlds.All(), limit)
	assert.NoError(t, err, "a window a record fits")
}
