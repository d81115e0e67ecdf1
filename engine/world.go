// Package engine is Tidemark's deterministic simulation of an incremental
// pipeline: a source database, extractors with stored high-water marks, target
// tables, faults, the truth about every row, and the checks a team could run.
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
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Clock is one node's clock. Its reading is true time plus a skew that
// corrections (jumps) change, backwards as easily as forwards.
type Clock struct {
	Name string
	Skew vtime.Duration
}

// Read returns the clock's reading at true time at.
func (c *Clock) Read(at vtime.Time) vtime.Time { return at.Add(c.Skew) }

// scheduled is an entry of the event queue: when, in what order, and which
// action slot to run. It holds no pointers, so the heap's sifting does not
// pay the garbage collector's write barriers.
type scheduled struct {
	at   vtime.Time
	seq  uint64 // order of scheduling: breaks ties between events at the same instant
	slot int32  // index into World.actions
}

// action is what a queue entry does.
//
// Most actions are source-transaction steps, so those are typed (txn, op,
// st) rather than closures: a workload of a million transactions then
// schedules without allocating a function for each step.
type action struct {
	do  func() // a general action; nil for a typed one
	txn *txnState
	st  *stmt
	gen *workload
	op  txnOp
}

// txnOp is the step a typed queue entry takes.
type txnOp uint8

const (
	opBegin txnOp = iota
	opStatement
	opCommit
	opRollback
	opGenerate // the workload's next transaction
)

// queue is a binary min-heap of scheduled events ordered by (at, seq). It
// holds values, not pointers, so a large schedule is one contiguous block,
// and is written out rather than built on container/heap because boxing
// every entry into an interface was a tenth of the engine's time.
//
// Invariant: q[i] is not after q[2i+1] or q[2i+2].
type queue []scheduled

