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
	"github.com/tidemark/tidemark/engine/vtime"
)

// targetDecl is the declaration an unknown target is missing.
const targetDecl = "target %s sink=merge key=..."

// Commands lists every command a scenario file may use after its header,
// in the order docs/scenarios.md documents them.
var Commands = []string{
	"clock", "source", "target", "pipeline", "check", "expect",
	"txn", "begin", "insert", "update", "delete", "commit", "rollback", "workload",
	"run", "runs", "jump", "reset",
	"topic", "cdc", "publish", "crash", "producer", "produce", "traffic",
	"group", "member", "leave", "poll", "polls", "pause", "add-partitions", "resnapshot",
	"note",
}

// txnPlan tracks a transaction's declared times while building, so that the
// schedule can be validated before anything runs.
type txnPlan struct {
	pos     scenario.Pos
	begin   vtime.Time
	end     vtime.Time
	ended   bool
	endPos  scenario.Pos
	session string
	lastAt  vtime.Time
	state   *txnState
}

type builder struct {
	w         *World
	txns      map[string]*txnPlan
	names     map[string]scenario.Pos // every declared name, to refuse duplicates
	workloads []string                // prefixes of generated transaction names
}

// Build turns a parsed scenario and knob values into a world ready to run,
// within DefaultBudget. set may omit knobs (their defaults apply); an
// unknown knob or value is an error.
func Build(f *scenario.File, set map[string]string, seed uint64) (*World, error) {
	return BuildWithBudget(f, set, seed, DefaultBudget)
}

// BuildWithBudget is Build with a work budget of limit units: every event
// scheduled, row, key and run counts one (see budget). It stops at the
// first line that would pass the limit with a *BudgetError naming that
// line; the world it returns stops when running would pass it (see
// World.Err). A limit of zero or less means DefaultBudget.
func BuildWithBudget(f *scenario.File, set map[string]string, seed uint64, limit int) (*World, error) {
	if limit <= 0 {
		limit = DefaultBudget
	}
	settings, err := f.Resolve(set)
	if err != nil {
		return nil, err
	}
	w := &World{
		rng:     rand.New(rand.NewPCG(seed, seed^0x7469_6465_6d61_726b)),
		clocks:  map[string]*Clock{"source": {Name: "source"}, "reader": {Name: "reader"}},
		db:      mvcc.New(),
		targets: map[string]*sink.Table{},
		pipes:   map[string]*pipeline{},
		keyIDs:  map[string]int32{},
		actors:  map[string]int32{},
		trace: &Trace{File: f, Settings: settings, Seed: seed, Counts: []Counts{{}},
			noun: map[string]string{}, checks: check.DefaultConfig()},
	}
	w.budget = budget{limit: limit, building: true}
	b := &builder{w: w, txns: map[string]*txnPlan{}, names: map[string]scenario.Pos{}}
	cmds := f.Bind(settings)
	enabled := map[string]bool{}
	for _, c := range cmds {
		var err error
		switch c.Name {
		case "clock":
			err = b.clock(c)
		case "source":
			err = b.source(c)
		case "target":
			err = b.target(c)
		case "pipeline":
			err = b.pipeline(c)
		case "check":
			err = b.check(c, enabled)
		case "expect":
			// Expectations are read by Expectations, not by the world.
		case "txn":
			err = b.txn(c)
		case "begin":
			err = b.begin(c)
		case "insert", "update", "delete":
			err = b.statementLine(c)
		case "commit", "rollback":
			err = b.end(c)
		case "workload":
			err = b.workload(c)
		case "run":
			err = b.run(c)
		case "runs":
			err = b.runs(c)
		case "jump":
			err = b.jump(c)
		case "reset":
			err = b.reset(c)
		case "topic":
			err = b.topic(c)
		case "cdc", "publish":
			err = b.capture(c)
		case "crash":
			err = b.crash(c)
		case "producer":
			err = b.producer(c)
		case "produce":
			err = b.produce(c)
		case "traffic":
			err = b.traffic(c)
		case "group":
			err = b.group(c)
		case "member", "leave":
			err = b.member(c)
		case "poll":
			err = b.poll(c)
		case "polls":
			err = b.polls(c)
		case "pause":
			err = b.pause(c)
		case "add-partitions":
			err = b.addPartitions(c)
		case "resnapshot":
			err = b.resnapshot(c)
		case "note":
			err = b.note(c)
		default:
			err = errorf(c.Pos, "unknown command %q; expected one of %s", c.Name, strings.Join(Commands, ", "))
		}
		if err != nil {
			return nil, err
		}
		if w.budget.over {
			return nil, w.budgetError(c.Pos)
		}
	}
	w.budget.building = false
	if len(enabled) > 0 {
		w.trace.checks.Enabled = enabled
	}
	w.source = w.clocks["source"]
	b.finishLog()
	if len(w.pipes) == 0 && w.log == nil {
		return nil, errorf(scenario.Pos{File: f.Name, Line: 1, Col: 1}, "the scenario declares no pipeline; expected a line such as `pipeline extract from=orders to=fct_orders` or `topic orders partitions=3`")
	}
	for _, t := range w.db.Tables() {
		w.trace.Tables = append(w.trace.Tables, SourceTable{Name: t.Name, Key: t.Key, Stamp: t.Stamp, Clock: t.Clock, Cache: t.Cache})
	}
	for _, name := range w.pipeOrd {
		w.trace.Pipes = append(w.trace.Pipes, w.pipes[name].cfg)
	}
	return w, nil
}

