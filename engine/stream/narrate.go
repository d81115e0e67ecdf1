package stream

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// Every event of the stream world is narrated on demand from the trace's
// tables: a read from its Arrival, the other steps from their note.

// Actor names who acted: the stream that read or ticked, the window that
// fired, the join that released.
func (t *Trace) Actor(e *engine.Event) string {
	a, _ := e.Ref()
	switch e.Kind {
	case engine.KindArrive, engine.KindLate, engine.KindShed, engine.KindProcess:
		if a < 0 {
			return t.Ops[t.processed[-a-1].op].Name
		}
		return t.Streams[t.Arrivals[a].Stream].Name
	}
	n := &t.notes[a]
	switch n.why {
	case noteFire, noteFireEnd:
		return t.Windows[n.who].Name
	case noteRelease:
		return t.Joins[n.who].Name
	}
	return t.Streams[n.who].Name
}

// Narration is the sentence of a stream event.
func (t *Trace) Narration(e *engine.Event) string {
	a, _ := e.Ref()
	switch e.Kind {
	case engine.KindArrive, engine.KindLate, engine.KindShed, engine.KindProcess:
		if a < 0 {
			return t.processSentence(int(-a - 1))
		}
		return t.readSentence(int(a))
	}
	n := &t.notes[a]
	switch n.why {
	case noteTick:
		return t.tickSentence(n, e.At)
	case noteEnd:
		// Only the windows and joins that read the stream are named.
		s := t.Streams[n.who]
		open, so := "", []string(nil)
		for _, wh := range t.Windows {
			if wh.Stream == s.Name {
				open, so = ", and would keep its last windows open", []string{"every window left open fires"}
				break
			}
		}
		for _, jh := range t.Joins {
			if jh.Left == s.Name || jh.Right == s.Name {
				so = append(so, "every join releases what it buffers")
				break
			}
		}
		then := ""
		if len(so) > 0 {
			then = ", so " + strings.Join(so, " and ")
		}
		return prose.F("%s has read everything %s holds: its input ends (the run reads the topic as bounded input; an unbounded Kafka source never ends%s), and its watermark jumps to the end of time%s.", s.Name, s.Topic, open, then)
	case noteFire, noteFireEnd:
		return t.fireSentence(n)
	}
	return t.releaseSentence(n)
}

// Time spells a watermark: a time, "none yet" before the first, "the end
// of time" once the input ends.
func Time(w vtime.Time) string {
	switch w {
	case watermark.None:
		return "none yet"
	case watermark.End:
		return "the end of time"
	}
	return w.String()
}

// readSentence narrates arrival i: what was read, when it happened, and
// what the stream's windows and joins made of it.
func (t *Trace) readSentence(i int) string {
	ar := t.Arrivals[i]
	sh := t.Streams[ar.Stream]
	id := t.arrivalID(ar)
	r, h := t.Record(id)
	if r == nil {
		return sh.Name + " reads a record."
	}
	et := r.UpdatedAt
	if sh.stamp {
		et = r.Time
	}
	at := t.t.Events[ar.Step-1].At
	var b strings.Builder
	prose.Fprintf(&b, "%s reads %s from %s-%d at offset %d; it happened at %s", sh.Name, t.what(h, r), h.Name, ar.Part, ar.Off, et)
	if d := at.Sub(et); d >= vtime.Second {
		prose.Fprintf(&b, ", %s before it was read", d)
	}
	if sh.Shift != 0 {
		prose.Fprintf(&b, ", which the map's shift of %s makes %s", sh.Shift, et.Add(sh.Shift))
	}
	if t.isReplay(int32(i)) {
		b.WriteString("; it read this record before the failure, and reads it again from the restored position")
	}
	if !sh.filter.kept(h, r) {
		b.WriteString("; the filter keeps it out of the windows and joins")
	} else {
		for _, wh := range t.gaps(i, et.Add(sh.Shift)) {
			a := wh.Config.Assigner
			prose.Fprintf(&b, "; it falls between %s's windows (each %s long, one every %s), so none of them counts it, and nothing counts it as dropped", wh.Name, a.Size, a.Slide)
		}
		for _, x := range t.skipped(i, et.Add(sh.Shift)) {
			prose.Fprintf(&b, "; it also falls in %s's %s, closed for good: the watermark %s has reached its last instant plus the allowed lateness of %s, so that window skips it, and since another window takes it, nothing counts it as late",
				x.wh.Name, x.w, Time(x.wm), x.wh.Config.Lateness)
		}
	}
	t.bufferClauses(&b, ar, int32(i))
	t.effects(&b, ar.Step, int32(i), id)
	for k := stepIndex(len(t.Watermarks), int(ar.Step)-1, func(i int) int32 { return t.Watermarks[i].Step }); k < len(t.Watermarks) && t.Watermarks[k].Step == ar.Step; k++ {
		if w := &t.Watermarks[k]; int(w.Stream) == int(ar.Stream) && w.Part == -1 {
			prose.Fprintf(&b, "; %s's watermark moves to %s", sh.Name, Time(w.Value))
		}
	}
	b.WriteString(".")
	return b.String()
}

