package engine

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// builder reads the core's own lines of a scenario.
type builder struct {
	w       *World
	enabled map[string]bool // the checks check lines name
}

// Build turns a parsed scenario and knob values into a world ready to run,
// composed of the worlds domains (engine/worlds.All lists every world),
// within DefaultBudget. set may omit knobs (their defaults apply); an
// unknown knob or value is an error, as is a line no world composed reads.
func Build(f *scenario.File, set map[string]string, seed uint64, domains []Domain) (*World, error) {
	return BuildWithBudget(f, set, seed, domains, DefaultBudget)
}

// BuildWithBudget is Build with a work budget of limit units: every event
// scheduled, row, key and run counts one (see budget). It stops at the
// first line that would pass the limit with a *BudgetError naming that
// line; the world it returns stops when running would pass it (see
// World.Err). A limit of zero or less means DefaultBudget.
func BuildWithBudget(f *scenario.File, set map[string]string, seed uint64, domains []Domain, limit int) (*World, error) {
	if limit <= 0 {
		limit = DefaultBudget
	}
	settings, err := f.Resolve(set)
	if err != nil {
		return nil, err
	}
	w := &World{
		rng:     rand.New(rand.NewPCG(seed, seed^0x7469_6465_6d61_726b)),
		line:    -1,
		targets: map[string]*sink.Table{},
		written: map[string]bool{},
		keyIDs:  map[string]int32{},
		actors:  map[string]int32{},
		names:   map[string]scenario.Pos{},
		kinds:   map[string]string{},
		owner:   map[string]int{},
		faults:  map[FaultKind]int{},
		domains: domains,
		trace: &Trace{File: f, Settings: settings, Seed: seed,
			noun: map[string]string{}, checks: check.DefaultConfig()},
	}
	commands := slices.Clone(CoreCommands)
	for i, d := range domains {
		for _, c := range d.Commands() {
			if _, taken := w.owner[c]; taken || slices.Contains(CoreCommands, c) {
				return nil, prose.Errorf("engine: two worlds, or a world and the core, both read the command %q", c)
			}
			w.owner[c] = i
			commands = append(commands, c)
		}
		for _, k := range d.Faults() {
			if _, taken := w.faults[k]; taken || k == FaultClockJump {
				return nil, prose.Errorf("engine: two worlds, or a world and the core, both inject the fault %q", string(k))
			}
			w.faults[k] = i
		}
	}
	w.clocks = map[string]*Clock{"source": {Name: "source", w: w, line: -1}, "reader": {Name: "reader", w: w, line: -1}}
	w.budget = budget{limit: limit, building: true}
	for _, d := range domains {
		w.parts = append(w.parts, d.Open(w))
	}
	b := &builder{w: w, enabled: map[string]bool{}}
	for _, c := range f.Bind(settings) {
		w.line = int32(len(w.lines))
		w.lines = append(w.lines, c.Pos)
		var err error
		switch c.Name {
		case "clock":
			err = b.clock(c)
		case "target":
			err = b.target(c)
		case "check":
			err = b.check(c, b.enabled)
		case "expect":
			// Expectations are read by Expectations, not by the world.
		case "jump":
			err = b.jump(c)
		case "note":
			err = b.note(c)
		default:
			if i, ok := w.owner[c.Name]; ok {
				err = w.parts[i].Command(c)
				break
			}
			if hint := scenario.DidYouMean(c.Name, commands); hint != "" {
				err = errorf(c.Pos, "unknown command %q%s", c.Name, hint)
				break
			}
			err = errorf(c.Pos, "unknown command %q; expected one of %s", c.Name, strings.Join(commands, ", "))
		}
		if err == nil {
			err = w.refused // a time of the line left the day (see pastDay)
		}
		if err != nil {
			return nil, err
		}
		if w.budget.over {
			return nil, w.budgetError(c.Pos)
		}
	}
	w.budget.building, w.line = false, -1
	if len(b.enabled) > 0 {
		w.trace.checks.Enabled = b.enabled
	}
	runs := false
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
	for _, h := range w.trace.Targets {
		if !w.written[h.Name] {
			w.trace.unwritten = append(w.trace.unwritten, h.Name)
		}
	}
	return w, nil
}

// name reads the command's first bare word as the name of a thing.
func (b *builder) name(c scenario.Command, what string) (scenario.Arg, []scenario.Arg, error) {
	return scenario.Name(c, what)
}

// declared reads the command's first word as the name of a new thing.
func (b *builder) declared(c scenario.Command, kind, what string) (scenario.Arg, []scenario.Arg, error) {
	return b.w.Declared(c, kind, what)
}

