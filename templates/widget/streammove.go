package widget

import (
	"sort"
	"strconv"

	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	win "github.com/tidemark/tidemark/engine/window"
)

// Records that move on the stream world's stage.
//
// As in the other worlds, a thing that moves is an element with an id of
// its own (data-chip) at one step and an element that names it (data-from,
// with data-new) at the next: the browser moves the new element from where
// the old one was (widget.js, animateMoves). In the stream world the things
// are these:
//
//   - a record on a partition's lane is a chip, rec:ID (its record id),
//     when the next step reads it or writes a row of it (only those can
//     move, and a chip on every dot would make each step send more);
//   - a record an operator took at the step is a token in the window it
//     landed in, moving from its dot on the lane into the window;
//   - every window is a chip, win:OP:START, and a result a window fired at
//     the step moves from it to its row's slot in the target;
//   - a row a sink wrote, a late record sent to the side output, and a
//     record a replay wrote again move from the record's dot to the slot;
//   - an operator's box is a chip, op:TARGET, which the rows it made
//     visible later (a two-phase commit's) move from.
//
// A late record that is dropped does not move: it stays on its lane as a
// cross, and the operator's box lists it under "dropped", in words.

// recChip is the chip of the record with id on its lane.
func recChip(id int64) string { return "rec:" + strconv.FormatInt(id, 10) }

// winChip is the chip of window operator op's window that starts at start.
func winChip(op int, start vtime.Time) string { return "win:" + itoa(op) + ":" + start.String() }

// opChip is the chip of the operator box of the operator writing target.
func opChip(target string) string { return "op:" + target }

// stepReads returns the indices in st.Arrivals of the reads of step n.
func stepReads(st *stream.Trace, n int) (lo, hi int) {
	return len(st.ArrivalsAt(n - 1)), len(st.ArrivalsAt(n))
}

// takenAt returns, for stream si, the records read at step n that a window
// takes (not those a window found too late and dropped or set aside), each
// with whether it was read again after a restore.
func takenAt(st *stream.Trace, si, n int) map[int64]bool {
	lo, hi := stepReads(st, n)
	var out map[int64]bool
	for a := lo; a < hi; a++ {
		if int(st.Arrivals[a].Stream) != si {
			continue
		}
		if out == nil {
			out = map[int64]bool{}
		}
		out[st.ArrivalID(int32(a))] = st.IsReplay(int32(a))
	}
	late := st.LateAt(n)
	for k := len(st.LateAt(n - 1)); k < len(late); k++ {
		if win.Fate(late[k].Fate) != win.Accepted {
			delete(out, st.ArrivalID(late[k].Arrival))
		}
	}
	return out
}

// movingNext returns the records the step after n reads, or writes a row
// of: the dots whose chips a move at the next step may start from.
func movingNext(st *stream.Trace, n int) map[int64]bool {
	lo, hi := stepReads(st, n+1)
	out := map[int64]bool{}
	for a := lo; a < hi; a++ {
		out[st.ArrivalID(int32(a))] = true
	}
	if j := st.Job; j != nil {
		i := sort.Search(len(j.Outputs), func(i int) bool { return j.Outputs[i].Step > int32(n) })
		for ; i < len(j.Outputs) && j.Outputs[i].Step == int32(n+1); i++ {
			out[j.Outputs[i].Record] = true
		}
	}
	return out
}
