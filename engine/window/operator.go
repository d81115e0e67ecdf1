package window

import (
	"math"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// None is the watermark and processing time before any has been seen,
// Flink's Long.MIN_VALUE.
const None = vtime.Time(math.MinInt64)

// Config is one keyed window aggregate.
type Config struct {
	_          nocmp.NoCompare
	Assigner   Assigner
	Domain     Domain
	Lateness   vtime.Duration // allowed lateness, event time only; at least zero
	SideOutput bool           // records past the lateness go to a side output instead of being dropped and counted
	Contents   bool           // keep each window's record ids, so that a firing lists them (a ProcessWindowFunction's buffer)
}

// Validate says what is wrong with c, as a *ConfigError.
func (c Config) Validate() error {
	if err := c.Assigner.Validate(); err != nil {
		return err
	}
	switch {
	case c.Domain > ProcessingTime:
		return &ConfigError{"time", "unknown time domain"}
	case c.Lateness < 0:
		return &ConfigError{"lateness", "allowed lateness cannot be negative, got " + c.Lateness.String()}
	case c.Lateness > 0 && c.Domain == ProcessingTime:
		return &ConfigError{"lateness", "allowed lateness applies to event-time windows only; a processing-time window is never late"}
	}
	return nil
}

// Record is one record entering the aggregate.
type Record struct {
	_     nocmp.NoCompare
	ID    int64      // the caller's name for the record, given back in contents and late records
	Key   int32      // the key, as a dense id from 0: equal keys, equal ids
	Time  vtime.Time // the event time
	Value int64      // what sum, min and max aggregate
}

// Firing is one result a window emits.
type Firing struct {
	Key    int32
	Window Window
	Acc    Acc        // everything the window holds when it fires, not only what came since its last firing
	At     vtime.Time // the watermark (event time) or processing time when it fired
	N      int32      // 1 for the window's first firing, 2 and on for each update after it
	Late   bool       // fired at once by a late record accepted within the allowed lateness
	// Records lists the ids of the window's records, when Config.Contents
	// is set: in the order they arrived, except that a merged session holds
	// the records of the sessions it merged in order of their start, then
	// the record that merged them.
	Records []int64
}

// Fate is what became of a record that arrived after its window's end.
type Fate uint8

// Fates of a late record.
const (
	Accepted   Fate = iota // within the allowed lateness: added, and the window fired again
	Dropped                // past it: dropped and counted in numLateRecordsDropped
	SideOutput             // past it: sent to the late-data side output
)

func (f Fate) String() string { return [...]string{"accepted", "dropped", "side output"}[f] }

// Late is a record that arrived when the watermark had already reached the
// end of its window.
type Late struct {
	_         nocmp.NoCompare
	Record    Record
	Fate      Fate
	Window    Window         // its window (of a sliding record, the last one to close)
	Watermark vtime.Time     // the operator's watermark when the record arrived
	Lateness  vtime.Duration // the allowed lateness
}

// Why says, in a sentence a learner can read, why the record met its fate.
func (l Late) Why() string {
	end := l.Window.MaxTimestamp()
	keep := end.Add(l.Lateness)
	head := "event time " + l.Record.Time.String() + " falls in " + l.Window.String() + ", whose last instant is " + end.String()
	tail := ", so the record is dropped and counted in numLateRecordsDropped"
	if l.Fate == SideOutput {
		tail = ", so the record goes to the late-data side output"
	}
	if l.Record.Time >= l.Window.End {
		// A sliding window's gap: no window holds it, and Flink counts it
		// late once its event time plus the lateness is at or behind the
		// watermark (isElementLate).
		return "event time " + l.Record.Time.String() + " falls between windows, after " + l.Window.String() +
			", so no window holds it; with an allowed lateness of " + l.Lateness.String() + " it is late once the watermark reaches " +
			l.Record.Time.Add(l.Lateness).String() + ", its event time plus the lateness, and the watermark is already " + l.Watermark.String() + tail
	}
	if l.Fate == Accepted {
		return head + "; the watermark " + l.Watermark.String() + " has reached it, but an allowed lateness of " +
			l.Lateness.String() + " keeps the window until the watermark reaches " + keep.String() +
			", so the record is added and the window fires at once with everything it holds"
	}
	return head + "; with an allowed lateness of " + l.Lateness.String() + " the window is kept only until the watermark reaches " +
		keep.String() + ", and the watermark is already " + l.Watermark.String() + tail
}

// Merge is a session window absorbing others.
type Merge struct {
	Key  int32
	Into Window
	From []Window // the windows it replaced, by start
}

// Output collects what calls to an Operator emitted. The caller keeps one,
// reads it after a call and Resets it, so that a long run reuses its slices.
type Output struct {
	Firings []Firing
	Late    []Late
	Merges  []Merge
	// Opens are the session windows records opened touching no other, each
	// a Merge with no From: with Merges, every session window the operator
	// made, which is how a chart draws the sessions still open.
	Opens []Merge
}

// Reset empties o, keeping its room.
func (o *Output) Reset() {
	o.Firings = o.Firings[:0]
	o.Late = o.Late[:0]
	o.Merges = o.Merges[:0]
	o.Opens = o.Opens[:0]
}

// Size is how much state an operator holds.
type Size struct {
	Keys    int   // keys with at least one window open
	Windows int   // windows open
	Records int64 // record ids held for contents (0 unless Config.Contents)
}

// none marks an absent slot or element index.
const none = -1

// Slot flags, and the kinds of timer.
const (
	live       uint8 = 1 << iota // the slot holds an open window
	fireTimer                    // a timer at the window's MaxTimestamp
	cleanTimer                   // a timer at the window's cleanup time
)

// slot is one open window of one key.
//
// Invariants: while live, it is on its key's list and (for windows that
// do not merge) index[{key, win}] is this slot; acc.Count is the number of
// records added; head..tail lists those records' ids in elems when
// Config.Contents is set; fireAt and cleanAt are the heap positions of its
// pending timers (the same position when one timer serves both), or none.
type slot struct {
	_               nocmp.NoCompare
	win             Window
	acc             Acc
	key             int32
	firings         int32
	prev, next      int32 // the key's other open windows
	head, tail      int32 // its record ids in elems
	fireAt, cleanAt int32
	flags           uint8
}

// elem is one record id held for a window's contents.
type elem struct {
	_    nocmp.NoCompare
	id   int64
	next int32
}

// winKey finds a key's window.
type winKey struct {
	key        int32
	start, end vtime.Time
}

// Operator is one keyed window aggregate.
//
// The state holds no pointers apart from the index map: windows live in a
// slice of slots reused through a free list, contents in a slice of
// elements, timers in a slice-backed heap, so a state of millions of
// windows costs the garbage collector little.
//
// Invariants: wm and now never decrease; windows counts the live slots and
// keys the keys whose list is not empty; keyHead[k] is the first live slot
// of key k or none; every live event-time window has its cleanup time
// ahead of wm (or at the end of time) once AdvanceWatermark returns.
type Operator struct {
	cfg      Config
	wm       vtime.Time
	now      vtime.Time
	slots    []slot
	spare    []int32 // freed slots
	index    map[winKey]int32
	keyHead  []int32 // by key id
	keys     int
	windows  int
	timers   []timer
	elems    []elem
	freeElem int32 // first free element, or none
	held     int64
	dropped  int64
	sideOut  int64
	scratch  []Window
	group    []int32
}

// New returns an empty operator.
func New(cfg Config) (*Operator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Operator{cfg: cfg, wm: None, now: None, index: map[winKey]int32{}, freeElem: none}, nil
}

// Config is the configuration o was made with.
func (o *Operator) Config() Config { return o.cfg }

// Watermark is the operator's event-time watermark.
func (o *Operator) Watermark() vtime.Time { return o.wm }

// ProcessingTime is the latest processing time the operator was told.
func (o *Operator) ProcessingTime() vtime.Time { return o.now }

// LateRecordsDropped is Flink's numLateRecordsDropped counter.
func (o *Operator) LateRecordsDropped() int64 { return o.dropped }

// SideOutputs counts the late records sent to the side output.
func (o *Operator) SideOutputs() int64 { return o.sideOut }

// Size is the state the operator holds now.
func (o *Operator) Size() Size { return Size{Keys: o.keys, Windows: o.windows, Records: o.held} }

// cleanupTime is when a window's state is cleared: MaxTimestamp plus the
// lateness in event time (the end of time if that overflows), MaxTimestamp
// in processing time.
func (o *Operator) cleanupTime(w Window) vtime.Time {
	end := w.MaxTimestamp()
	if o.cfg.Domain == ProcessingTime {
		return end
	}
	if c := end.Add(o.cfg.Lateness); c >= end {
		return c
	}
	return vtime.Time(math.MaxInt64)
}

// windowLate is Flink's isWindowLate: the window's cleanup time is at or
// behind the watermark.
func (o *Operator) windowLate(w Window) bool {
	return o.cfg.Domain == EventTime && o.cleanupTime(w) <= o.wm
}

// elementLate is Flink's isElementLate.
func (o *Operator) elementLate(t vtime.Time) bool {
	return o.cfg.Domain == EventTime && t.Add(o.cfg.Lateness) <= o.wm
}

// Add reads one record at processing time now.
func (o *Operator) Add(r Record, now vtime.Time, out *Output) {
	if r.Key < 0 {
		panic("window: a record's key id must be at least zero")
	}
	o.AdvanceProcessingTime(now, out)
	t := r.Time
	if o.cfg.Domain == ProcessingTime {
		t = o.now
	}
	for int(r.Key) >= len(o.keyHead) {
		o.keyHead = append(o.keyHead, none)
	}
	o.scratch = o.cfg.Assigner.Assign(t, o.scratch[:0])
	if o.cfg.Assigner.Merging() {
		o.addMerging(r, o.scratch[0], out)
		return
	}
	skipped, lateAt := true, none
	for j, w := range o.scratch {
		if o.windowLate(w) {
			continue
		}
		skipped = false
		i := o.find(r.Key, w)
		o.addTo(i, r)
		if o.onElement(i, out) && lateAt == none {
			lateAt = j
		}
		o.register(i, o.cleanupTime(w), cleanTimer)
	}
	switch {
	case lateAt != none:
		o.late(r, Accepted, o.scratch[lateAt], out)
	case skipped && o.elementLate(r.Time):
		// Flink counts a late record its assigner puts in no window (one
		// between sliding windows) as dropped too. It is named by the
		// window before the gap, the latest that starts at or before it.
		w := Window{}
		if len(o.scratch) > 0 {
			w = o.scratch[0]
		} else {
			a := o.cfg.Assigner
			s := StartWithOffset(r.Time, a.Offset, a.Slide)
			w = Window{Start: s, End: s.Add(a.Size)}
		}
		o.reject(r, w, out)
	}
}

// addMerging is Add for session windows: w joins the key's windows it
// intersects, as Flink's MergingWindowSet.addWindow does.
func (o *Operator) addMerging(r Record, w Window, out *Output) {
	i := o.merge(r.Key, w, out)
	if i == none {
		// A new session of its own, whose cleanup time is already behind the
		// watermark: Flink retires it at once.
		if o.elementLate(r.Time) {
			o.reject(r, w, out)
		}
		return
	}
	o.addTo(i, r)
	if o.onElement(i, out) {
		o.late(r, Accepted, o.slots[i].win, out)
	}
	o.register(i, o.cleanupTime(o.slots[i].win), cleanTimer)
}

// merge finds or makes the window of key that w belongs to: a window that
// holds w, the cover of w and every window it intersects, or w alone when
// it is not late. It returns none when w stands alone and is late.
func (o *Operator) merge(key int32, w Window, out *Output) int32 {
	group := o.group[:0]
	for i := o.keyHead[key]; i != none; i = o.slots[i].next {
		if o.slots[i].win.Intersects(w) {
			group = append(group, i)
		}
	}
	o.group = group
	switch {
	case len(group) == 0:
		if o.windowLate(w) {
			return none
		}
		out.Opens = append(out.Opens, Merge{Key: key, Into: w})
		return o.open(key, w)
	case len(group) == 1 && o.slots[group[0]].win.Cover(w) == o.slots[group[0]].win:
		return group[0] // w lies inside an open window: nothing merges
	}
	sorted.Stable(group, func(i, j int32) int { return cmpTime(o.slots[group[i]].win.Start, o.slots[group[j]].win.Start) })
	cover := w
	from := make([]Window, len(group))
	for j, i := range group {
		cover = cover.Cover(o.slots[i].win)
		from[j] = o.slots[i].win
	}
	c := o.open(key, cover)
	for _, i := range group {
		s := &o.slots[i]
		o.slots[c].acc.Merge(s.acc)
		if s.head != none {
			cs := &o.slots[c]
			if cs.head == none {
				cs.head = s.head
			} else {
				o.elems[cs.tail].next = s.head
			}
			cs.tail = s.tail
			s.head, s.tail = none, none
		}
		o.release(i)
	}
	// The trigger's onMerge: a timer at the new end, unless the watermark
	// (or clock) is already past it, when the record's onElement fires it.
	if end := cover.MaxTimestamp(); end > o.clock() {
		o.register(c, end, fireTimer)
	}
	out.Merges = append(out.Merges, Merge{Key: key, Into: cover, From: from})
	return c
}

// clock is the time that fires this operator's windows.
func (o *Operator) clock() vtime.Time {
	if o.cfg.Domain == ProcessingTime {
		return o.now
	}
	return o.wm
}

// onElement is the default trigger's onElement for slot i: in event time it
// fires at once when the watermark has reached the window's end and
// otherwise sets a timer there; in processing time it sets a timer. It
// reports whether it fired.
func (o *Operator) onElement(i int32, out *Output) bool {
	end := o.slots[i].win.MaxTimestamp()
	if o.cfg.Domain == EventTime && end <= o.wm {
		o.fire(i, o.wm, true, out)
		return true
	}
	o.register(i, end, fireTimer)
	return false
}

// late reports a late record.
func (o *Operator) late(r Record, f Fate, w Window, out *Output) {
	out.Late = append(out.Late, Late{Record: r, Fate: f, Window: w, Watermark: o.wm, Lateness: o.cfg.Lateness})
}

// reject drops a record past the lateness, or sends it to the side output.
func (o *Operator) reject(r Record, w Window, out *Output) {
	if o.cfg.SideOutput {
		o.sideOut++
		o.late(r, SideOutput, w, out)
		return
	}
	o.dropped++
	o.late(r, Dropped, w, out)
}

// shortWalk is how many of a key's windows find compares before it asks
// the index: a key's newest windows come first on its list, and a record
// usually belongs to one of them.
const shortWalk = 8

// find returns the slot of key's window w, opening it if needed.
func (o *Operator) find(key int32, w Window) int32 {
	i, n := o.keyHead[key], 0
	for ; i != none && n < shortWalk; i, n = o.slots[i].next, n+1 {
		if o.slots[i].win == w {
			return i
		}
	}
	if i != none { // a long list: ask the index
		if j, ok := o.index[winKey{key, w.Start, w.End}]; ok {
			return j
		}
	}
	return o.open(key, w)
}

// open makes a slot for key's window w.
func (o *Operator) open(key int32, w Window) int32 {
	var i int32
	if n := len(o.spare); n > 0 {
		i = o.spare[n-1]
		o.spare = o.spare[:n-1]
	} else {
		i = int32(len(o.slots))
		o.slots = append(o.slots, slot{})
	}
	head := o.keyHead[key]
	s := &o.slots[i]
	*s = slot{win: w, key: key, prev: none, next: head, head: none, tail: none, fireAt: none, cleanAt: none, flags: live}
	if head == none {
		o.keys++
	} else {
		o.slots[head].prev = i
	}
	o.keyHead[key] = i
	if !o.cfg.Assigner.Merging() {
		o.index[winKey{key, w.Start, w.End}] = i
	}
	o.windows++
	return i
}

// release frees slot i: its window is gone, with its contents and timers.
func (o *Operator) release(i int32) {
	s := &o.slots[i]
	if s.prev != none {
		o.slots[s.prev].next = s.next
	} else {
		o.keyHead[s.key] = s.next
		if s.next == none {
			o.keys--
		}
	}
	if s.next != none {
		o.slots[s.next].prev = s.prev
	}
	if !o.cfg.Assigner.Merging() {
		delete(o.index, winKey{s.key, s.win.Start, s.win.End})
	}
	if s.head != none {
		o.elems[s.tail].next = o.freeElem
		o.freeElem = s.head
		o.held -= s.acc.Count
	}
	for s.fireAt != none || s.cleanAt != none {
		at := s.fireAt
		if at == none {
			at = s.cleanAt
		}
		t := o.remove(int(at))
		if t.kinds&fireTimer != 0 {
			s.fireAt = none
		}
		if t.kinds&cleanTimer != 0 {
			s.cleanAt = none
		}
	}
	s.flags = 0
	s.head, s.tail = none, none
	o.spare = append(o.spare, i)
	o.windows--
}

// addTo adds r to slot i.
func (o *Operator) addTo(i int32, r Record) {
	s := &o.slots[i]
	s.acc.Add(r.Value)
	if !o.cfg.Contents {
		return
	}
	e := o.freeElem
	if e != none {
		o.freeElem = o.elems[e].next
		o.elems[e] = elem{id: r.ID, next: none}
	} else {
		e = int32(len(o.elems))
		o.elems = append(o.elems, elem{id: r.ID, next: none})
	}
	if s.head == none {
		s.head = e
	} else {
		o.elems[s.tail].next = e
	}
	s.tail = e
	o.held++
}

// contents lists slot i's record ids.
func (o *Operator) contents(i int32) []int64 {
	s := &o.slots[i]
	out := make([]int64, 0, s.acc.Count)
	for e := s.head; e != none; e = o.elems[e].next {
		out = append(out, o.elems[e].id)
	}
	return out
}

// fire emits slot i's window as it stands.
func (o *Operator) fire(i int32, at vtime.Time, late bool, out *Output) {
	s := &o.slots[i]
	s.firings++
	f := Firing{Key: s.key, Window: s.win, Acc: s.acc, At: at, N: s.firings, Late: late}
	if o.cfg.Contents {
		f.Records = o.contents(i)
	}
	out.Firings = append(out.Firings, f)
}

// register sets slot i's timer of the given kind at time at, once: a
// second registration of a pending timer adds nothing, and one at the time
// of the window's other pending timer joins it (Flink keeps one timer per
// key, window and time). The cleanup timer at the end of time is never set.
func (o *Operator) register(i int32, at vtime.Time, kind uint8) {
	s := &o.slots[i]
	if kind == cleanTimer && at == vtime.Time(math.MaxInt64) {
		return
	}
	mine, other := &s.fireAt, s.cleanAt
	if kind == cleanTimer {
		mine, other = &s.cleanAt, s.fireAt
	}
	switch {
	case *mine != none:
		return
	case other != none && o.timers[other].at == at:
		o.timers[other].kinds |= kind
		*mine = other
		return
	}
	o.push(timer{at: at, start: s.win.Start, end: s.win.End, key: s.key, slot: i, kinds: kind})
}

// AdvanceWatermark moves the event-time watermark to w and, for event-time
// windows, fires and clears every window whose timers are due. A
// watermark not ahead of the current one changes nothing.
func (o *Operator) AdvanceWatermark(w vtime.Time, out *Output) {
	if w <= o.wm {
		return
	}
	o.wm = w
	if o.cfg.Domain == EventTime {
		o.runTimers(w, out)
	}
}

// AdvanceProcessingTime moves the operator's clock to now and, for
// processing-time windows, fires every window whose last instant the clock
// has passed (see firesAt). A time behind the operator's clock changes
// nothing.
func (o *Operator) AdvanceProcessingTime(now vtime.Time, out *Output) {
	if now < o.now {
		return
	}
	o.now = now
	if o.cfg.Domain == ProcessingTime {
		o.runTimers(now, out)
	}
}

// firesAt is the time, of the watermark for an event-time window and of
// the clock for a processing-time one, at which a timer set for at fires.
// An event-time timer fires when the watermark reaches its time. A
// processing-time timer fires once the clock is past its time, 1 ms after
// it at the earliest, as Flink's have since FLINK-9857: a record read at
// its window's last millisecond joins that window, which fires at its end,
// not before the record.
func (o *Operator) firesAt(at vtime.Time) vtime.Time {
	if o.cfg.Domain == ProcessingTime {
		return at + 1
	}
	return at
}

// runTimers fires the timers that fire by time now (firesAt), in order of
// time, key, window start and window end; a firing says it happened at now.
func (o *Operator) runTimers(now vtime.Time, out *Output) {
	for len(o.timers) > 0 && o.firesAt(o.timers[0].at) <= now {
		tm := o.remove(0)
		s := &o.slots[tm.slot]
		if tm.kinds&fireTimer != 0 {
			s.fireAt = none
			o.fire(tm.slot, now, false, out)
		}
		if tm.kinds&cleanTimer != 0 {
			s.cleanAt = none
			o.release(tm.slot)
		}
	}
}

func cmpTime(a, b vtime.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// NextTimer is when the operator's earliest pending timer (a firing or a
// cleanup) fires (firesAt), and false when none is pending. A caller
// driving a processing-time window asks it when to next advance the clock.
func (o *Operator) NextTimer() (vtime.Time, bool) {
	if len(o.timers) == 0 {
		return 0, false
	}
	return o.firesAt(o.timers[0].at), true
}

// Open is one window the operator holds, as Each reports it.
type Open struct {
	Key     int32
	Window  Window
	Acc     Acc
	Firings int32 // how many times it has fired so far
}

// Each calls fn with every open window, in order of key, window start and
// end, until fn returns false: what a panel draws as windows filling.
func (o *Operator) Each(fn func(Open) bool) {
	order := make([]int32, 0, o.windows)
	for i := range o.slots {
		if o.slots[i].flags&live != 0 {
			order = append(order, int32(i))
		}
	}
	o.sortSlots(order)
	for _, i := range order {
		s := &o.slots[i]
		if !fn(Open{Key: s.key, Window: s.win, Acc: s.acc, Firings: s.firings}) {
			return
		}
	}
}

// sortSlots orders slots by key, window start and end.
func (o *Operator) sortSlots(order []int32) {
	sorted.Stable(order, func(i, j int32) int {
		x, y := &o.slots[order[i]], &o.slots[order[j]]
		switch {
		case x.key != y.key:
			return int(x.key - y.key)
		case x.win.Start != y.win.Start:
			return cmpTime(x.win.Start, y.win.Start)
		}
		return cmpTime(x.win.End, y.win.End)
	})
}