// note reads `note at-step=N "text"`: a line for whoever presents the
// scenario to a room, shown beside step N in the presenter's notes. It
// changes nothing in the world; the trace carries it (Trace.Notes).
func (b *builder) note(c scenario.Command) error {
	const usage = `expected note at-step=N "text", as in note at-step=3 "Ask the room what the mark holds now"`
	step, text := -1, ""
	for _, a := range c.Args {
		switch {
		case a.Key == "at-step" && step < 0:
			n, err := strconv.Atoi(a.Value)
			if err != nil || n < 0 {
				return errorf(a.ValuePos, "expected a step number, 0 or more, for at-step=, found %q", a.Value)
			}
			step = n
		case a.Key == "" && a.Quoted && text == "" && strings.TrimSpace(a.Value) != "":
			text = strings.TrimSpace(a.Value)
		default:
			return errorf(a.Pos, "%s", usage)
		}
	}
	if step < 0 || text == "" {
		return errorf(c.Pos, "%s", usage)
	}
	t := b.w.trace
	// Kept in step order, one per step.
	i, found := slices.BinarySearchFunc(t.Notes, step, func(x Note, step int) int { return x.Step - step })
	if found {
		return errorf(c.Pos, "step %d already has a note at %s; write one note per step", step, t.Notes[i].Pos)
	}
	t.Notes = append(t.Notes, Note{})
	copy(t.Notes[i+1:], t.Notes[i:])
	t.Notes[i] = Note{Step: step, Text: text, Pos: c.Pos}
	return nil
}

// declare records a new name, refusing one already used.
func (b *builder) declare(kind string, x scenario.Arg) error {
	if prev, ok := b.names[x.Value]; ok {
		return errorf(x.Pos, "%s name %q is already used at %s", kind, x.Value, prev)
	}
	for _, p := range b.workloads {
		if isGenerated(x.Value, p, 1<<30) {
			return errorf(x.Pos, "%s name %q may clash with a workload's generated names %s1, %s2, …", kind, x.Value, p, p)
		}
	}
	b.names[x.Value] = x.Pos
	return nil
}

// known returns things[x.Value], or an error at x saying that no such thing
// is declared and showing the declaration it lacks: declaration is a
// pattern such as "topic %s partitions=3", filled with the name.
func known[T any](things map[string]*T, x scenario.Arg, what, declaration string) (*T, error) {
	if t := things[x.Value]; t != nil {
		return t, nil
	}
	return nil, errorf(x.ValuePos, "unknown %s %q; declare it first with `%s`", what, x.Value, prose.F(declaration, x.Value))
}

// declared reads the command's first word as the name of a new kind of
// thing (a source, a topic, a group), refusing a name already used.
func (b *builder) declared(c scenario.Command, kind, what string) (scenario.Arg, []scenario.Arg, error) {
	n, rest, err := b.name(c, what)
	if err != nil {
		return n, nil, err
	}
	return n, rest, b.declare(kind, n)
}

