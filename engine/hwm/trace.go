package hwm

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Trace is the high-water-mark world's part of a trace (its
// engine.History): every source transaction, every stored value of every
// mark, every extractor run with the steps of its phases, the pipelines
// and the source tables, from which the world's state at any step is read
// without replaying.
type Trace struct {
	t         *engine.Trace
	Txns      []TxnRecord
	Unmatched []Unmatched // the statements that named keys with no row, in the order they ran
	Marks     []*MarkHistory
	Runs      []RunRecord
	Pipes     []extract.Config
	Tables    []SourceTable
}

// Of returns the high-water-mark world's part of t, or nil when t's
// scenario has no line of the world (or was built without it).
func Of(t *engine.Trace) *Trace {
	for _, h := range t.Histories() {
		if x, ok := h.(*Trace); ok {
			return x
		}
	}
	return nil
}

// Actor names the transaction a source event belongs to.
func (t *Trace) Actor(e *engine.Event) string {
	a, _ := e.Ref()
	return t.Txns[a].Name
}

// MarksAt returns the value of every mark after step n, in the order of
// Marks; a mark never stored reads "none".
func (t *Trace) MarksAt(n int) []check.MarkPoint {
	out := make([]check.MarkPoint, 0, len(t.Marks))
	for _, h := range t.Marks {
		p, _ := t.MarkAt(h, n)
		out = append(out, p)
	}
	return out
}

// Observe adds to o what a team could see of the world after step n: the
// stored marks, the runs' logs, whether there are pipelines and one reads
// an overlap, and how many rows the runs' merges absorbed.
func (t *Trace) Observe(n int, o *check.Observation) {
	o.Pipelines = len(t.Pipes) > 0
	for _, p := range t.Pipes {
		if p.Overlap > 0 && p.Mark.IsTimestamp() {
			o.Overlap = true
		}
	}
	for _, h := range t.Marks {
		s := check.MarkSeries{Name: h.Name, Timestamp: h.Kind.IsTimestamp()}
		for _, p := range h.Points {
			if p.Step <= n {
				s.Points = append(s.Points, p)
			}
		}
		o.Marks = append(o.Marks, s)
	}
	for _, r := range t.Runs {
		if r.ReadStep == 0 || r.ReadStep > n {
			continue
		}
		run := r.Run
		if r.WriteStep == 0 || r.WriteStep > n {
			run.Written = 0
		}
		run.Stored = r.MarkStep > 0 && r.MarkStep <= n
		if !run.Stored {
			run.Advanced = false
			run.MarkAfter = run.MarkBefore
		}
		if r.EndStep == 0 || r.EndStep > n {
			run.Finished, run.Crashed, run.Aborted = false, false, false
		}
		o.Runs = append(o.Runs, run)
	}
	// Each run writes one target, and only a merge absorbs anything: its
	// count is the run's, once, however many targets there are.
	for _, r := range t.Runs {
		if r.WriteStep > 0 && r.WriteStep <= n {
			o.Collapsed += r.Collapsed
		}
	}
}

// TxnRecord is a source transaction as the trace shows it.
//
// Invariant: BeginStep < EndStep when the transaction ended; EndStep is 0
// while it is still open at the end of the trace.
type TxnRecord struct {
	Name      string
	Session   string
	BeginAt   vtime.Time
	EndAt     vtime.Time
	BeginStep int
	EndStep   int
	State     mvcc.TxnState
	LSN       mvcc.LSN
	BeginNow  vtime.Time // the source clock's reading at begin: now() inside the transaction
	Stmts     []StmtRecord
}

// Keys lists the business keys the transaction wrote, in statement order.
func (r *TxnRecord) Keys() []string {
	if len(r.Stmts) == 1 {
		return r.Stmts[0].Keys
	}
	var out []string
	for _, s := range r.Stmts {
		out = append(out, s.Keys...)
	}
	return out
}

// Stamp is the updated_at its last statement that changed a row wrote,
// and false when no statement has written one yet (or the table stamps at commit).
func (r *TxnRecord) Stamp() (vtime.Time, bool) {
	for i := len(r.Stmts) - 1; i >= 0; i-- {
		if s := r.Stmts[i]; len(s.Keys) > 0 && (s.Backdated || s.Mode != mvcc.StampCommit) {
			return s.Stamp, true
		}
	}
	return 0, false
}

// Unmatched is a statement that named keys with no row: an update or a
// delete, which leaves them alone. Statements like it are rare, so the
// trace keeps them aside rather than a field in every StmtRecord.
type Unmatched struct {
	Txn, Stmt int      // the statement, as Txns[Txn].Stmts[Stmt]
	Keys      []string // the keys it found no row for
}

// UnmatchedOf returns the keys statement stmt of transaction txn (indexes
// of Txns and its Stmts) named and found no row for.
func (t *Trace) UnmatchedOf(txn, stmt int) []string {
	for i := len(t.Unmatched) - 1; i >= 0; i-- {
		if u := &t.Unmatched[i]; u.Txn == txn && u.Stmt == stmt {
			return u.Keys
		}
	}
	return nil
}

// StmtRecord is one statement of a source transaction.
type StmtRecord struct {
	Op        mvcc.Op
	Table     string
	Keys      []string   // the rows it changed (Trace.UnmatchedOf names the keys it found no row for)
	Stamp     vtime.Time // the updated_at it wrote; meaningless when Mode is StampCommit and not Backdated
	Mode      mvcc.Stamp
	Backdated bool
	Drawn     bool // its keys were drawn from the table's sequence, not written by hand
}

// MarkHistory is every value one stored mark held.
type MarkHistory struct {
	Name     string
	Pipeline string
	Kind     extract.MarkKind
	Points   []check.MarkPoint
}

// RunRecord is one extractor run and the step each of its phases happened at
// (0 for a phase that did not happen).
type RunRecord struct {
	check.Run
	ReadStep, WriteStep, MarkStep, EndStep int
	Keys                                   []string   // keys read
	Lower, Upper                           string     // the window read, as printed
	From, To                               vtime.Time // an interval run's interval, [From, To); To is 0 for a run after a mark
	Collapsed                              int        // rows the merge absorbed in this run's write
}

// SourceTable describes a source table in the trace.
type SourceTable struct {
	_         nocmp.NoCompare
	Name, Key string
	Stamp     mvcc.Stamp // the rule at the start; an alter line may change it later
	Clock     string
	Cache     int
}

// MarkAt returns the value of a mark after step n, and whether it was ever set.
func (t *Trace) MarkAt(h *MarkHistory, n int) (check.MarkPoint, bool) {
	n = t.t.ClampStep(n)
	i, _ := sorted.Search(len(h.Points), func(k int) int {
		p, s := h.Points[k], n
		if p.Step <= s {
			return -1
		}
		return 1
	})
	if i == 0 {
		return check.MarkPoint{Display: "none"}, false
	}
	return h.Points[i-1], true
}

// ProcessedThrough is what a pipeline keeping several marks (one per table)
// can honestly claim after step n: the smallest of its marks, since a row of
// the lagging table may lie anywhere after it. ok is false while any of its
// marks is unset, and for a pipeline with a single mark.
func (t *Trace) ProcessedThrough(pipeline string, n int) (p check.MarkPoint, marks int, ok bool) {
	for _, h := range t.Marks {
		if h.Pipeline != pipeline {
			continue
		}
		marks++
		q, set := t.MarkAt(h, n)
		if !set || !q.Set {
			return check.MarkPoint{}, marks, false
		}
		if marks == 1 || q.Value < p.Value {
			p = q
		}
	}
	return p, marks, marks > 1
}
