package hwm

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
)

// txnPlan tracks a transaction's declared times while building, so that the
// schedule can be validated before anything runs.
type txnPlan struct {
	_       nocmp.NoCompare
	pos     scenario.Pos
	begin   vtime.Time
	end     vtime.Time
	ended   bool
	endPos  scenario.Pos
	session string
	lastAt  vtime.Time
	state   *txnState
}

func (h *world) sourceLine(c scenario.Command) error {
	n, rest, err := h.w.Declared(c, "source", "a source table")
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
	// A statement names its rows by the key column, beside words of its own.
	if x, _ := a.Find("key"); slices.Contains(statementWords, key) {
		return errorf(x.ValuePos, "key=%s is a word of the statements (%s=); name the key column otherwise, such as order_id", key, key)
	}
	// The database server has one clock, as PostgreSQL's now(),
	// statement_timestamp() and commit times do; clock=source only says so.
	if hasClock && clock.Value != "source" {
		return errorf(clock.ValuePos, "a table has no clock of its own: now(), statement times and commit times all come from the database server's clock; set its skew with `clock source skew=...` and drop clock= here")
	}
	h.db.AddTable(n.Value, key, stamp, "source", cache, int64(first))
	h.w.SetNoun(n.Value, key)
	return nil
}

// alterPlan is a table's last alter line while building: alters of one
// table come in time order, and one that sets the rule the table already
// has by then does nothing.
type alterPlan struct {
	_    nocmp.NoCompare
	t    *mvcc.Table
	at   vtime.Time
	rule mvcc.Stamp
}

// alterLine reads `alter TABLE at=TIME updated_at=RULE`: from at= on, the
// table's statements fill updated_at by the new rule (a deploy, a trigger
// replaced), with no change to its schema.
func (h *world) alterLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a source table")
	if err != nil {
		return err
	}
	t := h.db.Table(n.Value)
	if t == nil {
		return errorf(n.Pos, "unknown source table %q; declare it first with `source %s key=...`", n.Value, n.Value)
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	const rules = "txn-start, statement or commit"
	a.Required("updated_at", rules)
	rule := scenario.Choice(a, "updated_at", t.Stamp, mvcc.ParseStamp, rules)
	if err := a.Done(); err != nil {
		return err
	}
	i := 0
	for i < len(h.alters) && h.alters[i].t != t {
		i++
	}
	if i == len(h.alters) {
		h.alters = append(h.alters, alterPlan{t: t, rule: t.Stamp})
	}
	last := h.alters[i]
	if at < last.at {
		return errorf(scenario.ValueAt(c, "at"), "alter of %s at %s comes before its alter at %s; expected a table's alters in time order", t.Name, at, last.at)
	}
	h.alters[i] = alterPlan{t: t, at: at, rule: rule}
	if rule == last.rule {
		return nil // a knob may switch a deploy off by keeping the rule
	}
	h.w.Schedule(at, func() { h.alter(t, rule) })
	return nil
}

// statementWords are the arguments a statement takes beside its rows' keys,
// which a source's key column cannot be named.
var statementWords = []string{"at", "count", "amount", "updated_at"}

