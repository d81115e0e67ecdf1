package stream

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/keyed"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/whole"
	"github.com/tidemark/tidemark/engine/window"
)

// This file reads the lines of the stream world's second part —
// checkpoint, fail, read, aggregate, sink, and the options every operator
// and stream gains (commit=, rate=, buffer=, overflow=; parallelism=,
// reset=) — and wires what they declare when the file is read.

// day bounds the durations of the job's lines: a simulation spans one day.
const day = 24 * vtime.Hour

// opOptions are the options an operator line may carry besides its own.
type opOptions struct {
	twoPC    bool
	timeout  txnTimeout // with twoPC, how long a transaction may stay open
	cost     vtime.Duration
	buffer   int
	overflow uint8
	memory   int // records a growing buffer may hold before the task fails; 0: no limit
	hasRate  bool
}

// txnTimeout is how long the system behind a target keeps a transaction
// before aborting it on its own (Kafka's transaction.timeout.ms), and
// where txn-timeout= gives it; d 0: never, as a database's prepared
// transaction waits.
type txnTimeout struct {
	_  nocmp.NoCompare
	d  vtime.Duration
	at scenario.Pos
}

// readOpOptions reads commit=, and unless noBuffer rate=, buffer=,
// overflow= and memory= from a; the last three need rate=.
func readOpOptions(a *scenario.Args, noBuffer bool) opOptions {
	var o opOptions
	o.twoPC = scenario.Choice(a, "commit", false, func(v string) (bool, bool) {
		switch v {
		case "auto":
			return false, true
		case "two-phase":
			return true, true
		}
		return false, false
	}, "auto or two-phase")
	// txn-timeout=none is the default spelled out, so that a knob can
	// offer no timeout beside its durations.
	x, ok := a.Find("txn-timeout")
	if x.Value != "none" {
		o.timeout.d = a.DurationIn("txn-timeout", 0, 1, day, "a positive duration within a day, such as 15m, or none")
	}
	if ok && o.timeout.d > 0 {
		o.timeout.at = x.ValuePos
		if cv, _ := a.Find("commit"); !o.twoPC && cv.FromKnob {
			o.timeout.d = 0 // a knob's commit= at a value without transactions: one line serves every value
		} else if !o.twoPC {
			a.Fail(x.ValuePos, "txn-timeout= is how long a transaction may stay open before the broker aborts it; it needs commit=two-phase")
		}
	}
	if noBuffer {
		return o
	}
	if x, ok := a.Find("rate"); ok {
		d, ok := parseRate(x.Value)
		if !ok {
			a.Fail(x.ValuePos, "expected rate= to be records a second such as 10/s (1/s to 1000/s), found %q", x.Value)
		}
		o.cost, o.hasRate = d, true
	}
	if !o.hasRate {
		// Without a rate the operator takes no time over a record and
		// keeps no buffer, so a buffer's option would be ignored: it is an
		// error at the first one written. A knob cannot take rate= away
		// (it fills in a value, and rate= has none that means no rate),
		// so no value of any knob gives such a line a buffer.
		var first scenario.Arg
		for _, key := range [...]string{"buffer", "overflow", "memory"} {
			if x, ok := a.Find(key); ok && (first.Key == "" || x.Pos.Col < first.Pos.Col) {
				first = x
			}
		}
		if first.Key != "" {
			a.Fail(first.ValuePos, "%s= needs rate=N/s: without a rate the operator takes no time over a record and keeps no buffer", first.Key)
		}
		return o
	}
	o.buffer = a.Int("buffer", 100, 1, 1_000_000)
	o.overflow = scenario.Choice(a, "overflow", overflowBlock, parseOverflow, "block, grow or drop")
	if x, ok := a.Find("memory"); ok {
		o.memory = a.Int("memory", 0, 1, 1_000_000)
		ov, _ := a.Find("overflow")
		switch {
		case o.overflow == overflowGrow:
			if o.memory > 0 && o.memory < o.buffer {
				a.Fail(x.ValuePos, "expected memory= to be at least buffer= (%d), found %d", o.buffer, o.memory)
			}
		case ov.FromKnob:
			o.memory = 0 // a knob's overflow= at a value whose buffer never grows: one line serves every value
		default:
			a.Fail(x.ValuePos, "memory= is how many records a growing buffer holds before its task fails; it needs overflow=grow")
		}
	}
	return o
}

