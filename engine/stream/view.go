package stream

import (
	"cmp"
	"sort"

	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// This file reads a stream's state at one step, for a panel to draw: each
// partition's lane (what was read, what waits, its watermark and idleness)
// and each window operator's windows filling and firing.

// PartState is one partition of a stream's topic after step n.
type PartState struct {
	_         nocmp.NoCompare
	Part      int
	Appended  int        // records appended by then
	Read      int        // of those, records the stream has read
	MaxSeen   vtime.Time // the largest event time among its latest 2000 reads (after any shift); watermark.None before the first
	Watermark vtime.Time // its watermark, or the stream's under per-source generation
	Idle      bool
}

// Dot is one record on a partition's lane.
type Dot struct {
	_     nocmp.NoCompare
	ID    int64
	Off   int
	Time  vtime.Time // its event time as the stream's windows see it (after any shift)
	Read  bool       // read by the step; false: appended, still to arrive
	Late  int        // index in the trace's Late of what a window or join made of it when it was late, or -1
	Fresh bool       // read at this very step
}

// Partitions is every partition of stream i after step n.
func (t *Trace) Partitions(i, n int) []PartState {
	sh := t.Streams[i]
	h := logs.Of(t.t).TopicNamed(sh.Topic)
	wm, idle := t.Watermark(i, -1, n)
	out := make([]PartState, len(sh.Parts))
	for p := range sh.Parts {
		ps := PartState{Part: p, MaxSeen: watermark.None, Watermark: wm, Idle: idle}
		if p < len(h.Parts) {
			ps.Appended = int(h.Parts[p].EndAt(int32(n)))
		}
		read := sh.Parts[p].Read
		ps.Read = readBy(read, n)
		// The newest event time among the latest reads: a large trace's
		// lane shows the recent ones, and older records are rarely newer.
		for off := max(0, ps.Read-2000); off < ps.Read; off++ {
			if read[off] < 0 {
				continue // skipped, never read
			}
			if et := t.eventTime(sh, h, p, off); et > ps.MaxSeen {
				ps.MaxSeen = et
			}
		}
		if sh.Config.Scope == watermark.PerPartition {
			ps.Watermark, ps.Idle = t.Watermark(i, p, n)
		}
		out[p] = ps
	}
	return out
}

// eventTime is the event time of offset off of partition p as the stream's
// windows see it.
func (t *Trace) eventTime(sh *StreamHistory, h *logs.TopicHistory, p, off int) vtime.Time {
	r := &h.Parts[p].Records[off]
	et := r.UpdatedAt
	if sh.stamp {
		et = r.Time
	}
	return et.Add(sh.Shift)
}

// readBy is how many offsets of a partition (with read, its PartHistory's
// Read) the stream had passed after step n: read, or skipped by a reset.
func readBy(read []int32, n int) int {
	return sort.Search(len(read), func(k int) bool { return abs32(read[k]) > int32(n) })
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// Dots lists the records of partition p of stream i to draw after step n:
// the last records read (at most max) and every one appended and still to
// arrive (at most max), in offset order. A record is marked late by what
// its latest read came to.
func (t *Trace) Dots(i, p, n, limit int) []Dot {
	sh := t.Streams[i]
	h := logs.Of(t.t).TopicNamed(sh.Topic)
	if p >= len(h.Parts) || p >= len(sh.Parts) {
		return nil
	}
	appended := int(h.Parts[p].EndAt(int32(n)))
	read := sh.Parts[p].Read
	nread := readBy(read, n)
	from := max(0, min(nread, appended)-limit)
	to := max(from, min(appended, nread+limit))
	late := map[int]int{} // offset -> late index
	for k, l := range t.LateAt(n) {
		if a := t.Arrivals[l.Arrival]; int(a.Stream) == i && int(a.Part) == p && int(a.Off) >= from {
			// A record read again after a restore shows what its latest
			// read came to: replayed after the watermark started again from
			// nothing, a record dropped as late the first time may be taken.
			if !t.ReadAgain(l.Arrival, n) {
				late[int(a.Off)] = k
			}
		}
	}
	out := make([]Dot, 0, to-from)
	for off := from; off < to; off++ {
		d := Dot{ID: int64(sh.topicIdx)<<48 | int64(p)<<32 | int64(off), Off: off, Time: t.eventTime(sh, h, p, off), Read: off < nread && read[off] > 0, Late: -1}
		if k, ok := late[off]; ok {
			d.Late = k
		}
		d.Fresh = d.Read && read[off] == int32(n)
		out = append(out, d)
	}
	return out
}

// WindowState is one window of a window operator after step n, summed over
// its keys.
type WindowState struct {
	_       nocmp.NoCompare
	Window  window.Window
	Keys    int    // keys with a record in it
	KeyName string // the one key's name, when Keys is 1 and the stream is keyed; else ""
	Count   int64  // records it holds (accepted ones), over every key
	Fired   int    // firings by then, over every key
	Value   int64  // the aggregate of its latest firing, for a stream keyed by none
	Late    int    // records that came too late for it: dropped or set aside (Side of them)
	Side    int    // of Late, the records sent to the side output
	Redone  int    // late records it accepted within the allowed lateness, each firing it again
	Cleared bool   // its state is gone: past its cleanup time
}

// WindowsAt lists window operator i's windows that overlap [lo, hi) after
// step n, in order of start: what it holds, how often it has fired, what
// came too late. It counts the records read by then that fall in each,
// but those whose taking a restore undid (a record read again after it
// counts once, as the restored state holds it once); for a session
// window, the sessions the operator made (open, fired or cleared) and,
// for those that have fired, what their firing held.
func (t *Trace) WindowsAt(i, n int, lo, hi vtime.Time) []WindowState {
	wh := t.Windows[i]
	si := t.streamIndex(wh.Stream)
	sh := t.Streams[si]
	type wkey struct{ start, end vtime.Time }
	byWin := map[wkey]*WindowState{}
	keys := map[wkey]map[int32]bool{}
	var order []wkey
	get := func(w window.Window) *WindowState {
		k := wkey{w.Start, w.End}
		if x := byWin[k]; x != nil {
			return x
		}
		x := &WindowState{Window: w}
		byWin[k], keys[k] = x, map[int32]bool{}
		order = append(order, k)
		return x
	}
	dropped := map[int32]bool{} // arrivals a window dropped or set aside
	for _, l := range t.LateAt(n) {
		if !l.Join && int(l.Op) == i {
			fate := window.Fate(l.Fate)
			if fate != window.Accepted {
				dropped[l.Arrival] = true
			}
			if l.Window.End > lo && l.Window.Start < hi {
				x := get(l.Window)
				switch fate {
				case window.Accepted:
					x.Redone++
				case window.SideOutput:
					x.Late++
					x.Side++
				default:
					x.Late++
				}
			}
		}
	}
	gone := t.undoneSpans(t.OpNamed(wh.Name), n)
	a := wh.Config.Assigner
	if a.Kind != window.Session {
		var ws []window.Window
		// The stream's watermark, for the clearing of a window: only a
		// restore sets it back, so only after one may a record come after
		// its window's clearing and make it anew.
		var marks []WatermarkPoint
		var last map[wkey]int32 // with marks: the step of the latest record counted in each window
		if wh.Config.Domain == window.EventTime && len(gone) > 0 {
			marks, last = t.streamMarks(si), map[wkey]int32{}
		}
		t.windowInput(si, n, dropped, gone, func(ar Arrival, key int32, tm vtime.Time) {
			if wh.Config.Domain == window.ProcessingTime {
				// The stream's clock at the read: the time the operator
				// assigned it by.
				tm = t.t.Events[ar.Step-1].At.Add(sh.skewAt(ar.Step))
			}
			if tm < lo-vtime.Time(a.Size) || tm >= hi+vtime.Time(a.Size) {
				return
			}
			ws = a.Assign(tm, ws[:0])
			for _, w := range ws {
				if w.End > lo && w.Start < hi {
					x, k := get(w), wkey{w.Start, w.End}
					// Cleared since its latest record (only a restore's
					// replay comes after that): this record makes it anew.
					if marks != nil {
						if clearedBetween(marks, gone, w.MaxTimestamp().Add(wh.Config.Lateness), last[k], ar.Step) {
							x.Count, keys[k] = 0, map[int32]bool{}
						}
						last[k] = ar.Step
					}
					x.Count++
					keys[k][key] = true
				}
			}
		})
	}
	if a.Kind == window.Session {
		t.openSessions(i, n, lo, hi, dropped, gone, func(w window.Window, key int32, count int64) {
			x := get(w)
			x.Count += count
			keys[wkey{w.Start, w.End}][key] = true
		})
	}
	for _, f := range t.FiringsAt(n) {
		if int(f.Op) != i || f.Window.End <= lo || f.Window.Start >= hi {
			continue
		}
		x := get(f.Window)
		x.Fired++
		x.Value = wh.Agg.Of(f.Acc)
		if a.Kind == window.Session {
			x.Count = f.Acc.Count
			keys[wkey{f.Window.Start, f.Window.End}][f.Key] = true
		}
	}
	cl := t.closureAt(si, n, wh.Config)
	out := make([]WindowState, 0, len(order))
	for _, k := range order {
		x := byWin[k]
		x.Keys = len(keys[k])
		if x.Keys == 1 && sh.Keyed {
			for key := range keys[k] {
				x.KeyName = sh.KeyName(key)
			}
		}
		x.Cleared = cl.closed(x.Window, x.Fired > 0)
		out = append(out, *x)
	}
	sorted.Stable(out, func(i, j int32) int { return cmpWindows(out[i].Window, out[j].Window) })
	return out
}

// openSessions calls add for each session window of window operator i
// made by step n that lies within [lo, hi), with its key and how many
// records it holds: the sessions still open, those fired and kept for the
// allowed lateness, and those cleared (WindowsAt marks which). It replays
// the sessions the operator made (Merges), but those a restore undid
// (gone): a session grown over others replaces those of its key inside
// it. The records are counted from the arrivals, leaving out those
// dropped (dropped, by arrival), each in the
// newest session of its key that holds its event time and had been opened
// (or had absorbed a session opened) by the record's step: a key's
// sessions in state never overlap, though one may overlap a session of the
// key cleared before it began, whose records it does not hold.
func (t *Trace) openSessions(i, n int, lo, hi vtime.Time, dropped map[int32]bool, gone []stepSpan, add func(w window.Window, key int32, count int64)) {
	type session struct {
		key    int32
		w      window.Window
		count  int64
		opened int32 // the step the earliest session it absorbed was opened at
	}
	var made []session
	for _, m := range t.Merges {
		if m.Step > int32(n) {
			break
		}
		if int(m.Op) != i || undone(gone, m.Step) {
			continue
		}
		grown := session{key: m.Key, w: m.Into, opened: m.Step}
		kept := made[:0] // without the sessions it absorbed
		for _, s := range made {
			if s.key != m.Key || s.w.Start < m.Into.Start || s.w.End > m.Into.End {
				kept = append(kept, s)
			} else {
				grown.opened = min(grown.opened, s.opened)
			}
		}
		made = append(kept, grown)
	}
	if len(made) == 0 {
		return
	}
	byKey := map[int32][]int{} // indexes in made, by key, newest first
	for j := len(made) - 1; j >= 0; j-- {
		byKey[made[j].key] = append(byKey[made[j].key], j)
	}
	t.windowInput(t.streamIndex(t.Windows[i].Stream), n, dropped, gone, func(ar Arrival, key int32, tm vtime.Time) {
		for _, j := range byKey[key] {
			if w := made[j].w; tm >= w.Start && tm < w.End && ar.Step >= made[j].opened {
				made[j].count++
				break
			}
		}
	})
	for _, s := range made {
		if s.w.End > lo && s.w.Start < hi {
			add(s.w, s.key, s.count)
		}
	}
}

// clearedBetween reports whether a window whose cleanup time (its last
// instant plus the allowed lateness) is cleanup was cleared at a step from
// `from` up to, not including, `to`: whether the watermark (marks, the
// stream's in step order) passed it then, in a step no restore undid (in
// the spans gone). After a restore the watermark starts again from
// nothing, so a record replayed into a cleared window makes it anew,
// holding only what came after the clearing: Flink purges a window's
// contents at its cleanup time, and a replay's records that are no longer
// late start from empty. A processing-time window has no marks here.
func clearedBetween(marks []WatermarkPoint, gone []stepSpan, cleanup vtime.Time, from, to int32) bool {
	k := sort.Search(len(marks), func(k int) bool { return marks[k].Step >= from })
	for ; k < len(marks) && marks[k].Step < to; k++ {
		if marks[k].Value >= cleanup && (k == 0 || marks[k-1].Value < cleanup) && !undone(gone, marks[k].Step) {
			return true
		}
	}
	return false
}

// windowInput calls take, in the order they were read by step n, for each
// record of stream si that a window operator reading it took: those its
// filters keep, but for the arrivals in dropped and those read in the
// spans of steps gone (see undoneSpans). It gives each with its key's
// index in the stream and its event time.
func (t *Trace) windowInput(si, n int, dropped map[int32]bool, gone []stepSpan, take func(ar Arrival, key int32, tm vtime.Time)) {
	sh := t.Streams[si]
	h := logs.Of(t.t).TopicNamed(sh.Topic)
	for k, ar := range t.ArrivalsAt(n) {
		if int(ar.Stream) != si || dropped[int32(k)] || undone(gone, ar.Step) {
			continue
		}
		r := &h.Parts[ar.Part].Records[ar.Off]
		if !sh.filter.kept(h, r) {
			continue
		}
		key := int32(0)
		if sh.Keyed && int(r.KeyID) < len(sh.keyOf) {
			key = sh.keyOf[r.KeyID] - 1
		}
		take(ar, key, t.eventTime(sh, h, int(ar.Part), int(ar.Off)))
	}
}

// Buffered is how many records each side of join i holds after step n:
// read, not late, not yet released.
func (t *Trace) Buffered(i, n int) (left, right int) {
	jh := t.Joins[i]
	li, ri := t.streamIndex(jh.Left), t.streamIndex(jh.Right)
	late := map[int32]bool{}
	for _, l := range t.LateAt(n) {
		if l.Join && int(l.Op) == i {
			late[l.Arrival] = true
		}
	}
	gone := t.undoneSpans(t.OpNamed(jh.Name), n)
	for k, ar := range t.ArrivalsAt(n) {
		if late[int32(k)] || undone(gone, ar.Step) {
			continue
		}
		sh := t.Streams[ar.Stream]
		h := logs.Of(t.t).TopicNamed(sh.Topic)
		if !sh.filter.kept(h, &h.Parts[ar.Part].Records[ar.Off]) {
			continue
		}
		switch int(ar.Stream) {
		case li:
			left++
		case ri:
			right++
		}
	}
	for _, r := range t.ReleasedAt(n) {
		if int(r.Op) == i && !undone(gone, r.Step) {
			if r.Side == 0 {
				left--
			} else {
				right--
			}
		}
	}
	return left, right
}

// stepSpan is the steps s with From < s < To.
type stepSpan struct{ From, To int32 }

// undoneSpans are the spans of steps whose effect on operator op's state
// (its index in Ops) a restore by step n undid: from the step the operator
// took its snapshot for the checkpoint restored (from the start, when none
// had completed) to the restore. A record taken in such a span is no
// longer in the state; one read again after the restore is, once.
func (t *Trace) undoneSpans(op, n int) []stepSpan {
	if t.Job == nil || op < 0 {
		return nil
	}
	var out []stepSpan
	for k := range t.Job.Restores {
		r := &t.Job.Restores[k]
		if int(r.Step) > n {
			break
		}
		from := int32(0)
		if c := t.Job.Restored(r); c != nil && op < len(c.Snapshots) {
			from = c.Snapshots[op]
		}
		out = append(out, stepSpan{From: from, To: r.Step})
	}
	return out
}

// undone reports whether step s lies in one of the spans.
func undone(spans []stepSpan, s int32) bool {
	for _, g := range spans {
		if s > g.From && s < g.To {
			return true
		}
	}
	return false
}

// ReadAgain reports whether the record of arrival ai was read again after
// it, by step n: replayed after a restore.
//
// Replays are in arrival order, so only those after ai are looked at: the
// late records a drawing asks about are its latest, and so are the replays
// that can read them again.
func (t *Trace) ReadAgain(ai int32, n int) bool {
	a, reads := t.Arrivals[ai], int32(len(t.ArrivalsAt(n)))
	k, _ := sorted.Search(len(t.Replays), func(j int) int { return cmp.Compare(t.Replays[j], ai+1) })
	for _, r := range t.Replays[k:] {
		if r >= reads {
			break
		}
		if b := t.Arrivals[r]; b.Off == a.Off && b.Part == a.Part && b.Stream == a.Stream {
			return true
		}
	}
	return false
}
