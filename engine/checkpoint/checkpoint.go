// Package checkpoint holds the rules of a stream job's checkpoints and of a
// sink that commits with them, modelled on Flink's checkpoint coordinator
// and its TwoPhaseCommitSinkFunction:
//
//   - Checkpoints are triggered on a fixed grid of processing time, at most
//     one at a time (Flink's default maxConcurrentCheckpoints of 1). The
//     grid does not move when a checkpoint overruns it: a trigger that
//     finds one still running is queued as a request of its own, never
//     merged with one already waiting (Flink's CheckpointRequestDecider
//     keeps up to 1000), and with Flink's default minimum pause of 0 the
//     oldest begins the moment the one in flight completes or expires, so
//     a checkpoint that spans k triggers is followed by k back to back. A
//     checkpoint that has not completed within its timeout expires at that
//     instant.
//   - A checkpoint holds the input positions (the next offset of every
//     partition) and every operator's state, taken as its barrier passes
//     (aligned barriers: an operator snapshots once everything before the
//     barrier has been processed). Flink also has unaligned checkpoints,
//     which store the records in flight instead of waiting for them; they
//     are not modelled.
//   - A failed job restores the latest completed checkpoint. An input
//     position that retention has already deleted cannot be read again: the
//     consumer's auto.offset.reset decides (Resume).
//   - A two-phase-commit sink writes each checkpoint's output into a
//     transaction of its own, pre-commits it when the barrier passes, and
//     commits it when the checkpoint completes. A restore commits the
//     pre-committed transactions of the restored checkpoint and those
//     before it (a commit must be idempotent: it may have happened already)
//     and aborts every other (Recover).
package checkpoint

import (
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Grid is when checkpoints are triggered: From, then every Every.
type Grid struct {
	From  vtime.Time
	Every vtime.Duration
}

// Next is the first trigger strictly after t.
func (g Grid) Next(t vtime.Time) vtime.Time {
	if t < g.From {
		return g.From
	}
	k := (t-g.From)/vtime.Time(g.Every) + 1
	return g.From + k*vtime.Time(g.Every)
}

// Reset is a consumer's auto.offset.reset: where to read when the position
// it has is not in the log.
type Reset uint8

// Resets.
const (
	Earliest Reset = iota // the log start: what retention deleted is skipped
	Latest                // the log end: everything held is skipped too
	None                  // no reset: the consumer fails
)

// ParseReset reads earliest, latest or none.
func ParseReset(s string) (Reset, bool) {
	switch s {
	case "earliest":
		return Earliest, true
	case "latest":
		return Latest, true
	case "none":
		return None, true
	}
	return 0, false
}

func (r Reset) String() string { return [...]string{"earliest", "latest", "none"}[r] }

// Resumed is where one partition's reads resume after a restore.
type Resumed struct {
	_       nocmp.NoCompare
	Next    int64 // the offset read next
	Skipped int64 // offsets between the checkpoint's position and Next that will never be read
	Gone    bool  // the checkpoint's position was no longer in the log
	Failed  bool  // it was gone and the reset policy is none: the job cannot start
}

// Resume says where a partition whose checkpointed position is pos resumes,
// when the log holds offsets [start, end). A position inside the log (or at
// its end) is read from; one before the start was deleted by retention, and
// one past the end cannot be (the log never shrinks, so it only happens
// when nothing is known): the reset policy decides.
func Resume(pos, start, end int64, reset Reset) Resumed {
	if pos >= start && pos <= end {
		return Resumed{Next: pos}
	}
	r := Resumed{Gone: true}
	switch reset {
	case Earliest:
		r.Next = start
	case Latest:
		r.Next = end
	default:
		r.Next, r.Failed = pos, true
		return r
	}
	if r.Next > pos {
		r.Skipped = r.Next - pos
	}
	return r
}

// TxnState is where a two-phase-commit sink's transaction stands.
type TxnState uint8

// Transaction states.
const (
	Open         TxnState = iota // taking the output written since the last barrier
	PreCommitted                 // flushed and prepared at a barrier; invisible until its checkpoint completes
	Committed                    // visible to read-committed readers
	Aborted                      // rolled back: its rows are never visible
)

func (s TxnState) String() string {
	return [...]string{"open", "pre-committed", "committed", "aborted"}[s]
}

// Txn is one transaction of a two-phase-commit sink: its number is the
// checkpoint whose barrier pre-commits it.
type Txn struct {
	ID    int32
	State TxnState
}

// Verdict is what a restore does to one transaction.
type Verdict uint8

// Verdicts.
const (
	Keep   Verdict = iota // already committed or aborted: nothing to do
	Commit                // pre-committed for the restored checkpoint or one before it: commit now
	Abort                 // open, or pre-committed for a checkpoint that never completed: roll back
)

// Recover says what a restore from checkpoint restored does to t; restored
// is 0 when no checkpoint completed and the job starts over.
func Recover(t Txn, restored int32) Verdict {
	switch t.State {
	case Committed, Aborted:
		return Keep
	case PreCommitted:
		if restored > 0 && t.ID <= restored {
			return Commit
		}
	}
	return Abort
}
