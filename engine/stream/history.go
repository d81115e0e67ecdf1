package stream

import (
	"slices"
	"strconv"

	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/window"
)

// This file holds the history of the stream world's second part (see
// docs/architecture.md, "The stream world"): the job's checkpoints,
// failures and restores, each operator's buffer, state and transactions,
// the rows the operators emitted, what the scenario's readers saw, and each
// partition's read position. Like the rest of the Trace, each table is in
// step order, so a panel or a check reads any step without replaying.

// OpHistory is one operator of the job, as declared: a window, a join, an
// aggregate or a sink, in the order the scenario declares them. Its series
// record each change with the step it happened at.
type OpHistory struct {
	Name      string
	Kind      string // window, join, aggregate or sink
	Stream    string // the stream it reads (the left one for a join)
	Target    string // the table it writes, or ""
	Commit    string // auto or two-phase; "" without a target
	Cost      vtime.Duration
	Buffer    int    // the input buffer's capacity in records; 0: it has none
	Overflow  string // block, grow or drop, with a buffer
	Memory    int    // with overflow=grow: the records its memory holds; past them the task fails, 0: no limit
	TTL       vtime.Duration
	ByKey     bool         // a sink's dedup knows records by their key (dedup=key), not their event id
	Agg       window.Agg   // an aggregate's: count, sum, min or max
	Queue     []CountPoint // records in its input buffer, from Step on
	State     []CountPoint // entries its state holds, from Step on: keys, windows, buffered records or ids
	Pending   []CountPoint // rows written into transactions not yet committed, from Step on
	Written   []CountPoint // rows it has made visible in its target so far, from Step on
	Collapsed []CountPoint // writes its target's merge absorbed so far, from Step on
	Processed []int32      // the steps at which it took a record off its buffer
	Costs     []CostPoint  // its cost per record from Step on, when a fault slows it
}

// CountPoint is a count from Step on.
type CountPoint struct {
	Step int32
	N    int32
}

// CostPoint is a cost per record from Step on.
type CostPoint struct {
	_    nocmp.NoCompare
	Step int32
	Cost vtime.Duration
}

// countAt is the last count of xs at or before step n, 0 before any.
func countAt(xs []CountPoint, n int) int32 {
	i := stepIndex(len(xs), n, func(i int) int32 { return xs[i].Step })
	if i == 0 {
		return 0
	}
	return xs[i-1].N
}

// JobHistory is the stream job as a whole: its checkpoints, its failures
// and restores, the two-phase-commit sinks' transactions, every row an
// aggregate or a sink emitted, every record a buffer shed, and the readers'
// snapshots of the tables.
type JobHistory struct {
	Every       vtime.Duration // the checkpoint interval; 0: no checkpoints
	From        vtime.Time     // the first trigger
	Timeout     vtime.Duration
	Checkpoints []CheckpointPoint // in order of ID: checkpoint id is Checkpoints[id-1]
	Failures    []FailPoint
	Restores    []RestorePoint
	Txns        []TxnPoint
	Outputs     []OutputPoint // rows sinks and aggregates wrote, for each record they took
	// Emitted holds the rows windows and joins wrote to their targets
	// (Record -1), kept only when the job has a history: with Outputs,
	// the states their tables passed through, which ReadVerdict judges
	// reads by.
	Emitted []OutputPoint
	Shed    []ShedPoint // records a full buffer dropped
	Dups    []ShedPoint // records a sink's dedup dropped as seen before
	Reads   []ReadSnapshot
}

// Checkpoint statuses.
const (
	CheckpointRunning   uint8 = iota // its barriers are on their way
	CheckpointCompleted              // every operator snapshot: restorable
	CheckpointExpired                // it did not complete within the timeout
	CheckpointAbandoned              // the job failed before it completed
)

// CheckpointStatus spells a checkpoint's status.
func CheckpointStatus(s uint8) string {
	return [...]string{"running", "completed", "expired", "abandoned"}[s]
}