// name reads the command's first bare word as the name of a thing.
func (b *builder) name(c scenario.Command, what string) (scenario.Arg, []scenario.Arg, error) {
	if len(c.Args) == 0 || c.Args[0].Key != "" || c.Args[0].Quoted {
		return scenario.Arg{}, nil, errorf(c.Pos, "expected %s NAME after %q", what, c.Name)
	}
	return c.Args[0], c.Args[1:], nil
}

func (b *builder) clock(c scenario.Command) error {
	n, rest, err := b.name(c, "a clock")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	skew := a.duration("skew", 0)
	if err := a.done(); err != nil {
		return err
	}
	if n.Value != "source" && n.Value != "reader" {
		if err := b.declare("clock", n); err != nil {
			return err
		}
	}
	b.w.clocks[n.Value] = &Clock{Name: n.Value, Skew: skew}
	return nil
}

func (b *builder) source(c scenario.Command) error {
	n, rest, err := b.declared(c, "source", "a source table")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	key := a.str("key", "id")
	clock, hasClock := a.find("clock")
	stamp := choice(a, "updated_at", mvcc.StampTxnStart, mvcc.ParseStamp, "txn-start, statement or commit")
	cache := a.integer("cache", 1, 1, 1_000_000)
	first := a.integer("first-id", 1, 0, 1<<40)
	if err := a.done(); err != nil {
		return err
	}
	// The database server has one clock, as PostgreSQL's now(),
	// statement_timestamp() and commit times do; clock=source only says so.
	if hasClock && clock.Value != "source" {
		return errorf(clock.ValuePos, "a table has no clock of its own: now(), statement times and commit times all come from the database server's clock; set its skew with `clock source skew=...` and drop clock= here")
	}
	b.w.db.AddTable(n.Value, key, stamp, "source", cache, int64(first))
	b.w.trace.noun[n.Value] = noun(key)
	return nil
}

func (b *builder) target(c scenario.Command) error {
	n, rest, err := b.declared(c, "target", "a target table")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	mode := choice(a, "sink", sink.Merge, sink.ParseMode, "append, merge, overwrite or upsert")
	key := a.str("key", "id")
	if err := a.done(); err != nil {
		return err
	}
	t := sink.New(n.Value, key, mode)
	t.Keys = &b.w.trace.keyText // rows name their key by the engine's id, as records do
	b.w.targets[n.Value] = t
	b.w.trace.Targets = append(b.w.trace.Targets, TargetHistory{Name: n.Value, Key: key, Mode: mode})
	return nil
}

func (b *builder) pipeline(c scenario.Command) error {
	n, rest, err := b.declared(c, "pipeline", "a pipeline")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	from, _ := a.required("from", "TABLE[,TABLE...]")
	to, _ := a.required("to", "TARGET")
	cfg := extract.Config{Name: n.Value}
	cfg.Mark = choice(a, "mark", extract.ReaderClock, extract.ParseMarkKind, "timestamp, source-timestamp, max-seen or lsn")
	cfg.Predicate = choice(a, "predicate", extract.GT, extract.ParsePredicate, "gt or gte")
	cfg.Overlap = a.duration("overlap", 0)
	cfg.Advance = choice(a, "advance", extract.After, extract.ParseAdvance, "after, before or atomic")
	cfg.CAS = choice(a, "cas", false, parseOnOff, "on or off")
	cfg.Clock = a.str("clock", "reader")
	cfg.Scope = choice(a, "marks", extract.PerTable, extract.ParseScope, "per-table or global")
	initial, hasInitial := a.find("initial")
	if err := a.done(); err != nil {
		return err
	}
	if cfg.Overlap < 0 {
		x, _ := newArgs(c, rest).find("overlap")
		return errorf(x.ValuePos, "expected overlap= to be zero or positive, found %s", cfg.Overlap)
	}
	for _, t := range strings.Split(from.Value, ",") {
		if b.w.db.Table(t) == nil {
			return errorf(from.ValuePos, "unknown source table %q; declare it first with `source %s key=...`", t, t)
		}
		if slices.Contains(cfg.From, t) {
			return errorf(from.ValuePos, "source table %q is listed twice", t)
		}
		cfg.From = append(cfg.From, t)
	}
	target, err := known(b.w.targets, to, "target", targetDecl)
	if err != nil {
		return err
	}
	cfg.To = to.Value
	if _, ok := b.w.clocks[cfg.Clock]; !ok {
		x, _ := newArgs(c, rest).find("clock")
		return errorf(x.ValuePos, "unknown clock %q; declare it first with `clock %s`", cfg.Clock, cfg.Clock)
	}
	p := &pipeline{cfg: cfg, target: target, marks: map[string]*markState{}}
	var start extract.Mark
	if hasInitial {
		start, err = cfg.Mark.ParseMark(initial.Value)
		if err != nil {
			return errorf(initial.ValuePos, "%v", err)
		}
	}
	for _, mn := range cfg.MarkNames() {
		h := &MarkHistory{Name: mn, Pipeline: cfg.Name, Kind: cfg.Mark}
		b.w.trace.Marks = append(b.w.trace.Marks, h)
		p.marks[mn] = &markState{value: start, hist: h}
	}
	if hasInitial {
		for _, mn := range cfg.MarkNames() {
			m := p.marks[mn]
			m.hist.Points = append(m.hist.Points, check.MarkPoint{Step: 0, Value: start.V, Set: start.Set, Display: cfg.Mark.Format(start), Run: -1})
		}
	}
	b.w.pipes[cfg.Name] = p
	b.w.pipeOrd = append(b.w.pipeOrd, cfg.Name)
	return nil
}

