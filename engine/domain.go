package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// This file is the boundary between the core and the worlds (see
// docs/architecture.md, "The world interface"). A world is a package that
// simulates one kind of system on the core's clock: the high-water-mark
// world (engine/hwm), the log world (engine/logs). The core knows a world
// through three small interfaces, and a world reaches the core through the
// exported methods of World below them. The caller composes the worlds it
// wants by handing their Domains to Build.

// Domain is a world as a caller composes it: what its scenario lines and
// faults are called, and how to start its part of one World. A Domain is a
// value with no state of its own, so one list of them serves every build.
type Domain interface {
	// Commands lists the scenario commands the world reads, in the order
	// its part of docs/scenarios.md documents them. No two worlds composed
	// together may declare the same command, and none may declare one of the
	// core's own (CoreCommands). The core only reads the list.
	Commands() []string
	// Faults lists the kinds of fault the world injects; the core only reads it.
	Faults() []FaultKind
	// Open starts the world's part of w. It is called once per World,
	// before any scenario line is read.
	Open(w *World) Part
}

// Part is one world's live state in one World: it reads the world's
// scenario lines, queues its events on the core's queue, and takes its
// faults. Its events run as closures or Actions it queued.
type Part interface {
	// Command reads one scenario line whose command the world declared,
	// in file order; an error names the line's file:line:col.
	Command(c scenario.Command) error
	// Finish runs after the last line: the world checks and wires what its
	// lines declared, and reports whether it has anything of its own to run
	// (a pipeline, a topic). A scenario in which no world has is refused.
	Finish() (runs bool, err error)
	// Reserve runs when Run starts, before the first event: the world sizes
	// the trace's slices it will append to. keys is the number of keys the
	// core sized its own tables for, or 0 when it did not.
	Reserve(keys int)
	// Inject applies a fault of a kind the world declared, right after
	// the step the World last emitted.
	Inject(f Fault) error
	// Drain runs once, when the queue first runs dry: the world may queue
	// what ends it (a stream's end of input, which fires every window).
	// The run ends when nothing more is queued.
	Drain()
}

// Ender is a Part that has something to say when its run is over: End runs
// once, when the queue runs dry after Drain. A world uses it to narrate,
// in steps it queues with Then, what it was told to do and now never will
// (a failure planned for a checkpoint that no longer begins), so that no
// scenario line passes in silence. The run ends when nothing more is queued.
type Ender interface {
	End()
}

// History is one world's part of a Trace: what it keeps to narrate its
// events, to show what a team could see, and to draw its panels (each
// world's package has an Of function returning its own History from a
// trace, with the methods its panels and reports read).
type History interface {
	// Actor names who acted in an event the world emitted with EmitLater.
	Actor(e *Event) string
	// Narration is the sentence of an event the world emitted with EmitLater.
	Narration(e *Event) string
	// Observe adds to o what a team could see of the world after step n.
	Observe(n int, o *check.Observation)
}

// Narrator says which world's History narrates an event emitted with
// EmitLater. Attach hands one out.
type Narrator uint8

// CoreCommands are the scenario commands the core reads itself, in the
// order docs/scenarios.md documents them: clocks, targets, checks and
// expectations belong to no one world. An unknown command's error lists
// them first, then each world's.
var CoreCommands = []string{"clock", "target", "check", "expect", "jump", "note"}

// Attach adds h to the trace as a world's History and returns the Narrator
// its events carry, so that the trace asks h to narrate them.
func (w *World) Attach(h History) Narrator {
	if len(w.trace.histories) == 255 {
		panic("engine: more than 255 worlds attached a history")
	}
	w.trace.histories = append(w.trace.histories, h)
	return Narrator(len(w.trace.histories))
}

// Histories returns the Histories the worlds attached, in the order they attached them.
func (t *Trace) Histories() []History { return t.histories }

// Parts returns the parts of the worlds w is composed of, in the order
// their Domains were given to Build: a world finds the part of a world it
// builds on here.
func (w *World) Parts() []Part { return w.parts }

// --- Building: names, clocks, targets, routes and sizes.

