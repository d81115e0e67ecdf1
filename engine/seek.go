package engine

import (
	"cmp"

	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
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
	Truth   TruthView    // the keys not fine, by id; spelled only when asked
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

// KeyStatus is where a key stands in the truth: fine, or missing from the
// target, duplicated in it, or present in an older version.
type KeyStatus uint8

// The statuses of a key, as the truth counts them.
const (
	KeyFine       = KeyStatus(fine)
	KeyMissing    = KeyStatus(missing)
	KeyDuplicated = KeyStatus(duplicated)
	KeyStale      = KeyStatus(stale)
)

// TruthView is the truth after one step as Seek returns it: the keys that
// are not fine, named by their ids, in key order (the order TruthAt lists
// them in). It spells a key only when asked, so reading the truth of a step
// with tens of thousands of missing keys costs a merge of sorted lists, not
// a sort of strings; a caller that shows forty keys spells forty.
type TruthView struct {
	v truthView
	t *Trace
}

// Len is the number of keys that are not fine.
func (v TruthView) Len() int { return len(v.v.bad) }

// At returns the i-th key that is not fine, in key order: its id, status,
// and how many of its rows the target holds.
func (v TruthView) At(i int) (id int32, s KeyStatus, rows int) {
	r, st, count := unpackTruth(v.v.bad[i])
	return v.v.order[r], KeyStatus(st), int(count)
}

// Of returns the status of the key with id, and how many of its rows the
// target holds when it is not fine. A key the trace never named is fine.
func (v TruthView) Of(id int32) (s KeyStatus, rows int) {
	if id < 0 || int(id) >= len(v.v.rank) {
		return KeyFine, 0
	}
	r := v.v.rank[id]
	i, found := sorted.Search(len(v.v.bad), func(k int) int {
		p := v.v.bad[k]
		return cmp.Compare(int32(p>>32), r)
	})
	if !found {
		return KeyFine, 0
	}
	_, st, count := unpackTruth(v.v.bad[i])
	return KeyStatus(st), int(count)
}

// Truth spells every key of the view out, as TruthAt does.
func (v TruthView) Truth() Truth { return v.v.truth() }

// Seek returns the state after step n (clamped to the trace).
func (t *Trace) Seek(n int) Snapshot {
	n = t.clampStep(n)
	s := Snapshot{Step: n, Counts: t.CountsAt(n), Truth: TruthView{v: t.truth.view(int32(n), t.keyText), t: t}}
	if n > 0 {
		s.At = t.Events[n-1].At
	}
	for _, h := range t.Targets {
		k, _ := sorted.Search(len(h.Rows), func(k int) int {
			r, step := h.Rows[k], int32(n)
			if r.AddedStep <= step {
				return -1
			}
			return 1
		})
		s.Targets = append(s.Targets, TargetView{Name: h.Name, step: int32(n), rows: h.Rows[:k]})
	}
	return s
}