// CheckpointPoint is one checkpoint: when it began and ended, what became
// of it, and what it holds.
type CheckpointPoint struct {
	ID             int32
	Begin, End     int32 // steps; End is 0 while it runs
	BeginAt, EndAt vtime.Time
	Status         uint8
	Final          bool      // taken when the input ended, to commit what was pending
	Positions      [][]int64 // by stream, by partition: the next offset to read
	Sizes          []int     // by operator: its snapshot's length in bytes; -1 until it is taken
	Snapshots      []int32   // by operator: the step it took its snapshot at, 0 until then
	Digests        []uint64  // by operator: a hash of its snapshot, to compare a restore with
	Buffered       int       // records in buffers without flow control when it began, which no snapshot holds
}

// Restored is the checkpoint restore r went back to, or nil when none had
// completed and the job started over.
func (h *JobHistory) Restored(r *RestorePoint) *CheckpointPoint {
	if r.From <= 0 || int(r.From) > len(h.Checkpoints) {
		return nil
	}
	return &h.Checkpoints[r.From-1]
}

// Size is the checkpoint's size in bytes: every operator's snapshot and
// eight bytes per input position.
func (c *CheckpointPoint) Size() int {
	n := 0
	for _, s := range c.Sizes {
		n += max(s, 0)
	}
	for _, ps := range c.Positions {
		n += 8 * len(ps)
	}
	return n
}

// Duration is how long the checkpoint took, or has taken by at.
func (c *CheckpointPoint) Duration(at vtime.Time) vtime.Duration {
	if c.End > 0 {
		return c.EndAt.Sub(c.BeginAt)
	}
	return at.Sub(c.BeginAt)
}

// FailPoint is the job failing.
type FailPoint struct {
	Step      int32
	At        vtime.Time
	Who       string // the stream or operator that failed
	Point     string // now, or where in a checkpoint: barrier, snapshot, commit; out-of-memory: Who's buffer passed its memory=; offset-out-of-range: Who's position was deleted by retention, under auto.offset.reset=none; checkpoint-expired: more checkpoints in a row expired than the job tolerates
	Ckpt      int32  // the checkpoint it interrupted, or 0
	RestartAt vtime.Time
	Aborted   int32 // rows of open transactions it rolled back
	Buffered  int32 // records its buffers held
	Down      bool  // the job gave up: it never restarts (see maxSameFailure)
	// Last is the index in the job's Checkpoints of the last checkpoint
	// completed before it, whose offsets a restore goes back to and
	// Kafka holds as the source's committed ones; -1 when none had.
	Last int32
}

// Where says where in the job's work the failure came, as a phrase that
// follows "failed": "at checkpoint 4's barrier", "for lack of memory", or
// "" for a failure at an instant of its own (point=now). The narration,
// the widget's checkpoint list and the text report all say it so.
func (fp *FailPoint) Where() string {
	switch fp.Point {
	case PointOutOfMemory:
		return "for lack of memory"
	case PointOutOfRange:
		return "for a position retention deleted"
	case PointExpired:
		return "for checkpoints that expired"
	case PointTxnTimeout:
		return "for a transaction the broker aborted"
	case "barrier", "snapshot", "commit":
		if fp.Ckpt > 0 {
			return "at checkpoint " + strconv.Itoa(int(fp.Ckpt)) + "'s " + fp.Point
		}
	}
	return ""
}

// RestorePoint is the job restarting after a failure.
type RestorePoint struct {
	Step    int32
	At      vtime.Time
	From    int32 // the checkpoint restored, 0: none had completed, so it starts over
	Failed  bool  // an input position was gone and auto.offset.reset=none: the job cannot start
	Resumed [][]checkpoint.Resumed
	Rewound int64 // records it will read again
	Skipped int64 // offsets it jumps over (retention deleted them, or the reset skipped them), some perhaps read before the failure
	Lost    int32 // records buffers without flow control held when the restored checkpoint began, whose effect the restore undoes
	// Aborted and Committed are the rows of two-phase-commit sinks'
	// prepared transactions that the restore rolled back (their checkpoint
	// never completed) and committed (the restored checkpoint's, or an
	// earlier one's). A restore that fails decides them too. Expired are
	// the rows of transactions it would have committed that the broker
	// had aborted already (txn-timeout=): lost.
	Aborted, Committed, Expired int32
	Exact                       bool // every operator's state restored is byte for byte what the checkpoint took
	Behind                      vtime.Duration
}

