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

// coreCommands lists the commands the core reads itself, in the order
// docs/scenarios.md documents them; the worlds' follow.
var coreCommands = []string{
	"clock", "source", "target", "pipeline", "check", "expect",
	"txn", "begin", "insert", "update", "delete", "commit", "rollback", "workload",
	"run", "runs", "jump", "reset",
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
	workloads []string // prefixes of generated transaction names
}

// Build turns a parsed scenario and knob values into a world ready to run,
// composed of the worlds domains (engine/worlds.All lists every world).
// set may omit knobs (their defaults apply); an unknown knob or value is an error.
func Build(f *scenario.File, set map[string]string, seed uint64, domains []Domain) (*World, error) {
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
		names:   map[string]scenario.Pos{},
		owner:   map[string]int{},
		faults:  map[FaultKind]int{},
		domains: domains,
		trace: &Trace{File: f, Settings: settings, Seed: seed, Counts: []Counts{{}},
			noun: map[string]string{}, checks: check.DefaultConfig()},
	}
	commands := slices.Clone(coreCommands)
	for i, d := range domains {
		for _, c := range d.Commands() {
			if _, taken := w.owner[c]; taken || slices.Contains(coreCommands, c) {
				return nil, prose.Errorf("engine: two worlds, or a world and the core, both read the command %q", c)
			}
			w.owner[c] = i
			commands = append(commands, c)
		}
		for _, k := range d.Faults() {
			w.faults[k] = i
		}
	}
	for _, d := range domains {
		w.parts = append(w.parts, d.Open(w))
	}
	b := &builder{w: w, txns: map[string]*txnPlan{}}
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
		default:
			if i, ok := w.owner[c.Name]; ok {
				err = w.parts[i].Command(c)
				break
			}
			err = errorf(c.Pos, "unknown command %q; expected one of %s", c.Name, strings.Join(commands, ", "))
		}
		if err != nil {
			return nil, err
		}
	}
	if len(enabled) > 0 {
		w.trace.checks.Enabled = enabled
	}
	w.source = w.clocks["source"]
	runs := len(w.pipes) > 0
	for _, p := range w.parts {
		r, err := p.Finish()
		if err != nil {
			return nil, err
		}
		runs = runs || r
	}
	if !runs {
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

// declare records a new name, refusing one already used.
func (b *builder) declare(kind string, x scenario.Arg) error { return b.w.Declare(kind, x) }

// declared reads the command's first word as the name of a new kind of
// thing (a source, a topic, a group), refusing a name already used.
func (b *builder) declared(c scenario.Command, kind, what string) (scenario.Arg, []scenario.Arg, error) {
	return b.w.Declared(c, kind, what)
}

// name reads the command's first bare word as the name of a thing.
func (b *builder) name(c scenario.Command, what string) (scenario.Arg, []scenario.Arg, error) {
	return scenario.Name(c, what)
}

func (b *builder) clock(c scenario.Command) error {
	n, rest, err := b.name(c, "a clock")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	skew := a.Duration("skew", 0)
	if err := a.Done(); err != nil {
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
	a := scenario.NewArgs(c, rest)
	key := a.Str("key", "id")
	clock, hasClock := a.Find("clock")
	stamp := scenario.Choice(a, "updated_at", mvcc.StampTxnStart, mvcc.ParseStamp, "txn-start, statement or commit")
	cache := a.Int("cache", 1, 1, 1_000_000)
	first := a.Int("first-id", 1, 0, 1<<40)
	if err := a.Done(); err != nil {
		return err
	}
	// The database server has one clock, as PostgreSQL's now(),
	// statement_timestamp() and commit times do; clock=source only says so.
	if hasClock && clock.Value != "source" {
		return errorf(clock.ValuePos, "a table has no clock of its own: now(), statement times and commit times all come from the database server's clock; set its skew with `clock source skew=...` and drop clock= here")
	}
	b.w.db.AddTable(n.Value, key, stamp, "source", cache, int64(first))
	b.w.trace.noun[n.Value] = prose.Noun(key)
	return nil
}

func (b *builder) target(c scenario.Command) error {
	n, rest, err := b.declared(c, "target", "a target table")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	mode := scenario.Choice(a, "sink", sink.Merge, sink.ParseMode, "append, merge, overwrite or upsert")
	key := a.Str("key", "id")
	if err := a.Done(); err != nil {
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
	a := scenario.NewArgs(c, rest)
	from, _ := a.Required("from", "TABLE[,TABLE...]")
	to, _ := a.Required("to", "TARGET")
	cfg := extract.Config{Name: n.Value}
	cfg.Mark = scenario.Choice(a, "mark", extract.ReaderClock, extract.ParseMarkKind, "timestamp, source-timestamp, max-seen or lsn")
	cfg.Predicate = scenario.Choice(a, "predicate", extract.GT, extract.ParsePredicate, "gt or gte")
	cfg.Overlap = a.Duration("overlap", 0)
	cfg.Advance = scenario.Choice(a, "advance", extract.After, extract.ParseAdvance, "after, before or atomic")
	cfg.CAS = scenario.Choice(a, "cas", false, scenario.OnOff, "on or off")
	cfg.Clock = a.Str("clock", "reader")
	cfg.Scope = scenario.Choice(a, "marks", extract.PerTable, extract.ParseScope, "per-table or global")
	initial, hasInitial := a.Find("initial")
	if err := a.Done(); err != nil {
		return err
	}
	if cfg.Overlap < 0 {
		x, _ := scenario.NewArgs(c, rest).Find("overlap")
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
	target, err := scenario.Lookup(b.w.targets, to, "target", targetDecl)
	if err != nil {
		return err
	}
	cfg.To = to.Value
	if _, ok := b.w.clocks[cfg.Clock]; !ok {
		x, _ := scenario.NewArgs(c, rest).Find("clock")
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
	a := scenario.NewArgs(c, rest)
	cfg := &b.w.trace.checks
	if from, to, ok := a.TimeRange("closed"); ok {
		cfg.ClosedFrom, cfg.ClosedTo, cfg.HasClosed = from, to, true
	}
	cfg.StallRuns = a.Int("stall", cfg.StallRuns, 2, 1000)
	if x, ok := a.Find("max"); ok && !slices.Contains(names, "consumer-lag") {
		return errorf(x.Pos, "max= is consumer-lag's threshold; put it on a `check consumer-lag` line")
	}
	cfg.MaxLag = a.Int("max", cfg.MaxLag, 0, 1<<30)
	if x, ok := a.Find("jump"); ok {
		f, err := strconv.ParseFloat(strings.TrimSuffix(x.Value, "x"), 64)
		if err != nil || f <= 1 {
			return errorf(x.ValuePos, "expected jump= to be a factor above 1 such as 5x, found %q", x.Value)
		}
		cfg.JumpFactor = f
	}
	return a.Done()
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
	a := scenario.NewArgs(c, rest[:split])
	begin := a.RequiredTime("begin")
	commit, hasCommit := a.Time("commit")
	rollback, hasRollback := a.Time("rollback")
	session := a.Str("session", n.Value)
	if err := a.Done(); err != nil {
		return err
	}
	if hasCommit && hasRollback {
		x, _ := scenario.NewArgs(c, rest).Find("rollback")
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
		x, _ := scenario.NewArgs(c, rest).Find("commit")
		return b.endAt(n, x, "commit", commit)
	case hasRollback:
		x, _ := scenario.NewArgs(c, rest).Find("rollback")
		return b.endAt(n, x, "rollback", rollback)
	}
	return nil
}

func (b *builder) beginAt(n scenario.Arg, at vtime.Time, session string) error {
	if err := b.declare("transaction", n); err != nil {
		return err
	}
	ts := &txnState{w: b.w, name: n.Value, session: session}
	b.w.hint.txns++
	b.txns[n.Value] = &txnPlan{pos: n.Pos, begin: at, session: session, lastAt: at, state: ts}
	b.w.scheduleAction(at, (*beginStep)(ts))
	return nil
}

func (b *builder) begin(c scenario.Command) error {
	n, rest, err := b.name(c, "a transaction")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	session := a.Str("session", n.Value)
	if err := a.Done(); err != nil {
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
	a := scenario.NewArgs(c, rest)
	if x, ok := a.Find(s.table.Key); ok {
		keys, err := splitKeys(x)
		if err != nil {
			return err
		}
		s.keys = keys
	}
	s.count = a.Int("count", 0, 1, 100_000)
	s.amount = int64(a.Int("amount", 0, 0, 1<<40))
	if t, ok := a.Time("updated_at"); ok {
		s.backdate = &t
	}
	if err := a.Done(); err != nil {
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
	b.w.hint.versions += max(len(s.keys), s.count)
	b.w.hint.keys += max(len(s.keys), s.count)
	s.txn = ts
	b.w.scheduleAction(at, &s)
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
		b.w.scheduleAction(at, (*commitStep)(ts))
	} else {
		b.w.scheduleAction(at, (*rollbackStep)(ts))
	}
	return nil
}

func (b *builder) end(c scenario.Command) error {
	n, rest, err := b.name(c, "a transaction")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	if err := a.Done(); err != nil {
		return err
	}
	x, _ := scenario.NewArgs(c, rest).Find("at")
	return b.endAt(n, x, c.Name, at)
}

// workload generates many short transactions from the world's seeded random source.
func (b *builder) workload(c scenario.Command) error {
	a := scenario.NewArgs(c, c.Args)
	var table *mvcc.Table
	for _, x := range a.Positional() {
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
	n := a.Int("txns", 0, 1, 10_000_000)
	from := a.RequiredTime("from")
	every := a.Duration("every", vtime.Second)
	minD, maxD := vtime.Duration(0), vtime.Duration(0)
	if x, ok := a.Find("duration"); ok {
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
	rows := a.Int("rows", 1, 1, 1000)
	sessions := a.Int("sessions", 4, 1, 10_000)
	rollbackPct := a.Int("rollback", 0, 0, 100)
	prefix := a.Str("prefix", "W")
	if err := a.Done(); err != nil {
		return err
	}
	if n == 0 {
		return errorf(c.Pos, "workload needs txns=N")
	}
	if every <= 0 {
		x, _ := scenario.NewArgs(c, c.Args).Find("every")
		return errorf(x.ValuePos, "expected every= to be positive")
	}
	for _, prev := range b.workloads {
		if prev == prefix {
			return errorf(c.Pos, "another workload already names its transactions %s1, %s2, …; set prefix= to something else", prefix, prefix)
		}
	}
	b.workloads = append(b.workloads, prefix)
	if name, clash := b.w.ReserveGenerated(prefix, "a workload", n); clash {
		return errorf(c.Pos, "workload transaction name %s is already used; set prefix= to something else", name)
	}
	gen := &workload{w: b.w, table: table, n: n, from: from, every: every, minD: minD, maxD: maxD,
		rows: rows, sessions: sessions, rollbackPct: rollbackPct, prefix: prefix,
		insert: stmt{op: mvcc.Insert, table: table, count: rows}}
	b.w.scheduleAction(from, gen)
	// Each transaction is three events (begin, insert, end); next schedules
	// them as it goes, so count them here.
	b.w.hint.events += 3*n - 1
	b.w.hint.txns += n
	b.w.hint.versions += n * rows
	b.w.hint.keys += n * rows // a workload inserts new keys
	return nil
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

// Act begins the workload's next transaction.
func (g *workload) Act() {
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
	ts.w, ts.only = w, &g.insert
	ts.name, ts.session = g.prefix+strconv.Itoa(g.i+1), g.sessionNames[g.i%g.sessions]
	w.begin(ts)
	w.scheduleAction(begin, (*onlyStmtStep)(ts))
	if rb {
		w.scheduleAction(begin.Add(d), (*rollbackStep)(ts))
	} else {
		w.scheduleAction(begin.Add(d), (*commitStep)(ts))
	}
	if g.i++; g.i < g.n {
		w.scheduleAction(g.from.Add(vtime.Duration(g.i)*g.every), g)
	}
}

func (b *builder) pipeArg(c scenario.Command) (*pipeline, scenario.Arg, []scenario.Arg, error) {
	n, rest, err := b.name(c, "a pipeline")
	if err != nil {
		return nil, n, nil, err
	}
	p, err := scenario.Lookup(b.w.pipes, n, "pipeline", "pipeline %s from=... to=...")
	return p, n, rest, err
}

func (b *builder) run(c scenario.Command) error {
	p, _, rest, err := b.pipeArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	plan := runPlan{pipe: p.cfg.Name}
	plan.read = a.RequiredTime("at")
	plan.worker = a.Str("worker", "")
	write, hasWrite := a.Time("write")
	store, hasStore := a.Time("store")
	plan.crash = scenario.Choice(a, "crash", extract.NoCrash, extract.ParseCrash, "none, after-mark, mid-write, after-write or between")
	only, hasOnly := a.Find("only")
	if err := a.Done(); err != nil {
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
	a := scenario.NewArgs(c, rest)
	from := a.RequiredTime("from")
	until := a.RequiredTime("until")
	every := a.Duration("every", 0)
	worker := a.Str("worker", "")
	if err := a.Done(); err != nil {
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
	for t := from; t <= until; t = t.Add(every) {
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
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	by := a.Duration("by", 0)
	if _, ok := a.Find("by"); !ok {
		a.Fail(c.Pos, "jump needs by= such as -3s")
	}
	if err := a.Done(); err != nil {
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
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	to, _ := a.Required("to", "VALUE")
	mark := a.Str("mark", p.cfg.MarkNames()[0])
	if err := a.Done(); err != nil {
		return err
	}
	if p.marks[mark] == nil {
		x, _ := scenario.NewArgs(c, rest).Find("mark")
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
