package engine

import (
	"slices"

	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Snapshot is the core's state of a trace after one step, as the browser
// needs it when the learner scrubs: the counts, the truth, and a view of
// each target. Building one costs the size of the truth, not the length of
// the trace; the targets' rows are read through their views only as far as
// a caller looks. Each world's state at a step is read from its own part of
// the trace (the high-water-mark world's marks with hwm.Of(t).MarksAt).
type Snapshot struct {
	Step    int
	At      vtime.Time
	Counts  Counts
	Truth   Truth
	Targets []TargetView // in the order of Trace.Targets
}

// TargetView is a target table as it stood after a step. It holds the rows
// added by then; Each skips the ones already removed.
type TargetView struct {
	Name string
	step int32
	rows []sink.Row
}

// Each calls fn with every row present at the view's step, in arrival order,
// until fn returns false.
func (v TargetView) Each(fn func(sink.Row) bool) {
	for _, r := range v.rows {
		if r.RemovedStep > v.step && !fn(r) {
			return
		}
	}
}

// Seek returns the state after step n (clamped to the trace).
func (t *Trace) Seek(n int) Snapshot {
	n = t.clampStep(n)
	s := Snapshot{Step: n, Counts: t.CountsAt(n), Truth: t.TruthAt(n)}
	if n > 0 {
		s.At = t.Events[n-1].At
	}
	for _, h := range t.Targets {
		k, _ := slices.BinarySearchFunc(h.Rows, int32(n), func(r sink.Row, step int32) int {
			if r.AddedStep <= step {
				return -1
			}
			return 1
		})
		s.Targets = append(s.Targets, TargetView{Name: h.Name, step: int32(n), rows: h.Rows[:k]})
	}
	return s
}
