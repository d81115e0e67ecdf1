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
//   - every record on a partition's lane is a chip, rec:ID (its record id);
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

// streamOrigin returns the chip the row of target with key (the core's key
// id) written at step n comes from: the window that fired it, the record a
// sink or a side output copied, or the box of the operator that made it
// visible; "" when no stream operator wrote it.
func streamOrigin(st *stream.Trace, target string, id int32, key string, n int) string {
	if op, w := st.ResultWindow(id); op >= 0 {
		return winChip(op, w.Start)
	}
	if j := st.Job; j != nil {
		i := sort.Search(len(j.Outputs), func(i int) bool { return j.Outputs[i].Step >= int32(n) })
		for ; i < len(j.Outputs) && j.Outputs[i].Step == int32(n); i++ {
			if j.Outputs[i].Key == id {
				return recChip(j.Outputs[i].Record)
			}
		}
	}
	late := st.LateAt(n)
	for k := len(st.LateAt(n - 1)); k < len(late); k++ {
		l := &late[k]
		if l.Join || win.Fate(l.Fate) != win.SideOutput || st.Windows[l.Op].Side != target {
			continue
		}
		if rid := st.ArrivalID(l.Arrival); st.RecordName(rid) == key {
			return recChip(rid)
		}
	}
	for _, oh := range st.Ops {
		if oh.Target == target {
			return opChip(target)
		}
	}
	return ""
}

// maxTaken is how many of the records an operator took at a step its box
// names; maxLateChips how many of its late records.
const maxTaken, maxLateChips = 6, 6

// opsStation draws the stream job's operators, between the streams and
// the targets, a box each: the records it took at the step and what it
// made of each (into a window, written to its table, read again after a
// restore, dropped as late, sent to the side output), its late records so
// far, and the rows it holds in a transaction not yet committed.
func opsStation(b *builder, v *atStep, st *stream.Trace) {
	n := v.s.Step
	lo, hi := stepReads(st, n)
	late := st.LateAt(n)
	fresh := len(st.LateAt(n - 1))
	station(b, "st-ops", "ops", "Operators", "panel-ops")
	b.fopen("ops", "div", "class", "tm-ops", "data-testid", "stream-ops")
	for oi, oh := range st.Ops {
		attrs := []string{"class", "tm-op", "data-testid", "op", "data-op", oh.Name}
		if oh.Target != "" {
			attrs = append(attrs, "data-chip", opChip(oh.Target))
		}
		b.fopen("op-"+oh.Name, "div", attrs...)
		head := oh.Name + " (" + oh.Kind + ")"
		if oh.Target != "" {
			head += " → " + oh.Target
		}
		b.el("p", head, "class", "tm-op-title")
		wi := -1
		if oh.Kind == "window" {
			for i, wh := range st.Windows {
				if wh.Name == oh.Name {
					wi = i
				}
			}
		}
		// The records it took at this step: those its stream read, or,
		// with a buffer, those it took off the buffer (a record read is
		// queued).
		var chips [][3]string // name, state, note
		more := 0
		var reads []int32
		for a := lo; a < hi; a++ {
			if st.Streams[st.Arrivals[a].Stream].Name == oh.Stream {
				reads = append(reads, int32(a))
			}
		}
		queued := 0 // the first queued of reads went into its buffer
		if oh.Buffer > 0 {
			queued = len(reads)
			reads = append(reads, st.TakenOff(oi, n)...)
		}
		for k, a32 := range reads {
			a := int(a32)
			if len(chips) == maxTaken {
				more++
				continue
			}
			rid := st.ArrivalID(int32(a))
			state, note := "taken", "→ "+pick(oh.Target != "", oh.Target, "its state")
			if k < queued {
				state, note = "queued", "→ its buffer"
			}
			if wi >= 0 {
				note = "→ its window"
				for k := fresh; k < len(late); k++ {
					l := &late[k]
					if l.Join || int(l.Op) != wi || l.Arrival != int32(a) {
						continue
					}
					switch win.Fate(l.Fate) {
					case win.Dropped:
						state, note = "dropped", "✕ dropped: late"
					case win.SideOutput:
						state, note = "side", "◇ late: to "+st.Windows[wi].Side
					default:
						state, note = "accepted", "⊕ late, counted: fires again"
					}
				}
			}
			if st.IsReplay(int32(a)) && state == "taken" {
				state, note = "replay", "↻ read again"+pick(oh.Target != "", " → "+oh.Target, "")
			}
			chips = append(chips, [3]string{st.RecordName(rid), state, note})
		}
		if len(chips) > 0 {
			b.open("ul", "class", "tm-slots tm-op-taken", "aria-label", "Records "+oh.Name+" took at this step")
			for _, c := range chips {
				b.open("li", "class", "tm-chip tm-chip-rec tm-rec-"+c[1], "data-testid", "op-record", "data-state", c[1])
				b.el("span", c[0], "class", "tm-chip-key")
				b.el("span", c[2], "class", "tm-chip-note")
				b.close("li")
			}
			if more > 0 {
				b.el("li", "+"+itoa(more)+" more", "class", "tm-note")
			}
			b.close("ul")
		} else {
			b.el("p", "took no record at this step", "class", "tm-note")
		}
		if p := pendingOf(st, oi, n); p > 0 {
			b.el("p", "◫ "+plural(p, "row")+" pending in a transaction: not visible until the checkpoint completes", "class", "tm-op-pending", "data-testid", "op-pending")
		}
		if wi >= 0 {
			lateTray(b, st, wi, late)
		}
		if oh.Target != "" {
			replayLine(b, st, oh.Stream, n)
		}
		b.fclose("div")
	}
	b.fclose("div")
	b.fclose("section")
}

