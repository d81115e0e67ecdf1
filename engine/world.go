// Package engine is the core of Tidemark's deterministic simulation of data
// pipelines: virtual time and the event queue, the seeded random source,
// clocks, the trace, the target tables, the truth about every row, seeking,
// faults' dispatch, the checks a team could run and a scenario's
// expectations. The systems simulated on this core are worlds, each a
// package of its own (engine/hwm: a source database and extractors with
// stored high-water marks; engine/logs: a partitioned log and consumer
// groups) composed by the caller: see Domain and docs/architecture.md.
//
// The engine is pure and caller-driven. It never starts a goroutine, reads a
// clock, draws from a global random source or touches I/O, so the same
// scenario, knob settings and seed give a byte-identical trace natively, in
// tests and in the browser. Time is virtual; the only random source is the
// world's own seeded PCG; events at the same instant run in the order they
// were scheduled.
package engine

import (
	"math/rand/v2"
	"slices"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// Clock is one node's clock. Its reading is true time plus a skew that
// corrections (jumps) change, backwards as easily as forwards.
//
// Invariant: a reading is within the day. One that would leave it (a
// clock 12h behind read at 10:00) stops the world (see pastDay), naming
// line, the line that last set the skew (-1: none, the reading's own).
type Clock struct {
	_    nocmp.NoCompare
	Name string
	Skew vtime.Duration
	// Resolution is the step of its readings: each is cut down to a
	// multiple of it, as a now() without fractional seconds (MySQL's
	// CURRENT_TIMESTAMP) reads whole seconds. 0 or 1ms reads every millisecond.
	Resolution vtime.Duration
	w          *World // nil for a clock of no world, which reads any time
	line       int32
}

// Read returns the clock's reading at true time at.
func (c *Clock) Read(at vtime.Time) vtime.Time {
	r := at.Add(c.Skew)
	if c.Resolution > 1 && r > 0 {
		r -= r % vtime.Time(c.Resolution)
	}
	if !r.InDay() && c.w != nil {
		line := c.line
		if line < 0 {
			line = c.w.line
		}
		return c.w.pastDay(line, prose.F("at %s the %s clock would read", at, c.Name), r)
	}
	return r
}

// scheduled is an entry of the event queue: when, in what order, and which
// action slot to run. It holds no pointers, so the heap's sifting does not
// pay the garbage collector's write barriers.
type scheduled struct {
	at   vtime.Time
	seq  uint64 // order of scheduling: breaks ties between events at the same instant
	slot int32  // index into World.actions
	line int32  // the line it descends from, as World.line
}

// Action is a queued step that is not a closure. A world queues most of its
// steps as closures (Schedule); a step it queues by the million (a source
// transaction's begin, statements and end) it can queue as a pointer to its
// own state converted to a type whose Act takes the step, which costs no
// allocation: a workload of a million transactions then schedules without
// allocating a function for each step.
type Action interface{ Act() }

// funcAction queues a closure as an Action.
type funcAction func()

func (f funcAction) Act() { f() }

// queue is a binary min-heap of scheduled events ordered by (at, seq). It
// holds values, not pointers, so a large schedule is one contiguous block,
// and is written out rather than built on container/heap because boxing
// every entry into an interface was a tenth of the engine's time.
//
// Invariant: q[i] is not after q[2i+1] or q[2i+2].
type queue []scheduled

func (q queue) before(i, j int) bool { return q[i].before(q[j]) }

// before reports whether s runs before t.
func (s scheduled) before(t scheduled) bool {
	if s.at != t.at {
		return s.at < t.at
	}
	return s.seq < t.seq
}

// plan is the event queue of a running world: what was queued while the
// world was built, sorted once when it starts, and a heap of what is queued
// while it runs. A scenario queues much of its schedule up front (every
// phase of a thousand extractor runs) and the rest as it goes, a few events
// ahead (a workload's next transaction); taking the planned events in order
// and keeping only the others in the heap keeps every push and pop on a
// heap of tens of entries rather than thousands.
//
// Invariant: planned[next:] is sorted by (at, seq).
type plan struct {
	planned []scheduled
	next    int
	q       queue
}

// start sorts what was queued so far into the planned events.
func (p *plan) start() {
	p.planned = make([]scheduled, 0, len(p.q))
	for len(p.q) > 0 {
		p.planned = append(p.planned, p.q.pop())
	}
	p.next = 0
}

// len is how many events are queued.
func (p *plan) len() int { return len(p.planned) - p.next + len(p.q) }

// first is the earliest queued event; the plan must not be empty.
func (p *plan) first() scheduled {
	if p.next < len(p.planned) && (len(p.q) == 0 || p.planned[p.next].before(p.q[0])) {
		return p.planned[p.next]
	}
	return p.q[0]
}

// pop removes and returns the earliest queued event; the plan must not be
// empty.
func (p *plan) pop() scheduled {
	if p.next < len(p.planned) && (len(p.q) == 0 || p.planned[p.next].before(p.q[0])) {
		s := p.planned[p.next]
		if p.next++; p.next == len(p.planned) {
			p.planned, p.next = nil, 0
		}
		return s
	}
	return p.q.pop()
}

func (q *queue) push(e scheduled) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.before(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *queue) pop() scheduled {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = scheduled{}
	h = h[:last]
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(h) && h.before(l, small) {
			small = l
		}
		if r < len(h) && h.before(r, small) {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	*q = h
	return top
}

// keyState is the truth about one key id: is its source row in the source,
// and how many target rows copy it. The world keeps one per key id in a
// dense array of values, so that what a send or a write reads and changes of
// a key is one small struct in one place. (The truth log names keys as the
// truth reports them, with the target's name in front when there are
// several targets.)
//
// A key id is a key of a target (what its rows hold and a merge matches on)
// and the source row of the first source to write that key (a table, or a
// producer's events: table). The same key written by another source is
// another source row, with an id of its own that names no target key (see
// World.RowID): the truth tells two tables' order 1 apart, where the target
// keyed by order_id cannot.
type keyState struct {
	_         nocmp.NoCompare
	key       string // the key's text, unprefixed: what a target row holds
	sourceSeq int32  // latest version its source holds (a committed row, a producer's intended event), 0 if none or deleted
	count     int32  // target rows present that copy this source row
	seqs      int32  // the sum of their versions, wrapping: with one row present, its version
	shown     int32  // count when status was last recorded in the truth log
	bad       int32  // the key's index in the truth log's set of keys not fine, or -1
	table     int16  // the source (a TableID) whose row this id is, or -1 before one writes it
	status    status
}

type status uint8

const (
	fine status = iota
	missing
	duplicated
	stale
)

// World is a scenario being simulated. Build one with Build and drive it
// with Step or run it to the end with Run.
type World struct {
	// lastFault is the latest fault injected: the step it came after, and
	// the steps once it was in; FaultDue lets a fault at the same step
	// follow it while the run has not stepped on.
	lastFault struct {
		set        bool
		after, end int
	}
	trace         *Trace
	rng           *rand.Rand
	clocks        map[string]*Clock
	targets       map[string]*sink.Table
	written       map[string]bool // the targets a line names as where it writes (TargetArg), by name
	q             plan
	started       bool // the first step has run, and q's planned events are sorted
	seq           uint64
	now           vtime.Time
	hint          sizeHint
	actors        map[string]int32        // index of each actor name in trace.actors
	keyIDs        map[string]int32        // the dense id of every key not in numIDs, by its truth key
	numIDs        []int32                 // 1 + the dense id of the key spelling the whole number n, at n, while one target or none is declared; 0: not numbered here
	rowIDs        map[rowOf]int32         // the ids of source rows whose key another source wrote first (see RowID)
	keys          []keyState              // the truth about each key, by id
	domains       []Domain                // the worlds composed, as Build was given them
	parts         []Part                  // the composed worlds' parts, in the order of their Domains
	owner         map[string]int          // the part that reads each world command, by command
	faults        map[FaultKind]int       // the part that injects each world fault, by kind
	names         map[string]scenario.Pos // every declared name, of every world, to refuse duplicates
	kinds         map[string]string       // what each of names names, as Declare was told: "topic", "stream", ...
	generated     []generated             // names worlds will generate (a workload's W1, W2, …)
	routes        []route                 // which target each table's rows reach
	soon          []func()                // actions that follow the current one at the same instant, before anything queued
	actions       []Action                // what each queued entry does, by slot
	freeSlots     []int32                 // slots of actions already run
	budget        budget                  // the work this world may still do; see budget
	refused       error                   // why a world refused to go on (see Refuse); the world does no more once set
	stoppedTimers int                     // timers called off (Stop) still in the queue; see skipStopped
	drained       bool                    // the queue ran dry once and the worlds were asked to drain
	ended         bool                    // the queue ran dry after drained and the Enders were told; implies drained
	lines         []scenario.Pos          // where each line read starts, in file order
	line          int32                   // the line (index into lines) the action running descends from: the line read while building, else the running event's; -1 for none (a fault, the worlds' end)
}

// sizeHint estimates how long the trace's slices will grow, so they are
// allocated once rather than doubled and copied, and carry little slack.
type sizeHint struct {
	events, versions int
	keys             int // distinct keys expected, at most versions
}

// clamp bounds every hint by limit.
func (h *sizeHint) clamp(limit int) {
	h.events, h.versions, h.keys = min(h.events, limit), min(h.versions, limit), min(h.keys, limit)
}

// schedule queues fn at true time at, after everything already queued for that instant.
func (w *World) schedule(at vtime.Time, fn func()) {
	w.scheduleAction(at, funcAction(fn))
}

// scheduleAction queues a at true time at, after everything already queued
// for that instant. A time outside the day stops the world (see pastDay):
// while building, at the line read; while running, when it comes due, so
// that a timer called off before then (Stop) is no error.
func (w *World) scheduleAction(at vtime.Time, a Action) {
	if w.budget.building && !at.InDay() {
		w.pastDay(w.line, "an event of this line would come at", at)
	}
	w.charge(1)
	w.seq++
	w.hint.events++
	w.q.q.push(scheduled{at: at, seq: w.seq, slot: w.park(a), line: w.line})
}

// pastDay stops the world at t, a time outside the day that the line with
// index line led to (-1: none; the error then names the scenario line), as
// what says ("at 10:00:00 the reader clock would read"): Build returns the
// error, or running stops (Refuse). It returns t brought within the day,
// so that nothing of the action in hand records a time of another day.
func (w *World) pastDay(line int32, what string, t vtime.Time) vtime.Time {
	pos := scenario.Pos{File: w.trace.File.Name, Line: 1, Col: 1} // no line: the scenario's
	if line >= 0 {
		pos = w.lines[line]
	}
	w.Refuse(scenario.PastDay(pos, what, t))
	return min(max(t, 0), vtime.Day-1)
}

// Timer is an event queued with ScheduleTimer, which Stop can call off
// before it comes due: a watchdog, such as a broker's transaction timeout,
// that has nothing to do once what it watches is over.
type Timer struct {
	fn      func()
	ran     bool // it came due and ran
	stopped bool // Stop called it off first
}

// Act runs the timer's function.
func (t *Timer) Act() {
	t.ran = true
	t.fn()
}

// ScheduleTimer queues fn at true time at, after everything already queued
// for that instant, as Schedule does, and returns it as a Timer for Stop.
func (w *World) ScheduleTimer(at vtime.Time, fn func()) *Timer {
	t := &Timer{fn: fn}
	w.scheduleAction(at, t)
	return t
}

// Stop calls off t, which then never runs: it is no event at all, so it
// neither moves the clock nor keeps the queue from running dry (a timer
// left queued would hold the worlds' Drain, and a stream's end of input,
// back until it came due). Stopping a timer that ran or was stopped does
// nothing.
func (w *World) Stop(t *Timer) {
	if t == nil || t.ran || t.stopped {
		return
	}
	t.stopped = true
	w.stoppedTimers++
}

// skipStopped drops the timers called off from the head of the queue, so
// that the queue's first event is one that will run, and an empty queue
// one with nothing left to run.
func (w *World) skipStopped() {
	for w.stoppedTimers > 0 && w.q.len() > 0 {
		t, ok := w.actions[w.q.first().slot].(*Timer)
		if !ok || !t.stopped {
			return
		}
		w.take()
		w.stoppedTimers--
	}
}

// Done reports whether no event is left (the worlds have drained), or the
// world stopped (see Err).
func (w *World) Done() bool {
	return w.q.len() == 0 && len(w.soon) == 0 && w.ended || w.stopped()
}

// stopped reports whether the world does no more: its budget is spent or a
// world refused to go on.
func (w *World) stopped() bool { return w.budget.over || w.refused != nil }

// Step runs the next event and reports whether there was one. It reports
// false without running anything once the world's work budget is spent;
// Err then says so.
func (w *World) Step() bool {
	if w.stopped() {
		return false
	}
	if !w.started {
		w.started = true
		w.q.start()
	}
	if len(w.soon) > 0 {
		fn := w.soon[0]
		w.soon = w.soon[1:]
		fn()
		return true
	}
	w.skipStopped()
	if w.q.len() == 0 {
		if w.ended {
			// The run has ended: rank the keys once for every later read.
			w.trace.truth.finish(w.trace.keyText)
			return false
		}
		if w.drained {
			// Nothing is left after draining: each world may say, once,
			// what will now never happen.
			w.ended, w.line = true, -1
			for _, p := range w.parts {
				if e, ok := p.(Ender); ok {
					e.End()
				}
			}
			return w.Step()
		}
		// Nothing is left: each world may queue what ends it, once.
		w.drained, w.line = true, -1
		for _, p := range w.parts {
			p.Drain()
		}
		return w.Step()
	}
	s, a := w.take()
	if !s.at.InDay() {
		w.pastDay(s.line, "an event of this line would come at", s.at)
		return false
	}
	w.now, w.line = s.at, s.line
	a.Act()
	return true
}

// take removes the queue's first entry, frees its slot, and returns it
// and what it does.
func (w *World) take() (scheduled, Action) {
	s := w.q.pop()
	a := w.actions[s.slot]
	w.actions[s.slot] = nil
	w.freeSlots = append(w.freeSlots, s.slot)
	return s, a
}

// park stores an action until its queue entry comes up, reusing freed slots.
func (w *World) park(a Action) int32 {
	if n := len(w.freeSlots); n > 0 {
		i := w.freeSlots[n-1]
		w.freeSlots = w.freeSlots[:n-1]
		w.actions[i] = a
		return i
	}
	w.actions = append(w.actions, a)
	return int32(len(w.actions) - 1)
}

// Run steps the world to the end and returns its trace.
func (w *World) Run() *Trace {
	// Nearly every scheduled action emits one event: size the trace's slices
	// once instead of letting append copy them a dozen times.
	t := w.trace
	// The hints come from numbers in the file; the budget bounds what they
	// may ask to allocate.
	w.hint.clamp(w.budget.limit)
	t.Events = slices.Grow(t.Events, max(0, w.hint.events-len(t.Events)))
	t.Versions = slices.Grow(t.Versions, max(0, w.hint.versions-len(t.Versions)))
	sized := 0
	if keys := min(w.hint.keys, w.hint.versions); len(w.keys) == 0 && keys > 64 {
		sized = keys
		// Generated keys are numbers, found by number (see keyID).
		w.numIDs = make([]int32, 0, keys)
		w.keys = make([]keyState, 0, keys)
		t.keyText = slices.Grow(t.keyText, keys)
		for _, tg := range w.targets {
			tg.Reserve(keys)
		}
	}
	if len(w.targets) == 1 && len(w.routes) > 0 && w.hint.versions > 64 {
		// Each version reaching the target (through a route: a pipeline or
		// a consumer group) is a row, and makes its key fall behind and
		// catch up: two changes of the truth.
		for _, tg := range w.targets {
			tg.ReserveRows(w.hint.versions)
		}
		t.truth.changes = slices.Grow(t.truth.changes, max(0, 2*w.hint.versions-len(t.truth.changes)))
	}
	for _, p := range w.parts {
		p.Reserve(sized)
	}
	for w.Step() {
	}
	return w.trace
}

// Trace returns the trace recorded so far.
func (w *World) Trace() *Trace { return w.trace }

// emit appends an event narrated now to the trace and records the truth after it.
func (w *World) emit(actor string, kind Kind, run int, format string, args ...any) {
	t := w.trace
	a := w.ActorID(actor)
	text := prose.F(format, args...)
	// Names and keys are the scenario's to choose, of any length, and a
	// sentence repeats them: a long sentence counts as more than one event.
	w.charge(len(text) / sentenceUnit)
	t.texts = append(t.texts, text)
	t.Events = append(t.Events, Event{
		At: w.now, Kind: kind, Run: int32(run), a: a, b: int32(len(t.texts) - 1),
	})
}

// step is the number the next emitted event will get.
func (w *World) step() int { return len(w.trace.Events) + 1 }

// Run builds a scenario of the worlds domains with the given knob values
// and seed, and runs it to the end within DefaultBudget. A run that would
// pass the budget returns its *BudgetError, not a trace cut short.
func Run(f *scenario.File, set map[string]string, seed uint64, domains []Domain) (*Trace, error) {
	return RunWithBudget(f, set, seed, domains, DefaultBudget)
}

// RunWithBudget is Run within a budget of limit units of work (see
// BuildWithBudget).
func RunWithBudget(f *scenario.File, set map[string]string, seed uint64, domains []Domain, limit int) (*Trace, error) {
	w, err := BuildWithBudget(f, set, seed, domains, limit)
	if err != nil {
		return nil, err
	}
	t := w.Run()
	if err := w.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func isInt(s string) bool {
	_, ok := whole.Int64(s)
	return ok
}

// targetChanged records what a write did to the copies of the source row
// with id in target: rows more (or fewer) of them, their versions' sum
// moved by seqs.
func (w *World) targetChanged(target *sink.Table, id, rows, seqs int32) {
	ks := &w.keys[id]
	ks.count += rows
	ks.seqs += seqs
	w.settle(target, id)
}

// rowOf names the row of a source (a TableID) whose key has the key id k.
type rowOf struct {
	k     int32
	table int16
}

// rowID returns the id of the source row of table with the key whose id is
// k: k itself when table is the first source to write the key, else an id
// of its own (see keyState).
func (w *World) rowID(k int32, table int16) int32 {
	ks := &w.keys[k]
	switch ks.table {
	case table:
		return k
	case -1:
		ks.table = table
		return k
	}
	if id, ok := w.rowIDs[rowOf{k, table}]; ok {
		return id
	}
	if w.rowIDs == nil {
		w.rowIDs = map[rowOf]int32{}
	}
	w.charge(1)
	id := int32(len(w.keys))
	w.keys = append(w.keys, keyState{key: ks.key, bad: -1, table: table})
	w.trace.keyText = append(w.trace.keyText, ks.key)
	w.trace.truth.name(id, w.trace.truth.nameOf(k, w.trace.keyText), w.trace.keyText)
	w.rowIDs[rowOf{k, table}] = id
	return id
}

// keyID returns the dense id of key as target's truth knows it, numbering
// it on first use. The id travels with the key's rows through the source
// and the target, so later steps find the key without hashing its text.
//
// With one target or none (so that a key's truth name is the key itself),
// a key that spells a whole number not far past the keys numbered so far
// (as generated keys are) is found by its number in numIDs rather than by
// hashing its text; keyIDs holds the others, and any key numbered there
// before numIDs reached it.
func (w *World) keyID(target *sink.Table, key string) int32 {
	if len(w.targets) <= 1 {
		if n := keyNumber(key); n >= 0 && n <= 2*len(w.keys)+4096 {
			if n >= len(w.numIDs) {
				w.numIDs = append(w.numIDs, make([]int32, n+1-len(w.numIDs))...)
			} else if id := w.numIDs[n]; id > 0 {
				return id - 1
			}
			id, ok := w.keyIDs[key]
			if !ok {
				id = w.newKey(key, key)
			}
			w.numIDs[n] = id + 1
			return id
		}
	}
	tk := key
	if len(w.targets) > 1 && target != nil {
		tk = target.Name + ":" + key
	}
	if id, ok := w.keyIDs[tk]; ok {
		return id
	}
	id := w.newKey(key, tk)
	w.keyIDs[tk] = id
	return id
}

// newKey numbers key, whose truth name is tk.
func (w *World) newKey(key, tk string) int32 {
	w.charge(1)
	id := int32(len(w.keys))
	w.keys = append(w.keys, keyState{key: key, bad: -1, table: -1})
	w.trace.keyText = append(w.trace.keyText, key)
	w.trace.truth.name(id, tk, w.trace.keyText)
	return id
}

// keyNumber returns n when key is the decimal spelling of the whole number
// n, with no sign and no leading zero ("0" is 0), of at most nine digits;
// else -1.
func keyNumber(key string) int {
	if len(key) == 0 || len(key) > 9 || key[0] == '0' && len(key) > 1 {
		return -1
	}
	n := 0
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// settle recomputes the status of the key with id and moves the truth counters.
func (w *World) settle(target *sink.Table, id int32) {
	if target == nil {
		return
	}
	ks := &w.keys[id]
	next := fine
	c := ks.count
	switch {
	case c > 1:
		next = duplicated
	case ks.sourceSeq > 0 && c == 0:
		next = missing
	case c == 1 && (ks.sourceSeq == 0 || ks.seqs < ks.sourceSeq): // one row: seqs is its version
		next = stale
	}
	if next == ks.status && (next != duplicated || c == ks.shown) {
		return
	}
	w.trace.truth.record(w.step(), id, ks.status, next, c, w.keys)
	ks.status, ks.shown = next, c
}

// CheckConfig returns the trace's check configuration.
func (t *Trace) CheckConfig() check.Config { return t.checks }
