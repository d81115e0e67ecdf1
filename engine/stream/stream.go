// Package stream is the stream world: stream jobs reading the log world's
// topics, modelled on Flink. A stream is a source operator over one topic
// (its records' event times, when each is read, the watermark it makes
// per partition or per source, idleness), with the stateless steps
// filter, map and key-by; a window operator (tumbling, sliding or session,
// in event or processing time, with allowed lateness and a late-data side
// output) or an interval join reads one or two streams and writes its
// results into a core target. The rules are the pure packages
// engine/watermark, engine/window and engine/join; this package wires them
// to the log, the clock, the trace and the truth.
//
// It is a world of the engine (see docs/architecture.md): Domain is what a
// caller hands engine.Build, and Of reads the world's part of a trace. It
// builds on the log world: a stream reads a topic's partitions in offset
// order, each record when it is appended plus the stream's lag, later when
// a stall or a delay says so.
//
// What it simplifies is listed in docs/scenarios.md ("The stream world"):
// one task per operator, aggregates of one integer, default triggers,
// deterministic ties, idleness in processing time, whole milliseconds.
package stream

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// Domain is the stream world, for engine.Build.
var Domain engine.Domain = domain{}

// Fault kinds the stream world injects.
const (
	// FaultStall stops a stream reading one partition for a while; what
	// was appended meanwhile is read at once when it ends, as a stall line
	// would (a fetch stuck behind a slow broker).
	FaultStall engine.FaultKind = "stall"
	// FaultDelay makes a stream read one partition's records later for a
	// while, as a delay line would (a lagging fetch).
	FaultDelay engine.FaultKind = "delay"
)

type domain struct{}

// commands are the world's commands, in the order docs/scenarios.md documents them.
var commands = []string{"stream", "watermark", "filter", "map", "key-by", "window", "join", "stall", "delay",
	"aggregate", "sink", "checkpoint", "fail", "read"}

func (domain) Commands() []string { return commands }

var faults = []engine.FaultKind{FaultStall, FaultDelay, FaultFail, FaultSlow}

func (domain) Faults() []engine.FaultKind { return faults }

// claimKinds are the expect claims the stream world verifies.
var claimKinds = []engine.ClaimKind{
	{Word: "windows", Keys: []string{"wrong"}, Values: engine.ClaimTimes},
	{Word: "late", Keys: []string{"dropped", "accepted", "side-output"}},
	{Word: "joins", Keys: []string{"unjoined"}},
	{Word: "checkpoints", Keys: []string{"completed", "failed", "restored", "unrestorable"}},
	{Word: "transactions", Keys: []string{"committed", "aborted"}},
	{Word: "buffers", Keys: []string{"dropped", "lost"}},
	{Word: "replays", Keys: []string{"changed"}},
	{Word: "reads", Keys: []string{"never-existed"}, Values: engine.ClaimNames},
}

// ClaimKinds lists the stream world's kinds of expect claim.
func (domain) ClaimKinds() []engine.ClaimKind { return claimKinds }

func (domain) Open(w *engine.World) engine.Part {
	s := &world{w: w, streams: map[string]*stream{}, byName: map[string]operator{}, lookups: map[string]*lookupTable{}}
	s.job = &job{s: s}
	return s
}

// world is the stream world's live state in one engine.World.
type world struct {
	w        *engine.World
	log      *logs.Log // the log the streams read; nil until the first stream line
	t        *Trace    // the world's history; nil until the first stream line
	by       engine.Narrator
	streams  map[string]*stream
	order    []*stream           // streams in the order declared
	windows  []*windowOp         // window operators in the order declared
	joins    []*joinOp           // joins in the order declared
	topics   []*topicState       // topics some stream reads
	byName   map[string]operator // every operator by name
	ops      []operator          // every operator, in the order declared: the job's checkpoints hold their states in this order
	aggs     []*aggOp
	sinks    []*sinkOp
	lookups  map[string]*lookupTable
	job      *job
	wout     window.Output  // scratch for a window operator's output
	jout     join.Output    // scratch for a join's output
	multi    bool           // several targets: a key's id depends on its target
	reads    []readLine     // the read lines, by name
	ckptAt   scenario.Pos   // where the checkpoint line is; Line 0 before one
	twoPCAt  []scenario.Pos // lines with commit=two-phase, which need checkpoints
	timeouts []txnTimeout   // each txn-timeout=, which must be longer than the checkpoint interval
	pointAt  []scenario.Pos // fail lines that wait for a checkpoint's point
}