// Declare records a new name of a thing of kind (a source, a topic, a
// group) at x, refusing one used already, by any world, or one that may
// clash with generated names (see ReserveGenerated).
func (w *World) Declare(kind string, x scenario.Arg) error {
	if prev, ok := w.names[x.Value]; ok {
		return scenario.Errorf(x.Pos, "%s name %q is already used: it is the %s declared at %s", kind, x.Value, w.kinds[x.Value], prev)
	}
	for _, g := range w.generated {
		if isGenerated(x.Value, g.prefix, 1<<30) {
			return scenario.Errorf(x.Pos, "%s name %q may clash with %s's generated names %s1, %s2, …", kind, x.Value, g.owner, g.prefix, g.prefix)
		}
	}
	w.names[x.Value], w.kinds[x.Value] = x.Pos, kind
	return nil
}

// Misnamed returns err, the error of looking x up as the name of a thing of
// kind, or, when x names a thing of another kind, an error at x saying so:
// "sales" is not a stream but a topic, which "unknown stream" hides.
func (w *World) Misnamed(x scenario.Arg, kind string, err error) error {
	if was, ok := w.kinds[x.Value]; ok && err != nil && was != kind {
		return scenario.Errorf(x.ValuePos, "%q is not a %s: it names the %s declared at %s", x.Value, kind, was, w.names[x.Value])
	}
	return err
}

// Declared reads the command's first word as the name of a new thing of
// kind (what, such as "a topic", is for the message when it is missing) and
// declares it; it returns the name and the arguments after it.
func (w *World) Declared(c scenario.Command, kind, what string) (scenario.Arg, []scenario.Arg, error) {
	n, rest, err := scenario.Name(c, what)
	if err != nil {
		return n, nil, err
	}
	return n, rest, w.Declare(kind, n)
}

// ReserveGenerated reserves the names prefix1 … prefixN that owner (such
// as "a workload") will generate: a later declaration of one is refused.
// It returns a name already declared among the first n, if any.
func (w *World) ReserveGenerated(prefix, owner string, n int) (clash string, ok bool) {
	w.generated = append(w.generated, generated{prefix: prefix, owner: owner})
	names := make([]string, 0, len(w.names))
	for name := range w.names {
		names = append(names, name)
	}
	sorted.Sort(names)
	for _, name := range names {
		if isGenerated(name, prefix, n) {
			return name, true
		}
	}
	return "", false
}

// generated is a family of names a world will generate.
type generated struct{ prefix, owner string }

// isGenerated reports whether name is one of the n names prefix1..prefixN.
func isGenerated(name, prefix string, n int) bool {
	num, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	i, ok := whole.Int(num)
	return ok && i >= 1 && i <= n && strconv.Itoa(i) == num
}

// Clock returns the clock named name, or nil. Every scenario has the
// clocks source (the database server's) and reader; `clock` lines add
// others and set skews.
func (w *World) Clock(name string) *Clock { return w.clocks[name] }

// Target returns the target table named name, or nil.
func (w *World) Target(name string) *sink.Table { return w.targets[name] }

// TargetArg returns the target x names as where a line writes, or an
// error at x showing the declaration it lacks.
//
// A target that no line names so, as the knobs are set, is one nothing
// writes (Trace.Unwritten).
func (w *World) TargetArg(x scenario.Arg) (*sink.Table, error) {
	t, err := w.ReadTargetArg(x)
	if err == nil {
		w.written[x.Value] = true
	}
	return t, err
}

// ReadTargetArg returns the target x names as what a line only reads (a
// reader's snapshot), or an error at x showing the declaration it lacks.
// Reading a target is not writing it: a target only read is still one
// nothing writes.
func (w *World) ReadTargetArg(x scenario.Arg) (*sink.Table, error) {
	t, err := scenario.Lookup(w.targets, x, "target", "target %s sink=merge key=...")
	return t, w.Misnamed(x, "target", err)
}

// SetNoun says how narration names a row of table (a source table, or a
// producer's events): after its key column, "order" for order_id.
func (w *World) SetNoun(table, key string) { w.trace.noun[table] = prose.Noun(key) }

// Route says that rows of table (a source table, or a producer's events)
// reach target: the truth compares the target with them. The truth follows
// a table's rows into one target, so Route reports false, and routes
// nothing, when they already reach another: the caller refuses the line
// that would send them to a second target, rather than have every row of
// it judged against rows it was never meant to hold. Routing a table to
// the target it already reaches, or to none, is no change and reports true.
func (w *World) Route(table string, target *sink.Table) bool {
	if target == nil {
		return true
	}
	if other := w.RouteOf(table); other != nil {
		return other == target
	}
	w.routes = append(w.routes, route{table: table, target: target})
	w.trace.routes = append(w.trace.routes, Route{Table: table, Target: target.Name})
	return true
}

