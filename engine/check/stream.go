package check

import (
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/vtime"
)

// StreamView is what a team running stream jobs can see: each operator's
// metrics (Flink's late-records counter), each stream's watermark as its
// monitoring sampled it, the tables windows and joins write, and what a
// batch query over the topics (as retention still holds them) counts.
type StreamView struct {
	Operators []StreamOperator
	Lags      []WatermarkLag
	Windows   []WindowCount
	Joins     []JoinCount
	Job       *JobView // checkpoints, read lag, buffers and tables loaded by sinks and aggregates; nil when the scenario has none of them
}

// JobView is what a team sees of a stream job's second half: its
// checkpoints as the job's monitoring lists them, each partition's lag as
// the source's metrics report it (and the average a dashboard shows),
// each buffer's dropped-records counter, and the tables its sinks and
// aggregates load, beside the topic counted again.
type JobView struct {
	Checkpoints []CheckpointView
	Lags        []PartitionLag
	Averages    []AverageLag
	Buffers     []BufferView
	Tables      []TableCount
}

// CheckpointView is one checkpoint in the job's checkpoint history.
type CheckpointView struct {
	ID        int
	Completed bool           // it completed; false: it expired or was abandoned
	Running   bool           // it is still in flight
	Duration  vtime.Duration // how long it took, or has taken
	Size      int            // bytes of state and positions
}

// PartitionLag is the largest lag one partition reached: records appended
// and not yet read.
type PartitionLag struct {
	Stream, Partition string
	Peak              int64
}

// AverageLag is the largest average lag over a stream's partitions.
type AverageLag struct {
	Stream     string
	Peak       float64
	Partitions int
}

// BufferView is one operator's input buffer and its dropped-records counter.
type BufferView struct {
	Operator string
	Overflow string
	Dropped  int64
}

// TableCount is a table loaded by a sink or an aggregate beside the same
// count from the topic: rows against the events the topic still holds, or
// each key's value against the key's records counted again.
type TableCount struct {
	Operator, Target string
	Rows, Expected   int
	Wrong            []string // keys whose value differs from the recount, as "KEY: table N, topic M"
}

// StreamOperator is one window or join as its metrics show it.
type StreamOperator struct {
	Name       string
	Join       bool
	EventTime  bool  // it measures event time, so it can find records late
	Dropped    int64 // numLateRecordsDropped
	SideOutput int64 // late records sent to the side output, which the counter leaves out
}

// WatermarkLag is one operator's watermark lag (processing time minus the
// watermark it works to: its stream's for a window, the combined one of
// its inputs for a join), as a monitoring system sampling it at every step
// saw it.
type WatermarkLag struct {
	Operator string
	Max      vtime.Duration // the largest lag sampled
	At       vtime.Time     // when it was sampled
	Sampled  bool           // the operator had a watermark at some step
}

// WindowCount is one window's result as the team can see it: the values
// its row in the target held over time, and, once the window has closed, the
// same aggregate counted again from the topic.
type WindowCount struct {
	Operator string
	Key      string  // the row's key in the target: KEY@START, or START for a window over every key
	Window   string  // its bounds, [10:01:00, 10:02:00)
	Agg      string  // count, sum, min or max
	Written  []int64 // the values written for it, oldest first; empty when nothing was
	Closed   bool    // its end (plus the allowed lateness) is behind the watermark, or the clock for processing time
	Recount  int64   // the aggregate over its records still in the topic, by event time
	Counted  bool    // Recount was computed: the window is closed and of a kind a batch query can recount
}

// JoinCount is one join's target beside a batch join of its two topics.
type JoinCount struct {
	Operator string
	Expected int // pairs the batch join finds among the records retention still holds
	Absent   int // of those, pairs the join's target does not have
}

func isStreamCheck(name string) bool {
	switch name {
	case "late-records", "watermark-lag", "recount", "window-counts", "join-recount":
		return true
	}
	return isJobCheck(name)
}

// isJobCheck reports whether a check reads the JobView, which only a
// scenario with checkpoints, buffers, sinks or aggregates has.
func isJobCheck(name string) bool {
	switch name {
	case "checkpoint-duration", "checkpoint-size", "partition-lag", "average-lag", "dropped-records":
		return true
	}
	return false
}