// sw attaches the stream world's history to the trace, once, and finds the log.
func (s *world) sw(c scenario.Command) error {
	if s.t != nil {
		return nil
	}
	s.log = logs.LogOf(s.w)
	if s.log == nil {
		return scenario.Errorf(c.Pos, "a stream reads a topic of the log world, and this engine is composed without it")
	}
	s.t = &Trace{t: s.w.Trace()}
	s.by = s.w.Attach(s.t)
	return nil
}

// Command reads one of the stream world's scenario lines.
func (s *world) Command(c scenario.Command) error {
	if err := s.sw(c); err != nil {
		return err
	}
	switch c.Name {
	case "stream":
		return s.streamLine(c)
	case "watermark":
		return s.watermarkLine(c)
	case "filter":
		return s.filterLine(c)
	case "map":
		return s.mapLine(c)
	case "key-by":
		return s.keyByLine(c)
	case "window":
		return s.windowLine(c)
	case "join":
		return s.joinLine(c)
	case "stall", "delay":
		return s.slowLine(c)
	case "aggregate":
		return s.aggregateLine(c)
	case "sink":
		return s.sinkLine(c)
	case "checkpoint":
		return s.checkpointLine(c)
	case "fail":
		return s.failLine(c)
	case "read":
		return s.readLine(c)
	}
	return scenario.Errorf(c.Pos, "the stream world has no command %q", c.Name)
}

// Finish wires the streams once every line is read: each reads its topic
// from the first record, and ticks from the start.
func (s *world) Finish() (bool, error) {
	if s.t == nil {
		return false, nil
	}
	s.multi = len(s.w.Trace().Targets) > 1
	if err := s.finishJob(); err != nil {
		return false, err
	}
	for _, st := range s.order {
		if err := st.start(); err != nil {
			return false, err
		}
		// Each record the log's traffic will send is read: a step each,
		// and some more for the ticks and firings.
		n := s.log.Planned(st.topic.h)
		s.w.Expect(n+n/8, 0, 0)
	}
	return len(s.order) > 0, nil
}

// Reserve sizes the tables a large load fills, once, from the records the
// log's traffic lines will send (bounded by the work budget).
func (s *world) Reserve(keys int) {
	if s.t == nil {
		return
	}
	total := 0
	for _, ts := range s.topics {
		n := min(s.log.Planned(ts.h), s.w.Limit())
		if n < 1024 {
			continue
		}
		per := n/len(ts.h.Parts) + n/len(ts.h.Parts)/8 + 16
		for len(ts.appendAt) < len(ts.h.Parts) {
			ts.appendAt = append(ts.appendAt, nil)
		}
		for p := range ts.appendAt {
			ts.appendAt[p] = slices.Grow(ts.appendAt[p], per)
		}
		for _, st := range ts.streams {
			total += n
			for p := range st.hist.Parts {
				st.hist.Parts[p].Read = slices.Grow(st.hist.Parts[p].Read, per)
			}
		}
	}
	s.t.Arrivals = slices.Grow(s.t.Arrivals, min(total, s.w.Limit()))
}

// Drain ends every stream's input: each emits the end-of-input watermark,
// so every window fires and every join buffer is released.
func (s *world) Drain() {
	s.job.drained = true
	for _, st := range s.order {
		st.ending = true
		st.maybeEnd()
	}
}

// End narrates the fail lines still waiting for a point of a checkpoint
// when the run is over: every stream has read all its input and no
// checkpoint will begin again, so they would pass in silence. It also
// notes the firings that repeat one from before a restore, for their
// narration.
func (s *world) End() {
	if s.t != nil {
		s.t.noteRepeats()
	}
	if len(s.job.plans) > 0 {
		s.w.Then(s.job.unreached)
	}
}