// leftOut reports whether the record of arrival i is kept out of windows
// its stream feeds: by the stream's filter, by falling between a sliding
// window's windows, or out of one of them that was already closed.
func (t *Trace) leftOut(i int) bool {
	ar := t.Arrivals[i]
	sh := t.Streams[ar.Stream]
	r, h := t.Record(t.arrivalID(ar))
	if r == nil {
		return false
	}
	if !sh.filter.kept(h, r) {
		return true
	}
	et := t.eventTime(sh, h, int(ar.Part), int(ar.Off))
	return len(t.gaps(i, et)) > 0 || len(t.skipped(i, et)) > 0
}

// gaps returns the event-time sliding windows whose gaps the record of
// arrival i, which happened at et, falls in: windows shorter than their
// slide leave gaps, and a record in a gap is in no window, which Flink's
// assigner answers with an empty list and no count (unless the record is
// late as well, which its late clause says).
func (t *Trace) gaps(i int, et vtime.Time) []*WindowHistory {
	var buf [1]window.Window
	var out []*WindowHistory
	ar := t.Arrivals[i]
	stream := t.Streams[ar.Stream].Name
	for op, wh := range t.Windows {
		a := wh.Config.Assigner
		// Processing-time windows assign by the stream's clock when the
		// operator takes the record, which the read's time does not tell.
		if wh.Stream != stream || a.Kind != window.Sliding || a.Slide <= a.Size || wh.Config.Domain == window.ProcessingTime {
			continue
		}
		if len(a.Assign(et, buf[:0])) == 0 && !t.lateAt(i, op) {
			out = append(out, wh)
		}
	}
	return out
}

// skip is a window that skipped a record: see skipped.
type skip struct {
	wh *WindowHistory
	w  window.Window
	wm vtime.Time // the watermark that had closed it
}

// skipped returns the event-time sliding windows of the record of arrival
// i, which happened at et, that their operator had already cleared when
// the record came, while another of its windows still took it: Flink's
// WindowOperator skips a window whose cleanup time the watermark has
// reached, and counts the record late only when every window skipped it.
func (t *Trace) skipped(i int, et vtime.Time) []skip {
	ar := t.Arrivals[i]
	sh := t.Streams[ar.Stream]
	var out []skip
	var ws []window.Window
	for op, wh := range t.Windows {
		a := wh.Config.Assigner
		if wh.Stream != sh.Name || a.Kind != window.Sliding || wh.Config.Domain != window.EventTime || t.lateAt(i, op) {
			continue
		}
		wm, _ := t.Watermark(int(ar.Stream), -1, int(ar.Step)-1)
		if wm == watermark.None {
			continue
		}
		ws = a.Assign(et, ws[:0])
		for _, w := range ws {
			if c := w.MaxTimestamp().Add(wh.Config.Lateness); c >= w.MaxTimestamp() && c <= wm {
				out = append(out, skip{wh, w, wm})
			}
		}
	}
	return out
}

// lateAt reports whether window operator op found the record of arrival i
// late.
func (t *Trace) lateAt(i, op int) bool {
	step := t.Arrivals[i].Step
	for k := stepIndex(len(t.Late), int(step)-1, func(i int) int32 { return t.Late[i].Step }); k < len(t.Late) && t.Late[k].Step == step; k++ {
		if l := &t.Late[k]; !l.Join && int(l.Arrival) == i && int(l.Op) == op {
			return true
		}
	}
	return false
}

