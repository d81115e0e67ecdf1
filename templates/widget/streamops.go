//go:build !tm_hwm && !tm_log

package widget

import (
	"sort"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/stream"
	win "github.com/tidemark/tidemark/engine/window"
)

// The stream job's operators on the stage, and where the rows they write
// come from (see streammove.go). The builds without the stream world leave
// them out (worlds_nostream.go stands in).

// hasOps reports whether trace t has a stream job with operators to draw.
func hasOps(t *engine.Trace) bool {
	st := stream.Of(t)
	return st != nil && len(st.Ops) > 0
}

// rowOrigin is streamOrigin for trace t, or "" when it has no stream world.
func rowOrigin(t *engine.Trace, target string, id int32, key string, n int) string {
	st := stream.Of(t)
	if st == nil {
		return ""
	}
	return streamOrigin(st, target, id, key, n)
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
		if win.Fate(l.Fate) != win.SideOutput || st.SideTarget(l) != target {
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

// jobDownLine says, above the operators, that the job is down at step n
// (stream.Trace.DownAt), when no operator takes anything. Only the
// narration said so, and the operators looked as on any quiet step.
func jobDownLine(b *builder, st *stream.Trace, n int) {
	f, failed := st.DownAt(n)
	if f == nil {
		return
	}
	text := "✖ The job is down: " + f.Who + " failed at " + f.At.String()
	if failed {
		text += "; it could not restart at " + f.RestartAt.String() + ": the input its checkpoint needs is gone"
	} else if f.Down {
		text += "; it has given up and does not restart"
	} else {
		text += "; it restarts at " + f.RestartAt.String()
	}
	b.el("p", text, "class", "tm-op-down", "data-testid", "job-down")
}

// opsStation draws the stream job's operators, between the streams and
// the targets, a box each: the records it took at the step and what it
// made of each (into a window, written to its table, read again after a
// restore, dropped as late, sent to the side output), its late records so
// far, and the rows it holds in a transaction not yet committed.
func opsStation(b *builder, v *atStep) {
	st := stream.Of(v.t)
	n := v.s.Step
	lo, hi := stepReads(st, n)
	late := st.LateAt(n)
	fresh := len(st.LateAt(n - 1))
	station(b, "st-ops", "ops", "Operators", "panel-ops")
	b.fopen("ops", "div", "class", "tm-ops", "data-testid", "stream-ops")
	jobDownLine(b, st, n)
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
		wi, ji := -1, -1
		switch oh.Kind {
		case "window":
			for i, wh := range st.Windows {
				if wh.Name == oh.Name {
					wi = i
				}
			}
		case "join":
			for i, jh := range st.Joins {
				if jh.Name == oh.Name {
					ji = i
				}
			}
		}
		if ji >= 0 {
			joinWatermarkLine(b, st, ji, n)
		}
		// The records it took at this step: those its stream read, or,
		// with a buffer, those it took off the buffer (a record read is
		// queued).
		var chips [][3]string // name, state, note
		more := 0
		var reads []int32
		for a := lo; a < hi; a++ {
			name := st.Streams[st.Arrivals[a].Stream].Name
			if name == oh.Stream || ji >= 0 && name == st.Joins[ji].Right {
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
			if ji >= 0 {
				note = "→ its buffer"
				for k := fresh; k < len(late); k++ {
					l := &late[k]
					if !l.Join || int(l.Op) != ji || l.Arrival != int32(a) {
						continue
					}
					state, note = "dropped", "✕ dropped: behind the join's watermark"
					if win.Fate(l.Fate) == win.SideOutput {
						state, note = "side", "◇ late: to the side output"
					}
				}
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
						state, note = "side", "◇ late: to "+pick(st.SideTarget(l) != "", st.SideTarget(l), "a side output nobody reads")
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
				recordChip(b, "op-record", c[0], c[1], c[2])
			}
			if more > 0 {
				b.el("li", "+"+itoa(more)+" more", "class", "tm-note")
			}
			b.close("ul")
		} else {
			b.el("p", "took no record at this step", "class", "tm-note")
		}
		if p := st.PendingAt(oi, n); p > 0 {
			b.el("p", "◫ "+plural(p, "row")+" pending in a transaction: not visible until the checkpoint completes", "class", "tm-op-pending", "data-testid", "op-pending")
		}
		if wi >= 0 {
			lateTray(b, st, false, wi, late, n)
		}
		if ji >= 0 {
			lateTray(b, st, true, ji, late, n)
		}
		if oh.Target != "" {
			replayLine(b, st, oh.Stream, n)
		}
		b.fclose("div")
	}
	b.fclose("div")
	b.fclose("section")
}

// joinWatermarkLine says join ji's watermark after step n, the minimum of
// its two streams' watermarks leaving out an idle one: the watermark its
// late records were behind, which neither stream's lane shows.
func joinWatermarkLine(b *builder, st *stream.Trace, ji, n int) {
	jh := st.Joins[ji]
	wm := jh.WatermarkAt(n)
	input := func(name string) string {
		for si, sh := range st.Streams {
			if sh.Name == name {
				w, idle := st.Watermark(si, -1, n)
				if idle {
					return name + "'s " + stream.Time(w) + " (idle, left out)"
				}
				return name + "'s " + stream.Time(w)
			}
		}
		return name
	}
	b.el("p", "Watermark "+stream.Time(wm)+": the minimum of "+input(jh.Left)+" and "+input(jh.Right), "class", "tm-note", "data-testid", "join-watermark")
}

// lateTray lists the late records of window operator i (of join i when
// join) by step n, the latest first, each with what became of it in a
// glyph and words: dropped records stay here, where they were left, and
// say so when a restore has read them again since (the replay may take
// them: its watermark starts from nothing).
func lateTray(b *builder, st *stream.Trace, join bool, i int, late []stream.LatePoint, n int) {
	var mine []int
	dropped, side, accepted := 0, 0, 0
	for k := range late {
		l := &late[k]
		if l.Join != join || int(l.Op) != i {
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
	name := ""
	if join {
		// A join has no allowed lateness: nothing late is counted.
		words = "Late so far: " + itoa(dropped) + " dropped, " + itoa(side) + " to the side output; they never join"
		name = st.Joins[i].Name
	} else {
		name = st.Windows[i].Name
	}
	b.el("p", words, "class", "tm-note", "data-testid", "late-count")
	b.open("ul", "class", "tm-slots tm-late-tray", "aria-label", "Late records of "+name+", latest first")
	for i := len(mine) - 1; i >= 0 && i >= len(mine)-maxLateChips; i-- {
		l := &late[mine[i]]
		state, note := "accepted", "⊕ counted"
		switch win.Fate(l.Fate) {
		case win.Dropped:
			state, note = "dropped", "✕ dropped"
			if st.ReadAgain(l.Arrival, n) {
				note += ", read again"
			}
		case win.SideOutput:
			state, note = "side", "◇ side output"
		}
		recordChip(b, "late-chip", st.RecordName(st.ArrivalID(l.Arrival)), state, note+" · "+l.Time.String())
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

// recordChip draws a record as a chip: its name, and what became of it in
// a glyph and words (state, for the stylesheet: a dropped one dashed and
// struck through, so that it reads without colour).
func recordChip(b *builder, testid, name, state, note string) {
	b.open("li", "class", "tm-chip tm-chip-rec tm-rec-"+state, "data-testid", testid, "data-state", state)
	b.el("span", name, "class", "tm-chip-key")
	b.el("span", note, "class", "tm-chip-note")
	b.close("li")
}

// streamMarks are the stream chart's marks in the stage's legend: a class,
// a glyph (each mark a shape of its own) and words. The last is for a job
// that restores.
var streamMarks = [...][3]string{
	{"tm-lg-read", "●", "record read"},
	{"tm-lg-wait", "○", "record still to arrive"},
	{"tm-lg-token", "◉", "record a window takes at this step, moving in from its lane"},
	{"tm-lg-wm", "┆", "watermark (a partition's: a short bar)"},
	{"tm-lg-now", "│", "now"},
	{"tm-lg-idle", "▨", "idle partition (hatched)"},
	{"tm-lg-win", "▭", "window, filling as records land; ✓ fired (✓2: fired twice); dashed: cleared"},
	{"tm-lg-dropped", "✕", "late record, dropped: it stays where it was"},
	{"tm-lg-side", "◇", "late record, sent to the side output"},
	{"tm-lg-accepted", "⊕", "late record, accepted: its window fires again"},
	{"tm-lg-replay", "↻", "read again after a restore"},
}

// streamLegendItems adds the stream chart's marks to the stage's legend.
func streamLegendItems(t *engine.Trace, item func(class, glyph, text string)) {
	st := stream.Of(t)
	marks := streamMarks[:len(streamMarks)-1]
	if st.Job != nil && len(st.Job.Restores) > 0 {
		marks = streamMarks[:]
	}
	for _, m := range marks {
		item(m[0], m[1], m[2])
	}
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