// RouteRefused is the error for a line that would send table's rows to a
// second target (see Route): it names the target they already reach.
func (w *World) RouteRefused(at scenario.Pos, table, line string, target *sink.Table) error {
	first := w.RouteOf(table).Name
	return scenario.Errorf(at, "the rows of %s already reach %s, and the truth follows them into one target; %s copying them into %s as well is not modelled: write to %s, or show the second copy in a scenario of its own",
		table, first, line, target.Name, first)
}

// RouteOf returns the target rows of table reach, or nil.
func (w *World) RouteOf(table string) *sink.Table {
	for _, r := range w.routes {
		if r.table == table {
			return r.target
		}
	}
	return nil
}

// route is a table whose rows reach a target.
type route struct {
	_      nocmp.NoCompare
	table  string
	target *sink.Table
}

// Expect adds to the estimates of how many events, versions and keys the
// scenario will make, from which Planned answers and Run sizes the trace
// once. A world that queues an action emitting no event takes it back
// with Expect(-1, 0, 0).
func (w *World) Expect(events, versions, keys int) {
	w.hint.events += events
	w.hint.versions += versions
	w.hint.keys += keys
}

// Planned estimates how many events the scenario will emit, from what it
// scheduled: a caller that serves others (a web server) can refuse a
// scenario too large to run on their behalf before running it.
func (w *World) Planned() int { return w.hint.events }

// --- The work budget (see budget).

// Charge counts n units of work done now: rows read, written or sent
// (scheduling an event and numbering a key count themselves). Past the
// budget the world stops before its next step; see Err.
func (w *World) Charge(n int) { w.charge(n) }

// ChargeAhead counts, while building, n units of work a line will cause
// when the world runs, which running then draws on instead of charging
// twice.
func (w *World) ChargeAhead(n int) { w.reserve(n) }

// Room is how many more units of work the budget allows.
func (w *World) Room() int { return w.room() }

// Limit is the work budget: a world bounds by it the sizes it reserves
// from numbers in the file.
func (w *World) Limit() int { return w.budget.limit }

// OverBudget reports whether a charge would have passed the budget.
func (w *World) OverBudget() bool { return w.budget.over }

// Refuse stops the world during the current event: a scenario line asks
// for something that depends on how the run unfolds and that the
// simulation does not model (two open transactions writing one row, say),
// and going on would show behaviour the real system does not have. err
// names the line, as a *scenario.Error does; Err returns it from now on and
// Step runs nothing more. The first refusal wins.
func (w *World) Refuse(err error) {
	if w.refused == nil {
		w.refused = err
	}
}

// BudgetError is the error of a budget passed while building the line at pos.
func (w *World) BudgetError(pos scenario.Pos) error { return w.budgetError(pos) }

// KeyTexts is the text of every key by its id, for a package that names
// keys by id (a topic's records, a target's rows) to spell them.
func (w *World) KeyTexts() *[]string { return &w.trace.keyText }

// --- Running: time, randomness, the queue and the trace.

// Now is the true virtual time of the action running.
func (w *World) Now() vtime.Time { return w.now }

// Rand is the world's one seeded random source.
func (w *World) Rand() *rand.Rand { return w.rng }

// Schedule queues fn at true time at, after everything already queued for that instant.
func (w *World) Schedule(at vtime.Time, fn func()) { w.schedule(at, fn) }

// ScheduleAction queues a at true time at, after everything already queued for that instant.
func (w *World) ScheduleAction(at vtime.Time, a Action) { w.scheduleAction(at, a) }

// Then runs fn as the next step at this same instant, before anything
// queued, so that every step of the trace is one action of the world.
func (w *World) Then(fn func()) {
	w.charge(1)
	w.soon = append(w.soon, fn)
}

// NextAt is the time of the earliest queued action, and false when none is queued.
func (w *World) NextAt() (vtime.Time, bool) {
	w.skipStopped()
	if w.q.len() == 0 {
		return 0, false
	}
	return w.q.first().at, true
}

// NextStep is the number the next emitted event will get.
func (w *World) NextStep() int { return w.step() }

// Emit appends an event narrated now: actor did kind, in extractor run run
// (or -1), as the sentence format says with args (see prose.F).
func (w *World) Emit(actor string, kind Kind, run int, format string, args ...any) {
	w.emit(actor, kind, run, format, args...)
}