// parseRate reads N/s and returns what one record costs.
func parseRate(v string) (vtime.Duration, bool) {
	n, ok := strings.CutSuffix(v, "/s")
	if !ok {
		return 0, false
	}
	x, ok := whole.Int(n)
	if !ok || x < 1 || x > 1000 {
		return 0, false
	}
	return vtime.Second / vtime.Duration(x), true
}

// register adds op to the job: its index, its history, its writer to
// target (nil for none) and its input buffer (when opts has a rate).
func (s *world) register(op operator, name, kind string, st *stream, target *sink.Table, opts opOptions) *OpHistory {
	b := op.base()
	b.oi = int16(len(s.ops))
	oh := &OpHistory{Name: name, Kind: kind, Stream: st.name}
	if target != nil {
		oh.Target = target.Name
		oh.Commit = "auto"
		if opts.twoPC {
			oh.Commit = "two-phase"
		}
		b.out = &writer{s: s, oi: b.oi, target: target, twoPC: opts.twoPC, timeout: opts.timeout.d}
		if opts.timeout.d > 0 {
			s.timeouts = append(s.timeouts, opts.timeout)
		}
	}
	if opts.hasRate {
		b.in = &inbox{s: s, oi: b.oi, base: opts.cost, cost: opts.cost, cap: opts.buffer, overflow: opts.overflow, memory: opts.memory}
		oh.Cost, oh.Buffer, oh.Overflow, oh.Memory = opts.cost, opts.buffer, overflowNames[opts.overflow], opts.memory
	}
	if target != nil && kind != "window" && kind != "join" || opts.hasRate || opts.twoPC {
		s.jobHist() // the second part's history: tables, buffers, transactions
	}
	s.ops = append(s.ops, op)
	s.t.Ops = append(s.t.Ops, oh)
	s.byName[name] = op
	return oh
}

// checkpointLine reads `checkpoint every=D [from=T] [timeout=D] [tolerable=N]`.
func (s *world) checkpointLine(c scenario.Command) error {
	a := scenario.NewArgs(c, c.Args)
	every := a.DurationIn("every", 0, 100*vtime.Millisecond, day, "at least 100ms, within a day")
	if _, ok := a.Find("every"); !ok {
		a.Fail(c.Pos, "checkpoint needs every=D, the interval between checkpoints")
	}
	from, hasFrom := a.Time("from")
	timeout := a.DurationIn("timeout", 10*vtime.Minute, 1, day, "positive, within a day")
	tolerable := a.Int("tolerable", 0, 0, 1_000_000)
	if err := a.Done(); err != nil {
		return err
	}
	j := s.job
	if j.on {
		// At the command, the word that repeats: the line names nothing.
		return scenario.Errorf(c.Pos, "the job already has a checkpoint line, at %s; it takes one interval", s.ckptAt)
	}
	j.on, j.timeout, j.tolerable = true, timeout, tolerable
	s.ckptAt = c.Pos
	j.grid = checkpoint.Grid{From: watermark.None, Every: every}
	if hasFrom {
		j.grid.From = from
	}
	h := s.jobHist()
	h.Every, h.Timeout = every, timeout
	return nil
}

// failLine reads `fail NAME at=T [point=now|barrier|snapshot|commit|never] [restart=D]`.
func (s *world) failLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a stream or an operator")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	point := scenario.Choice(a, "point", "now", scenario.OneOf("now", "barrier", "snapshot", "commit", "never"), "now, barrier, snapshot, commit or never")
	restart := a.DurationIn("restart", failRestart, 0, day, "zero or positive, within a day")
	if err := a.Done(); err != nil {
		return err
	}
	if err := a.Within("restart", "the job would restart at", at.Add(restart)); err != nil {
		return err
	}
	if s.streams[n.Value] == nil && s.byName[n.Value] == nil {
		return scenario.Errorf(n.Pos, "unknown stream or operator %q; fail names one declared above it", n.Value)
	}
	if point == "never" {
		return nil // a knob may switch a failure off
	}
	if point != "now" {
		s.pointAt = append(s.pointAt, c.Pos)
	}
	s.jobHist()
	who := n.Value
	s.w.Schedule(at, func() {
		if j := s.job; j.dead || point == "now" && j.down {
			j.missed(who, point, at)
			return
		}
		if point == "now" {
			s.job.crash(who, "now", restart, "")
			return
		}
		s.job.plans = append(s.job.plans, failPlan{who: who, point: point, restart: restart, after: s.w.Now()})
	})
	return nil
}