func (b *builder) check(c scenario.Command, enabled map[string]bool) error {
	n, rest, err := b.name(c, "a check")
	if err != nil {
		return err
	}
	names := check.Family(n.Value)
	if names == nil {
		return errorf(n.Pos, "unknown check %q; expected one of reconciliation, %s", n.Value, strings.Join(check.Names, ", "))
	}
	for _, x := range names {
		enabled[x] = true
	}
	a := newArgs(c, rest)
	cfg := &b.w.trace.checks
	if from, to, ok := a.timeRange("closed"); ok {
		cfg.ClosedFrom, cfg.ClosedTo, cfg.HasClosed = from, to, true
	}
	cfg.StallRuns = a.integer("stall", cfg.StallRuns, 2, 1000)
	if x, ok := a.find("max"); ok && !slices.Contains(names, "consumer-lag") {
		return errorf(x.Pos, "max= is consumer-lag's threshold; put it on a `check consumer-lag` line")
	}
	cfg.MaxLag = a.integer("max", cfg.MaxLag, 0, 1<<30)
	if x, ok := a.find("jump"); ok {
		f, err := strconv.ParseFloat(strings.TrimSuffix(x.Value, "x"), 64)
		if err != nil || f <= 1 {
			return errorf(x.ValuePos, "expected jump= to be a factor above 1 such as 5x, found %q", x.Value)
		}
		cfg.JumpFactor = f
	}
	return a.done()
}

// txn reads the one-line form: txn NAME begin=T commit=T|rollback=T [session=S] STATEMENT...
func (b *builder) txn(c scenario.Command) error {
	n, rest, err := b.name(c, "a transaction")
	if err != nil {
		return err
	}
	split := len(rest)
	for i, x := range rest {
		if x.Key == "" && (x.Value == "insert" || x.Value == "update" || x.Value == "delete") {
			split = i
			break
		}
	}
	a := newArgs(c, rest[:split])
	begin := a.requiredTime("begin")
	commit, hasCommit := a.time("commit")
	rollback, hasRollback := a.time("rollback")
	session := a.str("session", n.Value)
	if err := a.done(); err != nil {
		return err
	}
	if hasCommit && hasRollback {
		x, _ := newArgs(c, rest).find("rollback")
		return errorf(x.Pos, "a transaction ends once: give commit= or rollback=, not both")
	}
	if err := b.beginAt(n, begin, session); err != nil {
		return err
	}
	// Statements.
	stmts := rest[split:]
	for len(stmts) > 0 {
		next := len(stmts)
		for i := 1; i < len(stmts); i++ {
			if stmts[i].Key == "" && (stmts[i].Value == "insert" || stmts[i].Value == "update" || stmts[i].Value == "delete") {
				next = i
				break
			}
		}
		if err := b.statement(c, n, stmts[0], stmts[1:next], begin); err != nil {
			return err
		}
		stmts = stmts[next:]
	}
	switch {
	case hasCommit:
		x, _ := newArgs(c, rest).find("commit")
		return b.endAt(n, x, "commit", commit)
	case hasRollback:
		x, _ := newArgs(c, rest).find("rollback")
		return b.endAt(n, x, "rollback", rollback)
	}
	return nil
}