func (h *world) pipeline(c scenario.Command) error {
	n, rest, err := h.w.Declared(c, "pipeline", "a pipeline")
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
	cfg.Interval = a.DurationIn("interval", 0, 0, 24*vtime.Hour, "from 0s to 24h")
	cfg.Settle = a.DurationIn("settle", 0, 0, 24*vtime.Hour, "from 0s to 24h")
	if err := a.Done(); err != nil {
		return err
	}
	// An interval pipeline keeps no mark, so the settings of one mean
	// nothing beside it; interval=0s is none, so a knob can switch it.
	if cfg.Settle > 0 && cfg.Interval == 0 && !scenario.KnobSets(c, "interval") {
		return errorf(scenario.ValueAt(c, "settle"), "settle= is how long a run waits after an interval ends; expected interval= beside it")
	}
	// Intervals are counted from midnight and a scenario is one day long,
	// so the first interval must end, and settle, within it.
	if cfg.Interval > 0 && cfg.Interval+cfg.Settle >= 24*vtime.Hour {
		return errorf(scenario.ValueAt(c, "interval"), "interval=%s and settle=%s add up to a day or more: intervals are counted from midnight and a scenario lasts one day, so no run could take one; expected the two together under 24h", cfg.Interval, cfg.Settle)
	}
	// A knob that sets interval= may pair it with them, as it may overlap=
	// with mark=.
	if cfg.Interval > 0 && !scenario.KnobSets(c, "interval") {
		for _, x := range rest {
			if slices.Contains(markSettings, x.Key) {
				return errorf(x.Pos, "%s= sets up a stored mark, and a pipeline with interval= keeps none; leave it out", x.Key)
			}
		}
	}
	if cfg.Interval > 0 {
		cfg.Advance, cfg.Overlap, cfg.CAS = extract.After, 0, false // a run writes and ends
	}
	if cfg.Overlap < 0 {
		x, _ := scenario.NewArgs(c, rest).Find("overlap")
		return errorf(x.ValuePos, "expected overlap= to be zero or positive, found %s", cfg.Overlap)
	}
	// An overlap re-reads time behind a timestamp mark; a log position has
	// no time to step back. A knob may pair the two (mark=$mark with
	// overlap=5s), and then the overlap has nothing to do under lsn.
	if cfg.Overlap > 0 && !cfg.Mark.IsTimestamp() && !scenario.KnobSets(c, "mark") && !scenario.KnobSets(c, "overlap") {
		return errorf(scenario.ValueAt(c, "overlap"), "overlap= re-reads a span of time behind a timestamp mark, and mark=lsn is a log position with no time to step back; leave overlap= out, or choose a timestamp mark")
	}
	for _, t := range strings.Split(from.Value, ",") {
		if h.db.Table(t) == nil {
			return errorf(from.ValuePos, "unknown source table %q; declare it first with `source %s key=...`", t, t)
		}
		if slices.Contains(cfg.From, t) {
			return errorf(from.ValuePos, "source table %q is listed twice", t)
		}
		cfg.From = append(cfg.From, t)
	}
	target, err := h.w.TargetArg(to)
	if err != nil {
		return err
	}
	cfg.To = to.Value
	if cfg.Interval > 0 && target.Mode != sink.Overwrite {
		return errorf(to.ValuePos, "a run of a pipeline with interval= replaces its interval in the target; expected a target declared sink=overwrite")
	}
	if h.w.Clock(cfg.Clock) == nil {
		x, _ := scenario.NewArgs(c, rest).Find("clock")
		return errorf(x.ValuePos, "unknown clock %q; declare it first with `clock %s`", cfg.Clock, cfg.Clock)
	}
	// Only a timestamp mark reads the pipeline's clock; a knob may pair
	// clock= with a mark that does not, as it may overlap=.
	if x, ok := scenario.NewArgs(c, rest).Find("clock"); ok && cfg.Mark != extract.ReaderClock && !scenario.KnobSets(c, "mark") && !scenario.KnobSets(c, "clock") {
		return errorf(x.ValuePos, "clock= is the clock a mark=timestamp pipeline reads at each run, and this pipeline's mark reads none of its own; leave clock= out")
	}
	p := &pipeline{cfg: cfg, target: target, marks: map[string]*markState{}}
	var start extract.Mark
	if hasInitial {
		start, err = parseMark(cfg.Mark, initial)
		if err != nil {
			return err
		}
	}
	for _, mn := range cfg.MarkNames() {
		mh := &MarkHistory{Name: mn, Pipeline: cfg.Name, Kind: cfg.Mark}
		h.t.Marks = append(h.t.Marks, mh)
		p.marks[mn] = &markState{value: start, hist: mh}
	}
	if hasInitial {
		for _, mn := range cfg.MarkNames() {
			m := p.marks[mn]
			m.hist.Points = append(m.hist.Points, check.MarkPoint{Step: 0, Value: start.V, Set: start.Set, Display: cfg.Mark.Format(start), Run: -1})
		}
	}
	h.pipes[cfg.Name] = p
	h.pipeOrd = append(h.pipeOrd, cfg.Name)
	for _, t := range cfg.From {
		if !h.w.Route(t, target) {
			return h.w.RouteRefused(to.ValuePos, t, "pipeline "+cfg.Name, target)
		}
	}
	return nil
}