func (b *builder) clock(c scenario.Command) error {
	n, rest, err := b.name(c, "a clock")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	skew := a.DurationIn("skew", 0, -maxSkew, maxSkew, withinSkew)
	res := a.DurationIn("resolution", vtime.Millisecond, vtime.Millisecond, vtime.Hour, "between 1ms and 1h")
	if err := a.Done(); err != nil {
		return err
	}
	if n.Value != "source" && n.Value != "reader" {
		if err := b.w.Declare("clock", n); err != nil {
			return err
		}
	}
	b.w.clocks[n.Value] = &Clock{Name: n.Value, Skew: skew, Resolution: res, w: b.w, line: b.w.line}
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

func (b *builder) check(c scenario.Command, enabled map[string]bool) error {
	n, rest, err := b.name(c, "a check")
	if err != nil {
		return err
	}
	names := check.Family(n.Value)
	if now, ok := check.Renamed[n.Value]; ok {
		return errorf(n.Pos, "check %q is now called %s", n.Value, now)
	}
	if names == nil {
		if hint := scenario.DidYouMean(n.Value, append([]string{"reconciliation"}, check.Names...)); hint != "" {
			return errorf(n.Pos, "unknown check %q%s", n.Value, hint)
		}
		return errorf(n.Pos, "unknown check %q; expected one of reconciliation, %s", n.Value, strings.Join(check.Names, ", "))
	}
	for _, x := range names {
		if enabled[x] {
			// A second line's settings would quietly replace the first's.
			return errorf(n.Pos, "check %s is already on; give its settings on one check line", x)
		}
		enabled[x] = true
	}
	a := scenario.NewArgs(c, rest)
	// closed=, stall= and jump= set one check each: on another line they
	// would be ignored.
	for _, s := range [...]struct{ arg, check string }{{"closed", "reconciliation-closed-interval"}, {"stall", "rate-of-change"}, {"jump", "rate-of-change"}} {
		if x, ok := a.Find(s.arg); ok && !slices.Contains(names, s.check) {
			return errorf(x.Pos, "%s= is a setting of %s; put it on that check's line", s.arg, s.check)
		}
	}
	cfg := &b.w.trace.checks
	if from, to, ok := a.TimeRange("closed"); ok {
		cfg.ClosedFrom, cfg.ClosedTo, cfg.HasClosed = from, to, true
	}
	cfg.StallRuns = a.Int("stall", cfg.StallRuns, 2, 1000)
	// max= is the threshold of the one check the line names, in its unit: a
	// count of records for most, a duration for two.
	var count *int
	var span *vtime.Duration
	switch names[0] {
	case "consumer-lag":
		count = &cfg.MaxLag
	case "late-records":
		count = &cfg.MaxLate
	case "join-recount":
		count = &cfg.MaxUnjoined
	case "partition-lag":
		count = &cfg.MaxPartitionLag
	case "average-lag":
		count = &cfg.MaxAverageLag
	case "dropped-records":
		count = &cfg.MaxDropped
	case "checkpoint-duration":
		span = &cfg.CheckpointDuration
	case "watermark-lag":
		span = &cfg.WatermarkLag
	}
	x, hasMax := a.Find("max")
	switch {
	case count != nil:
		*count = a.Int("max", *count, 0, 1<<30)
	case span != nil && hasMax:
		d, err := vtime.ParseDuration(x.Value)
		if err != nil || d <= 0 {
			return errorf(x.ValuePos, "expected max= to be a positive duration such as 30s for %s, found %q", names[0], x.Value)
		}
		*span = d
	case span == nil && hasMax:
		return errorf(x.Pos, "max= is the threshold of consumer-lag, late-records, watermark-lag, join-recount, partition-lag, average-lag, dropped-records and checkpoint-duration; put it on a `check` line of one of them")
	}
	if x, ok := a.Find("jump"); ok {
		d, ok := vtime.ParseDecimal(strings.TrimSuffix(x.Value, "x"))
		if !ok || d.Whole < 1 || d.Whole == 1 && d.Frac == 0 {
			return errorf(x.ValuePos, "expected jump= to be a factor above 1 such as 5x, found %q", x.Value)
		}
		cfg.JumpFactor = d.Float()
	}
	return a.Done()
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
	by := a.DurationIn("by", 0, -maxSkew, maxSkew, withinSkew)
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

// maxSkew bounds a clock's skew= and a jump's by=: a clock further off
// would read a time of another day at any moment, and a scenario's times
// stay within one day. A clock within it can still read outside the day
// (12h behind at 10:00, or two jumps of 12h); that reading stops the run,
// at the line that last set the skew (see Clock.Read).
const (
	maxSkew    = 12 * vtime.Hour
	withinSkew = "within 12h either way"
)

func errorf(pos scenario.Pos, format string, v ...any) error {
	return scenario.Errorf(pos, format, v...)
}

// jump steps a clock by a time-sync correction's amount, as a jump line or
// an injected clock jump does.
func (w *World) jump(clock string, by vtime.Duration) {
	c := w.clocks[clock]
	c.Skew += by
	c.line = w.line
	dir := "forward"
	if by < 0 {
		dir = "back"
	}
	abs := by
	if abs < 0 {
		abs = -abs
	}
	w.emit("clock "+clock, KindClockJump, -1, "The %s clock is stepped %s by %s at %s, as a time-sync correction would; it now reads %s.", clock, dir, abs, w.now, c.Read(w.now))
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
			n, ok := whole.Int(a.Value)
			if !ok || n < 0 {
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
	i, found := sorted.Search(len(t.Notes), func(k int) int {
		x := t.Notes[k]
		return x.Step - step
	})
	if found {
		return errorf(c.Pos, "step %d already has a note at %s; write one note per step", step, t.Notes[i].Pos)
	}
	t.Notes = append(t.Notes, Note{})
	copy(t.Notes[i+1:], t.Notes[i:])
	t.Notes[i] = Note{Step: step, Text: text, Pos: c.Pos}
	return nil
}
