package check_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/vtime"
)

func at(s int) vtime.Time { return vtime.Time(36_000_000 + s*1000) }

// source answers counts from a fixed list of updated_at values.
type source []vtime.Time

func (s source) CountUpdatedBetween(from, to vtime.Time) int {
	n := 0
	for _, t := range s {
		if t >= from && t <= to {
			n++
		}
	}
	return n
}

func only(name string) check.Config {
	c := check.DefaultConfig()
	c.Enabled = map[string]bool{name: true}
	return c
}

func one(t *testing.T, cfg check.Config, o check.Observation) check.Result {
	t.Helper()
	rs := check.Evaluate(cfg, o)
	require.Len(t, rs, 1)
	return rs[0]
}

func series(values ...int) check.MarkSeries {
	s := check.MarkSeries{Name: "extract", Timestamp: true}
	for i, v := range values {
		p := check.MarkPoint{Step: i + 1, At: at(i), Value: int64(at(v)), Set: true, Display: at(v).String(), Run: i}
		if v < 0 { // a negative value stands for a reset to -v
			p.Value, p.Display, p.Reset, p.Run = int64(at(-v)), at(-v).String(), true, -1
		}
		s.Points = append(s.Points, p)
	}
	return s
}

func TestEvaluateOrderAndSelection(t *testing.T) {
	rs := check.Evaluate(check.DefaultConfig(), check.Observation{Source: source{}, Pipelines: true})
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
		assert.NotEmpty(t, r.Catches, r.Name)
		assert.NotEmpty(t, r.Misses, r.Name)
	}
	streamChecks := []string{"late-records", "watermark-lag", "recount", "window-counts", "join-recount"}
	jobChecks := []string{"checkpoint-duration", "checkpoint-size", "partition-lag", "average-lag", "dropped-records"}
	core := slices.DeleteFunc(slices.Clone(check.Names), func(n string) bool {
		return n == "consumer-lag" || n == "version-order" || n == "offset-gap" || slices.Contains(streamChecks, n) || slices.Contains(jobChecks, n)
	})
	assert.Equal(t, core, names, "an empty Enabled runs every check, in order; the log's only when there is a log, the stream's only when there is a stream")
	rs = check.Evaluate(check.DefaultConfig(), check.Observation{Source: source{}, Log: &check.LogView{}})
	names = names[:0]
	for _, r := range rs {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"gap-scan", "uniqueness", "consumer-lag", "version-order", "offset-gap"}, names,
		"without a pipeline, none of the checks of marks and runs is listed")
	rs = check.Evaluate(only("monotonicity"), check.Observation{Source: source{}})
	require.Len(t, rs, 1, "a check line runs its check, pipeline or not")
	assert.Equal(t, check.NotRun, rs[0].Status)
	rs = check.Evaluate(check.DefaultConfig(), check.Observation{Source: source{}, Pipelines: true, Log: &check.LogView{}, Stream: &check.StreamView{}})
	names = names[:0]
	for _, r := range rs {
		names = append(names, r.Name)
	}
	windowChecks := []string{"late-records", "recount", "window-counts", "join-recount"}
	assert.Equal(t, slices.DeleteFunc(slices.Clone(check.Names), func(n string) bool { return slices.Contains(jobChecks, n) || slices.Contains(windowChecks, n) }), names,
		"a stream with no window, join, checkpoint, buffer, sink or aggregate runs only watermark-lag of the stream's checks")
	rs = check.Evaluate(check.DefaultConfig(), check.Observation{Source: source{}, Pipelines: true, Log: &check.LogView{}, Stream: &check.StreamView{
		Operators: []check.StreamOperator{{}}, Windows: []check.WindowCount{{}}, Joins: []check.JoinCount{{}}, Job: &check.JobView{}}})
	names = names[:0]
	for _, r := range rs {
		names = append(names, r.Name)
		assert.NotEmpty(t, r.Catches, r.Name)
		assert.NotEmpty(t, r.Misses, r.Name)
	}
	assert.Equal(t, check.Names, names, "with a log and a stream, every check runs")
	assert.Equal(t, []string{"reconciliation-same-window", "reconciliation-closed-interval"}, check.Family("reconciliation"))
	assert.Nil(t, check.Family("nonsense"))
}