func (b *builder) beginAt(n scenario.Arg, at vtime.Time, session string) error {
	if err := b.declare("transaction", n); err != nil {
		return err
	}
	ts := &txnState{name: n.Value, session: session}
	b.w.hint.txns++
	b.txns[n.Value] = &txnPlan{pos: n.Pos, begin: at, session: session, lastAt: at, state: ts}
	b.w.scheduleTxn(at, opBegin, ts, nil, nil)
	return nil
}

func (b *builder) begin(c scenario.Command) error {
	n, rest, err := b.name(c, "a transaction")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	session := a.str("session", n.Value)
	if err := a.done(); err != nil {
		return err
	}
	return b.beginAt(n, at, session)
}

// open finds a transaction that statements and ends may refer to at time at.
func (b *builder) open(n scenario.Arg, at vtime.Time, what string) (*txnPlan, error) {
	tp := b.txns[n.Value]
	switch {
	case tp == nil:
		return nil, errorf(n.Pos, "unknown transaction %q; expected `begin %s at=...` or `txn %s ...` before it", n.Value, n.Value, n.Value)
	case tp.ended:
		return nil, errorf(n.Pos, "transaction %s already ended at %s (%s); nothing can %s in it after that", n.Value, tp.end, tp.endPos, what)
	case at < tp.begin:
		return nil, errorf(n.Pos, "%s in %s at %s comes before %s begins at %s; expected a time at or after the begin", what, n.Value, at, n.Value, tp.begin)
	case at < tp.lastAt:
		return nil, errorf(n.Pos, "%s in %s at %s comes before its previous statement at %s; expected times in order", what, n.Value, at, tp.lastAt)
	}
	return tp, nil
}

func (b *builder) statementLine(c scenario.Command) error {
	n, rest, err := b.name(c, "a transaction")
	if err != nil {
		return err
	}
	op := scenario.Arg{Value: c.Name, Pos: c.Pos}
	// The statement's own arguments follow the name; at= says when.
	var at vtime.Time
	var body []scenario.Arg
	found := false
	for _, x := range rest {
		if x.Key == "at" {
			t, err := vtime.ParseTime(x.Value)
			if err != nil {
				return errorf(x.ValuePos, "expected a time such as 10:00:02 for at=, found %q", x.Value)
			}
			at, found = t, true
			continue
		}
		body = append(body, x)
	}
	if !found {
		return errorf(c.Pos, "%s needs at=HH:MM:SS", c.Name)
	}
	return b.statement(c, n, op, body, at)
}

// statement schedules one statement of transaction n at time at.
func (b *builder) statement(c scenario.Command, n, op scenario.Arg, body []scenario.Arg, at vtime.Time) error {
	tp, err := b.open(n, at, op.Value)
	if err != nil {
		return err
	}
	tp.lastAt = at
	s := stmt{op: map[string]mvcc.Op{"insert": mvcc.Insert, "update": mvcc.Update, "delete": mvcc.Delete}[op.Value]}
	var tableArg *scenario.Arg
	var rest []scenario.Arg
	for i, x := range body {
		if x.Key == "" && tableArg == nil && i == 0 {
			tableArg = &body[i]
			continue
		}
		rest = append(rest, x)
	}
	tables := b.w.db.Tables()
	switch {
	case tableArg != nil:
		s.table = b.w.db.Table(tableArg.Value)
		if s.table == nil {
			return errorf(tableArg.Pos, "unknown source table %q in %s", tableArg.Value, op.Value)
		}
	case len(tables) == 1:
		s.table = tables[0]
	case len(tables) == 0:
		return errorf(op.Pos, "no source table is declared; expected `source NAME key=...` before the first %s", op.Value)
	default:
		return errorf(op.Pos, "%s needs a table name: this scenario has several sources", op.Value)
	}
	a := newArgs(c, rest)
	if x, ok := a.find(s.table.Key); ok {
		// A statement's keys cost a row and a key each: a list longer than
		// half the budget left would pass it.
		keys, err := splitKeys(x, b.w.room()/2)
		if err == errTooManyKeys {
			return b.w.budgetError(c.Pos)
		}
		if err != nil {
			return err
		}
		s.keys = keys
	}
	s.count = a.integer("count", 0, 1, 100_000)
	s.amount = int64(a.integer("amount", 0, 0, 1<<40))
	if t, ok := a.time("updated_at"); ok {
		s.backdate = &t
	}
	if err := a.done(); err != nil {
		return err
	}
	if len(s.keys) > 0 && s.count > 0 {
		return errorf(op.Pos, "%s takes either %s= or count=, not both", op.Value, s.table.Key)
	}
	if len(s.keys) == 0 {
		if s.op != mvcc.Insert {
			return errorf(op.Pos, "%s needs %s= to say which rows it changes", op.Value, s.table.Key)
		}
		s.count = max(s.count, 1)
	}
	ts := tp.state
	rows := max(len(s.keys), s.count)
	b.w.reserve(2 * rows) // each row is a version, and may name a new key
	b.w.hint.versions += rows
	b.w.hint.keys += rows
	b.w.scheduleTxn(at, opStatement, ts, &s, nil)
	return nil
}

