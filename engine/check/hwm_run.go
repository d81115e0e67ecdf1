//go:build !tm_stream

package check

import (
	"container/heap"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/vtime"
)

// The checks of marks and runs themselves. The build of the log and stream
// worlds (tag tm_stream, see wasm/worlds_stream.go) runs no extractor, so
// none of its observations has a mark, a run or an overlap window: it has
// hwm_none.go instead, where each of these answers what it answers here
// with nothing to judge (nothingToJudge), as TestNothingToJudge holds.

func monotonicity(o Observation) Result {
	changes, resets := 0, 0
	for _, s := range o.Marks {
		var prev *MarkPoint
		for i := range s.Points {
			p := &s.Points[i]
			if p.Reset {
				prev = p
				resets++
				continue
			}
			if prev != nil && prev.Set && p.Set && p.Value < prev.Value {
				return Result{Status: Fail, Detail: prose.F("mark %s went backwards from %s to %s at %s without a reset", s.Name, prev.Display, p.Display, p.At)}
			}
			prev = p
			changes++
		}
	}
	if changes == 0 {
		return nothingToJudge("monotonicity", o)
	}
	d := prose.F("%s, none lower than the one before", prose.Count(changes, "stored value", "stored values"))
	if resets > 0 {
		// An operator's reset is a new start, not a regression: the value
		// after it is compared with the reset, and the reset with nothing.
		d += prose.F(", besides %s by an operator, from which it starts afresh", prose.Count(resets, "reset", "resets"))
	}
	return Result{Status: Pass, Detail: d}
}

// rateOfChange measures each mark on its own: a mark needs two stored
// values (resets aside) to have a rate at all, and a value below the one
// before it is no advance of any size.
func rateOfChange(cfg Config, o Observation) Result {
	stall := max(cfg.StallRuns, 2)
	measured := 0
	var short []string // marks with fewer than two stored values
	for _, s := range o.Marks {
		var advances runningMedian // every advance so far, for the median of the usual ones
		still, seen := 0, 0
		var last *MarkPoint
		for i := range s.Points {
			p := &s.Points[i]
			if p.Reset || !p.Set {
				last = p
				continue
			}
			seen++
			if last != nil && last.Set {
				d := p.Value - last.Value
				switch {
				case d < 0:
					return Result{Status: Fail, Detail: prose.F("mark %s went from %s back to %s at %s: a move backwards is no advance", s.Name, last.Display, p.Display, p.At)}
				case d == 0:
					still++
					if still >= stall {
						return Result{Status: Fail, Detail: prose.F("mark %s has not advanced for %s in a row (stuck at %s since %s)", s.Name, prose.Count(still, "run", "runs"), p.Display, last.At)}
					}
					continue // the stall is measured from where the mark first stood still
				default:
					still = 0
					if advances.len() >= 3 {
						med := advances.median()
						if med > 0 && float64(d) > cfg.JumpFactor*float64(med) {
							return Result{Status: Fail, Detail: prose.F("mark %s jumped by %s at %s, over %.0f× its usual advance of %s", s.Name, amount(s, d), p.At, cfg.JumpFactor, amount(s, med))}
						}
					}
					advances.add(d)
				}
			}
			last = p
		}
		if seen >= 2 {
			measured++
		} else {
			short = append(short, s.Name)
		}
	}
	if measured == 0 {
		return nothingToJudge("rate-of-change", o)
	}
	d := prose.F("%s kept advancing, never stuck for %d runs in a row nor jumping past %.0f× its usual advance", prose.Count(measured, "mark", "marks"), stall, cfg.JumpFactor)
	if len(short) > 0 {
		d += prose.F("; %s %s fewer than two stored values to measure", strings.Join(short, ", "), hasHave(len(short)))
	}
	return Result{Status: Pass, Detail: d}
}

// amount spells an advance of d: a duration for a timestamp mark, else a
// count of positions.
func amount(s MarkSeries, d int64) string {
	if s.Timestamp {
		return vtime.Duration(d).String()
	}
	return prose.Count(int(d), "position", "positions")
}

// runningMedian keeps the median of a growing list of numbers: after n
// adds, median is the element at index n/2 of the list sorted. Adding costs
// O(log n) and reading O(1), so a check over n advances costs O(n log n)
// where sorting the list at every advance cost O(n² log n).
//
// Invariant: low holds the n/2 smallest numbers (a max-heap, its top the
// largest of them) and high the rest (a min-heap): high's top is the median.
type runningMedian struct {
	low  maxHeap
	high minHeap
}

func (m *runningMedian) len() int { return len(m.low.xs) + len(m.high.xs) }

func (m *runningMedian) median() int64 { return m.high.xs[0] }

