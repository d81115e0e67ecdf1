package check

import (
	"github.com/tidemark/tidemark/engine/nocmp"
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
// the source's metrics report it (and the average a dashboard shows), or,
// while the job is down and reports none, as the Kafka group's committed
// offsets give it; each buffer's dropped-records counter, and the tables
// its sinks and aggregates load, beside the topic counted again.
type JobView struct {
	Checkpoints []CheckpointView
	Lags        []PartitionLag
	Averages    []AverageLag
	Buffers     []BufferView
	Tables      []TableCount
}

// CheckpointView is one checkpoint in the job's checkpoint history.
type CheckpointView struct {
	_         nocmp.NoCompare
	ID        int
	Completed bool           // it completed; false: it expired or was abandoned
	Running   bool           // it is still in flight
	Duration  vtime.Duration // how long it took, or has taken
	Size      int            // bytes of state and positions
}

// PartitionLag is the largest lag one partition reached: records appended
// and not yet read, or, while the job was down, not yet committed.
type PartitionLag struct {
	_                 nocmp.NoCompare
	Stream, Partition string
	Peak              int64
}

// AverageLag is the largest average lag over a stream's partitions.
type AverageLag struct {
	_          nocmp.NoCompare
	Stream     string
	Peak       float64
	Partitions int
}

// BufferView is one operator's input buffer and its dropped-records counter.
type BufferView struct {
	_        nocmp.NoCompare
	Operator string
	Overflow string
	Dropped  int64
}

// TableCount is a table loaded by a sink or an aggregate beside the same
// count from the topic: rows against the events the topic still holds, or
// each key's value against the key's records counted again.
type TableCount struct {
	Operator, Target string
	Rows, Expected   int      // a sink's rows of the events the topic still holds, and those events
	Gone             int      // a sink's rows of events retention has deleted from the topic, which no recount can match
	Wrong            []string // keys whose value differs from the recount, as "KEY: table N, topic M"
}

// StreamOperator is one window or join as its metrics show it.
type StreamOperator struct {
	_          nocmp.NoCompare
	Name       string
	Join       bool
	EventTime  bool  // it measures event time, so it can find records late
	Dropped    int64 // numLateRecordsDropped; a join has no such counter (Flink's interval join drops a late record uncounted), so 0
	SideOutput int64 // late records sent to the side output, which the counter leaves out
}

// WatermarkLag is one operator's watermark lag (processing time minus the
// watermark it works to: its stream's for a window, the combined one of
// its inputs for a join), as a monitoring system sampling it at every step
// saw it.
type WatermarkLag struct {
	_        nocmp.NoCompare
	Operator string
	Max      vtime.Duration // the largest lag sampled
	At       vtime.Time     // when it was sampled
	Sampled  bool           // the operator had a watermark at some step
	// Without is the longest the operator went with input but no
	// watermark at all, by WithoutAt: Flink reports such a watermark as
	// Long.MIN_VALUE, which a lag alert sees as a lag without bound.
	Without   vtime.Duration
	WithoutAt vtime.Time
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
	Session  bool    // a session window, whose bounds its own records' gaps decide: a recount by bounds cannot redraw them
}

// JoinCount is one join's target beside a batch join of its two topics.
type JoinCount struct {
	_        nocmp.NoCompare
	Operator string
	Expected int // pairs the batch join finds among the records retention still holds
	Absent   int // of those, pairs the join's target does not have
}

// has reports whether the streams have what the stream check name reads:
// windows for late-records and window-counts, joins for join-recount,
// windows or a job's loaded tables for recount. Any other check, yes.
func (v *StreamView) has(name string) bool {
	switch name {
	case "late-records":
		return len(v.Operators) > 0
	case "window-counts":
		return len(v.Windows) > 0
	case "join-recount":
		return len(v.Joins) > 0
	case "recount":
		return len(v.Windows) > 0 || v.Job != nil && len(v.Job.Tables) > 0
	}
	return true
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
	return evaluateStreamOf(name, cfg, o)
}