// Inject applies a stream fault now.
func (s *world) Inject(f engine.Fault) error {
	if s.t == nil {
		return ErrNoStream
	}
	switch f.Kind {
	case FaultFail:
		return s.injectFail(f)
	case FaultSlow:
		return s.injectSlow(f)
	}
	st := s.streams[f.Stream]
	if st == nil {
		return prose.Errorf("unknown stream %q; this scenario's streams are %s", f.Stream, s.streamNames())
	}
	if f.Partition < 0 || f.Partition >= len(st.topic.h.Parts) {
		return prose.Errorf("stream %s reads partitions 0 to %d of %s, not %d", st.name, len(st.topic.h.Parts)-1, st.topic.h.Name, f.Partition)
	}
	if f.For <= 0 {
		return prose.Errorf("a %s needs a positive length, such as 30s", string(f.Kind))
	}
	now := s.w.Now()
	sl := slow{part: f.Partition, from: now, until: now.Add(f.For)}
	switch f.Kind {
	case FaultStall:
		sl.stall = true
	case FaultDelay:
		if f.By <= 0 {
			return prose.Errorf("a delay needs a positive amount, such as 45s")
		}
		sl.by = f.By
	default:
		return prose.Errorf("the stream world has no fault %q", string(f.Kind))
	}
	st.slows = append(st.slows, sl)
	st.noteSlow(sl)
	st.rearm()
	return nil
}

// ErrNoStream is returned for a stream fault injected into a scenario without a stream.
var ErrNoStream = prose.Errorf("this scenario has no stream, so there is no partition to stall or delay")

func (s *world) streamNames() string {
	names := make([]string, len(s.order))
	for i, st := range s.order {
		names[i] = st.name
	}
	return strings.Join(names, ", ")
}

// streamArg reads x as the name of a declared stream.
func (s *world) streamArg(x scenario.Arg) (*stream, error) {
	st, err := scenario.Lookup(s.streams, x, "stream", "stream %s from=TOPIC")
	return st, s.w.Misnamed(x, "stream", err)
}

// named reads the command's first word as the name of a declared stream.
func (s *world) named(c scenario.Command) (*stream, []scenario.Arg, error) {
	n, rest, err := scenario.Name(c, "a stream")
	if err != nil {
		return nil, nil, err
	}
	st, err := s.streamArg(n)
	return st, rest, err
}

// streamLine reads `stream NAME from=TOPIC [event-time=payload|timestamp]
// [lag=D] [clock=CLOCK]`.
func (s *world) streamLine(c scenario.Command) error {
	n, rest, err := s.w.Declared(c, "stream", "a stream")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from, _ := a.Required("from", "TOPIC")
	st := &stream{s: s, name: n.Value, idx: len(s.order), keyed: true, scale: 1}
	st.stamp = scenario.Choice(a, "event-time", false, func(v string) (bool, bool) {
		switch v {
		case "payload":
			return false, true
		case "timestamp":
			return true, true
		}
		return false, false
	}, "payload or timestamp")
	st.lag = a.Duration("lag", 0)
	clock := a.Str("clock", "reader")
	st.par = a.Int("parallelism", 1, 1, 256)
	if x, ok := a.Find("rate"); ok {
		d, ok := parseRate(x.Value)
		if !ok {
			a.Fail(x.ValuePos, "expected rate= to be records a second such as 50/s (1/s to 1000/s), found %q", x.Value)
		}
		st.baseCost = d
	}
	st.reset = scenario.Choice(a, "reset", checkpoint.Earliest, checkpoint.ParseReset, "earliest, latest or none")
	if err := a.Done(); err != nil {
		return err
	}
	if st.par > 1 || st.baseCost > 0 {
		s.jobHist() // readers with a cost: the second part's lag and utilisation
	}
	if st.lag < 0 {
		return scenario.Errorf(scenario.ValueAt(c, "lag"), "expected lag= to be zero or positive")
	}
	if st.clock = s.w.Clock(clock); st.clock == nil {
		return scenario.Errorf(scenario.ValueAt(c, "clock"), "unknown clock %q; declare it first with `clock %s`", clock, clock)
	}
	h, err := s.log.TopicArg(from)
	if err != nil {
		return err
	}
	if err := s.log.Hold(h, from.ValuePos); err != nil { // a stream keeps a reader's state for each partition
		return err
	}
	st.topic = s.topicOf(h)
	st.topic.streams = append(st.topic.streams, st)
	st.wm = watermark.Config{Interval: 200 * vtime.Millisecond}
	st.hist = &StreamHistory{Name: n.Value, Topic: h.Name, topicIdx: st.topic.idx, first: watermark.None, last: watermark.None}
	s.t.Streams = append(s.t.Streams, st.hist)
	s.streams[n.Value] = st
	s.order = append(s.order, st)
	return nil
}