// markSettings are the pipeline's settings of a stored mark.
var markSettings = []string{"mark", "predicate", "overlap", "advance", "cas", "clock", "marks", "initial"}

// txn reads the one-line form: txn NAME begin=T commit=T|rollback=T [session=S] STATEMENT...
func (h *world) txnLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a transaction")
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
	for _, x := range rest[:split] {
		if x.Key == "" {
			return errorf(x.Pos, "unexpected word %q in txn; its statements are insert, update and delete", x.Value)
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
	if err := h.beginAt(n, begin, session); err != nil {
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
		if err := h.scheduleStatement(c, n, stmts[0], stmts[1:next], begin); err != nil {
			return err
		}
		stmts = stmts[next:]
	}
	switch {
	case hasCommit:
		x, _ := scenario.NewArgs(c, rest).Find("commit")
		return h.endAt(n, x, "commit", commit)
	case hasRollback:
		x, _ := scenario.NewArgs(c, rest).Find("rollback")
		return h.endAt(n, x, "rollback", rollback)
	}
	return nil
}

func (h *world) beginAt(n scenario.Arg, at vtime.Time, session string) error {
	if err := h.w.Declare("transaction", n); err != nil {
		return err
	}
	ts := &txnState{h: h, name: n.Value, session: session, sid: h.sessionID(session)}
	h.txnCount++
	h.txns[n.Value] = &txnPlan{pos: n.Pos, begin: at, session: session, lastAt: at, state: ts}
	h.w.ScheduleAction(at, (*beginStep)(ts))
	return nil
}

func (h *world) beginLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a transaction")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	session := a.Str("session", n.Value)
	if err := a.Done(); err != nil {
		return err
	}
	return h.beginAt(n, at, session)
}

// open finds a transaction that statements and ends may refer to at time at.
func (h *world) open(n scenario.Arg, at vtime.Time, what string) (*txnPlan, error) {
	tp := h.txns[n.Value]
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

func (h *world) statementLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a transaction")
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
			t, err := scenario.ParseDayTime(x.Value)
			if err != nil {
				return errorf(x.ValuePos, "expected a time of day such as 10:00:02 for at=, found %q", x.Value)
			}
			at, found = t, true
			continue
		}
		body = append(body, x)
	}
	if !found {
		return errorf(c.Pos, "%s needs at=HH:MM:SS", c.Name)
	}
	return h.scheduleStatement(c, n, op, body, at)
}