func init() {
	About["late-records"] = [2]string{
		"records a window or a join dropped for arriving after the watermark passed their window (Flink's numLateRecordsDropped)",
		"late records sent to a side output, which the counter leaves out; and every record a processing-time window put in the wrong window, which is never late",
	}
	About["watermark-lag"] = [2]string{
		"a watermark held back: a quiet partition, a stalled fetch, a slow input of a join; results come late",
		"a watermark that runs ahead of the data, which keeps the lag small while it drops the slower partitions' records",
	}
	About["recount"] = [2]string{
		"a closed window whose published value differs from its records counted again from the topic: dropped late data, wrong windows",
		"windows not closed yet, and records retention has already deleted, which the recount cannot see either",
	}
	About["window-counts"] = [2]string{
		"a window whose published value changed after it was first written: the first report was wrong",
		"a window that was short and never corrected, which keeps the one value it was given",
	}
	About["checkpoint-duration"] = [2]string{
		"checkpoints that take longer than the alert, or expire: barriers stuck behind buffered records, state too large to write in time",
		"a checkpoint that completes quickly while what it holds is wrong, and whatever the sinks do with a replay",
	}
	About["checkpoint-size"] = [2]string{
		"state that is never released: each checkpoint larger than the one before",
		"state that is large but steady, and losses a time to live causes by releasing state too soon",
	}
	About["partition-lag"] = [2]string{
		"one partition falling behind: a hot key pinned to a saturated reader, a stalled fetch, a reader that waits on a full buffer",
		"records that are read on time and then dropped, lost in a buffer, or written twice",
	}
	About["average-lag"] = [2]string{
		"a whole job falling behind",
		"one partition falling behind while the others keep up: the average hides the saturated reader",
	}
	About["dropped-records"] = [2]string{
		"records a full buffer shed (load shedding), as the operator's counter reports them",
		"records lost in a buffer that grew without bound when the job failed, which no counter sees",
	}
	About["join-recount"] = [2]string{
		"pairs a batch join of the two topics finds that the stream join never emitted: rows that silently never joined",
		"pairs whose records retention has already deleted",
	}
}

// evaluateStream runs one of the stream checks.
func evaluateStream(name string, cfg Config, o Observation) Result {
	if o.Stream == nil {
		return Result{Status: NotRun, Detail: "the scenario has no stream job"}
	}
	switch name {
	case "late-records":
		return lateRecords(cfg, o)
	case "watermark-lag":
		return watermarkLag(cfg, o)
	case "recount":
		return recount(o)
	case "window-counts":
		return windowCounts(o)
	case "join-recount":
		return joinRecount(cfg, o)
	}
	return evaluateJob(name, cfg, o)
}

func lateRecords(cfg Config, o Observation) Result {
	var measured, over, aside []string
	for _, op := range o.Stream.Operators {
		// A processing-time window has the counter too; it is never late,
		// so it stays at zero.
		measured = append(measured, op.Name)
		if op.Dropped > int64(cfg.MaxLate) {
			over = append(over, prose.F("%s dropped %s", op.Name, plural(int(op.Dropped), "late record", "late records")))
		}
		if op.SideOutput > 0 {
			aside = append(aside, prose.F("%s sent %d to its side output, which the counter leaves out", op.Name, op.SideOutput))
		}
	}
	if len(measured) == 0 {
		return Result{Status: NotRun, Detail: "no window or join runs, so no operator counts late records"}
	}
	tail := ""
	if len(aside) > 0 {
		tail = "; " + strings.Join(aside, "; ")
	}
	if len(over) > 0 {
		limit := ""
		if cfg.MaxLate > 0 {
			limit = prose.F(" (the alert allows %d)", cfg.MaxLate)
		}
		return Result{Status: Fail, Detail: prose.F("numLateRecordsDropped: %s%s%s", strings.Join(over, "; "), limit, tail)}
	}
	return Result{Status: Pass, Detail: prose.F("numLateRecordsDropped is within the alert for %s%s", strings.Join(measured, ", "), tail)}
}