// TxnPoint is a two-phase-commit sink's transaction changing state.
type TxnPoint struct {
	_         nocmp.NoCompare
	Step      int32
	Op        int16
	ID        int32
	State     checkpoint.TxnState
	Rows      int32
	Recovered bool           // decided by a restore
	Wait      vtime.Duration // committed: how long its oldest row waited to become visible
}

// OutputPoint is one row an aggregate or a sink emitted, visible or not yet.
type OutputPoint struct {
	UpdatedAt vtime.Time
	Amount    int64
	Record    int64 // the record id it came from
	Step      int32
	Key       int32 // the core's key id of its row
	Seq       int32
	Op        int16
	Forward   bool // made while reading its input for the first time, not in a replay
	Restarted bool // an aggregate's key whose state had expired: it started again from empty
}

// ShedPoint is a record an operator's buffer dropped at Step (overflow=drop).
type ShedPoint struct {
	Step    int32
	Arrival int32
	Op      int16
}

// ReadSnapshot is what one reader saw of a table at Step.
type ReadSnapshot struct {
	Name, Target string
	Step         int32
	At           vtime.Time
	Uncommitted  bool // read-uncommitted: it sees rows of transactions not yet committed
	Rows         []ReadRow
	Pending      int // rows that transactions not yet committed add or change, which it did not see (read-committed)
}

// ReadRow is one row a reader saw.
type ReadRow struct {
	_       nocmp.NoCompare
	Key     string
	Amount  int64
	Seq     int32
	Pending bool // a row of a transaction not yet committed
}

// PosPoint is a partition's read position, the next offset, from Step on.
type PosPoint struct {
	Step int32
	Next int32
}

// AvgPoint is a new peak of the average lag over a stream's partitions.
type AvgPoint struct {
	_    nocmp.NoCompare
	Step int32
	Avg  float64
}

// topicOf is the topic a stream reads.
func (t *Trace) topicOf(sh *StreamHistory) *logs.TopicHistory {
	lt := logs.Of(t.t)
	if lt == nil || sh.topicIdx >= len(lt.Topics) {
		return nil
	}
	return lt.Topics[sh.topicIdx]
}

// PositionAt is the next offset stream i reads of partition p after step n.
func (t *Trace) PositionAt(i, p, n int) int64 {
	ps := t.Streams[i].Parts[p].Pos
	k := stepIndex(len(ps), n, func(i int) int32 { return ps[i].Step })
	if k == 0 {
		return 0
	}
	return int64(ps[k-1].Next)
}

// LagAt is partition p's lag for stream i after step n, as a team sees
// it: while the job runs, the log end less its position (what Flink's
// Kafka source reports as pending records); while it is down, and reports
// nothing, the log end less the offset it committed to Kafka (what
// kafka-consumer-groups reports as the group's lag; see CommittedAt).
func (t *Trace) LagAt(i, p, n int) int64 {
	sh := t.Streams[i]
	h := t.topicOf(sh)
	if h == nil || p >= len(h.Parts) {
		return 0
	}
	pos, down := t.CommittedAt(i, p, n)
	switch {
	case !down:
		pos = t.PositionAt(i, p, n)
	case pos < 0:
		// Nothing committed: counted from the log start, as the log
		// world counts a group's lag before its first commit.
		pos = h.Parts[p].StartAt(int32(n))
	}
	return max(0, int64(h.Parts[p].EndAt(int32(n)))-pos)
}

