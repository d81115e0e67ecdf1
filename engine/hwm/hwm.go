// Package hwm is the high-water-mark world: a source database with MVCC
// (PostgreSQL's rules: now() is the transaction's start, a row is visible
// once committed, commits get log positions), the transactions and
// workloads that write it, and extractor pipelines that read it after a
// stored mark (a timestamp, the largest value seen, or a log position),
// write the core's targets, and store the mark again; runs, crashes, clock
// corrections and operators' mark resets.
//
// It is a world of the engine (see docs/architecture.md): Domain is what a
// caller hands engine.Build, Of reads the world's part of a trace, and
// SourceOf gives a world built on this one (the log world's change
// capture) the source's tables and commits.
package hwm

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
)

// Domain is the high-water-mark world, for engine.Build.
var Domain engine.Domain = domain{}

// FaultCrash kills the pipeline process before the next phase of the run
// in flight.
const FaultCrash engine.FaultKind = "crash"

// ErrIdle is returned for a crash injected where no run is in flight.
var ErrIdle = errors.New("no extractor run is in flight at this step, so a crash would change nothing; step to a run's read or write first")

// ErrNoPipeline is returned for a crash injected into a scenario that runs
// no extractor: a crash stops an extractor's run, and there is none.
var ErrNoPipeline = errors.New("this scenario runs no extractor (it has no pipeline line), so there is no run for a crash to stop")

type domain struct{}

// Commands are the high-water-mark world's scenario commands, in the order
// docs/scenarios.md documents them.
func (domain) Commands() []string { return commands }

// commands are the world's commands; the core only reads them.
var commands = []string{"source", "pipeline", "txn", "begin", "insert", "update", "delete", "commit", "rollback",
	"alter", "workload", "run", "runs", "reset"}

func (domain) Faults() []engine.FaultKind { return faults }

var faults = []engine.FaultKind{FaultCrash}

func (domain) Open(w *engine.World) engine.Part {
	h := &world{w: w, db: mvcc.New(), pipes: map[string]*pipeline{}, txns: map[string]*txnPlan{}, sessionIDs: map[string]int32{}}
	h.src = Source{h: h}
	return h
}

// world is the high-water-mark world's live state in one engine.World.
type world struct {
	w       *engine.World
	t       *Trace // the world's history; nil until its first line is read
	by      engine.Narrator
	src     Source
	db      *mvcc.DB
	source  *engine.Clock // the database server's clock, once every line is read
	pipes   map[string]*pipeline
	pipeOrd []string
	runs    []*runState
	txns    map[string]*txnPlan // every transaction a line declared, by name, while building
	alters  []alterPlan         // each table's last alter line, while building
	// Sessions by number, so that a transaction's begin and end look its
	// session up by index. Invariant: len(busy) == len(sessionNames), and
	// sessionIDs[sessionNames[i]] == i.
	sessionIDs   map[string]int32
	sessionNames []string
	busy         []*txnState       // each session's open transaction while running, or nil: a session runs one at a time
	workloads    []string          // prefixes of generated transaction names
	txnCount     int               // transactions the scenario will begin, to size the trace
	onCommit     []func(*mvcc.Txn) // what follows each commit: a world built on this one (change capture)
	keySlab      []string          // statements' key lists are carved from this block
	idTexts      strings.Builder   // the text of ids drawn from sequences, carved from one block (see idText)
	stmtSlab     []StmtRecord      // transactions' first statement records are carved from this block
	keyIDs       []int32           // scratch: a statement's keys' target ids, reused
	rowIDs       []int32           // scratch: a statement's rows' ids, reused
	in           []sink.In         // scratch: the rows a run writes, reused (the target copies them)
}

// sessionID is the number of the session called name, given one the
// first time it is asked for.
func (h *world) sessionID(name string) int32 {
	if id, ok := h.sessionIDs[name]; ok {
		return id
	}
	id := int32(len(h.sessionNames))
	h.sessionIDs[name] = id
	h.sessionNames = append(h.sessionNames, name)
	h.busy = append(h.busy, nil)
	return id
}