// dirty returns what a read-uncommitted reader sees of a table of mode
// whose committed rows are rows: the pending writes applied in order, as
// their commits would apply them (a merge or an upsert keeps one row per
// key, a merge only a newer version; any other mode adds every row), the
// rows they touch marked Pending; and how many rows that view adds or
// changes, which a read-committed reader does not see.
func dirty(mode sink.Mode, rows []ReadRow, pending []pendingRow) ([]ReadRow, int) {
	out := slices.Clone(rows)
	keyed := mode == sink.Merge || mode == sink.Upsert
	at := map[string]int{} // a keyed table's row of each key, in out
	if keyed {
		for i, r := range out {
			at[r.Key] = i
		}
	}
	changed := 0
	for _, p := range pending {
		r := ReadRow{Key: p.in.Key, Amount: p.in.Amount, Seq: int32(p.in.Seq), Pending: true}
		i, ok := at[r.Key]
		switch {
		case !keyed || !ok:
			if keyed {
				at[r.Key] = len(out)
			}
			out = append(out, r)
			changed++
		case mode == sink.Merge && r.Seq <= out[i].Seq:
			// a merge absorbs a version no newer than the row's
		default:
			if !out[i].Pending {
				changed++
			}
			out[i] = r
		}
	}
	return out, changed
}

// readLine reads `read TARGET at=T [as=NAME] [isolation=read-committed|read-uncommitted]`.
func (s *world) readLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a target table")
	if err != nil {
		return err
	}
	target, err := s.w.ReadTargetArg(n)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	as := a.Str("as", "")
	unc := scenario.Choice(a, "isolation", false, func(v string) (bool, bool) {
		switch v {
		case "read-committed":
			return false, true
		case "read-uncommitted":
			return true, true
		}
		return false, false
	}, "read-committed or read-uncommitted")
	if err := a.Done(); err != nil {
		return err
	}
	h := s.jobHist()
	if as == "" {
		as = prose.F("read%d", len(s.reads)+1)
	}
	for _, r := range s.reads {
		if r.name == as {
			// At the name that repeats, or at the command when the name
			// is the one a read with no as= is given.
			return scenario.Errorf(scenario.ValueAt(c, "as"), "a read named %q is already declared at %s; give this one another as=", as, r.at)
		}
	}
	s.reads = append(s.reads, readLine{as, scenario.ValueAt(c, "as")})
	_ = h
	s.w.Schedule(at, func() { s.read(as, target, unc) })
	return nil
}

// readLine is a read line's name (its as=, or read1, read2… in order)
// and where it is: its as= value, or the command when it has none.
type readLine struct {
	name string
	at   scenario.Pos
}

// read is one reader's snapshot of a table: the rows committed, and with
// read-uncommitted the rows of transactions not yet committed too.
func (s *world) read(name string, target *sink.Table, uncommitted bool) {
	h := s.jobHist()
	rs := ReadSnapshot{Name: name, Target: target.Name, Step: int32(s.w.NextStep()), At: s.w.Now(), Uncommitted: uncommitted}
	for _, r := range sink.At(target.History(), rs.Step) {
		rs.Rows = append(rs.Rows, ReadRow{Key: target.KeyOf(&r), Amount: r.Amount, Seq: int32(r.Seq)})
	}
	var pending []pendingRow
	for _, op := range s.ops {
		out := op.base().out
		if out == nil || out.target != target || !out.twoPC {
			continue
		}
		for _, x := range out.pre {
			pending = append(pending, x.rows...)
		}
		pending = append(pending, out.open...)
	}
	if len(pending) > 0 {
		rows, changed := dirty(target.Mode, rs.Rows, pending)
		if uncommitted {
			rs.Rows = rows
		} else {
			rs.Pending = changed
		}
	}
	h.Reads = append(h.Reads, rs)
	var sb strings.Builder
	prose.Fprintf(&sb, "A reader (%s) reads %s with %s isolation and sees %s", name, target.Name, isolationWord(uncommitted), prose.Count(len(rs.Rows), "row", "rows"))
	if len(rs.Rows) > 0 {
		var each []string
		amounts := false
		for _, r := range rs.Rows {
			amounts = amounts || r.Amount != 0
		}
		if amounts {
			prose.Fprintf(&sb, " (%s=amount)", target.Key)
		}
		for _, r := range rs.Rows {
			x := r.Key
			if amounts {
				x = prose.F("%s=%d", r.Key, r.Amount)
			}
			if r.Pending {
				x += " (uncommitted)"
			}
			each = append(each, x)
		}
		prose.Fprintf(&sb, ": %s", strings.Join(limitList(each, 6), ", "))
	}
	if rs.Pending > 0 {
		prose.Fprintf(&sb, "; %s that transactions not yet committed add or change %s invisible to it", prose.Count(rs.Pending, "row", "rows"), prose.IsAre(rs.Pending))
	}
	sb.WriteString(".")
	s.w.Emit(name, engine.KindReport, -1, "%s", sb.String())
}

