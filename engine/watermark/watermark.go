// Package watermark is a stream source's sense of event-time progress,
// modelled on Flink: a watermark W is the source's claim that no record
// with an event time at or before W is still to come.
//
// What it models faithfully:
//   - Generation is Flink's BoundedOutOfOrdernessWatermarks: the watermark
//     is the largest event time seen minus the out-of-orderness bound minus
//     one millisecond, and before any record it is None (Long.MIN_VALUE).
//   - Emission is periodic (each Tick, which the caller schedules every
//     Interval of processing time, Flink's pipeline.auto-watermark-interval)
//     or after every record (a punctuated generator with the same formula).
//   - Per-partition generation combines the partitions as Flink's source
//     does (WatermarkOutputMultiplexer and CombinedWatermarkStatus): the
//     source's watermark is the minimum over partitions that are not idle,
//     it only ever moves forward, and when every partition is idle the
//     source is idle. A partition that has never produced holds the minimum
//     at None until it produces or is marked idle.
//   - Idleness is Flink's WatermarksWithIdleness: it is judged only at a
//     Tick. The first Tick that finds no record since the one before starts
//     a countdown; the partition is marked idle at the first Tick at which
//     strictly more than Idleness has passed since the countdown started. A
//     record does not clear the mark by itself: the partition's next
//     watermark emission does (the next Tick, or at once when emitting per
//     record), and until then the others still drive the minimum.
//   - Per-source generation, where one generator sees the records of every
//     partition, so the fastest partition drives the watermark and the
//     slower partitions' records fall behind it.
//
// What it simplifies: time is whole milliseconds; a Tick emits for every
// partition at the same instant; the idleness clock is processing time
// itself (Flink's may pause while the source is blocked by backpressure).
// Update.Idle turns false as soon as a generator is active again, where
// Flink's source announces itself active downstream only when its
// watermark next moves forward, so until then a two-input operator after
// it goes on leaving it out.
package watermark

import (
	"errors"
	"math"
	"strconv"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/vtime"
)

// None is the watermark before any has been emitted, Flink's Long.MIN_VALUE:
// it claims nothing, so no record is behind it.
const None = vtime.Time(math.MinInt64)

// End is the watermark a finished input emits, Flink's MAX_WATERMARK: every
// window fires and every buffer is released.
const End = vtime.Time(math.MaxInt64)

// Generator is Flink's BoundedOutOfOrdernessWatermarks: it remembers the
// largest event time seen and offers that minus the bound minus 1 ms.
//
// Invariant: Current() == max - bound - 1; max never decreases, and it
// starts at None + bound + 1 so that Current starts at None.
type Generator struct {
	bound vtime.Duration
	max   vtime.Time
}

// NewGenerator returns a generator for an out-of-orderness bound of at least zero.
func NewGenerator(bound vtime.Duration) Generator {
	return Generator{bound: bound, max: None + vtime.Time(bound) + 1}
}

// OnEvent notes a record's event time.
func (g *Generator) OnEvent(t vtime.Time) { g.max = max(g.max, t) }

// Current is the watermark the generator would emit now.
func (g *Generator) Current() vtime.Time { return g.max - vtime.Time(g.bound) - 1 }

// Emission says when a generator's watermark is handed on.
type Emission uint8

// Emissions.
const (
	Periodic  Emission = iota // at each Tick (Flink's default)
	PerRecord                 // after every record, as a punctuated generator would
)

// ParseEmission reads periodic or per-record.
func ParseEmission(s string) (Emission, bool) {
	switch s {
	case "periodic":
		return Periodic, true
	case "per-record":
		return PerRecord, true
	}
	return 0, false
}

func (e Emission) String() string { return [...]string{"periodic", "per-record"}[e] }

// Scope says what one generator watches.
type Scope uint8

// Scopes.
const (
	PerPartition Scope = iota // one generator per partition, combined by the minimum (Flink's Kafka source)
	PerSource                 // one generator per reader over its partitions' records: the fastest partition it reads drives it
)

// ParseScope reads per-partition or per-source.
func ParseScope(s string) (Scope, bool) {
	switch s {
	case "per-partition":
		return PerPartition, true
	case "per-source":
		return PerSource, true
	}
	return 0, false
}

