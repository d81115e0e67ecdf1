//go:build !tm_hwm && !tm_log

package widget

import (
	"strconv"

	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
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