// EmitLater appends an event that n's History narrates when someone reads
// it, from a and b (see Event.Ref): a bulk event then costs no sentence
// while the world runs.
func (w *World) EmitLater(n Narrator, kind Kind, a, b int32) {
	t := w.trace
	t.Events = append(t.Events, Event{
		At: w.now, Kind: kind, Run: -1, a: a, b: b, by: uint8(n),
	})
}

// ActorID returns the index of an actor's name among the trace's actors,
// adding it on first use; ActorName spells it.
func (w *World) ActorID(actor string) int32 {
	t := w.trace
	a, ok := w.actors[actor]
	if !ok {
		a = int32(len(t.actors))
		t.actors = append(t.actors, actor)
		w.actors[actor] = a
	}
	return a
}

// ActorName is the actor with index i (see World.ActorID).
func (t *Trace) ActorName(i int32) string { return t.actors[i] }

// TableID returns the index of a table's (or producer's) name among the
// trace's table names, for VersionRecord.TableID.
func (w *World) TableID(name string) int16 { return w.trace.tableID(name) }

// AddVersion records a committed source version, or an event a producer
// meant to send: what the truth compares the targets with. It returns the
// version's index among the trace's Versions.
func (w *World) AddVersion(v VersionRecord) int32 {
	w.trace.Versions = append(w.trace.Versions, v)
	return int32(len(w.trace.Versions) - 1)
}

// ReserveChanges sizes the truth log for n more changes of a key's truth.
func (w *World) ReserveChanges(n int) {
	w.trace.truth.changes = slices.Grow(w.trace.truth.changes, n)
}

// --- The truth about keys.

// KeyID returns the dense id of key as target knows it (target may be nil),
// numbering it on first use. The id travels with the key's rows through the
// source, the log and the target, so later steps find the key without
// hashing its text. It is also the truth's id of the row of the first
// source to write the key; RowID gives another source's row of it.
func (w *World) KeyID(target *sink.Table, key string) int32 { return w.keyID(target, key) }

// RowID returns the truth's id of the row with key id k (a KeyID) of table
// (a TableID: a source table, or a producer's events). It is k for the
// first source to write the key, and an id of its own for any other, so
// that two tables' rows with one key are two rows to the truth: a target
// keyed on the key that holds one of them is missing the other. A row
// written to a target names its source row with sink.In.Src.
func (w *World) RowID(k int32, table int16) int32 {
	if w.keys[k].table == table {
		return k // kept small enough to inline: every row written asks
	}
	return w.rowID(k, table)
}

// KeyText is the text of the key with id, as a target row holds it.
func (w *World) KeyText(id int32) string { return w.keys[id].key }

// SourceVersion is the latest version of the source row with id (a KeyID
// or a RowID) that its source holds (committed, or meant to be sent), 0
// when it holds none.
func (w *World) SourceVersion(id int32) int32 { return w.keys[id].sourceSeq }

// SetSourceVersion records that the source now holds version seq of the
// key with id (0: none, deleted) and settles its truth against target.
func (w *World) SetSourceVersion(target *sink.Table, id, seq int32) {
	w.keys[id].sourceSeq = seq
	w.settle(target, id)
}

// Deliver writes rows into target, for extractor run run (or -1), keeping
// the truth and the target's history in the trace. inInterval, for an
// overwrite target, says which rows already present the write replaces.
// Each row names its key (In.ID) and, when another source wrote the key
// first, the source row it copies (In.Src, from RowID).
func (w *World) Deliver(target *sink.Table, in []sink.In, run int, inInterval func(sink.Row) bool) sink.Result {
	w.charge(len(in))
	res := target.Write(in, run, int32(w.step()), inInterval, func(id, rows, seqs int32) {
		w.targetChanged(target, id, rows, seqs)
	})
	for i := range w.trace.Targets {
		if w.trace.Targets[i].Name == target.Name {
			w.trace.Targets[i].Rows = target.History()
		}
	}
	return res
}

// ClampStep keeps n within [0, Steps].
func (t *Trace) ClampStep(n int) int { return t.clampStep(n) }

// Noun is how narration names a row of table: "order" for order_id.
func (t *Trace) Noun(table string) string { return t.noun[table] }

// Route says that rows of a source table (or a producer's events, under
// the producer's name) reach a target, through a pipeline or through the
// log: the truth compares the target with them.
type Route struct {
	_      nocmp.NoCompare
	Table  string
	Target string
}

// Routes are the routes of rows to targets, in the order they were made
// (see World.Route).
func (t *Trace) Routes() []Route { return t.routes }