// pendingOf is the rows operator oi holds in transactions not yet
// committed after step n.
func pendingOf(st *stream.Trace, oi, n int) int { return st.PendingAt(oi, n) }

// lateTray lists window operator wi's late records by step n, the latest
// first, each with what became of it in a glyph and words: dropped records
// stay here, where they were left.
func lateTray(b *builder, st *stream.Trace, wi int, late []stream.LatePoint) {
	var mine []int
	dropped, side, accepted := 0, 0, 0
	for k := range late {
		l := &late[k]
		if l.Join || int(l.Op) != wi {
			continue
		}
		mine = append(mine, k)
		switch win.Fate(l.Fate) {
		case win.Dropped:
			dropped++
		case win.SideOutput:
			side++
		default:
			accepted++
		}
	}
	if len(mine) == 0 {
		return
	}
	words := "Late so far: " + itoa(dropped) + " dropped, " + itoa(side) + " to the side output, " + itoa(accepted) + " counted"
	b.el("p", words, "class", "tm-note", "data-testid", "late-count")
	b.open("ul", "class", "tm-slots tm-late-tray", "aria-label", "Late records of "+st.Windows[wi].Name+", latest first")
	for i := len(mine) - 1; i >= 0 && i >= len(mine)-maxLateChips; i-- {
		l := &late[mine[i]]
		state, note := "accepted", "⊕ counted"
		switch win.Fate(l.Fate) {
		case win.Dropped:
			state, note = "dropped", "✕ dropped"
		case win.SideOutput:
			state, note = "side", "◇ side output"
		}
		b.open("li", "class", "tm-chip tm-chip-rec tm-rec-"+state, "data-testid", "late-chip", "data-state", state)
		b.el("span", st.RecordName(st.ArrivalID(l.Arrival)), "class", "tm-chip-key")
		b.el("span", note+" · "+l.Time.String(), "class", "tm-chip-note")
		b.close("li")
	}
	if len(mine) > maxLateChips {
		b.el("li", "+"+itoa(len(mine)-maxLateChips)+" earlier", "class", "tm-note")
	}
	b.close("ul")
}

// replayLine says which records of stream were read again after a restore
// by step n: the block a sink wrote a second time.
func replayLine(b *builder, st *stream.Trace, streamName string, n int) {
	var names []string
	count := 0
	reads := len(st.ArrivalsAt(n))
	for _, a := range st.Replays[:sort.Search(len(st.Replays), func(i int) bool { return int(st.Replays[i]) >= reads })] {
		if st.Streams[st.Arrivals[a].Stream].Name != streamName {
			continue
		}
		count++
		if len(names) < 8 {
			names = append(names, st.RecordName(st.ArrivalID(a)))
		}
	}
	if count == 0 {
		return
	}
	line := "↻ read again after the restore: " + listKeys(names, count)
	b.el("p", line, "class", "tm-op-replay", "data-testid", "op-replay")
}