func (s Scope) String() string { return [...]string{"per-partition", "per-source"}[s] }

// Config is a watermark strategy.
type Config struct {
	_        nocmp.NoCompare
	Bound    vtime.Duration // the maximum out-of-orderness assumed; at least zero
	Emission Emission
	Interval vtime.Duration // how often the caller Ticks, in processing time; positive
	Idleness vtime.Duration // a generator with no records for this long is idle; 0 never
	Scope    Scope
	// Readers is, under PerSource, how many subtasks read the source:
	// partition p is read by reader p mod Readers, and each reader has a
	// generator of its own, as a strategy applied after a Flink source
	// runs once per subtask. 0 is one reader.
	Readers int
}

// A ConfigError is what Validate finds wrong with a Config. Field names
// the setting at fault as a scenario's watermark line names its argument
// (bound, interval, idleness, emit, scope), so that the error can point at
// its value.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string { return e.Msg }

// Setting is the name of the argument at fault, as a scenario line writes it.
func (e *ConfigError) Setting() string { return e.Field }

// Validate says what is wrong with c, naming the setting, as a
// *ConfigError.
func (c Config) Validate() error {
	switch {
	case c.Bound < 0:
		return &ConfigError{"bound", "the out-of-orderness bound cannot be negative, got " + c.Bound.String()}
	case c.Interval <= 0:
		return &ConfigError{"interval", "the watermark interval must be positive, got " + c.Interval.String()}
	case c.Idleness < 0:
		return &ConfigError{"idleness", "idleness cannot be negative, got " + c.Idleness.String()}
	case c.Emission > PerRecord:
		return &ConfigError{"emit", "unknown watermark emission " + strconv.Itoa(int(c.Emission))}
	case c.Scope > PerSource:
		return &ConfigError{"scope", "unknown watermark scope " + strconv.Itoa(int(c.Scope))}
	case c.Readers < 0:
		return &ConfigError{"scope", "the number of readers cannot be negative, got " + strconv.Itoa(c.Readers)}
	}
	return nil
}

// idleTimer is Flink's WatermarksWithIdleness.IdlenessTimer: a counter of
// records, and the Tick that first found it unchanged.
//
// Invariant: started is false whenever the last check saw activity.
type idleTimer struct {
	_             nocmp.NoCompare
	counter, last uint64
	since         vtime.Time
	started       bool
}

// check reports whether the generator has been idle for more than timeout at now.
func (t *idleTimer) check(now vtime.Time, timeout vtime.Duration) bool {
	if t.counter != t.last {
		t.last = t.counter
		t.started = false
		return false
	}
	if !t.started {
		t.started = true
		t.since = now
		return false
	}
	return now.Sub(t.since) > timeout
}

// gen is one generator with its idleness detection.
type gen struct {
	_       nocmp.NoCompare
	g       Generator
	timer   idleTimer
	idleNow bool // it has marked its output idle and produced nothing since
}

// seen is what a source knows of one input partition's records.
type seen struct {
	max     vtime.Time
	records int64
}

// Partition is one input partition as the source sees it.
type Partition struct {
	MaxSeen   vtime.Time // the largest event time read from it; None before its first record
	Records   int64      // how many records were read from it
	Watermark vtime.Time // the watermark of its generator (the shared one under PerSource), as last emitted
	Idle      bool       // its generator is marked idle and left out of the minimum
}

// Update is where a call left the source's watermark.
type Update struct {
	Watermark vtime.Time // the source's watermark after the call
	Advanced  bool       // it moved forward during the call: pass it downstream
	Idle      bool       // every generator is idle: downstream should leave this source out of its own minimum
}

// Source is the watermark side of one source operator reading a set of
// partitions.
//
// Invariants: len(gens) == len(parts) under PerPartition and
// min(len(parts), readers) under PerSource; comb has one input per
// generator; the source's watermark never decreases.
type Source struct {
	cfg   Config
	parts []seen
	gens  []gen
	comb  Combiner
}

// New returns the source's watermark state for n partitions.
func New(cfg Config, n int) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, errors.New("a source needs at least one partition, got " + strconv.Itoa(n))
	}
	s := &Source{cfg: cfg, comb: NewCombiner(0)}
	s.Grow(n)
	return s, nil
}