func (b *builder) endAt(n, x scenario.Arg, how string, at vtime.Time) error {
	tp := b.txns[n.Value]
	if tp == nil {
		return errorf(n.Pos, "unknown transaction %q; expected `begin %s at=...` before its %s", n.Value, n.Value, how)
	}
	if tp.ended {
		return errorf(x.Pos, "transaction %s already ended at %s (%s)", n.Value, tp.end, tp.endPos)
	}
	if at < tp.begin {
		return errorf(x.ValuePos, "%s %ss at %s, before it begins at %s; expected %s at or after the begin", n.Value, how, at, tp.begin, how)
	}
	if at < tp.lastAt {
		return errorf(x.ValuePos, "%s %ss at %s, before its statement at %s", n.Value, how, at, tp.lastAt)
	}
	tp.ended, tp.end, tp.endPos = true, at, x.Pos
	ts := tp.state
	if how == "commit" {
		b.w.scheduleTxn(at, opCommit, ts, nil, nil)
	} else {
		b.w.scheduleTxn(at, opRollback, ts, nil, nil)
	}
	return nil
}

func (b *builder) end(c scenario.Command) error {
	n, rest, err := b.name(c, "a transaction")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	if err := a.done(); err != nil {
		return err
	}
	x, _ := newArgs(c, rest).find("at")
	return b.endAt(n, x, c.Name, at)
}

// workload generates many short transactions from the world's seeded random source.
func (b *builder) workload(c scenario.Command) error {
	a := newArgs(c, c.Args)
	var table *mvcc.Table
	for _, x := range a.positional() {
		if table != nil {
			return errorf(x.Pos, "unexpected word %q in workload", x.Value)
		}
		table = b.w.db.Table(x.Value)
		if table == nil {
			return errorf(x.Pos, "unknown source table %q in workload", x.Value)
		}
	}
	if table == nil {
		ts := b.w.db.Tables()
		if len(ts) != 1 {
			return errorf(c.Pos, "workload needs a table name unless exactly one source is declared")
		}
		table = ts[0]
	}
	n := a.integer("txns", 0, 1, 10_000_000)
	from := a.requiredTime("from")
	every := a.duration("every", vtime.Second)
	minD, maxD := vtime.Duration(0), vtime.Duration(0)
	if x, ok := a.find("duration"); ok {
		l, r, cut := strings.Cut(x.Value, "..")
		if !cut {
			r = l
		}
		d1, err1 := vtime.ParseDuration(l)
		d2, err2 := vtime.ParseDuration(r)
		if err1 != nil || err2 != nil || d1 < 0 || d2 < d1 {
			return errorf(x.ValuePos, "expected duration=MIN..MAX such as 0s..2s, found %q", x.Value)
		}
		minD, maxD = d1, d2
	}
	rows := a.integer("rows", 1, 1, 1000)
	sessions := a.integer("sessions", 4, 1, 10_000)
	rollbackPct := a.integer("rollback", 0, 0, 100)
	prefix := a.str("prefix", "W")
	if err := a.done(); err != nil {
		return err
	}
	if n == 0 {
		return errorf(c.Pos, "workload needs txns=N")
	}
	if every <= 0 {
		x, _ := newArgs(c, c.Args).find("every")
		return errorf(x.ValuePos, "expected every= to be positive")
	}
	for _, prev := range b.workloads {
		if prev == prefix {
			return errorf(c.Pos, "another workload already names its transactions %s1, %s2, …; set prefix= to something else", prefix, prefix)
		}
	}
	b.workloads = append(b.workloads, prefix)
	for name := range b.names {
		if isGenerated(name, prefix, n) {
			return errorf(c.Pos, "workload transaction name %s is already used; set prefix= to something else", name)
		}
	}
	// Each transaction is three events (begin, insert, end), and each of its
	// rows a version and a new key: reserved now, though next schedules them
	// as it goes.
	b.w.reserve(3*n + 2*n*rows)
	if b.w.budget.over {
		return b.w.budgetError(c.Pos)
	}
	gen := &workload{w: b.w, table: table, n: n, from: from, every: every, minD: minD, maxD: maxD,
		rows: rows, sessions: sessions, rollbackPct: rollbackPct, prefix: prefix,
		insert: stmt{op: mvcc.Insert, table: table, count: rows}}
	b.w.scheduleTxn(from, opGenerate, nil, nil, gen)
	b.w.hint.events += 3*n - 1
	b.w.hint.txns += n
	b.w.hint.versions += n * rows
	b.w.hint.keys += n * rows // a workload inserts new keys
	return nil
}