func TestMonotonicity(t *testing.T) {
	cfg := only("monotonicity")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{}).Status)
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 7, 7, 9)}}).Status)
	r := one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 7, 5)}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "mark extract went backwards from 10:00:07 to 10:00:05 at 10:00:02 without a reset", r.Detail)
	r = one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 7, -3, 5)}})
	assert.Equal(t, check.Pass, r.Status, "an explicit reset may move the mark back")
	assert.Equal(t, "3 stored values, none lower than the one before, besides 1 reset by an operator, from which it starts afresh", r.Detail,
		"the reset is counted apart, and said, beside the values the marks line shows")
}

// TestMarkChecksWithoutMarks: pipelines that read closed intervals keep no
// mark, and the checks of marks say so rather than wait for one.
func TestMarkChecksWithoutMarks(t *testing.T) {
	for _, name := range []string{"monotonicity", "rate-of-change", "zero-advance"} {
		yet := one(t, only(name), check.Observation{Pipelines: true, Marks: []check.MarkSeries{series()}})
		assert.Equal(t, check.NotRun, yet.Status, name)
		assert.NotContains(t, yet.Detail, "keeps a mark", "%s: a mark pipeline that has not stored yet", name)
		never := one(t, only(name), check.Observation{Pipelines: true})
		assert.Equal(t, check.NotRun, never.Status, name)
		assert.Equal(t, "no pipeline keeps a mark: each run reads an interval that has ended, so there is none to watch", never.Detail, name)
	}
}

func TestRateOfChange(t *testing.T) {
	cfg := only("rate-of-change")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2)}}).Status)
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 4, 6, 8, 10)}}).Status)
	stall := one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 4, 4, 4, 4)}})
	assert.Equal(t, check.Fail, stall.Status)
	assert.Contains(t, stall.Detail, "has not advanced for 3 runs in a row")
	jump := one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 4, 6, 8, 30)}})
	assert.Equal(t, check.Fail, jump.Status)
	assert.Contains(t, jump.Detail, "jumped by 22s")
}

// TestRateOfChangePerMark: a rate is a mark's own. Two marks with one value
// each have no rate between them, and a move backwards is no advance.
func TestRateOfChangePerMark(t *testing.T) {
	cfg := only("rate-of-change")
	eu, us := series(2), series(5)
	eu.Name, us.Name = "extract/orders_eu", "extract/orders_us"
	r := one(t, cfg, check.Observation{Marks: []check.MarkSeries{eu, us}})
	assert.Equal(t, check.NotRun, r.Status, "one value per mark is no rate: %s", r.Detail)

	back := check.MarkSeries{Name: "extract", Points: []check.MarkPoint{
		{Step: 1, Value: 1002, Set: true, Display: "lsn 1002", At: at(1)},
		{Step: 2, Value: 1001, Set: true, Display: "lsn 1001", At: at(2)},
	}}
	r = one(t, cfg, check.Observation{Marks: []check.MarkSeries{back}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "mark extract went from lsn 1002 back to lsn 1001 at 10:00:02: a move backwards is no advance", r.Detail)

	r = one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 4, 6), us}})
	assert.Equal(t, check.Pass, r.Status)
	assert.Equal(t, "1 mark kept advancing, never stuck for 3 runs in a row nor jumping past 5× its usual advance; extract/orders_us has fewer than two stored values to measure", r.Detail)
	// A reset may move a mark back; the advance after it is measured from it.
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{Marks: []check.MarkSeries{series(2, 4, -1, 3)}}).Status)
}