func watermarkLag(cfg Config, o Observation) Result {
	var over, within []string
	for _, l := range o.Stream.Lags {
		if !l.Sampled {
			continue
		}
		s := prose.F("%s at most %s (at %s)", l.Operator, l.Max, l.At)
		if l.Max > cfg.WatermarkLag {
			over = append(over, s)
		} else {
			within = append(within, s)
		}
	}
	if len(over)+len(within) == 0 {
		return Result{Status: NotRun, Detail: "no window or join has a watermark yet"}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: prose.F("watermark lag above the alert's %s: %s", cfg.WatermarkLag, strings.Join(over, "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("watermark lag within the alert's %s: %s", cfg.WatermarkLag, strings.Join(within, "; "))}
}

func recount(o Observation) Result {
	written, counted := false, 0
	var wrong []string
	one, many := "closed window", "closed windows"
	if j := o.Stream.Job; j != nil && len(j.Tables) > 0 {
		one, many = "closed window or table", "closed windows and tables"
		if len(o.Stream.Windows) == 0 {
			one, many = "table", "tables"
		}
		for _, tc := range j.Tables {
			written = written || tc.Rows > 0
			counted++
			switch {
			case len(tc.Wrong) > 0:
				wrong = append(wrong, prose.F("%s's table %s: %s", tc.Operator, tc.Target, strings.Join(limit(tc.Wrong, 3), "; ")))
			case tc.Rows != tc.Expected:
				wrong = append(wrong, prose.F("%s has %s for the %s the topic still holds", tc.Target, plural(tc.Rows, "row", "rows"), plural(tc.Expected, "event", "events")))
			}
		}
	}
	for _, w := range o.Stream.Windows {
		written = written || len(w.Written) > 0
		if !w.Counted {
			continue
		}
		counted++
		got := int64(0)
		if len(w.Written) > 0 {
			got = w.Written[len(w.Written)-1]
		}
		if got != w.Recount || len(w.Written) == 0 && w.Recount != 0 {
			pub := prose.F("%d", got)
			if len(w.Written) == 0 {
				pub = "no row"
			}
			wrong = append(wrong, prose.F("%s %s %s: the table says %s, the topic %d", w.Operator, w.Key, w.Agg, pub, w.Recount))
		}
	}
	switch {
	case !written && counted == 0:
		return Result{Status: NotRun, Detail: "no window has written a result to a table yet"}
	case counted == 0:
		return Result{Status: NotRun, Detail: "no window that a batch query can recount has closed yet"}
	case len(wrong) > 0:
		return Result{Status: Fail, Detail: prose.F("%d of %s differ from the topic: %s", len(wrong), plural(counted, one, many), strings.Join(limit(wrong, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s, each as the topic counts it", plural(counted, one, many))}
}

func windowCounts(o Observation) Result {
	written := 0
	var changed []string
	for _, w := range o.Stream.Windows {
		if len(w.Written) == 0 {
			continue
		}
		written++
		first := w.Written[0]
		for _, v := range w.Written[1:] {
			if v != first {
				vals := make([]string, len(w.Written))
				for i, x := range w.Written {
					vals[i] = prose.F("%d", x)
				}
				changed = append(changed, prose.F("%s %s went %s", w.Operator, w.Key, strings.Join(limit(vals, 6), " → ")))
				break
			}
		}
	}
	switch {
	case written == 0:
		return Result{Status: NotRun, Detail: "no window has written a result to a table yet"}
	case len(changed) > 0:
		return Result{Status: Fail, Detail: prose.F("%s changed after first published: %s", plural(len(changed), "window's value", "windows' values"), strings.Join(limit(changed, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s written, none changed afterwards", plural(written, "window", "windows"))}
}

func joinRecount(cfg Config, o Observation) Result {
	if len(o.Stream.Joins) == 0 {
		return Result{Status: NotRun, Detail: "no join writes a table"}
	}
	var over, ok []string
	for _, j := range o.Stream.Joins {
		s := prose.F("%s lacks %d of the %d pairs a batch join of its topics finds", j.Operator, j.Absent, j.Expected)
		if j.Absent > cfg.MaxUnjoined {
			over = append(over, s)
		} else {
			ok = append(ok, s)
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: strings.Join(over, "; ")}
	}
	return Result{Status: Pass, Detail: strings.Join(ok, "; ")}
}

// evaluateJob runs one of the checks of a job's checkpoints, lag and buffers.
func evaluateJob(name string, cfg Config, o Observation) Result {
	j := o.Stream.Job
	if j == nil {
		return Result{Status: NotRun, Detail: "the stream job takes no checkpoints and has no buffers, sinks or aggregates"}
	}
	switch name {
	case "checkpoint-duration":
		return checkpointDuration(cfg, j)
	case "checkpoint-size":
		return checkpointSize(j)
	case "partition-lag":
		return partitionLag(cfg, j)
	case "average-lag":
		return averageLag(cfg, j)
	}
	return droppedRecords(cfg, j)
}

func checkpointDuration(cfg Config, j *JobView) Result {
	limitD := cfg.CheckpointDuration
	if limitD <= 0 {
		limitD = 30 * vtime.Second
	}
	var slow, failed []string
	done := 0
	var longest vtime.Duration
	for _, c := range j.Checkpoints {
		switch {
		case c.Completed:
			done++
			longest = max(longest, c.Duration)
			if c.Duration > limitD {
				slow = append(slow, prose.F("checkpoint %d took %s", c.ID, c.Duration))
			}
		case c.Running:
			if c.Duration > limitD {
				slow = append(slow, prose.F("checkpoint %d has run for %s", c.ID, c.Duration))
			}
		default:
			failed = append(failed, prose.F("checkpoint %d failed after %s", c.ID, c.Duration))
		}
	}
	if len(j.Checkpoints) == 0 {
		return Result{Status: NotRun, Detail: "no checkpoint has begun"}
	}
	if len(slow)+len(failed) > 0 {
		return Result{Status: Fail, Detail: prose.F("above the alert's %s or failed: %s", limitD, strings.Join(limit(append(failed, slow...), 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s completed, the longest in %s (the alert allows %s)", plural(done, "checkpoint", "checkpoints"), longest, limitD)}
}

// checkpoint-size fails when growthRun completed checkpoints in a row are
// each at least growthPercent larger than the one before: a trend, not one
// large state, nor the few bytes larger numbers take.
const (
	growthRun     = 4
	growthPercent = 5
)

func checkpointSize(j *JobView) Result {
	var sizes []int
	for _, c := range j.Checkpoints {
		if c.Completed {
			sizes = append(sizes, c.Size)
		}
	}
	if len(sizes) < 2 {
		return Result{Status: NotRun, Detail: "fewer than two checkpoints have completed"}
	}
	// The longest run of checkpoints each larger than the one before.
	run, best, end := 1, 1, 0
	for i := 1; i < len(sizes); i++ {
		if sizes[i]*100 >= sizes[i-1]*(100+growthPercent) {
			run++
		} else {
			run = 1
		}
		if run > best {
			best, end = run, i
		}
	}
	if best >= growthRun {
		grew := sizes[end-best+1 : end+1]
		shown := make([]string, len(grew))
		for i, x := range grew {
			shown[i] = prose.F("%d", x)
		}
		return Result{Status: Fail, Detail: prose.F("%d checkpoints in a row each grew by %d%% or more: %s bytes; state that is never released", best, growthPercent, strings.Join(limit(shown, 8), " → "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s completed, from %d to %d bytes; none grew by %d%% or more %d times in a row", plural(len(sizes), "checkpoint", "checkpoints"), sizes[0], sizes[len(sizes)-1], growthPercent, growthRun)}
}

func partitionLag(cfg Config, j *JobView) Result {
	if len(j.Lags) == 0 {
		return Result{Status: NotRun, Detail: "no stream reads a partition"}
	}
	maxLag := cfg.MaxPartitionLag
	var over []string
	var worst PartitionLag
	for _, l := range j.Lags {
		if l.Peak > worst.Peak || worst.Partition == "" {
			worst = l
		}
		if l.Peak > int64(maxLag) {
			over = append(over, prose.F("%s on %s reached %d", l.Stream, l.Partition, l.Peak))
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: prose.F("a partition's lag passed the alert's %d records: %s", maxLag, strings.Join(limit(over, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("every partition's lag stayed within %d records; the largest, %s, reached %d", maxLag, worst.Partition, worst.Peak)}
}

func averageLag(cfg Config, j *JobView) Result {
	if len(j.Averages) == 0 {
		return Result{Status: NotRun, Detail: "no stream reads a partition"}
	}
	maxLag := float64(cfg.MaxAverageLag)
	var over, within []string
	for _, a := range j.Averages {
		s := prose.F("%s's average over %d partitions peaked at %s", a.Stream, a.Partitions, oneDecimal(a.Peak))
		if a.Peak > maxLag {
			over = append(over, s)
		} else {
			within = append(within, s)
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: prose.F("above the alert's %d records: %s", cfg.MaxAverageLag, strings.Join(over, "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("within the alert's %d records: %s", cfg.MaxAverageLag, strings.Join(within, "; "))}
}

// oneDecimal spells x with one decimal, as a dashboard would.
func oneDecimal(x float64) string {
	n := int64(x*10 + 0.5)
	return prose.F("%d.%d", n/10, n%10)
}

func droppedRecords(cfg Config, j *JobView) Result {
	if len(j.Buffers) == 0 {
		return Result{Status: NotRun, Detail: "no operator has an input buffer"}
	}
	var over, ok []string
	for _, b := range j.Buffers {
		s := prose.F("%s dropped %s", b.Operator, plural(int(b.Dropped), "record", "records"))
		if b.Dropped > int64(cfg.MaxDropped) {
			over = append(over, s)
		} else {
			ok = append(ok, s)
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: strings.Join(over, "; ")}
	}
	return Result{Status: Pass, Detail: strings.Join(ok, "; ")}
}