// isGenerated reports whether name is one of the n names prefix1..prefixN.
func isGenerated(name, prefix string, n int) bool {
	num, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	i, err := strconv.Atoi(num)
	return err == nil && i >= 1 && i <= n && strconv.Itoa(i) == num
}

// workload begins its transactions one at a time: each beginning schedules
// its own statement and end, and the next beginning. Generating the schedule
// as time passes keeps the event queue small however long the workload is;
// the random draws still come from the world's one source, in order.
type workload struct {
	w                 *World
	table             *mvcc.Table
	n, i              int
	from              vtime.Time
	every, minD, maxD vtime.Duration
	rows, sessions    int
	rollbackPct       int
	prefix            string
	insert            stmt // every transaction's one statement
	sessionNames      []string
	slab              []txnState // transaction states are carved from blocks
}

func (g *workload) next() {
	w := g.w
	begin := g.from.Add(vtime.Duration(g.i) * g.every)
	d := g.minD
	if g.maxD > g.minD {
		d += vtime.Duration(w.rng.Int64N(int64(g.maxD-g.minD) + 1))
	}
	rb := g.rollbackPct > 0 && w.rng.IntN(100) < g.rollbackPct
	if g.sessionNames == nil {
		g.sessionNames = make([]string, g.sessions)
		for i := range g.sessionNames {
			g.sessionNames[i] = "s" + strconv.Itoa(i+1)
		}
	}
	if len(g.slab) == 0 {
		g.slab = make([]txnState, min(1024, g.n-g.i))
	}
	ts := &g.slab[0]
	g.slab = g.slab[1:]
	ts.name, ts.session = g.prefix+strconv.Itoa(g.i+1), g.sessionNames[g.i%g.sessions]
	w.begin(ts)
	w.scheduleTxn(begin, opStatement, ts, &g.insert, nil)
	if rb {
		w.scheduleTxn(begin.Add(d), opRollback, ts, nil, nil)
	} else {
		w.scheduleTxn(begin.Add(d), opCommit, ts, nil, nil)
	}
	if g.i++; g.i < g.n {
		w.scheduleTxn(g.from.Add(vtime.Duration(g.i)*g.every), opGenerate, nil, nil, g)
	}
}

func (b *builder) pipeArg(c scenario.Command) (*pipeline, scenario.Arg, []scenario.Arg, error) {
	n, rest, err := b.name(c, "a pipeline")
	if err != nil {
		return nil, n, nil, err
	}
	p, err := known(b.w.pipes, n, "pipeline", "pipeline %s from=... to=...")
	return p, n, rest, err
}