// watermarkLine reads `watermark STREAM [bound=D] [emit=periodic|per-record]
// [interval=D] [idleness=D|off] [scope=per-partition|per-source]`.
// once refuses a second line c of a kind a stream takes once (watermark,
// key-by), whose first is at was (Line 0: none yet), at the name that
// repeats, as the core's "already used" is: a later line would otherwise
// quietly replace the first.
func once(c scenario.Command, st *stream, was scenario.Pos) error {
	if was.Line > 0 {
		return scenario.Errorf(c.Args[0].ValuePos, "stream %s already has a %s line, at %s", st.name, c.Name, was)
	}
	return nil
}

func (s *world) watermarkLine(c scenario.Command) error {
	st, rest, err := s.named(c)
	if err != nil {
		return err
	}
	if err := once(c, st, st.wmLine); err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	cfg := st.wm
	cfg.Bound = a.Duration("bound", 0)
	cfg.Emission = scenario.Choice(a, "emit", watermark.Periodic, watermark.ParseEmission, "periodic or per-record")
	cfg.Interval = a.Duration("interval", cfg.Interval)
	if x, ok := a.Find("idleness"); ok && x.Value != "off" {
		d, err := vtime.ParseDuration(x.Value)
		if err != nil || d <= 0 {
			return scenario.Errorf(x.ValuePos, "expected idleness= to be off or a positive duration such as 30s, found %q", x.Value)
		}
		cfg.Idleness = d
	}
	cfg.Scope = scenario.Choice(a, "scope", watermark.PerPartition, watermark.ParseScope, "per-partition or per-source")
	if err := a.Done(); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return scenario.Errorf(settingAt(c, err, c.Pos), "%s", err.Error())
	}
	st.wm, st.wmLine = cfg, c.Pos
	return nil
}