// CommittedAt is, when the job is down after step n, the offset of
// partition p that stream i's source last committed to Kafka, with down
// true. Flink's Kafka source commits its positions only when a checkpoint
// completes, so that is the last completed checkpoint's position, the one
// a restore goes back to, and not where the job had read to; before any
// checkpoint completed it committed nothing, and off is -1 (LagAt then
// counts from the log start).
func (t *Trace) CommittedAt(i, p, n int) (off int64, down bool) {
	f, _ := t.DownAt(n)
	if f == nil {
		return 0, false
	}
	return t.Job.committed(f, i, p), true
}

// committed is the offset of partition p of stream i that the last
// checkpoint completed before failure f holds, or -1 when none did (or
// it holds none of p: a partition added since).
func (h *JobHistory) committed(f *FailPoint, i, p int) int64 {
	if f.Last < 0 {
		return -1
	}
	if c := &h.Checkpoints[f.Last]; i < len(c.Positions) && p < len(c.Positions[i]) {
		return c.Positions[i][p]
	}
	return -1
}

// PeakLag is the largest lag of partition p (-1: the average over every
// partition) stream i had at any step by n.
func (t *Trace) PeakLag(i, p, n int) float64 {
	sh := t.Streams[i]
	if p < 0 {
		k := stepIndex(len(sh.AvgPeaks), n, func(i int) int32 { return sh.AvgPeaks[i].Step })
		if k == 0 {
			return 0
		}
		return sh.AvgPeaks[k-1].Avg
	}
	return float64(countAt(sh.Parts[p].Peaks, n)) // peaks only grow
}

// Utilisation is the share of the last window of true time before step n
// that reader sub of stream i spent reading: the records it read times
// what each cost, between 0 and 1. A stream without a cost per record has
// none (0).
func (t *Trace) Utilisation(i, sub, n int, window vtime.Duration) float64 {
	sh := t.Streams[i]
	if sh.Cost <= 0 || n < 1 {
		return 0
	}
	now := t.t.Events[n-1].At
	from := t.stepAtOrAfter(now.Add(-window))
	var busy vtime.Duration
	for p := range sh.Parts {
		if p%sh.Parallelism != sub {
			continue
		}
		ps := sh.Parts[p].Pos
		lo := stepIndex(len(ps), from-1, func(i int) int32 { return ps[i].Step })
		hi := stepIndex(len(ps), n, func(i int) int32 { return ps[i].Step })
		for _, x := range ps[lo:hi] {
			busy += sh.costAt(x.Step)
		}
	}
	return min(1, float64(busy)/float64(window))
}

// costAt is the stream's cost per record at step.
func (sh *StreamHistory) costAt(step int32) vtime.Duration {
	c := sh.Cost
	for _, x := range sh.Costs {
		if x.Step > step {
			break
		}
		c = x.Cost
	}
	return c
}

// stepAtOrAfter is the first step at or after true time at (Steps+1 past the end).
func (t *Trace) stepAtOrAfter(at vtime.Time) int {
	evs := t.t.Events
	i, _ := sorted.Search(len(evs), func(k int) int {
		e := evs[k]
		return cmpTime(e.At, at)
	})
	return i + 1
}

// QueueAt is how many records operator i's buffer holds after step n.
func (t *Trace) QueueAt(i, n int) int { return int(countAt(t.Ops[i].Queue, n)) }

// StateAt is how many entries operator i's state holds after step n.
func (t *Trace) StateAt(i, n int) int { return int(countAt(t.Ops[i].State, n)) }

// PendingAt is how many rows operator i has written into transactions
// that are not committed after step n.
func (t *Trace) PendingAt(i, n int) int { return int(countAt(t.Ops[i].Pending, n)) }

// WrittenAt is how many rows operator i has made visible in its table by step n.
func (t *Trace) WrittenAt(i, n int) int { return int(countAt(t.Ops[i].Written, n)) }