// statement schedules one statement of transaction n at time at.
func (h *world) scheduleStatement(c scenario.Command, n, op scenario.Arg, body []scenario.Arg, at vtime.Time) error {
	tp, err := h.open(n, at, op.Value)
	if err != nil {
		return err
	}
	tp.lastAt = at
	s := stmt{op: mvcc.Insert, pos: op.Pos}
	switch op.Value {
	case "update":
		s.op = mvcc.Update
	case "delete":
		s.op = mvcc.Delete
	}
	var tableArg *scenario.Arg
	var rest []scenario.Arg
	for i, x := range body {
		if x.Key == "" && tableArg == nil && i == 0 {
			tableArg = &body[i]
			continue
		}
		rest = append(rest, x)
	}
	tables := h.db.Tables()
	switch {
	case tableArg != nil:
		s.table = h.db.Table(tableArg.Value)
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
		// A statement's keys cost a row and a key each: a list longer than
		// half the budget left would pass it.
		keys, err := scenario.AppendKeys(nil, x, x.Value, h.w.Room()/2, false, "")
		if err == scenario.ErrTooManyKeys {
			return h.w.BudgetError(c.Pos)
		}
		if err != nil {
			return err
		}
		// One statement changes a row once: PostgreSQL's INSERT refuses
		// the second (unique_violation), and UPDATE and DELETE match it
		// once however often the list names it.
		seen := make(map[string]bool, len(keys))
		for _, k := range keys {
			if seen[k] {
				return errorf(x.ValuePos, "%s=%s names %s twice; expected each row once in a statement", s.table.Key, x.Value, k)
			}
			seen[k] = true
		}
		s.keys = keys
	}
	s.count = a.Int("count", 0, 1, 100_000)
	noAmount := 0 // an insert without amount= writes 0
	if s.op == mvcc.Update {
		noAmount = int(mvcc.KeepAmount) // an update without it leaves the column alone
	}
	s.amount = int64(a.Int("amount", noAmount, 0, 1<<40))
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
	rows := max(len(s.keys), s.count)
	h.w.ChargeAhead(2 * rows) // each row is a version, and may name a new key
	h.w.Expect(0, rows, rows)
	s.txn = ts
	h.w.ScheduleAction(at, &s)
	return nil
}

func (h *world) endAt(n, x scenario.Arg, how string, at vtime.Time) error {
	tp := h.txns[n.Value]
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
		h.w.ScheduleAction(at, (*commitStep)(ts))
	} else {
		h.w.ScheduleAction(at, (*rollbackStep)(ts))
	}
	return nil
}

func (h *world) endLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a transaction")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	if err := a.Done(); err != nil {
		return err
	}
	x, _ := scenario.NewArgs(c, rest).Find("at")
	return h.endAt(n, x, c.Name, at)
}