// filterLine reads `filter STREAM [min-amount=N] [max-amount=N] [keys=KEYS]`.
func (s *world) filterLine(c scenario.Command) error {
	st, rest, err := s.named(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	f := &st.flt
	// Several filter lines all apply: a record passes every one of them,
	// so the amounts kept are the narrowest range any line gives and the
	// keys those every keys= names.
	minArg, hasMin := a.Find("min-amount")
	maxArg, hasMax := a.Find("max-amount")
	lo, hi := f.minAmount, f.maxAmount
	if hasMin {
		if v := int64(a.Int("min-amount", 0, -1_000_000_000, 1_000_000_000)); !f.hasMin || v > lo {
			lo = v
		}
	}
	if hasMax {
		if v := int64(a.Int("max-amount", 0, -1_000_000_000, 1_000_000_000)); !f.hasMax || v < hi {
			hi = v
		}
	}
	keys, hasKeys := a.Find("keys")
	if err := a.Done(); err != nil {
		return err
	}
	if !hasMin && !hasMax && !hasKeys {
		return scenario.Errorf(c.Pos, "filter needs min-amount=, max-amount= or keys=")
	}
	if err := beforeReaders(c, st); err != nil {
		return err
	}
	if (hasMin || f.hasMin) && (hasMax || f.hasMax) && lo > hi {
		at := minArg.ValuePos
		if !hasMin || hasMax && maxArg.ValuePos.Col > at.Col {
			at = maxArg.ValuePos
		}
		return scenario.Errorf(at, "this filter keeps no amount: min-amount=%d is above max-amount=%d (several filter lines all apply)", lo, hi)
	}
	f.minAmount, f.hasMin = lo, f.hasMin || hasMin
	f.maxAmount, f.hasMax = hi, f.hasMax || hasMax
	if hasKeys {
		// Each key kept costs a unit of work, as a key named does: a short
		// line of ranges could otherwise keep millions of them.
		ks, err := scenario.AppendKeys(nil, keys, keys.Value, s.w.Room(), false, "")
		if err == scenario.ErrTooManyKeys {
			return s.w.BudgetError(c.Pos)
		}
		if err != nil {
			return err
		}
		s.w.Charge(len(ks))
		keep := make(map[string]bool, len(ks))
		for _, k := range ks {
			if f.keep == nil || f.keep[k] {
				keep[k] = true
			}
		}
		if len(keep) == 0 {
			return scenario.Errorf(keys.ValuePos, "this filter keeps no key: keys=%s names none of the keys an earlier filter line keeps (several filter lines all apply)", keys.Value)
		}
		f.keep = keep
	}
	return nil
}

// beforeReaders refuses line c, a filter, map or key-by of stream st, once
// a window, join, aggregate or sink reads st: such a line shapes the
// stream every reader sees, and a line after them reads as though it
// shaped the readers' output.
func beforeReaders(c scenario.Command, st *stream) error {
	if len(st.consumers) > 0 {
		return scenario.Errorf(c.Args[0].ValuePos, "%s %s comes after a window, join, aggregate or sink reads the stream, yet shapes what they all read; put it before them", c.Name, st.name)
	}
	return nil
}

// mapLine reads `map STREAM [shift=D] [scale=N]`.
func (s *world) mapLine(c scenario.Command) error {
	st, rest, err := s.named(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	shift := a.Duration("shift", 0)
	_, hasShift := a.Find("shift")
	scale := a.Int("scale", 1, -1_000_000, 1_000_000)
	_, hasScale := a.Find("scale")
	if err := a.Done(); err != nil {
		return err
	}
	if !hasShift && !hasScale {
		return scenario.Errorf(c.Pos, "map needs shift= or scale=")
	}
	if err := beforeReaders(c, st); err != nil {
		return err
	}
	if shift < -24*vtime.Hour || shift > 24*vtime.Hour {
		return scenario.Errorf(scenario.ValueAt(c, "shift"), "expected shift= within a day either way, found %s", shift)
	}
	if hasScale && scale == 0 {
		// A negative scale turns amounts into refunds; zero erases them.
		return scenario.Errorf(scenario.ValueAt(c, "scale"), "scale=0 would make every amount 0; expected a whole number other than 0, such as 100 or -1")
	}
	st.shift += shift
	st.scale *= int64(scale)
	return nil
}

// keyByLine reads `key-by STREAM key|none`.
func (s *world) keyByLine(c scenario.Command) error {
	st, rest, err := s.named(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	words := a.Positional()
	if err := a.Done(); err != nil {
		return err
	}
	if len(words) != 1 || words[0].Value != "key" && words[0].Value != "none" {
		at := c.Args[0].ValuePos // the stream's name, when nothing follows it
		switch {
		case len(words) == 0:
		case words[0].Value != "key" && words[0].Value != "none":
			at = words[0].Pos
		default:
			at = words[1].Pos // one word too many
		}
		return scenario.Errorf(at, "expected `key-by %s key` or `key-by %s none`", st.name, st.name)
	}
	if err := beforeReaders(c, st); err != nil {
		return err
	}
	if err := once(c, st, st.keyLine); err != nil {
		return err
	}
	st.keyed, st.keyLine = words[0].Value == "key", c.Pos
	return nil
}

// windowLine reads `window NAME from=STREAM tumbling|sliding|session ...`.
func (s *world) windowLine(c scenario.Command) error {
	n, rest, err := s.w.Declared(c, "window", "a window")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from, _ := a.Required("from", "STREAM")
	var cfg window.Config
	kinds := a.Positional()
	cfg.Assigner.Size = a.Duration("size", 0)
	cfg.Assigner.Slide = a.Duration("slide", 0)
	cfg.Assigner.Offset = a.Duration("offset", 0)
	cfg.Assigner.Gap = a.Duration("gap", 0)
	cfg.Domain = scenario.Choice(a, "time", window.EventTime, window.ParseDomain, "event or processing")
	agg := scenario.Choice(a, "agg", window.Count, window.ParseAgg, "count, sum, min or max")
	cfg.Lateness = a.Duration("lateness", 0)
	cfg.SideOutput = scenario.Choice(a, "late", false, lateChoice, "drop or side-output")
	cfg.Contents = scenario.Choice(a, "contents", true, scenario.OnOff, "on or off")
	to, hasTo := a.Find("to")
	side, hasSide := a.Find("side")
	opts := readOpOptions(a, false)
	if err := a.Done(); err != nil {
		return err
	}
	if err := s.needCheckpoints(c, opts); err != nil {
		return err
	}
	kind, err := windowKind(c, n.Value, kinds)
	if err != nil {
		return err
	}
	cfg.Assigner.Kind = kind
	if err := cfg.Validate(); err != nil {
		// At the window's kind when the argument at fault is not given
		// (tumbling with no size=).
		return scenario.Errorf(settingAt(c, err, kinds[0].Pos), "%s", err.Error())
	}
	st, err := s.streamArg(from)
	if err != nil {
		return err
	}
	op := &windowOp{name: n.Value, idx: len(s.windows), st: st, cfg: cfg, agg: agg, results: map[resultKey]int32{}}
	if op.op, err = window.New(cfg); err != nil {
		return scenario.Errorf(settingAt(c, err, c.Pos), "%s", err.Error())
	}
	if hasTo {
		if op.target, err = s.w.TargetArg(to); err != nil {
			return err
		}
	}
	if hasSide && side.Value != noSide {
		// Used with late=side-output only; a knob may switch between the two.
		if err := sideNeedsLate(c, side, cfg.SideOutput); err != nil {
			return err
		}
		if op.side, err = s.w.TargetArg(side); err != nil {
			return err
		}
		if op.side == op.target {
			return sideIsTo(side)
		}
	}
	op.hist = &WindowHistory{Name: n.Value, Stream: st.name, Config: cfg, Agg: agg}
	if op.target != nil {
		op.hist.Target = op.target.Name
	}
	if op.side != nil {
		op.hist.Side = op.side.Name
	}
	s.t.Windows = append(s.t.Windows, op.hist)
	s.windows = append(s.windows, op)
	s.register(op, n.Value, "window", st, op.target, opts)
	st.consumers = append(st.consumers, consumer{win: op})
	return nil
}

// windowSettings is what a kind of window is shaped by, as Flink's
// assigners take them: TumblingEventTimeWindows.of(size, offset),
// SlidingEventTimeWindows.of(size, slide, offset), and
// EventTimeSessionWindows.withGap(gap).
func windowSettings(k window.Kind) []string {
	switch k {
	case window.Tumbling:
		return []string{"size", "offset"}
	case window.Sliding:
		return []string{"size", "slide", "offset"}
	}
	return []string{"gap"}
}

// windowKind reads a window line's one bare word, its kind, and refuses
// a setting that does not shape that kind (slide= on a tumbling window),
// which would otherwise be ignored, and late= or side= on a
// processing-time window, which has no late records.
func windowKind(c scenario.Command, name string, words []scenario.Arg) (window.Kind, error) {
	var kind window.Kind
	found := -1
	for i, w := range words {
		k, ok := window.ParseKind(w.Value)
		switch {
		case ok && found < 0:
			kind, found = k, i
		case ok:
			return 0, scenario.Errorf(w.Pos, "a window has one kind; window %s is already %s", name, words[found].Value)
		}
	}
	if found < 0 {
		if len(words) == 0 {
			return 0, scenario.Errorf(c.Pos, "expected one of tumbling, sliding or session after window %s", name)
		}
		return 0, scenario.Errorf(words[0].Pos, "expected tumbling, sliding or session, found %q", words[0].Value)
	}
	for i, w := range words {
		if i == found {
			continue
		}
		if _, ok := window.ParseAgg(w.Value); ok {
			return 0, scenario.Errorf(w.Pos, "unexpected word %q in window; an aggregate is chosen by agg=%s", w.Value, w.Value)
		}
		return 0, scenario.Errorf(w.Pos, "unexpected word %q in window", w.Value)
	}
	takes := windowSettings(kind)
	for _, x := range c.Args {
		switch x.Key {
		case "size", "slide", "offset", "gap":
			if !slices.Contains(takes, x.Key) {
				return 0, scenario.Errorf(x.Pos, "a %s window takes %s, not %s=", words[found].Value, settingList(takes), x.Key)
			}
		}
	}
	processing := false
	for _, x := range c.Args {
		if x.Key == "time" {
			d, ok := window.ParseDomain(x.Value)
			processing = ok && d == window.ProcessingTime
		}
	}
	for _, x := range c.Args {
		if processing && (x.Key == "late" || x.Key == "side") {
			return 0, scenario.Errorf(x.Pos, "%s= is for late records, and a processing-time window has none; drop it or use time=event", x.Key)
		}
	}
	return kind, nil
}

// settingList is "size= and offset=" or "size=, slide= and offset=".
func settingList(keys []string) string {
	out := ""
	for i, k := range keys {
		switch {
		case i == 0:
		case i == len(keys)-1:
			out += " and "
		default:
			out += ", "
		}
		out += k + "="
	}
	return out
}

// noSide is what side= says for no target, as its default does: nothing
// reads the late records sent to the side output. A knob can choose it
// against a target, to show what a side output nobody reads loses.
const noSide = "none"

// sideNeedsLate refuses a side= target on a line whose late records are
// dropped (late=drop, or no late=): nothing would ever reach it, and the
// records it was meant to keep would be counted as dropped instead. A
// late= a knob sets may be drop for one value and side-output for
// another, so one line serves both.
func sideNeedsLate(c scenario.Command, side scenario.Arg, sideOutput bool) error {
	if sideOutput || scenario.KnobSets(c, "late") {
		return nil
	}
	return scenario.Errorf(side.ValuePos, "side= receives the late records sent to the side output, and this line drops them; add late=side-output, or leave side= out")
}

// sideIsTo is the error for a side= that names the target of to=: late
// records among the results would read as results.
func sideIsTo(side scenario.Arg) error {
	return scenario.Errorf(side.ValuePos, "side=%s is also to=; late records go to a table of their own, apart from the results", side.Value)
}

func lateChoice(v string) (bool, bool) {
	switch v {
	case "drop":
		return false, true
	case "side-output":
		return true, true
	}
	return false, false
}

// joinLine reads `join NAME left=STREAM right=STREAM between=LOWER..UPPER
// [exclusive=none|lower|upper|both] [late=drop|side-output] [to=TARGET]`.
func (s *world) joinLine(c scenario.Command) error {
	n, rest, err := s.w.Declared(c, "join", "a join")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	left, _ := a.Required("left", "STREAM")
	right, _ := a.Required("right", "STREAM")
	between, _ := a.Required("between", "LOWER..UPPER")
	excl := scenario.Choice(a, "exclusive", "none", scenario.OneOf("none", "lower", "upper", "both"), "none, lower, upper or both")
	var cfg join.Config
	cfg.SideOutput = scenario.Choice(a, "late", false, lateChoice, "drop or side-output")
	to, hasTo := a.Find("to")
	side, hasSide := a.Find("side")
	opts := readOpOptions(a, true)
	if err := a.Done(); err != nil {
		return err
	}
	if err := s.needCheckpoints(c, opts); err != nil {
		return err
	}
	l, r, cut := strings.Cut(between.Value, "..")
	lo, err1 := vtime.ParseDuration(l)
	hi, err2 := vtime.ParseDuration(r)
	if !cut || err1 != nil || err2 != nil {
		return scenario.Errorf(between.ValuePos, "expected between=LOWER..UPPER with two durations such as 0s..5m or -10s..10s, found %q", between.Value)
	}
	cfg.Lower, cfg.Upper = lo, hi
	cfg.LowerExclusive = excl == "lower" || excl == "both"
	cfg.UpperExclusive = excl == "upper" || excl == "both"
	jo, err := join.New(cfg)
	if err != nil {
		// between='s value begins with the lower bound the error names first.
		return scenario.Errorf(settingAt(c, err, c.Pos), "%s", err.Error())
	}
	if cfg.Empty() {
		// Flink runs such a join and pairs nothing: a scenario's mistake.
		return scenario.Errorf(scenario.ValueAt(c, "exclusive"), "a join between=%s with exclusive=%s holds no instant, so it could never pair two records; include a bound or widen the interval", between.Value, excl)
	}
	ls, err := s.streamArg(left)
	if err != nil {
		return err
	}
	rs, err := s.streamArg(right)
	if err != nil {
		return err
	}
	if ls == rs {
		return scenario.Errorf(right.ValuePos, "a join reads two streams; left= and right= both name %s", ls.name)
	}
	if ls.keyed != rs.keyed {
		return scenario.Errorf(right.ValuePos, "a join needs both streams keyed the same way; %s is keyed by %s and %s by %s", ls.name, keyedBy(ls), rs.name, keyedBy(rs))
	}
	// A join pairs equal keys, so its two streams number keys alike.
	shareKeys(ls, rs)
	op := &joinOp{name: n.Value, idx: len(s.joins), sides: [2]*stream{ls, rs}, cfg: cfg, op: jo, comb: watermark.NewCombiner(2)}
	if hasTo {
		if op.target, err = s.w.TargetArg(to); err != nil {
			return err
		}
	}
	if hasSide && side.Value != noSide {
		// Used with late=side-output only, as a window's; a knob may switch.
		if err := sideNeedsLate(c, side, cfg.SideOutput); err != nil {
			return err
		}
		if op.side, err = s.w.TargetArg(side); err != nil {
			return err
		}
		if op.side == op.target {
			return sideIsTo(side)
		}
	}
	op.hist = &JoinHistory{Name: n.Value, Left: ls.name, Right: rs.name, Config: cfg}
	if op.target != nil {
		op.hist.Target = op.target.Name
	}
	if op.side != nil {
		op.hist.Side = op.side.Name
	}
	s.t.Joins = append(s.t.Joins, op.hist)
	s.joins = append(s.joins, op)
	s.register(op, n.Value, "join", ls, op.target, opts)
	ls.consumers = append(ls.consumers, consumer{join: op, side: join.Left})
	rs.consumers = append(rs.consumers, consumer{join: op, side: join.Right})
	return nil
}

func keyedBy(st *stream) string {
	if st.keyed {
		return "its key"
	}
	return "none"
}

// slowLine reads `stall STREAM partition=P at=T until=T` and
// `delay STREAM partition=P from=T until=T by=D`.
func (s *world) slowLine(c scenario.Command) error {
	st, rest, err := s.named(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	px, _ := a.Required("partition", "P")
	p := a.Int("partition", 0, 0, 1023)
	sl := slow{part: p, stall: c.Name == "stall"}
	if sl.stall {
		sl.from = a.RequiredTime("at")
	} else {
		sl.from = a.RequiredTime("from")
		sl.by = a.Duration("by", 0)
		if _, ok := a.Find("by"); !ok {
			a.Fail(c.Pos, "delay needs by=D, how much later the records are read")
		}
	}
	sl.until = a.RequiredTime("until")
	if err := a.Done(); err != nil {
		return err
	}
	if p >= len(st.topic.h.Parts) {
		return scenario.Errorf(px.ValuePos, "stream %s reads %s, whose partitions are 0 to %d; found partition %d", st.name, st.topic.h.Name, len(st.topic.h.Parts)-1, p)
	}
	if sl.until <= sl.from {
		after := "from="
		if sl.stall {
			after = "at="
		}
		return scenario.Errorf(scenario.ValueAt(c, "until"), "%s needs until= after %s", c.Name, after)
	}
	if !sl.stall && sl.by <= 0 {
		return scenario.Errorf(scenario.ValueAt(c, "by"), "expected by= to be positive")
	}
	if err := a.Within("by", "the delayed reads would come at", sl.from.Add(sl.by)); err != nil {
		return err
	}
	st.slows = append(st.slows, sl)
	s.w.Schedule(sl.from, func() { st.noteSlow(sl) })
	return nil
}

// topicOf returns the state of topic h as the streams see it, hooking its appends once.
func (s *world) topicOf(h *logs.TopicHistory) *topicState {
	for _, ts := range s.topics {
		if ts.h == h {
			return ts
		}
	}
	ts := &topicState{s: s, h: h, idx: s.log.Index(h)}
	h.OnAppend(ts.appended)
	s.topics = append(s.topics, ts)
	return ts
}

// Of returns the stream world's part of t, or nil when t's scenario
// declares no stream (or was built without the stream world).
func Of(t *engine.Trace) *Trace {
	for _, h := range t.Histories() {
		if st, ok := h.(*Trace); ok {
			return st
		}
	}
	return nil
}

// resultsTable names the job's results to the truth as a table of their
// own (World.TableID); the leading space keeps it from any scenario's name.
const resultsTable = " the stream job's results"

// resultRow is a key of a target the job writes results into: id, the
// key's id in the target (World.KeyID), and row, the truth's row of the
// job's results for it (World.RowID). row is id when the job is the first
// to name the key, and a row of its own otherwise, as a second source
// table's is: a producer's events with the same key (a count per region
// of the region's sales) are another row, whose versions number the
// producer's records and not the job's.
type resultRow struct{ id, row int32 }

// targetKey returns key's resultRow in target.
func (s *world) targetKey(target *sink.Table, key string) resultRow {
	id := s.w.KeyID(target, key)
	return resultRow{id: id, row: s.w.RowID(id, s.w.TableID(resultsTable))}
}

// resultIn starts the row the job writes for r: In.Src names the truth's
// row when it is not the key's own.
func (s *world) resultIn(r resultRow) sink.In {
	in := sink.In{ID: r.id, Key: s.w.KeyText(r.id)}
	if r.row != r.id {
		in.Src = r.row + 1
	}
	return in
}

// settingAt is where an error about a configuration points on line c: at
// the value of the argument it names (window, watermark and join errors
// name theirs with a Setting method), or at fallback when it names none or
// the line does not write that argument.
func settingAt(c scenario.Command, err error, fallback scenario.Pos) scenario.Pos {
	if e, ok := err.(interface{ Setting() string }); ok && e.Setting() != "" {
		if at := scenario.ValueAt(c, e.Setting()); at != c.Pos {
			return at
		}
	}
	return fallback
}