// slabSize is how many key list entries or statement records one block
// holds: a workload of a million transactions makes a few thousand
// allocations for them rather than two million, which the browser's
// collector, the page's only thread, feels most.
const slabSize = 1024

// carveKeys returns a list of n keys from the current block, or a list of
// its own when n is large. Its capacity is n, so appending to it copies.
func (h *world) carveKeys(n int) []string {
	if n > slabSize/4 {
		return make([]string, n)
	}
	if len(h.keySlab) < n {
		h.keySlab = make([]string, slabSize)
	}
	keys := h.keySlab[:n:n]
	h.keySlab = h.keySlab[n:]
	return keys
}

// idText returns the text of an id drawn from a sequence. The texts are
// written one after the other into a block of their own and carved from
// it: a workload draws an id for every row it inserts, and one allocation
// for hundreds of them spares the browser's collector.
func (h *world) idText(id int64) string {
	const most = len("-9223372036854775808")
	if h.idTexts.Cap()-h.idTexts.Len() < most {
		// A builder's text is never changed once written, so the texts
		// carved from the last block stay as they are.
		h.idTexts = strings.Builder{}
		h.idTexts.Grow(16 * slabSize)
	}
	var digits [most]byte
	start := h.idTexts.Len()
	h.idTexts.Write(strconv.AppendInt(digits[:0], id, 10))
	return h.idTexts.String()[start:]
}

// addStmt appends r to a transaction's statements, carving a first
// statement's room from the current block.
func (h *world) addStmt(rec *TxnRecord, r StmtRecord) {
	if rec.Stmts != nil {
		rec.Stmts = append(rec.Stmts, r)
		return
	}
	if len(h.stmtSlab) == 0 {
		h.stmtSlab = make([]StmtRecord, slabSize)
	}
	rec.Stmts = h.stmtSlab[:1:1]
	h.stmtSlab = h.stmtSlab[1:]
	rec.Stmts[0] = r
}

// Command reads one of the high-water-mark world's scenario lines.
func (h *world) Command(c scenario.Command) error {
	if h.t == nil {
		h.t = &Trace{t: h.w.Trace()}
		h.by = h.w.Attach(h.t)
	}
	switch c.Name {
	case "source":
		return h.sourceLine(c)
	case "pipeline":
		return h.pipeline(c)
	case "txn":
		return h.txnLine(c)
	case "begin":
		return h.beginLine(c)
	case "insert", "update", "delete":
		return h.statementLine(c)
	case "commit", "rollback":
		return h.endLine(c)
	case "alter":
		return h.alterLine(c)
	case "workload":
		return h.workload(c)
	case "run":
		return h.runLine(c)
	case "runs":
		return h.runsLine(c)
	case "reset":
		return h.resetLine(c)
	}
	return scenario.Errorf(c.Pos, "the high-water-mark world has no command %q", c.Name)
}

// Finish records the source tables and pipelines in the trace; the world
// runs when a pipeline is declared.
func (h *world) Finish() (bool, error) {
	h.source = h.w.Clock("source")
	if h.t == nil {
		return false, nil
	}
	for _, t := range h.db.Tables() {
		h.t.Tables = append(h.t.Tables, SourceTable{Name: t.Name, Key: t.Key, Stamp: t.Stamp, Clock: t.Clock, Cache: t.Cache})
	}
	for _, name := range h.pipeOrd {
		h.t.Pipes = append(h.t.Pipes, h.pipes[name].cfg)
	}
	return len(h.pipes) > 0, nil
}