func (b *builder) run(c scenario.Command) error {
	p, _, rest, err := b.pipeArg(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	plan := runPlan{pipe: p.cfg.Name}
	plan.read = a.requiredTime("at")
	plan.worker = a.str("worker", "")
	write, hasWrite := a.time("write")
	store, hasStore := a.time("store")
	plan.crash = choice(a, "crash", extract.NoCrash, extract.ParseCrash, "none, after-mark, mid-write, after-write or between")
	only, hasOnly := a.find("only")
	if err := a.done(); err != nil {
		return err
	}
	if hasOnly {
		for _, t := range strings.Split(only.Value, ",") {
			if !p.reads(t) {
				return errorf(only.ValuePos, "pipeline %s does not read table %q; it reads %s", p.cfg.Name, t, strings.Join(p.cfg.From, ", "))
			}
			plan.only = append(plan.only, t)
		}
	}
	// Fill phase times in the pipeline's order, each defaulting to the one before.
	switch p.cfg.Advance {
	case extract.Before:
		if !hasStore {
			store = plan.read
		}
		if !hasWrite {
			write = store
		}
		if store < plan.read || write < store {
			return errorf(c.Pos, "with advance=before a run reads, then stores the mark, then writes: expected at= <= store= <= write=")
		}
	case extract.After:
		if !hasWrite {
			write = plan.read
		}
		if !hasStore {
			store = write
		}
		if write < plan.read || store < write {
			return errorf(c.Pos, "with advance=after a run reads, then writes, then stores the mark: expected at= <= write= <= store=")
		}
	case extract.Atomic:
		if !hasWrite {
			write = plan.read
			if hasStore {
				write = store
			}
		}
		store = write
		if write < plan.read {
			return errorf(c.Pos, "a run cannot write before it reads: expected write= at or after at=")
		}
	}
	plan.write, plan.store = write, store
	b.w.scheduleRun(plan)
	return nil
}

func (b *builder) runs(c scenario.Command) error {
	p, _, rest, err := b.pipeArg(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	from := a.requiredTime("from")
	until := a.requiredTime("until")
	every := a.duration("every", 0)
	worker := a.str("worker", "")
	if err := a.done(); err != nil {
		return err
	}
	if every <= 0 {
		return errorf(c.Pos, "runs needs every= with a positive duration such as 5s")
	}
	if until < from {
		return errorf(c.Pos, "runs needs from= at or before until=")
	}
	if int64(until-from)/int64(every) > 1_000_000 {
		return errorf(c.Pos, "runs would schedule more than a million runs; expected fewer")
	}
	// Counting runs rather than adding every to a time cannot overflow, and
	// the budget stops the loop at the run that would pass it.
	n := int64(until-from) / int64(every)
	if (n+1)*runCost > int64(b.w.room()) {
		return b.w.budgetError(c.Pos) // refused before scheduling the first
	}
	for i := int64(0); i <= n && !b.w.budget.over; i++ {
		t := from.Add(vtime.Duration(i) * every)
		b.w.scheduleRun(runPlan{pipe: p.cfg.Name, worker: worker, read: t, write: t, store: t})
	}
	return nil
}

func (b *builder) jump(c scenario.Command) error {
	n, rest, err := b.name(c, "a clock")
	if err != nil {
		return err
	}
	if b.w.clocks[n.Value] == nil {
		return errorf(n.Pos, "unknown clock %q; the clocks are source, reader and any declared with `clock`", n.Value)
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	by := a.duration("by", 0)
	if _, ok := a.find("by"); !ok {
		a.fail(c.Pos, "jump needs by= such as -3s")
	}
	if err := a.done(); err != nil {
		return err
	}
	if by == 0 {
		return nil // a knob may switch a jump off by setting it to 0s
	}
	name := n.Value
	b.w.schedule(at, func() { b.w.jump(name, by) })
	return nil
}

func (b *builder) reset(c scenario.Command) error {
	p, _, rest, err := b.pipeArg(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	to, _ := a.required("to", "VALUE")
	mark := a.str("mark", p.cfg.MarkNames()[0])
	if err := a.done(); err != nil {
		return err
	}
	if p.marks[mark] == nil {
		x, _ := newArgs(c, rest).find("mark")
		return errorf(x.ValuePos, "pipeline %s has no mark %q; its marks are %s", p.cfg.Name, mark, strings.Join(p.cfg.MarkNames(), ", "))
	}
	v, err := p.cfg.Mark.ParseMark(to.Value)
	if err != nil {
		return errorf(to.ValuePos, "%v", err)
	}
	name := p.cfg.Name
	b.w.schedule(at, func() { b.w.reset(name, mark, v) })
	return nil
}