// workload generates many short transactions from the world's seeded random source.
func (h *world) workload(c scenario.Command) error {
	a := scenario.NewArgs(c, c.Args)
	var table *mvcc.Table
	for _, x := range a.Positional() {
		if table != nil {
			return errorf(x.Pos, "unexpected word %q in workload", x.Value)
		}
		table = h.db.Table(x.Value)
		if table == nil {
			return errorf(x.Pos, "unknown source table %q in workload", x.Value)
		}
	}
	if table == nil {
		ts := h.db.Tables()
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
	if err := a.Within("from", "this workload would run until", scenario.Span(from, n, every, maxD)); err != nil {
		return err
	}
	for _, prev := range h.workloads {
		if prev == prefix {
			return errorf(c.Pos, "another workload already names its transactions %s1, %s2, …; set prefix= to something else", prefix, prefix)
		}
	}
	h.workloads = append(h.workloads, prefix)
	if name, clash := h.w.ReserveGenerated(prefix, "a workload", n); clash {
		return errorf(c.Pos, "workload transaction name %s is already used; set prefix= to something else", name)
	}
	// Each transaction is three events (begin, insert, end), and each of its
	// rows a version and a new key: charged now, though Act schedules them
	// as it goes.
	h.w.ChargeAhead(3*n + 2*n*rows)
	if h.w.OverBudget() {
		return h.w.BudgetError(c.Pos)
	}
	gen := &workload{h: h, table: table, n: n, from: from, every: every, minD: minD, maxD: maxD,
		rows: rows, sessions: sessions, rollbackPct: rollbackPct, prefix: prefix,
		insert: stmt{op: mvcc.Insert, table: table, count: rows, pos: c.Pos}}
	h.w.ScheduleAction(from, gen)
	h.w.Expect(3*n-1, n*rows, n*rows) // a workload inserts new keys
	h.txnCount += n
	return nil
}

// workload begins its transactions one at a time: each beginning schedules
// its own statement and end, and the next beginning. Generating the schedule
// as time passes keeps the event queue small however long the workload is;
// the random draws still come from the world's one source, in order.
type workload struct {
	h                 *world
	table             *mvcc.Table
	n, i              int
	from              vtime.Time
	every, minD, maxD vtime.Duration
	rows, sessions    int
	rollbackPct       int
	prefix            string
	insert            stmt        // every transaction's one statement
	sessionIDs        []int32     // s1…sN, the sessions= taken in turn
	opened            int         // sessions opened beyond them when all were busy
	extra             int32       // sessions numbered from extra on are ones this workload opened
	idle              []int32     // those of them whose transaction has ended
	slab              []txnState  // transaction states are carved from blocks
	ended             []*txnState // the states of transactions that have ended, for the next ones to reuse
	names             string      // the names of the next transactions, written one after the other
	ends              []int       // where each of them ends in names
	named             int         // how many of names' names are taken
}

// nextName is the name of the workload's next transaction, W1, W2, …,
// carved from one string holding the next thousand.
func (g *workload) nextName() string {
	if g.named == len(g.ends) {
		last := min(g.n, g.i+slabSize)
		b := make([]byte, 0, (last-g.i)*(len(g.prefix)+len(strconv.Itoa(last))))
		g.ends = g.ends[:0]
		for i := g.i; i < last; i++ {
			b = strconv.AppendInt(append(b, g.prefix...), int64(i+1), 10)
			g.ends = append(g.ends, len(b))
		}
		g.names, g.named = string(b), 0
	}
	start := 0
	if g.named > 0 {
		start = g.ends[g.named-1]
	}
	g.named++
	return g.names[start:g.ends[g.named-1]]
}

// session picks the session for the workload's next transaction. The
// first sessions= are taken in turn, passing over one whose transaction is
// still open, since a PostgreSQL session runs one transaction at a time;
// when all of them are busy the workload takes a session it opened before
// that is free, or opens one more, as a connection pool grows under load.
func (g *workload) session() int32 {
	busy := g.h.busy
	for k := range g.sessions {
		if id := g.sessionIDs[(g.i+k)%g.sessions]; busy[id] == nil {
			return id
		}
	}
	for len(g.idle) > 0 {
		id := g.idle[len(g.idle)-1]
		g.idle = g.idle[:len(g.idle)-1]
		if busy[id] == nil { // an explicit transaction may have taken it since
			return id
		}
	}
	if g.opened == 0 {
		g.extra = int32(len(busy))
	}
	// Another workload's session may have the next name, and be busy.
	for {
		g.opened++
		if id := g.h.sessionID("s" + strconv.Itoa(g.sessions+g.opened)); g.h.busy[id] == nil {
			return id
		}
	}
}

// release is told that transaction ts ended: a session the workload
// opened beyond sessions= is free for its next transactions, and so is
// ts's state, which nothing reads once its commit or rollback has run.
// Reusing the states keeps a workload's allocations to those of the
// transactions open at once, not one for each of its transactions.
func (g *workload) release(ts *txnState) {
	if id := ts.sid; g.opened > 0 && id >= g.extra {
		g.idle = append(g.idle, id)
	}
	if reuseEndedStates {
		g.ended = append(g.ended, ts)
	}
}

// reuseEndedStates is whether workloads reuse the states of ended
// transactions (see release). Only a test turns it off, to show that
// reusing them changes no trace (TestReusedStatesChangeNoTrace).
var reuseEndedStates = true

// Act begins the workload's next transaction.
func (g *workload) Act() {
	h := g.h
	begin := g.from.Add(vtime.Duration(g.i) * g.every)
	d := g.minD
	if g.maxD > g.minD {
		d += vtime.Duration(h.w.Rand().Int64N(int64(g.maxD-g.minD) + 1))
	}
	rb := g.rollbackPct > 0 && h.w.Rand().IntN(100) < g.rollbackPct
	if g.sessionIDs == nil {
		g.sessionIDs = make([]int32, g.sessions)
		for i := range g.sessionIDs {
			g.sessionIDs[i] = h.sessionID("s" + strconv.Itoa(i+1))
		}
	}
	var ts *txnState
	if n := len(g.ended); n > 0 {
		ts, g.ended = g.ended[n-1], g.ended[:n-1]
	} else {
		if len(g.slab) == 0 {
			g.slab = make([]txnState, min(64, g.n-g.i))
		}
		ts = &g.slab[0]
		g.slab = g.slab[1:]
	}
	ts.h, ts.only, ts.pool = h, &g.insert, g
	ts.name = g.nextName()
	ts.sid = g.session()
	ts.session = h.sessionNames[ts.sid]
	h.begin(ts)
	h.w.ScheduleAction(begin, (*onlyStmtStep)(ts))
	if rb {
		h.w.ScheduleAction(begin.Add(d), (*rollbackStep)(ts))
	} else {
		h.w.ScheduleAction(begin.Add(d), (*commitStep)(ts))
	}
	if g.i++; g.i < g.n {
		h.w.ScheduleAction(g.from.Add(vtime.Duration(g.i)*g.every), g)
	}
}

func (h *world) pipeArg(c scenario.Command) (*pipeline, scenario.Arg, []scenario.Arg, error) {
	n, rest, err := scenario.Name(c, "a pipeline")
	if err != nil {
		return nil, n, nil, err
	}
	p, err := scenario.Lookup(h.pipes, n, "pipeline", "pipeline %s from=... to=...")
	err = h.w.Misnamed(n, "pipeline", err)
	return p, n, rest, err
}

func (h *world) runLine(c scenario.Command) error {
	p, _, rest, err := h.pipeArg(c)
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
	from, to, hasIvl := a.TimeRange("interval")
	if err := a.Done(); err != nil {
		return err
	}
	switch {
	case hasIvl && p.cfg.Interval == 0:
		return errorf(scenario.ValueAt(c, "interval"), "interval=FROM..TO runs an interval of a pipeline declared with interval=, and pipeline %s reads from its mark; leave it out", p.cfg.Name)
	case hasIvl && from == to:
		return errorf(scenario.ValueAt(c, "interval"), "interval=%s..%s is empty: FROM..TO reads FROM <= updated_at < TO; expected FROM before TO", from, to)
	case hasIvl && to > plan.read:
		return errorf(scenario.ValueAt(c, "interval"), "interval= ends at %s, after the run's at=%s: rows of an interval that has not ended are still being written; expected TO at or before at=", to, plan.read)
	case hasStore && p.cfg.Interval > 0:
		return errorf(scenario.ValueAt(c, "store"), "a pipeline with interval= keeps no mark to store; leave store= out")
	case hasIvl:
		plan.from, plan.to = from, to
	default:
		if err := tooEarly(p, plan.read, c, "at"); err != nil {
			return err
		}
	}
	if hasOnly {
		for _, t := range strings.Split(only.Value, ",") {
			if !p.reads(t) {
				return errorf(only.ValuePos, "pipeline %s does not read table %q; it reads %s", p.cfg.Name, t, strings.Join(p.cfg.From, ", "))
			}
			plan.only = append(plan.only, t)
		}
	}
	// Fill phase times in the pipeline's order, each defaulting to the one
	// before. A time out of order is refused at the setting that comes too
	// early (bad), with why.
	bad, why := "", ""
	switch p.cfg.Advance {
	case extract.Before:
		if !hasStore {
			store = plan.read
		}
		if !hasWrite {
			write = store
		}
		why = "with advance=before a run reads, then stores the mark, then writes: expected at= <= store= <= write="
		switch {
		case store < plan.read:
			bad = "store"
		case write < store:
			bad = "write"
		}
	case extract.After:
		if !hasWrite {
			write = plan.read
		}
		if !hasStore {
			store = write
		}
		why = "with advance=after a run reads, then writes, then stores the mark: expected at= <= write= <= store="
		switch {
		case write < plan.read:
			bad = "write"
		case store < write:
			bad = "store"
		}
	case extract.Atomic:
		if !hasWrite {
			write = plan.read
			if hasStore {
				write = store
			}
		}
		why = "a run cannot write before it reads: expected write= at or after at="
		switch {
		case hasWrite && hasStore && write != store:
			// One transaction writes the rows and the mark: one time.
			bad, why = "store", "with advance=atomic a run writes its rows and stores the mark in one transaction, so write= and store= are one time; give one of them"
		case write < plan.read && hasWrite:
			bad = "write"
		case write < plan.read:
			bad = "store"
		}
		store = write
	}
	if bad != "" {
		return errorf(scenario.ValueAt(c, bad), "%s", why)
	}
	plan.write, plan.store = write, store
	h.scheduleRun(plan)
	return nil
}

func (h *world) runsLine(c scenario.Command) error {
	p, _, rest, err := h.pipeArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from := a.RequiredTime("from")
	until := a.RequiredTime("until")
	every := a.Duration("every", 0)
	worker := a.Str("worker", "")
	// The values' places, for the errors below.
	everyPos, untilPos := c.Pos, c.Pos
	if x, ok := a.Find("every"); ok {
		everyPos = x.ValuePos
	}
	if x, ok := a.Find("until"); ok {
		untilPos = x.ValuePos
	}
	if err := a.Done(); err != nil {
		return err
	}
	if err := tooEarly(p, from, c, "from"); err != nil {
		return err
	}
	if every <= 0 {
		return errorf(everyPos, "runs needs every= with a positive duration such as 5s")
	}
	if until < from {
		return errorf(untilPos, "runs needs from= at or before until=")
	}
	if int64(until-from)/int64(every) > 1_000_000 {
		return errorf(c.Pos, "runs would schedule more than a million runs; expected fewer")
	}
	// Counting runs rather than adding every to a time cannot overflow, and
	// the budget stops the loop at the run that would pass it.
	n := int64(until-from) / int64(every)
	if (n+1)*runCost > int64(h.w.Room()) {
		return h.w.BudgetError(c.Pos) // refused before scheduling the first
	}
	for i := int64(0); i <= n && !h.w.OverBudget(); i++ {
		t := from.Add(vtime.Duration(i) * every)
		h.scheduleRun(runPlan{pipe: p.cfg.Name, worker: worker, read: t, write: t, store: t})
	}
	return nil
}

func (h *world) resetLine(c scenario.Command) error {
	p, _, rest, err := h.pipeArg(c)
	if err != nil {
		return err
	}
	if p.cfg.Interval > 0 {
		return errorf(c.Pos, "a pipeline with interval= keeps no mark to reset; to read an interval again, give a run interval=FROM..TO")
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
	v, err := parseMark(p.cfg.Mark, to)
	if err != nil {
		return err
	}
	name := p.cfg.Name
	h.w.Schedule(at, func() { h.reset(name, mark, v) })
	return nil
}

// tooEarly refuses a run at t of interval pipeline p when no interval has
// ended settle= before t yet; key names the line's argument that gave t.
func tooEarly(p *pipeline, t vtime.Time, c scenario.Command, key string) error {
	if p.cfg.Interval == 0 {
		return nil
	}
	if from, _ := p.cfg.Ended(t); from < 0 {
		return errorf(scenario.ValueAt(c, key), "no interval has ended settle= before this time; expected a later one")
	}
	return nil
}

// parseMark reads the mark value a line gives in x (initial= of a
// pipeline, to= of a reset). A timestamp mark written in a line is a time
// of the scenario's one day, as every time a line gives is: 25:00:00 is
// refused at its column rather than stored as a mark no run can reach.
func parseMark(kind extract.MarkKind, x scenario.Arg) (extract.Mark, error) {
	m, err := kind.ParseMark(x.Value)
	if err != nil {
		return m, errorf(x.ValuePos, "%v", err)
	}
	if kind.IsTimestamp() && m.Set {
		if _, err := scenario.ParseDayTime(x.Value); err != nil {
			return m, errorf(x.ValuePos, "%s=%s is past the end of the day: a scenario's times run from 00:00:00 to 23:59:59.999", x.Key, x.Value)
		}
	}
	return m, nil
}