// TestRateOfChangeCountsPositions: a position mark's advance is counted in
// positions, one of them in the singular (it said "1 positions").
func TestRateOfChangeCountsPositions(t *testing.T) {
	lsn := check.MarkSeries{Name: "extract"}
	for i, v := range []int64{1001, 1002, 1003, 1004, 1019} {
		lsn.Points = append(lsn.Points, check.MarkPoint{Step: i + 1, At: at(i), Value: v, Set: true, Display: "lsn " + strconv.FormatInt(v, 10), Run: i})
	}
	r := one(t, only("rate-of-change"), check.Observation{Marks: []check.MarkSeries{lsn}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "mark extract jumped by 15 positions at 10:00:04, over 5× its usual advance of 1 position", r.Detail)
}

// TestLagAlertsCountOneRecord: an alert of max=1 is one record, not "1
// records", passed or failed.
func TestLagAlertsCountOneRecord(t *testing.T) {
	job := func(peak int64) check.Observation {
		return check.Observation{Stream: &check.StreamView{Job: &check.JobView{
			Lags:     []check.PartitionLag{{Stream: "s", Partition: "orders-0", Peak: peak}},
			Averages: []check.AverageLag{{Stream: "s", Peak: float64(peak), Partitions: 1}},
		}}}
	}
	part, avg := only("partition-lag"), only("average-lag")
	part.MaxPartitionLag, avg.MaxAverageLag = 1, 1
	assert.Equal(t, "every partition's lag stayed within 1 record; the largest, orders-0, reached 1", one(t, part, job(1)).Detail)
	assert.Equal(t, "a partition's lag passed the alert's 1 record: s on orders-0 reached 2", one(t, part, job(2)).Detail)
	assert.Equal(t, "within the alert's 1 record: s's average over 1 partition peaked at 1.0", one(t, avg, job(1)).Detail)
	assert.Equal(t, "above the alert's 1 record: s's average over 1 partition peaked at 2.0", one(t, avg, job(2)).Detail)
	part.MaxPartitionLag = 0
	assert.Equal(t, "a partition's lag passed the alert's 0 records: s on orders-0 reached 1", one(t, part, job(1)).Detail)
}

func TestReconcileSameWindow(t *testing.T) {
	cfg := only("reconciliation-same-window")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{Runs: []check.Run{{Finished: true, Aborted: true}}}).Status)
	// A crash after the mark moved and before the write: the run claimed its
	// window, and its log shows the shortfall.
	crash := one(t, cfg, check.Observation{Runs: []check.Run{{Crashed: true, Stored: true, At: at(4), SourceCount: 2}}})
	assert.Equal(t, check.Fail, crash.Status)
	assert.Contains(t, crash.Detail, "source counted 2, target received 0")
	// A crash before the mark was stored claims nothing: the next run reads
	// the window again, and a team's query over claimed windows skips it.
	early := one(t, cfg, check.Observation{Runs: []check.Run{{Crashed: true, At: at(4), SourceCount: 2, Written: 1}, {Finished: true, Stored: true, SourceCount: 2, Written: 2}}})
	assert.Equal(t, check.Pass, early.Status, early.Detail)
	assert.Equal(t, "1 run agrees with the source counted by the same column in the same window, as each run read (1 run, which crashed or gave up before claiming a window, not counted)", early.Detail,
		"the team's log shows two runs, and the detail says why it counts one")
	ok := []check.Run{{Finished: true, SourceCount: 2, Written: 2}, {Finished: true, Aborted: true, SourceCount: 5}}
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{Runs: ok}).Status)
	short := append(ok, check.Run{Finished: true, At: at(9), SourceCount: 3, Written: 1})
	r := one(t, cfg, check.Observation{Runs: short})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "1 of 2 runs wrote fewer rows than the source counted in the same window; first: run at 10:00:09: source counted 3, target received 1", r.Detail)
}

func TestReconcileClosedInterval(t *testing.T) {
	cfg := only("reconciliation-closed-interval")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{Source: source{}}).Status, "no closed interval")
	cfg.ClosedFrom, cfg.ClosedTo, cfg.HasClosed = at(0), at(6), true
	src := source{at(0), at(1), at(2), at(7)}
	before := one(t, cfg, check.Observation{Source: src})
	assert.Equal(t, check.NotRun, before.Status, "nothing has happened")
	assert.Equal(t, "the interval 10:00:00..10:00:06 has not closed: nothing has happened yet", before.Detail, "no time is named before the first event")
	open := one(t, cfg, check.Observation{Started: true, Now: at(6), Source: src})
	assert.Equal(t, check.NotRun, open.Status, "the interval is still open at its end")
	assert.Equal(t, "the interval 10:00:00..10:00:06 is still open at 10:00:06", open.Detail)
	target := []check.TargetRow{{Key: "1", UpdatedAt: at(0)}, {Key: "2", UpdatedAt: at(1)}, {Key: "3", UpdatedAt: at(2)}, {Key: "4", UpdatedAt: at(7)}}
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{Started: true, Now: at(7), Source: src, Target: target}).Status)
	r := one(t, cfg, check.Observation{Started: true, Now: at(7), Source: src, Target: target[1:]})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "counted at 10:00:07, after the interval closed, the source has 3 rows with updated_at in 10:00:00..10:00:06 and the target 2", r.Detail)
}