// Reserve sizes the transactions' records and, when the core sized its
// keys, the source tables' indexes by key.
func (h *world) Reserve(keys int) {
	if h.t == nil {
		return
	}
	// The count comes from numbers in the file; the budget bounds it.
	h.t.Txns = slices.Grow(h.t.Txns, max(0, min(h.txnCount, h.w.Limit())-len(h.t.Txns)))
	if keys > 0 {
		for _, tab := range h.db.Tables() {
			tab.Reserve(keys)
		}
	}
}

// Drain queues nothing: the world ends with its last event.
func (h *world) Drain() {}

// Inject crashes the pipeline process of the run in flight: the run dies
// at its next phase, saying so.
func (h *world) Inject(f engine.Fault) error {
	if len(h.pipes) == 0 {
		return ErrNoPipeline
	}
	for _, r := range h.runs {
		if !r.dead && r.doom == "" && h.t.Runs[r.id].ReadStep > 0 {
			r.doom = prose.F("at %s, injected right after step %d", h.w.Now(), f.AfterStep)
			return nil
		}
	}
	return ErrIdle
}

// Source is the source database as a world built on this one sees it
// (engine.SourceDB): change capture reads its tables and follows its
// commits. engine.SourceOf finds it.
type Source struct{ h *world }

// SourceDB returns the world's source database, for engine.SourceOf.
func (h *world) SourceDB() engine.SourceDB { return &h.src }

// Table returns the source table named name, or nil.
func (s *Source) Table(name string) *mvcc.Table { return s.h.db.Table(name) }

// OnCommit calls fn after each source transaction commits, before the
// commit's own event is emitted.
func (s *Source) OnCommit(fn func(tx *mvcc.Txn)) { s.h.onCommit = append(s.h.onCommit, fn) }

// pipeline is a pipeline's live state while the world runs.
type pipeline struct {
	cfg    extract.Config
	target *sink.Table
	marks  map[string]*markState // by mark name
}

// markState is a stored mark and its history in the trace.
type markState struct {
	_     nocmp.NoCompare
	value extract.Mark
	hist  *MarkHistory
}

// txnState is a source transaction as the schedule knows it. The builder
// makes one per transaction and the scheduled events share it, so no event
// looks a transaction up by name.
type txnState struct {
	h       *world
	name    string
	session string
	only    *stmt     // a workload's transaction: its one statement
	pool    *workload // a workload's transaction: the workload, told when its session is free
	sid     int32     // the session's number (see world.sessionIDs)
	tx      mvcc.Txn  // zero until it begins
	rec     int       // index into the trace's Txns once it has begun
}

// The typed steps of a source transaction, queued as engine.Actions. Each
// is the transaction's state under another name, so queueing one allocates
// nothing.
type (
	beginStep    txnState
	onlyStmtStep txnState // a workload transaction's one statement
	commitStep   txnState
	rollbackStep txnState
)

func (s *beginStep) Act()    { s.h.begin((*txnState)(s)) }
func (s *onlyStmtStep) Act() { s.h.statement((*txnState)(s), s.only) }
func (s *commitStep) Act()   { s.h.commit((*txnState)(s)) }
func (s *rollbackStep) Act() { s.h.rollback((*txnState)(s)) }

// emitTxn appends a source event, narrated later from its transaction's
// record (see Trace.Narration); the transaction is its actor.
func (h *world) emitTxn(kind engine.Kind, txn, stmt int) {
	h.w.EmitLater(h.by, kind, int32(txn), int32(stmt))
}

// targetFor returns the target a source table feeds, through a pipeline or
// through the log, or nil.
func (h *world) targetFor(table string) *sink.Table { return h.w.RouteOf(table) }

// storeMark records a new stored value of a mark.
func (h *world) storeMark(m *markState, v extract.Mark, run int, reset bool) {
	m.value = v
	m.hist.Points = append(m.hist.Points, check.MarkPoint{
		Step: h.w.NextStep(), At: h.w.Now(), Value: v.V, Set: v.Set, Display: m.hist.Kind.Format(v), Reset: reset, Run: run,
	})
}