// effects says what the operators made of a record at step: late, joined,
// fired again, written, deduplicated.
func (t *Trace) effects(b *strings.Builder, step, i int32, id int64) {
	for k := stepIndex(len(t.Late), int(step)-1, func(i int) int32 { return t.Late[i].Step }); k < len(t.Late) && t.Late[k].Step == step; k++ {
		if l := &t.Late[k]; l.Arrival == i {
			b.WriteString("; " + t.lateClause(l))
		}
	}
	pairs := 0
	var with []string
	for k := stepIndex(len(t.Pairs), int(step)-1, func(i int) int32 { return t.Pairs[i].Step }); k < len(t.Pairs) && t.Pairs[k].Step == step; k++ {
		p := &t.Pairs[k]
		other := p.Left
		if other == id {
			other = p.Right
		}
		pairs++
		with = append(with, t.RecordName(other))
	}
	if pairs > 0 {
		prose.Fprintf(b, "; it joins %s", strings.Join(limitList(with, 4), ", "))
	}
	for k := stepIndex(len(t.Merges), int(step)-1, func(i int) int32 { return t.Merges[i].Step }); k < len(t.Merges) && t.Merges[k].Step == step; k++ {
		m := &t.Merges[k]
		if m.From < 2 {
			continue // a session the record extends, as most records do
		}
		wh := t.Windows[m.Op]
		// The record bridges sessions: Flink's MergingWindowSet replaces
		// them with one window, and any row an earlier one wrote stays
		// in the table under its own bounds.
		whose := "the"
		if k := t.keyName(wh, m.Key); k != "" {
			whose = strings.TrimSpace(k) + "'s"
		}
		prose.Fprintf(b, "; it bridges %d of %s sessions, which %s merges with it into one, %s", m.From, whose, wh.Name, m.Into)
	}
	for k := stepIndex(len(t.Firings), int(step)-1, func(i int) int32 { return t.Firings[i].Step }); k < len(t.Firings) && t.Firings[k].Step == step; k++ {
		f := &t.Firings[k]
		wh := t.Windows[f.Op]
		if f.N == 1 {
			// A window the watermark passed before it held anything (or a
			// session the record merged into being) fires for the first time.
			prose.Fprintf(b, "; %s fires %s%s for the first time, at once and late: %s %d", wh.Name, t.keyName(wh, f.Key), f.Window, wh.Agg, wh.Agg.Of(f.Acc))
			continue
		}
		prose.Fprintf(b, "; %s fires %s%s again at once, update %d: %s %d", wh.Name, t.keyName(wh, f.Key), f.Window, f.N, wh.Agg, wh.Agg.Of(f.Acc))
	}
	t.stateEffects(b, step, i)
}

// what names a record: "sale 77 (event till3-5)".
func (t *Trace) what(h *logs.TopicHistory, r *topic.Record) string {
	noun := t.t.Noun(h.Producer(r))
	if noun == "" {
		noun = "row"
	}
	s := noun + " " + h.Key(r)
	if id := h.ID(r); id != "" && id != h.Key(r) {
		s += " (event " + id + ")"
	}
	return s
}

// lateClause says what a window or a join made of a late record.
func (t *Trace) lateClause(l *LatePoint) string {
	if l.Join {
		jl := join.Late{Side: join.Side(l.Side), Record: join.Record{Key: l.Key, Time: l.Time}, Fate: join.Dropped, Watermark: l.Watermark}
		if window.Fate(l.Fate) == window.SideOutput {
			jl.Fate = join.SideOutput
		}
		return t.Joins[l.Op].Name + " finds it late: " + jl.Why() + t.unread(l)
	}
	wl := window.Late{Record: window.Record{Key: l.Key, Time: l.Time, Value: l.Value}, Fate: window.Fate(l.Fate), Window: l.Window, Watermark: l.Watermark, Lateness: l.Lateness}
	return t.Windows[l.Op].Name + " finds it late: " + wl.Why() + t.unread(l)
}

// unread says, of a late record sent to a side output that no target reads
// (a window's or a join's without side=), that it is gone: in Flink a side
// output nobody takes with getSideOutput is discarded, and no counter shows
// it. It is "" for any other record.
func (t *Trace) unread(l *LatePoint) string {
	if window.Fate(l.Fate) != window.SideOutput || t.SideTarget(l) != "" {
		return ""
	}
	return ", which nothing here reads: the record is gone, and no counter shows it"
}