func TestZeroAdvance(t *testing.T) {
	cfg := only("zero-advance")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{}).Status)
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{Runs: []check.Run{{Finished: true, Advanced: true, Written: 1}, {Finished: true}}}).Status,
		"a run that wrote nothing and did not move the mark is fine")
	r := one(t, cfg, check.Observation{Runs: []check.Run{{Finished: true, Advanced: true, At: at(7), MarkBefore: "10:00:02", MarkAfter: "10:00:07"}}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "1 run moved the mark and wrote no rows: 10:00:07 (10:00:02 → 10:00:07)", r.Detail)
}

func TestOverlapReread(t *testing.T) {
	cfg := only("overlap-reread")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{}).Status)
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{Overlap: true, Runs: []check.Run{{OverlapRows: 3, OverlapKnown: 3}}}).Status)
	r := one(t, cfg, check.Observation{Overlap: true, Runs: []check.Run{{OverlapRows: 3, OverlapKnown: 3}, {OverlapRows: 2, OverlapKnown: 1}}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Contains(t, r.Detail, "the overlap re-read 5 rows; 4 already in the target, 1 new")

	// The run whose new row came closest to its window's far edge, as a
	// share of the window, is the one named: 8s of 10s, not 20s of 60s.
	r = one(t, cfg, check.Observation{Overlap: true, Runs: []check.Run{
		{OverlapRows: 2, OverlapKnown: 1, OverlapDepth: 20 * vtime.Second, Overlap: vtime.Minute},
		{OverlapRows: 2, OverlapKnown: 1, OverlapDepth: 8 * vtime.Second, Overlap: 10 * vtime.Second},
	}})
	assert.Equal(t, "the overlap re-read 4 rows; 2 already in the target, 2 new, the furthest stamped 8s behind the mark, in an overlap of 10s: late commits are reaching into the window, and one later than its far edge is lost without this check seeing it", r.Detail)
}

func TestGapScan(t *testing.T) {
	cfg := only("gap-scan")
	rows := func(keys ...string) []check.TargetRow {
		out := make([]check.TargetRow, len(keys))
		for i, k := range keys {
			out[i] = check.TargetRow{Key: k}
		}
		return out
	}
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{KeysInt: false, Target: rows("a")}).Status)
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{KeysInt: true}).Status, "empty target")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{KeysInt: true, Target: rows("1", "x")}).Status)
	assert.Equal(t, check.Pass, one(t, cfg, check.Observation{KeysInt: true, Target: rows("3", "1", "2", "2")}).Status)
	r := one(t, cfg, check.Observation{KeysInt: true, Target: rows("1", "5", "7")})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "4 ids missing between 1 and 7: 2–4, 6", r.Detail)

	// Past the holes it lists, it counts the ids left, not the holes.
	c := cfg
	c.GapScanLimit = 1
	r = one(t, c, check.Observation{KeysInt: true, Target: rows("1", "5", "7", "12")})
	assert.Equal(t, "8 ids missing between 1 and 12: 2–4, and 5 more ids", r.Detail)
	r = one(t, c, check.Observation{KeysInt: true, Target: rows("1", "5", "7")})
	assert.Equal(t, "4 ids missing between 1 and 7: 2–4, and 1 more id", r.Detail)

	// Keys at the ends of a bigint's range: the count of holes between
	// them passes an int64 and must not wrap to a negative number.
	r = one(t, cfg, check.Observation{KeysInt: true, Target: rows("-9223372036854775808", "0", "9223372036854775807")})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "18446744073709551613 ids missing between -9223372036854775808 and 9223372036854775807: -9223372036854775807–-1, 1–9223372036854775806", r.Detail)
}