func (m *runningMedian) add(x int64) {
	if len(m.high.xs) > 0 && x >= m.high.xs[0] {
		heap.Push(&m.high, x)
	} else {
		heap.Push(&m.low, x)
	}
	want := m.len() / 2
	for len(m.low.xs) > want {
		heap.Push(&m.high, heap.Pop(&m.low))
	}
	for len(m.low.xs) < want {
		heap.Push(&m.low, heap.Pop(&m.high))
	}
}

// minHeap and maxHeap are container/heap's interface over int64s.
type minHeap struct{ xs []int64 }

func (h minHeap) Len() int           { return len(h.xs) }
func (h minHeap) Less(i, j int) bool { return h.xs[i] < h.xs[j] }
func (h minHeap) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *minHeap) Push(x any)        { h.xs = append(h.xs, x.(int64)) }
func (h *minHeap) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}

type maxHeap struct{ minHeap }

func (h maxHeap) Less(i, j int) bool { return h.xs[i] > h.xs[j] }

// reconcileSameWindow compares each run that claimed its window with the
// source's count over that window, by the pipeline's own column, taken in
// the run's own snapshot: the query a team writes from the run's log. A run
// claims its window when it stores its mark; one that crashed or gave up
// before that claimed nothing, and the next run reads its window again.
func reconcileSameWindow(o Observation) Result {
	runs, short, gaveUp := 0, 0, 0
	var first string
	for _, r := range o.Runs {
		if !(r.Finished || r.Crashed && r.Stored) || r.Aborted {
			if r.Crashed || r.Aborted {
				gaveUp++ // claimed no window: its log shows it, so the count says why it is left out
			}
			continue
		}
		runs++
		if r.Written < r.SourceCount {
			short++
			if first == "" {
				first = prose.F("run at %s: source counted %d, target received %d", r.At, r.SourceCount, r.Written)
			}
		}
	}
	if runs == 0 {
		return nothingToJudge("reconciliation-same-window", o)
	}
	if short > 0 {
		return Result{Status: Fail, Detail: prose.F("%d of %s wrote fewer rows than the source counted in the same window; first: %s", short, prose.Count(runs, "run", "runs"), first)}
	}
	d := prose.F("%s with the source counted by the same column in the same window, as each run read", prose.Count(runs, "run agrees", "runs agree"))
	if gaveUp > 0 {
		d += prose.F(" (%s, which crashed or gave up before claiming a window, not counted)", prose.Count(gaveUp, "run", "runs"))
	}
	return Result{Status: Pass, Detail: d}
}

func zeroAdvance(o Observation) Result {
	if keepsNoMark(o) {
		return nothingToJudge("zero-advance", o)
	}
	var hits []string
	runs := 0
	for _, r := range o.Runs {
		if !r.Finished {
			continue
		}
		runs++
		if r.Advanced && r.Written == 0 {
			hits = append(hits, prose.F("%s (%s → %s)", r.At, r.MarkBefore, r.MarkAfter))
		}
	}
	if runs == 0 {
		return nothingToJudge("zero-advance", o)
	}
	if len(hits) > 0 {
		return Result{Status: Fail, Detail: prose.F("%s moved the mark and wrote no rows: %s", prose.Count(len(hits), "run", "runs"), strings.Join(limit(hits, 4), ", "))}
	}
	return Result{Status: Pass, Detail: "every run that moved the mark wrote rows"}
}

func overlapReread(o Observation) Result {
	if !o.Overlap {
		return nothingToJudge("overlap-reread", o)
	}
	rows, known := 0, 0
	var deepest Run // the run whose new row lay furthest behind its mark, as a share of its overlap
	for _, r := range o.Runs {
		rows += r.OverlapRows
		known += r.OverlapKnown
		if r.Overlap > 0 && (deepest.Overlap == 0 || int64(r.OverlapDepth)*int64(deepest.Overlap) > int64(deepest.OverlapDepth)*int64(r.Overlap)) {
			deepest = r
		}
	}
	rescued := rows - known
	d := prose.F("the overlap re-read %s; %d already in the target, %d new", prose.Count(rows, "row", "rows"), known, rescued)
	if rescued > 0 {
		// How close the late rows came to the window's far edge is what
		// says whether it is wide enough; a commit later than the edge is
		// lost, and no run reads it to say so.
		if deepest.Overlap > 0 {
			d += prose.F(", the furthest stamped %s behind the mark, in an overlap of %s", deepest.OverlapDepth, deepest.Overlap)
		}
		return Result{Status: Fail, Detail: d + ": late commits are reaching into the window, and one later than its far edge is lost without this check seeing it"}
	}
	return Result{Status: Pass, Detail: d}
}