// WhyLate explains late record i to a learner who clicked it: when it
// arrived and from where, the window its event time put it in and when that
// fired, the allowed lateness, and what became of it.
func (t *Trace) WhyLate(i int) string {
	l := &t.Late[i]
	ar := t.Arrivals[l.Arrival]
	sh := t.Streams[ar.Stream]
	at := t.t.Events[ar.Step-1].At
	head := prose.F("%s arrived at %s from %s-%d", t.recordName(ar), at, sh.Topic, ar.Part)
	if l.Join || l.Time >= l.Window.End {
		// A join's record, or one in a sliding window's gap, which no
		// window holds: the step's own sentence says it all.
		return head + "; " + t.lateClause(l) + "."
	}
	// A window no record reached before its end never fired: in Flink it
	// does not exist until a record creates it.
	fired, before := ", which had held no record, so it never fired, though the watermark had passed its end", false
	for k := range t.Firings {
		f := &t.Firings[k]
		if f.Step >= l.Step {
			break
		}
		if int(f.Op) == int(l.Op) && f.Key == l.Key && f.Window == l.Window {
			fired, before = prose.F(", which fired at watermark %s (at %s)", Time(f.At), t.t.Events[f.Step-1].At), true
			break
		}
	}
	keep := l.Window.MaxTimestamp().Add(l.Lateness)
	s := prose.F("%s; its event time %s puts it in %s%s; allowed lateness %s", head, l.Time, l.Window, fired, l.Lateness)
	switch window.Fate(l.Fate) {
	case window.Accepted:
		again := "fired again at once with everything it holds"
		if !before {
			again = "fired at once, late, with the record alone"
		}
		return prose.F("%s, which keeps the window until the watermark reaches %s; the watermark was %s, so the record was added and the window %s.", s, keep, Time(l.Watermark), again)
	case window.SideOutput:
		counted := ", which numLateRecordsDropped does not count"
		if u := t.unread(l); u != "" {
			counted = u
		}
		return prose.F("%s, which keeps the window only until the watermark reaches %s, and the watermark was already %s, so the record went to the late-data side output%s.", s, keep, Time(l.Watermark), counted)
	}
	return prose.F("%s, which keeps the window only until the watermark reaches %s, and the watermark was already %s, so the record was dropped and counted in numLateRecordsDropped.", s, keep, Time(l.Watermark))
}