func isolationWord(uncommitted bool) string {
	if uncommitted {
		return "read-uncommitted"
	}
	return "read-committed"
}

// aggregateLine reads `aggregate NAME from=STREAM [agg=count|sum|min|max]
// [ttl=D|off] [to=TARGET] [commit=...] [rate=N/s] [buffer=N] [overflow=...]`.
func (s *world) aggregateLine(c scenario.Command) error {
	n, rest, err := s.w.Declared(c, "aggregate", "an aggregate")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from, _ := a.Required("from", "STREAM")
	agg := scenario.Choice(a, "agg", window.Count, window.ParseAgg, "count, sum, min or max")
	ttl := readTTL(a)
	to, hasTo := a.Find("to")
	opts := readOpOptions(a, false)
	if err := a.Done(); err != nil {
		return err
	}
	st, err := s.streamArg(from)
	if err != nil {
		return err
	}
	op := &aggOp{name: n.Value, st: st, agg: agg, state: keyed.New(ttl), truth: map[int32]*aggResult{}}
	if hasTo {
		if op.target, err = s.w.TargetArg(to); err != nil {
			return err
		}
	}
	if err := s.needCheckpoints(c, opts); err != nil {
		return err
	}
	oh := s.register(op, n.Value, "aggregate", st, op.target, opts)
	oh.TTL, oh.Agg = ttl, agg
	if op.out != nil {
		op.out.visible = func(p *pendingRow, landed bool) { op.visible(s, p, landed) }
	}
	s.aggs = append(s.aggs, op)
	st.consumers = append(st.consumers, consumer{agg: op})
	return nil
}

// readTTL reads ttl=D or ttl=off.
func readTTL(a *scenario.Args) vtime.Duration {
	x, ok := a.Find("ttl")
	if !ok || x.Value == "off" {
		return 0
	}
	d, err := vtime.ParseDuration(x.Value)
	if err != nil || d <= 0 {
		a.Fail(x.ValuePos, "expected ttl= to be off or a positive duration such as 1m, found %q", x.Value)
	}
	return d
}

// needCheckpoints refuses commit=two-phase without checkpoints: its
// transactions commit when a checkpoint completes.
func (s *world) needCheckpoints(c scenario.Command, opts opOptions) error {
	if opts.twoPC {
		s.twoPCAt = append(s.twoPCAt, c.Pos)
	}
	return nil
}

// sinkLine reads `sink NAME from=STREAM to=TARGET [commit=...]
// [value=amount|now|lookup] [lookup=TABLE] [dedup=off|event|key] [ttl=D|off]
// [rate=N/s] [buffer=N] [overflow=...]`.
func (s *world) sinkLine(c scenario.Command) error {
	n, rest, err := s.w.Declared(c, "sink", "a sink")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from, _ := a.Required("from", "STREAM")
	to, _ := a.Required("to", "TARGET")
	value := scenario.Choice(a, "value", valueAmount, func(v string) (uint8, bool) {
		switch v {
		case "amount":
			return valueAmount, true
		case "now":
			return valueNow, true
		case "lookup":
			return valueLookup, true
		}
		return 0, false
	}, "amount, now or lookup")
	lk, hasLookup := a.Find("lookup")
	dedup := scenario.Choice(a, "dedup", dedupOff, func(v string) (uint8, bool) {
		switch v {
		case "off":
			return dedupOff, true
		case "event":
			return dedupEvent, true
		case "key":
			return dedupKey, true
		}
		return 0, false
	}, "off, event or key")
	ttl := readTTL(a)
	opts := readOpOptions(a, false)
	if err := a.Done(); err != nil {
		return err
	}
	st, err := s.streamArg(from)
	if err != nil {
		return err
	}
	op := &sinkOp{name: n.Value, pos: scenario.ValueAt(c, "to"), st: st, value: value, dedup: dedup, state: keyed.New(ttl), ids: map[string]int64{}, ever: map[int64]bool{}}
	if op.target, err = s.w.TargetArg(to); err != nil {
		return err
	}
	switch {
	case value == valueLookup && !hasLookup:
		return scenario.Errorf(scenario.ValueAt(c, "value"), "value=lookup needs lookup=TABLE, a source table keyed like the stream's records")
	case hasLookup:
		// Read with value=lookup only; a knob may switch value= away.
		if op.lookup, err = s.lookupTable(lk); err != nil {
			return err
		}
	}
	if ttl > 0 && dedup == dedupOff {
		return scenario.Errorf(scenario.ValueAt(c, "ttl"), "ttl= is how long the dedup remembers an id; it needs dedup=event or dedup=key")
	}
	if err := s.needCheckpoints(c, opts); err != nil {
		return err
	}
	oh := s.register(op, n.Value, "sink", st, op.target, opts)
	oh.TTL, oh.ByKey = ttl, dedup == dedupKey
	s.sinks = append(s.sinks, op)
	st.consumers = append(st.consumers, consumer{snk: op})
	return nil
}