func TestUniqueness(t *testing.T) {
	cfg := only("uniqueness")
	assert.Equal(t, check.NotRun, one(t, cfg, check.Observation{}).Status)
	r := one(t, cfg, check.Observation{Target: []check.TargetRow{{Key: "1"}, {Key: "2"}}, Collapsed: 3})
	assert.Equal(t, check.Pass, r.Status)
	assert.Equal(t, "2 keys, each once; the merge absorbed 3 duplicate writes", r.Detail)
	r = one(t, cfg, check.Observation{Target: []check.TargetRow{{Key: "10"}, {Key: "2"}, {Key: "10"}, {Key: "2"}, {Key: "2"}}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Equal(t, "2 keys appear more than once: 2 ×3, 10 ×2", r.Detail)
	// Keys far apart are ordered as numbers, not by a difference that wraps.
	r = one(t, cfg, check.Observation{Target: []check.TargetRow{{Key: "9223372036854775807"}, {Key: "-2"}, {Key: "9223372036854775807"}, {Key: "-2"}}})
	assert.Equal(t, "2 keys appear more than once: -2 ×2, 9223372036854775807 ×2", r.Detail)
}

// TestRateOfChangeOverAMillionValues: the check keeps its median as it
// goes instead of sorting every advance so far at each new one, which took
// 24 s for 100,000 runs and never finished for a million. The deadline is
// a guard against that quadratic cost coming back, far above the second
// or so the check takes; BenchmarkRateOfChange measures it.
func TestRateOfChangeOverAMillionValues(t *testing.T) {
	s := steady(1_000_000)
	done := make(chan check.Result, 1)
	go func() { done <- one(t, only("rate-of-change"), check.Observation{Marks: []check.MarkSeries{s}}) }()
	select {
	case r := <-done:
		assert.Equal(t, check.Pass, r.Status, r.Detail)
	case <-time.After(60 * time.Second):
		t.Fatal("rate-of-change over a million stored values did not finish in 60 s")
	}
	// The same series with a jump at its end: the median is still the usual advance.
	s.Points = append(s.Points, check.MarkPoint{Step: len(s.Points) + 1, Value: s.Points[len(s.Points)-1].Value + 50_000, Set: true, Run: len(s.Points)})
	r := one(t, only("rate-of-change"), check.Observation{Marks: []check.MarkSeries{s}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Contains(t, r.Detail, "its usual advance of 1s")
}

// steady is a timestamp mark stored n times, advancing by one to three
// seconds each time.
func steady(n int) check.MarkSeries {
	s := check.MarkSeries{Name: "extract", Timestamp: true, Points: make([]check.MarkPoint, n)}
	v := int64(0)
	for i := range s.Points {
		v += int64(1000 * (1 + i%3%2)) // 1s, 2s, 1s, 1s, 2s, 1s, …
		s.Points[i] = check.MarkPoint{Step: i + 1, Value: v, Set: true, Run: i}
	}
	return s
}

func BenchmarkRateOfChange(b *testing.B) {
	s := steady(100_000)
	cfg := only("rate-of-change")
	for b.Loop() {
		check.Evaluate(cfg, check.Observation{Marks: []check.MarkSeries{s}})
	}
}

// The late-records check reads a window's numLateRecordsDropped; an
// interval join has no such counter, so what a join drops never shows, and
// a join alone leaves the check nothing to read.
func TestLateRecordsHasNoJoinCounter(t *testing.T) {
	join := check.StreamOperator{Name: "paid_orders", Join: true, EventTime: true, SideOutput: 2}
	r := one(t, only("late-records"), check.Observation{Stream: &check.StreamView{Operators: []check.StreamOperator{join}}})
	assert.Equal(t, check.NotRun, r.Status)
	assert.Contains(t, r.Detail, "paid_orders, an interval join, drops late records without counting them")
	assert.Contains(t, r.Detail, "paid_orders sent 2 to its side output")

	win := check.StreamOperator{Name: "per_minute", EventTime: true, Dropped: 3}
	r = one(t, only("late-records"), check.Observation{Stream: &check.StreamView{Operators: []check.StreamOperator{win, join}}})
	assert.Equal(t, check.Fail, r.Status)
	assert.Contains(t, r.Detail, "per_minute dropped 3 late records")
	assert.NotContains(t, r.Detail, "paid_orders dropped")
}