// joinAnd lists names: "a, b and c".
func joinAnd(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func limitList(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(append([]string{}, xs[:n-1]...), prose.F("… and %d more", len(xs)-n+1))
}

// tickSentence narrates a tick that changed watermarks or idleness.
func (t *Trace) tickSentence(n *note, at vtime.Time) string {
	sh := t.Streams[n.who]
	var parts, idle []string
	combined, allIdle := "", false
	for _, w := range t.Watermarks[n.i : n.i+n.n] {
		if w.Part == -1 {
			allIdle = w.Idle
			prev, wasIdle := t.partitionBefore(int(n.who), -1, int(w.Step))
			switch {
			case w.Idle:
				combined = prose.F("every partition is idle, so %s is idle too and holds its watermark at %s", sh.Name, Time(w.Value))
			case wasIdle && w.Value == prev:
				combined = prose.F("%s is active again, and its watermark stays at %s", sh.Name, Time(w.Value))
			default:
				combined = prose.F("%s's watermark moves to %s", sh.Name, Time(w.Value))
			}
			continue
		}
		prev, wasIdle := t.partitionBefore(int(n.who), int(w.Part), int(w.Step))
		pname := prose.F("%s-%d", sh.Topic, w.Part)
		switch {
		case w.Idle && !wasIdle:
			idle = append(idle, pname)
		case !w.Idle && wasIdle:
			parts = append(parts, prose.F("%s reads again and rejoins the minimum at %s", pname, Time(w.Value)))
		case w.Value != prev:
			parts = append(parts, prose.F("%s's watermark moves to %s", pname, Time(w.Value)))
		}
	}
	if combined == "" {
		low, by := t.holder(int(n.who), int(t.Watermarks[n.i].Step))
		combined = prose.F("%s's watermark stays at %s", sh.Name, Time(low))
		if by >= 0 {
			combined += prose.F(", held back by %s-%d", sh.Topic, by)
		}
	} else if allIdle {
	} else if r := sh.SourceReaders(len(sh.Parts)); r > 1 {
		combined += prose.F(", the minimum over its %d readers, each set by the largest event time any of its partitions has shown", r)
	} else if r == 1 {
		combined += ", set by the largest event time any partition has shown"
	} else if len(sh.Parts) > 1 {
		combined += ", the minimum over its active partitions"
	}
	switch len(idle) {
	case 0:
	case 1:
		parts = append([]string{prose.F("%s has read nothing for more than %s, so it is marked idle and leaves the minimum", idle[0], sh.Config.Idleness)}, parts...)
	default:
		parts = append([]string{prose.F("%s have read nothing for more than %s, so they are marked idle and leave the minimum", joinAnd(idle), sh.Config.Idleness)}, parts...)
	}
	s := prose.F("Tick at %s: ", at)
	if len(parts) > 0 {
		s += strings.Join(limitList(parts, 4), "; ") + "; "
	}
	return s + combined + "."
}

// partitionBefore is partition p's watermark and idleness before step.
func (t *Trace) partitionBefore(i, p, step int) (vtime.Time, bool) {
	return t.Watermark(i, p, step-1)
}

// holder is the stream's watermark after step and the partition whose
// watermark sets it (the lowest active one), or -1.
func (t *Trace) holder(i, step int) (vtime.Time, int) {
	wm, _ := t.Watermark(i, -1, step)
	sh := t.Streams[i]
	if sh.Config.Scope == watermark.PerSource {
		return wm, -1
	}
	by := -1
	low := watermark.End
	for p := range sh.Parts {
		v, idle := t.Watermark(i, p, step)
		if !idle && v < low {
			low, by = v, p
		}
	}
	return wm, by
}

// fireSentence narrates windows firing.
func (t *Trace) fireSentence(n *note) string {
	wh := t.Windows[n.who]
	fs := t.Firings[n.i : n.i+n.n]
	var each []string
	remade := false
	for k, f := range fs {
		s := prose.F("%s%s %s %d", t.keyName(wh, f.Key), f.Window, wh.Agg, wh.Agg.Of(f.Acc))
		before, again := t.firedBefore(int(n.i) + k)
		switch {
		case f.N > 1 && again:
			// The restored state counts its updates from the checkpoint,
			// and the row's version with them.
			s += prose.F(" (update %d again, as the state restored from the checkpoint counts it; before the failure it had reached update %d)", f.N, before.N)
		case f.N > 1:
			s += prose.F(" (update %d)", f.N)
		case again:
			// It fired before a restore: again, when the restore brought its
			// state back (it fired after the checkpoint restored); made anew
			// by records read again, holding only those, when it was
			// cleared before that checkpoint.
			how := " (made anew"
			if undone(t.undoneSpans(t.OpNamed(wh.Name), int(f.Step)), before.Step) {
				how = " (again"
			}
			s += how + " after the restore; it fired before with " + strconv.FormatInt(wh.Agg.Of(before.Acc), 10) + ")"
			remade = true
		}
		each = append(each, s)
	}
	what := prose.F("it fires %s", strings.Join(limitList(each, 4), ", "))
	if wh.Target != "" {
		what += prose.F(" and writes %s to %s", pronoun(len(fs)), wh.Target)
		if remade && t.targetMode(wh.Target) == sink.Merge {
			what += ", whose merge keeps the row it has: this firing's version, a first one again, is not newer"
		}
	}
	reach := prose.F("the last instant of %s", fs[0].Window)
	if len(fs) > 1 {
		reach = prose.F("the last instant of %s", prose.Count(len(fs), "window", "windows"))
	}
	switch {
	case n.why == noteFireEnd:
		return prose.F("%s: the end of input fires what is still open: %s.", wh.Name, strings.TrimPrefix(what, "it fires "))
	case wh.Config.Domain == window.ProcessingTime && fs[0].At > fs[0].Window.End:
		// A timer that came due while the job was down fires at once when
		// it restores, as Flink's restored processing-time timers do.
		return prose.F("%s: the clock, at %s, is past %s; %s.", wh.Name, fs[0].At, reach, what)
	case wh.Config.Domain == window.ProcessingTime:
		// A processing-time timer fires once the clock is past its time.
		return prose.F("%s: the clock reaches %s, just past %s; %s.", wh.Name, fs[0].At, reach, what)
	}
	return prose.F("%s: the watermark %s has reached %s; %s.", wh.Name, Time(fs[0].At), reach, what)
}

// firedBefore is the earlier firing of the same window and key that the
// firing at index i of Firings repeats after a restore, a first one or an
// update the restore numbered back, if it does (see noteRepeats).
func (t *Trace) firedBefore(i int) (FiringPoint, bool) {
	k, ok := sorted.Search(len(t.repeats), func(k int) int {
		return cmp.Compare(t.repeats[k].I, int32(i))
	})
	if !ok {
		return FiringPoint{}, false
	}
	return t.Firings[t.repeats[k].Before], true
}

// keyName prefixes a window with its key: "key till3 " or "" for a stream keyed by none.
func (t *Trace) keyName(wh *WindowHistory, k int32) string {
	sh := t.StreamNamed(wh.Stream)
	if sh == nil || !sh.Keyed {
		return ""
	}
	return "key " + sh.KeyName(k) + " "
}

// releaseSentence narrates a join releasing buffered records.
func (t *Trace) releaseSentence(n *note) string {
	jh := t.Joins[n.who]
	rs := t.Released[n.i : n.i+n.n]
	var never, names []string
	for _, r := range rs {
		names = append(names, t.RecordName(r.ID))
		if r.Matches == 0 {
			never = append(never, prose.F("%s (%s)", t.RecordName(r.ID), r.Time))
		}
	}
	wm := Time(jh.WatermarkAt(int(rs[0].Step)))
	what := strings.Join(names, ", ")
	if len(names) > 3 {
		what = prose.Count(len(names), "record", "records")
	}
	s := prose.F("%s's watermark reaches %s, past the interval of %s, which leave its buffers", jh.Name, wm, what)
	switch {
	case len(never) == 0 && len(rs) == 1:
		return s + "; it had joined."
	case len(never) == 0:
		return s + "; each had joined."
	}
	return prose.F("%s; %d never joined and never will: %s.", s, len(never), strings.Join(limitList(never, 5), ", "))
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// WatermarkAt is the join's combined watermark after step: the minimum of
// its two streams' watermarks, leaving out an idle one (None before the
// first).
func (j *JoinHistory) WatermarkAt(step int) vtime.Time {
	k := stepIndex(len(j.Watermarks), step, func(i int) int32 { return j.Watermarks[i].Step })
	if k == 0 {
		return watermark.None
	}
	return j.Watermarks[k-1].Value
}

// Routine reports whether the event at index i of the trace (step i+1) is
// a routine step of a stream scenario, which a text timeline may fold into
// a count: a record sent on demand, a record read on time (or taken off a
// buffer) with nothing else happening, or a tick that only moved
// watermarks. Source transactions, firings, late records, joins, idleness
// and the end of input are never routine.
func (t *Trace) Routine(i int) bool {
	e := &t.t.Events[i]
	if !e.OnDemand() {
		return false
	}
	switch e.Kind {
	case engine.KindProduce:
		return true // a send
	case engine.KindArrive, engine.KindProcess:
		if a, _ := e.Ref(); e.Kind == engine.KindArrive && a >= 0 && t.leftOut(int(a)) {
			return false // its own line says why no window counts it
		}
		step := int32(i + 1)
		for k := stepIndex(len(t.Merges), int(step)-1, func(i int) int32 { return t.Merges[i].Step }); k < len(t.Merges) && t.Merges[k].Step == step; k++ {
			if t.Merges[k].From >= 2 {
				return false // it bridges sessions
			}
		}
		if k := stepIndex(len(t.Pairs), int(step)-1, func(i int) int32 { return t.Pairs[i].Step }); k < len(t.Pairs) && t.Pairs[k].Step == step {
			return false
		}
		if k := stepIndex(len(t.Firings), int(step)-1, func(i int) int32 { return t.Firings[i].Step }); k < len(t.Firings) && t.Firings[k].Step == step {
			return false
		}
		if j := t.Job; j != nil {
			if k := stepIndex(len(j.Dups), int(step)-1, func(i int) int32 { return j.Dups[i].Step }); k < len(j.Dups) && j.Dups[k].Step == step {
				return false
			}
			for k := stepIndex(len(j.Outputs), int(step)-1, func(i int) int32 { return j.Outputs[i].Step }); k < len(j.Outputs) && j.Outputs[k].Step == step; k++ {
				if j.Outputs[k].Restarted {
					return false
				}
			}
		}
		return true
	case engine.KindWatermark:
		a, _ := e.Ref()
		n := &t.notes[a]
		if n.why != noteTick {
			return false
		}
		for _, w := range t.Watermarks[n.i : n.i+n.n] {
			if w.Idle {
				return false
			}
			if _, wasIdle := t.partitionBefore(int(w.Stream), int(w.Part), int(w.Step)); wasIdle {
				return false
			}
		}
		return true
	}
	return false
}

// TickStream is the index of the stream whose tick e is, or -1.
func (t *Trace) TickStream(e *engine.Event) int {
	if e.Kind != engine.KindWatermark || !e.OnDemand() {
		return -1
	}
	a, _ := e.Ref()
	return int(t.notes[a].who)
}