func (q queue) before(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
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

// pipeline is a pipeline's live state while the world runs.
type pipeline struct {
	cfg    extract.Config
	target *sink.Table
	marks  map[string]*markState // by mark name
}

// markState is a stored mark and its history in the trace.
type markState struct {
	value extract.Mark
	hist  *MarkHistory
}

// keyState is the truth about one key: is it in the source, and how is it in
// the target. The world keeps one per key id in a dense array of values, so
// that what a send or a write reads and changes of a key is one small struct
// in one place. (The truth log names keys as the truth reports them, with
// the target's name in front when there are several targets.)
type keyState struct {
	key       string // the key's text, unprefixed: what a target row holds
	hash      int32  // murmur2 of key made positive: a keyed record of it goes to partition hash % count
	sourceSeq int32  // latest committed version, 0 if absent or deleted
	count     int32  // rows of it present in the target
	newest    int32  // newest version among them, 0 if none
	shown     int32  // count when status was last recorded in the truth log
	bad       int32  // the key's index in the truth log's set of keys not fine, or -1
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
	trace     *Trace
	rng       *rand.Rand
	clocks    map[string]*Clock
	source    *Clock // clocks["source"], the database server's clock
	db        *mvcc.DB
	targets   map[string]*sink.Table
	pipes     map[string]*pipeline
	pipeOrd   []string
	q         queue
	seq       uint64
	now       vtime.Time
	runs      []*runState
	hint      sizeHint
	actors    map[string]int32 // index of each actor name in trace.actors
	keyIDs    map[string]int32 // every key's dense id, by its truth key
	keys      []keyState       // the truth about each key, by id
	counts    Counts
	log       *logWorld // the partitioned log; nil until a scenario declares a topic
	soon      []func()  // actions that follow the current one at the same instant, before anything queued
	actions   []action  // what each queued entry does, by slot
	freeSlots []int32   // slots of actions already run
	budget    budget    // the work this world may still do; see budget
}

// sizeHint estimates how long the trace's slices will grow, so they are
// allocated once rather than doubled and copied, and carry little slack.
type sizeHint struct {
	events, txns, versions int
	keys                   int // distinct keys expected, at most versions
	notes                  int // log events narrated on demand
}

// clamp bounds every hint by limit.
func (h *sizeHint) clamp(limit int) {
	h.events, h.txns, h.versions = min(h.events, limit), min(h.txns, limit), min(h.versions, limit)
	h.keys, h.notes = min(h.keys, limit), min(h.notes, limit)
}

// txnState is a source transaction as the schedule knows it. The builder
// makes one per transaction and the scheduled events share it, so no event
// looks a transaction up by name.
type txnState struct {
	name    string
	session string
	tx      mvcc.Txn // zero until it begins
	rec     int      // index into trace.Txns once it has begun
}

// schedule queues fn at true time at, after everything already queued for that instant.
func (w *World) schedule(at vtime.Time, fn func()) {
	w.charge(1)
	w.seq++
	w.hint.events++
	w.q.push(scheduled{at: at, seq: w.seq, slot: w.park(action{do: fn})})
}

// Planned estimates how many events the scenario will emit, from what it
// scheduled: a caller that serves others (a web server) can refuse a
// scenario too large to run on their behalf before running it.
func (w *World) Planned() int { return w.hint.events }

// Done reports whether no event is left, or the world stopped (see Err).
func (w *World) Done() bool { return len(w.q) == 0 && len(w.soon) == 0 || w.budget.over }

// Step runs the next event and reports whether there was one. It reports
// false without running anything once the world's work budget is spent;
// Err then says so.
func (w *World) Step() bool {
	if w.budget.over {
		return false
	}
	if len(w.soon) > 0 {
		fn := w.soon[0]
		w.soon = w.soon[1:]
		fn()
		return true
	}
	if len(w.q) == 0 {
		// The run has ended: rank the keys once for every later read.
		w.trace.truth.finish()
		return false
	}
	s := w.q.pop()
	w.now = s.at
	e := w.actions[s.slot]
	w.actions[s.slot] = action{}
	w.freeSlots = append(w.freeSlots, s.slot)
	if e.do != nil {
		e.do()
		return true
	}
	switch e.op {
	case opBegin:
		w.begin(e.txn)
	case opStatement:
		w.statement(e.txn, e.st)
	case opCommit:
		w.commit(e.txn)
	case opRollback:
		w.rollback(e.txn)
	case opGenerate:
		e.gen.next()
	}
	return true
}

// park stores an action until its queue entry comes up, reusing freed slots.
func (w *World) park(a action) int32 {
	if n := len(w.freeSlots); n > 0 {
		i := w.freeSlots[n-1]
		w.freeSlots = w.freeSlots[:n-1]
		w.actions[i] = a
		return i
	}
	w.actions = append(w.actions, a)
	return int32(len(w.actions) - 1)
}

// scheduleTxn queues a typed step of a source transaction (or, with gen, a
// workload's next transaction) at true time at.
func (w *World) scheduleTxn(at vtime.Time, op txnOp, ts *txnState, st *stmt, gen *workload) {
	w.charge(1)
	w.seq++
	w.hint.events++
	w.q.push(scheduled{at: at, seq: w.seq, slot: w.park(action{txn: ts, st: st, gen: gen, op: op})})
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
	t.Counts = slices.Grow(t.Counts, max(0, w.hint.events+1-len(t.Counts)))
	t.Txns = slices.Grow(t.Txns, max(0, w.hint.txns-len(t.Txns)))
	t.Versions = slices.Grow(t.Versions, max(0, w.hint.versions-len(t.Versions)))
	if t.Log != nil {
		t.Log.notes = slices.Grow(t.Log.notes, max(0, w.hint.notes-len(t.Log.notes)))
	}
	if keys := min(w.hint.keys, w.hint.versions); len(w.keyIDs) == 0 && keys > 64 {
		// A map made large once never rehashes.
		w.keyIDs = make(map[string]int32, keys)
		w.keys = make([]keyState, 0, keys)
		t.keyText = slices.Grow(t.keyText, keys)
		t.truth.keys = slices.Grow(t.truth.keys, keys)
		for _, tab := range w.db.Tables() {
			tab.Reserve(keys)
		}
		for _, tg := range w.targets {
			tg.Reserve(keys)
		}
	}
	if len(w.targets) == 1 && w.hint.versions > 64 {
		// Each version reaching the target is a row, and makes its key fall
		// behind and catch up: two changes of the truth.
		for _, tg := range w.targets {
			tg.ReserveRows(w.hint.versions)
		}
		t.truth.changes = slices.Grow(t.truth.changes, max(0, 2*w.hint.versions-len(t.truth.changes)))
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
	a := w.actorID(actor)
	text := prose.F(format, args...)
	// Names and keys are the scenario's to choose, of any length, and a
	// sentence repeats them: a long sentence counts as more than one event.
	w.charge(len(text) / sentenceUnit)
	t.texts = append(t.texts, text)
	t.Events = append(t.Events, Event{
		Step: int32(len(t.Events) + 1), At: w.now, Kind: kind, Run: int32(run), a: a, b: int32(len(t.texts) - 1),
	})
	t.Counts = append(t.Counts, w.counts)
}

// emitTxn appends a source event, narrated later from its transaction's
// record; the transaction is its actor.
func (w *World) emitTxn(kind Kind, txn, stmt int) {
	t := w.trace
	t.Events = append(t.Events, Event{
		Step: int32(len(t.Events) + 1), At: w.now, Kind: kind, Run: -1, a: int32(txn), b: int32(stmt), src: true,
	})
	t.Counts = append(t.Counts, w.counts)
}

// step is the number the next emitted event will get.
func (w *World) step() int { return len(w.trace.Events) + 1 }

// Run builds and runs a scenario with the given knob values and seed,
// within DefaultBudget. A run that would pass the budget returns its
// *BudgetError, not a trace cut short.
func Run(f *scenario.File, set map[string]string, seed uint64) (*Trace, error) {
	return RunWithBudget(f, set, seed, DefaultBudget)
}

// RunWithBudget is Run within a budget of limit units of work (see
// BuildWithBudget).
func RunWithBudget(f *scenario.File, set map[string]string, seed uint64, limit int) (*Trace, error) {
	w, err := BuildWithBudget(f, set, seed, limit)
	if err != nil {
		return nil, err
	}
	t := w.Run()
	if err := w.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// noun names a row of a table in narration: "order" for a key order_id.
func noun(key string) string {
	n := strings.TrimSuffix(key, "_id")
	if n == key || n == "" {
		return "row"
	}
	return strings.ReplaceAll(n, "_", " ")
}

// rows names a list of keys: "order 3", "orders 3, 4", "5 orders: 1, 2, 3 …".
func rowsPhrase(n string, keys []string) string {
	switch len(keys) {
	case 0:
		return "no " + plural(n)
	case 1:
		return n + " " + keys[0]
	}
	if len(keys) <= 6 {
		return plural(n) + " " + strings.Join(keys, ", ")
	}
	return prose.F("%d %s (%s … %s)", len(keys), plural(n), strings.Join(keys[:3], ", "), keys[len(keys)-1])
}

func plural(n string) string {
	if strings.HasSuffix(n, "s") {
		return n
	}
	return n + "s"
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// targetChanged records what a write did to the key with id in target.
func (w *World) targetChanged(target *sink.Table, id int32, count, newest int) {
	ks := &w.keys[id]
	ks.count, ks.newest = int32(count), int32(newest)
	w.settle(target, id)
}

// keyID returns the dense id of key as target's truth knows it, numbering
// it on first use. The id travels with the key's rows through the source
// and the target, so later steps find the key without hashing its text.
func (w *World) keyID(target *sink.Table, key string) int32 {
	tk := key
	if len(w.targets) > 1 && target != nil {
		tk = target.Name + ":" + key
	}
	if id, ok := w.keyIDs[tk]; ok {
		return id
	}
	w.charge(1)
	id := int32(len(w.keys))
	w.keys = append(w.keys, keyState{key: key, hash: topic.Positive(topic.Murmur2([]byte(key))), bad: -1})
	w.trace.keyText = append(w.trace.keyText, key)
	w.trace.truth.name(id, tk)
	w.keyIDs[tk] = id
	return id
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
	case c > 0 && (ks.sourceSeq == 0 || ks.newest < ks.sourceSeq):
		next = stale
	}
	if next == ks.status && (next != duplicated || c == ks.shown) {
		return
	}
	w.adjust(ks.status, -1)
	w.adjust(next, 1)
	ks.status, ks.shown = next, c
	w.trace.truth.record(w.step(), id, next, c, w.keys)
}

func (w *World) adjust(s status, d int32) {
	switch s {
	case missing:
		w.counts.Missing += d
	case duplicated:
		w.counts.Duplicated += d
	case stale:
		w.counts.Stale += d
	}
}

// targetFor returns the target a source table feeds, or nil.
func (w *World) targetFor(table string) *sink.Table {
	for _, name := range w.pipeOrd {
		p := w.pipes[name]
		for _, t := range p.cfg.From {
			if t == table {
				return p.target
			}
		}
	}
	return w.feedTarget(table)
}

// storeMark records a new stored value of a mark.
func (w *World) storeMark(m *markState, v extract.Mark, run int, reset bool) {
	m.value = v
	m.hist.Points = append(m.hist.Points, check.MarkPoint{
		Step: w.step(), At: w.now, Value: v.V, Set: v.Set, Display: m.hist.Kind.Format(v), Reset: reset, Run: run,
	})
}

// checkConfig returns the trace's check configuration for tests.
func (t *Trace) CheckConfig() check.Config { return t.checks }