// ProcessedBetween counts the records operator i took off its buffer in
// steps (from, to], or, for an operator without a buffer, the records its
// stream handed it.
func (t *Trace) ProcessedBetween(i, from, to int) int {
	oh := t.Ops[i]
	if oh.Buffer > 0 || len(oh.Processed) > 0 {
		lo := stepIndex(len(oh.Processed), from, func(i int) int32 { return oh.Processed[i] })
		hi := stepIndex(len(oh.Processed), to, func(i int) int32 { return oh.Processed[i] })
		return hi - lo
	}
	si := t.streamIndex(oh.Stream)
	c := 0
	lo := stepIndex(len(t.Arrivals), from, func(i int) int32 { return t.Arrivals[i].Step })
	hi := stepIndex(len(t.Arrivals), to, func(i int) int32 { return t.Arrivals[i].Step })
	for _, a := range t.Arrivals[lo:hi] {
		if int(a.Stream) == si {
			c++
		}
	}
	return c
}

// DownAt returns the failure the job is down from at step n, or nil when
// it runs: a job is down from a failure's step to the restore that
// follows it, and for good when it gave up (FailPoint.Down) or when that
// restore failed (its input gone under auto.offset.reset=none), which
// restoreFailed reports.
func (t *Trace) DownAt(n int) (f *FailPoint, restoreFailed bool) {
	if t.Job == nil {
		return nil, false
	}
	for i := range t.Job.Failures {
		if int(t.Job.Failures[i].Step) > n {
			break
		}
		f = &t.Job.Failures[i]
	}
	if f == nil {
		return nil, false
	}
	for _, r := range t.Job.Restores {
		if r.Step > f.Step && int(r.Step) <= n {
			if !r.Failed {
				return nil, false
			}
			restoreFailed = true
		}
	}
	return f, restoreFailed
}

// CheckpointsAt is every checkpoint begun by step n, as it stood then.
func (t *Trace) CheckpointsAt(n int) []CheckpointPoint {
	if t.Job == nil {
		return nil
	}
	var out []CheckpointPoint
	for _, c := range t.Job.Checkpoints {
		if int(c.Begin) > n {
			break
		}
		if int(c.End) > n {
			c.End, c.EndAt, c.Status = 0, 0, CheckpointRunning
		}
		for k, s := range c.Snapshots {
			if int(s) > n {
				c.Sizes = slices.Clone(c.Sizes)
				c.Sizes[k] = -1
			}
		}
		out = append(out, c)
	}
	return out
}

// DroppedAt counts the records operator i's buffer dropped by step n.
func (t *Trace) DroppedAt(i, n int) int {
	if t.Job == nil {
		return 0
	}
	c := 0
	for _, s := range t.Job.Shed {
		if int(s.Step) > n {
			break
		}
		if int(s.Op) == i {
			c++
		}
	}
	return c
}

// OpNamed is the index of the operator named name, or -1.
func (t *Trace) OpNamed(name string) int {
	for i, o := range t.Ops { // a loop: slices.IndexFunc is an instance per slice type in the browser module
		if o.Name == name {
			return i
		}
	}
	return -1
}

// PeakUtilisation is the largest share of any window of ten seconds of true
// time by step n that reader sub of stream i spent reading.
func (t *Trace) PeakUtilisation(i, sub, n int) float64 {
	sh := t.Streams[i]
	if sh.Cost <= 0 {
		return 0
	}
	type read struct {
		at   vtime.Time
		cost vtime.Duration
	}
	var reads []read
	for p := range sh.Parts {
		if p%sh.Parallelism != sub {
			continue
		}
		ps := sh.Parts[p].Pos
		for _, x := range ps[:stepIndex(len(ps), n, func(i int) int32 { return ps[i].Step })] {
			reads = append(reads, read{t.t.Events[x.Step-1].At, sh.costAt(x.Step)})
		}
	}
	sorted.Stable(reads, func(i, j int32) int { return cmpTime(reads[i].at, reads[j].at) })
	const window = 10 * vtime.Second
	best, lo := 0.0, 0
	var busy vtime.Duration
	for hi := range reads {
		busy += reads[hi].cost
		for reads[lo].at <= reads[hi].at.Add(-window) {
			busy -= reads[lo].cost
			lo++
		}
		best = max(best, min(1, float64(busy)/float64(window)))
	}
	return best
}