// lookupTable returns the lookup state of the source table x names,
// hooking the source's commits once.
func (s *world) lookupTable(x scenario.Arg) (*lookupTable, error) {
	if l := s.lookups[x.Value]; l != nil {
		return l, nil
	}
	src := engine.SourceOf(s.w)
	if src == nil || src.Table(x.Value) == nil {
		return nil, scenario.Errorf(x.ValuePos, "unknown source table %q; declare it first with `source %s key=...`", x.Value, x.Value)
	}
	l := &lookupTable{name: x.Value, current: map[string]int64{}}
	s.lookups[x.Value] = l
	src.OnCommit(func(tx *mvcc.Txn) {
		for _, v := range tx.Writes {
			if v.Table() != l.name {
				continue
			}
			amount := v.Amount
			if v.Op == mvcc.Delete {
				amount = 0
			}
			l.current[v.Key] = amount
			l.changes = append(l.changes, lookupChange{At: s.w.Now(), Key: v.Key, Amount: amount})
		}
	})
	return l, nil
}

// finishJob wires the job once every line is read: the sinks' targets are
// fed by what feeds their topics, and the first checkpoint is queued.
func (s *world) finishJob() error {
	if s.job.on && len(s.order) == 0 {
		return scenario.Errorf(s.ckptAt, "a checkpoint snapshots a stream job's positions and state, and this scenario has no stream; add a `stream NAME from=TOPIC` line, or remove this one")
	}
	if len(s.twoPCAt) > 0 && !s.job.on {
		return scenario.Errorf(s.twoPCAt[0], "commit=two-phase commits when a checkpoint completes, and this scenario takes none; add `checkpoint every=D`")
	}
	for _, x := range s.timeouts {
		// A transaction opens at its first row and commits when the next
		// checkpoint completes, up to an interval later: a shorter timeout
		// would abort transactions of a job that never failed.
		if x.d <= s.job.grid.Every {
			return scenario.Errorf(x.at, "expected txn-timeout= to be longer than the checkpoint interval (every=%s), found %s: the broker would abort transactions before their checkpoint could commit them", s.job.grid.Every, x.d)
		}
	}
	for _, p := range s.pointAt {
		if !s.job.on {
			return scenario.Errorf(p, "this fail line waits for a checkpoint, and this scenario takes none; add `checkpoint every=D`")
		}
	}
	for _, op := range s.sinks {
		for _, name := range s.log.Feeders(op.st.topic.h) {
			// The truth follows the rows of a table or a producer into one
			// target; a second table fed the same rows would read as stale
			// throughout, so it is refused rather than judged wrongly.
			if !s.w.Route(name, op.target) {
				return s.w.RouteRefused(op.pos, name, "sink "+op.name, op.target)
			}
		}
	}
	for _, op := range s.ops {
		if in := op.base().in; in != nil {
			in.c = s.consumerOf(op)
		}
	}
	for _, w := range s.windows {
		if w.out != nil {
			w.out.visible = func(p *pendingRow, landed bool) { w.visible(s, p, landed) }
		}
	}
	s.job.start()
	return nil
}

// consumerOf is the consumer op is among its stream's.
func (s *world) consumerOf(op operator) consumer {
	for _, st := range s.order {
		for _, c := range st.consumers {
			if c.join == nil && c.op() == op {
				return c
			}
		}
	}
	return consumer{}
}