// Config is the strategy s was made with.
func (s *Source) Config() Config { return s.cfg }

// Grow records that the source now reads n partitions (never fewer). Under
// PerPartition each new partition gets its own generator, and under
// PerSource a reader that had no partition gets one with its first; a new
// generator starts at None and so holds the minimum back until it produces
// or turns idle, as a newly discovered Kafka partition does in Flink.
func (s *Source) Grow(n int) {
	for len(s.parts) < n {
		p := len(s.parts)
		s.parts = append(s.parts, seen{max: None})
		if s.gen(p) == len(s.gens) {
			s.gens = append(s.gens, gen{g: NewGenerator(s.cfg.Bound)})
			s.comb.add()
		}
	}
}

// Partitions is how many partitions the source reads.
func (s *Source) Partitions() int { return len(s.parts) }

// gen is the index of the generator that watches partition p.
func (s *Source) gen(p int) int {
	if s.cfg.Scope == PerSource {
		return p % max(1, s.cfg.Readers)
	}
	return p
}

// Record notes a record with event time t read from partition p. The
// record itself goes downstream before any watermark this call emits.
func (s *Source) Record(p int, t vtime.Time) Update {
	s.parts[p].max = max(s.parts[p].max, t)
	s.parts[p].records++
	i := s.gen(p)
	g := &s.gens[i]
	g.g.OnEvent(t)
	g.timer.counter++
	g.idleNow = false
	before := s.comb.Watermark()
	if s.cfg.Emission == PerRecord {
		s.comb.Emit(i, g.g.Current())
	}
	return s.update(before)
}

// Tick is the periodic emission at processing time now: each generator is
// checked for idleness and, when emitting periodically and not idle, hands
// on its watermark; then the minimum is taken once.
func (s *Source) Tick(now vtime.Time) Update {
	before := s.comb.Watermark()
	for i := range s.gens {
		g := &s.gens[i]
		if s.cfg.Idleness > 0 && g.timer.check(now, s.cfg.Idleness) {
			if !g.idleNow {
				s.comb.setIdle(i)
				g.idleNow = true
			}
			continue
		}
		if s.cfg.Emission == Periodic {
			s.comb.set(i, g.g.Current())
		}
	}
	s.comb.update()
	return s.update(before)
}

func (s *Source) update(before vtime.Time) Update {
	w := s.comb.Watermark()
	return Update{Watermark: w, Advanced: w > before, Idle: s.comb.Idle()}
}

// Watermark is the source's watermark.
func (s *Source) Watermark() vtime.Time { return s.comb.Watermark() }

// Idle reports whether every generator is marked idle.
func (s *Source) Idle() bool { return s.comb.Idle() }

// Partition describes partition p.
func (s *Source) Partition(p int) Partition {
	w, idle := s.comb.Input(s.gen(p))
	return Partition{MaxSeen: s.parts[p].max, Records: s.parts[p].records, Watermark: w, Idle: idle}
}

// NextTick is the earliest processing time, at or after next (the next
// tick the caller would make), at which a Tick can change anything if no
// record arrives before it, and false when none can: every generator is
// idle, or none has anything to hand on and idleness is off. A caller may
// skip the ticks before it, which would find nothing to do; a record read
// meanwhile makes the next tick count again.
func (s *Source) NextTick(next vtime.Time) (vtime.Time, bool) {
	at, ok := vtime.Time(0), false
	take := func(t vtime.Time) {
		if !ok || t < at {
			at, ok = t, true
		}
	}
	for i := range s.gens {
		g := &s.gens[i]
		if g.idleNow {
			continue // nothing changes until it reads again
		}
		w, idle := s.comb.Input(i)
		switch {
		case s.cfg.Emission == Periodic && (g.g.Current() > w || idle):
			take(next) // a watermark to hand on, or an idle mark to clear
		case s.cfg.Idleness == 0:
		case g.timer.counter != g.timer.last || !g.timer.started:
			take(next) // records since the last tick reset its countdown; or the next tick starts it
		default:
			take(max(next, g.timer.since.Add(s.cfg.Idleness+1))) // strictly more than the idleness after it started
		}
	}
	return at, ok
}