// maybeFinal begins the final checkpoint once every stream has ended, so
// that what two-phase-commit sinks hold pending commits.
func (j *job) maybeFinal() {
	s := j.s
	if !j.on || !j.up() || !j.drained || j.finished || j.run != nil || !s.hasTwoPC() {
		return
	}
	for _, st := range s.order {
		if !st.ended {
			return
		}
	}
	epoch := j.epoch
	s.w.Schedule(s.w.Now(), func() {
		if j.epoch == epoch && j.up() && j.run == nil && !j.finished {
			j.begin(true)
		}
	})
}

// hasTwoPC reports whether an operator commits with checkpoints and has
// rows it has not pre-committed yet.
func (s *world) hasTwoPC() bool {
	for _, op := range s.ops {
		if out := op.base().out; out != nil && out.twoPC && len(out.open) > 0 {
			return true
		}
	}
	return false
}

// Fault kinds of the second part.
const (
	// FaultFail fails the job now, or at a point of the next checkpoint
	// (Fault.Point), as a fail line would; it restarts after Fault.For, or
	// 10 seconds.
	FaultFail engine.FaultKind = "fail"
	// FaultSlow makes a stream's readers or an operator take Fault.By per
	// record for Fault.For; an operator without a buffer gets one of 100
	// records with flow control, as Flink's network buffers give.
	FaultSlow engine.FaultKind = "slow"
)

// injectFail fails the job as a fail line would.
func (s *world) injectFail(f engine.Fault) error {
	who := f.Stream
	if s.streams[who] == nil && s.byName[who] == nil {
		return prose.Errorf("unknown stream or operator %q; this scenario's are %s", who, s.opNames())
	}
	restart := f.For
	if restart == 0 {
		restart = failRestart
	}
	if restart < 0 {
		return prose.Errorf("a failed job restarts after zero or more, not %s", restart)
	}
	switch f.Point {
	case "", "now":
		if !s.job.up() {
			return prose.Errorf("the job is not running: it failed already")
		}
		s.job.crash(who, "now", restart, "")
	case "barrier", "snapshot", "commit":
		if !s.job.on {
			return prose.Errorf("this scenario takes no checkpoints, so there is no %s to fail at", f.Point)
		}
		if s.job.dead {
			return prose.Errorf("the job is down for good: no checkpoint will begin again, so there is no %s to fail at", f.Point)
		}
		s.job.plans = append(s.job.plans, failPlan{who: who, point: f.Point, restart: restart, after: s.w.Now()})
	default:
		return prose.Errorf("a failure happens now or at a checkpoint's barrier, snapshot or commit, not %q", f.Point)
	}
	return nil
}

// injectSlow slows a stream's readers or an operator for a while.
func (s *world) injectSlow(f engine.Fault) error {
	if f.By <= 0 || f.For <= 0 {
		return prose.Errorf("a slow operator needs a positive cost per record and a positive length")
	}
	now := s.w.Now()
	if st := s.streams[f.Stream]; st != nil {
		st.cost, st.slowTo = f.By, now.Add(f.For)
		st.hist.Costs = append(st.hist.Costs, CostPoint{Step: int32(s.w.NextStep()), Cost: f.By})
		st.arm()
		return nil
	}
	op := s.byName[f.Stream]
	if op == nil {
		return prose.Errorf("unknown stream or operator %q; this scenario's are %s", f.Stream, s.opNames())
	}
	if _, ok := op.(*joinOp); ok {
		return prose.Errorf("%s is a join, which reads two streams; slow one of them instead", f.Stream)
	}
	b := op.base()
	if b.in == nil {
		b.in = &inbox{s: s, oi: b.oi, cap: 100, overflow: overflowBlock, c: s.consumerOf(op)}
		oh := s.t.Ops[b.oi]
		oh.Buffer, oh.Overflow = 100, "block"
		b.in.c.stream().buffered = true
	}
	b.in.cost, b.in.slowTo = f.By, now.Add(f.For)
	s.t.Ops[b.oi].Costs = append(s.t.Ops[b.oi].Costs, CostPoint{Step: int32(s.w.NextStep()), Cost: f.By})
	return nil
}

// opNames lists the streams and operators, for a message.
func (s *world) opNames() string {
	var names []string
	for _, st := range s.order {
		names = append(names, st.name)
	}
	for _, oh := range s.t.Ops {
		names = append(names, oh.Name)
	}
	return strings.Join(names, ", ")
}
