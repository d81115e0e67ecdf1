package logs

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// This file is what the stream world needs of the log (see
// docs/architecture.md, "The stream world"): when each event happened and
// the value it carries, producers pinned to a partition, producers cut off
// for a while, bursts of events sent at once, and a hook on every append.

// FaultBurst makes a producer send a number of events at once whose event
// times are spread over a span before now, as a burst line would: a
// device emptying its buffer, a replay, a batch upload.
const FaultBurst engine.FaultKind = "burst"

// FaultProducerClock steps one producer's own clock forward or back by
// Fault.By, as the clock of the device it runs on drifting or being
// corrected would: the times its later events happened and its records'
// timestamps move with it, and no other producer's do, even one reading
// the same clock. A producer pinned to a partition is that partition's
// clock, which is how the widget offers it.
const FaultProducerClock engine.FaultKind = "producer-clock"

// maxProducerJump bounds how far one producer-clock fault steps a clock.
const maxProducerJump = 24 * vtime.Hour

// maxAmount bounds an amount= a scenario gives, so that a window's sum of a
// million of them stays far inside int64.
const maxAmount = 1_000_000_000

// ProducerInfo is a producer as its line declared it: the topic it sends
// to, the partition it is pinned to (-1: the partitioner places its
// records) and the clock its events' times are read from. A panel offers
// to jump the clock of a producer pinned to a partition as that
// partition's clock.
type ProducerInfo struct {
	_         nocmp.NoCompare
	Name      string
	Topic     string
	Partition int
	Clock     string
}

// offline is a span during which a producer is cut off: with keep, it
// makes its events all the same and sends them when it is back; without,
// it makes none.
type offline struct {
	_           nocmp.NoCompare
	from, until vtime.Time
	keep        bool
}

// Log is the log world's live state as a world built on it sees it: the
// topics and a hook on what is appended to them. LogOf returns it.
type Log struct{ l *world }

// LogOf returns the log of w, or nil when w is composed without the log world.
func LogOf(w *engine.World) *Log {
	for _, p := range w.Parts() {
		if l, ok := p.(*world); ok {
			return &Log{l: l}
		}
	}
	return nil
}

// TopicArg returns the topic x names, or an error at x showing the
// declaration it lacks.
func (g *Log) TopicArg(x scenario.Arg) (*TopicHistory, error) { return g.l.topicArg(x) }

// Hold counts, while building, one more thing that keeps state for each
// of h's partitions (a stream reading it), and charges the work budget a
// unit for each partition it will have. A topic's partitions cost nothing
// to write down, so without this a short file of topics of a thousand
// partitions, and of groups and streams reading them, took gigabytes
// before any record was sent (issue 9). Past MaxHeld partitions in all,
// it is an error at pos, the line's mention of the topic.
func (g *Log) Hold(h *TopicHistory, pos scenario.Pos) error { return g.l.hold(h, pos) }

// Feeders names what appends to topic h, under the names the truth knows
// their rows by: each source table captured or published into it, then
// each producer sending to it, by name. A world whose readers write a
// target routes them there (engine.World.Route), as a consumer group's
// target is routed.
func (g *Log) Feeders(h *TopicHistory) []string {
	var out []string
	for _, c := range g.l.captures {
		if c.topic == h {
			out = append(out, c.table)
		}
	}
	for _, n := range g.l.producerNames() {
		if g.l.producers[n].topic == h {
			out = append(out, n)
		}
	}
	return out
}

// Planned is how many records the scenario's traffic and burst lines will
// send to topic h: what a world reading it sizes its tables by.
func (g *Log) Planned(h *TopicHistory) int {
	n := 0
	for _, p := range g.l.producers {
		if p.topic == h {
			n += p.traffic
		}
	}
	return n
}

// Index is the position of h among the trace's topics.
func (g *Log) Index(h *TopicHistory) int { return int(g.l.topicIndex(h)) }

// OnAppend calls fn after each record is appended to the topic, with its
// partition and offset, before the event that appended it is emitted. A
// record the broker drops as an idempotent producer's duplicate is not appended.
func (h *TopicHistory) OnAppend(fn func(part int, off int64)) { h.appended = append(h.appended, fn) }

// Append adds r at the end of partition p, as topic.Topic.Append does, and
// tells whoever asked with OnAppend.
func (h *TopicHistory) Append(p int, r topic.Record, pid, seq int32, idempotent bool) (offset int64, dup bool) {
	offset, dup = h.Topic.Append(p, r, pid, seq, idempotent)
	if !dup {
		for _, fn := range h.appended {
			fn(p, offset)
		}
	}
	return offset, dup
}

// readEventTime reads produce's event=TIME or event-lag=D into s.
func readEventTime(a *scenario.Args, c scenario.Command, s *sendPlan) error {
	at, hasAt := a.Time("event")
	lag := a.Duration("event-lag", 0)
	if x, ok := a.Find("event-lag"); ok && hasAt {
		return scenario.Errorf(x.Pos, "give event= or event-lag=, not both: one says when the event happened, the other how long before it was sent")
	}
	if lag < 0 {
		x, _ := a.Find("event-lag")
		return scenario.Errorf(x.ValuePos, "expected event-lag= to be zero or positive: an event cannot be sent before it happens")
	}
	s.happened, s.hasTime, s.lag = at, hasAt, lag
	return nil
}

// span is an inclusive range of whole numbers drawn from uniformly.
type span struct{ lo, hi int64 }

func (s span) draw(r *rand.Rand) int64 {
	if s.hi <= s.lo {
		return s.lo
	}
	return s.lo + r.Int64N(s.hi-s.lo+1)
}

// durationRange reads key=MIN..MAX (or a single D) of two durations, zero
// or positive, MIN not above MAX, as a span of milliseconds.
func durationRange(a *scenario.Args, key, example string) (span, bool) {
	x, ok := a.Find(key)
	if !ok {
		return span{}, false
	}
	l, r, cut := strings.Cut(x.Value, "..")
	if !cut {
		r = l
	}
	lo, err1 := vtime.ParseDuration(l)
	hi, err2 := vtime.ParseDuration(r)
	if err1 != nil || err2 != nil || lo < 0 || hi < lo {
		a.Fail(x.ValuePos, "expected %s=MIN..MAX with two durations, zero or more, MIN not above MAX, such as %s; found %q", key, example, x.Value)
		return span{}, false
	}
	return span{int64(lo), int64(hi)}, true
}

// amountRange reads key=MIN..MAX (or a single N) of whole numbers.
func amountRange(a *scenario.Args, key string) (span, bool) {
	x, ok := a.Find(key)
	if !ok {
		return span{}, false
	}
	l, r, cut := strings.Cut(x.Value, "..")
	if !cut {
		r = l
	}
	lo, ok1 := whole.Int64(l)
	hi, ok2 := whole.Int64(r)
	if !ok1 || !ok2 || hi < lo || lo < -maxAmount || hi > maxAmount {
		a.Fail(x.ValuePos, "expected %s=MIN..MAX with two whole numbers from %d to %d, MIN not above MAX, such as 1..100; found %q", key, -maxAmount, maxAmount, x.Value)
		return span{}, false
	}
	return span{lo, hi}, true
}

// heldBack reports whether producer p is offline now, in which case it
// keeps the event s to send when it is back, or never makes it.
func (l *world) heldBack(p *producer, s sendPlan) bool {
	now := l.w.Now()
	for _, o := range p.offline {
		if now < o.from || now >= o.until {
			continue
		}
		l.w.Expect(-1, 0, 0) // this step emits nothing
		if o.keep {
			p.kept++
			l.w.Schedule(o.until, func() {
				p.kept--
				l.send(p, s)
			})
		}
		return true
	}
	return false
}

// offlineLine reads `offline PRODUCER at=T until=T [backlog=send|none]`.
func (l *world) offlineLine(c scenario.Command) error {
	p, rest, err := l.producerArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from := a.RequiredTime("at")
	until := a.RequiredTime("until")
	keep := scenario.Choice(a, "backlog", "send", scenario.OneOf("send", "none"), "send or none") == "send"
	if err := a.Done(); err != nil {
		return err
	}
	if until <= from {
		return scenario.Errorf(scenario.ValueAt(c, "until"), "offline needs until= after at=")
	}
	p.offline = append(p.offline, offline{from: from, until: until, keep: keep})
	l.w.Schedule(from, func() {
		what := "it keeps making its events and will send them, each with the time it happened, when it is back"
		if !keep {
			what = "it makes no events meanwhile, as a closed store sells nothing"
		}
		l.w.Emit(p.name, engine.KindPause, -1, "%s goes offline until %s: %s.", p.name, until, what)
	})
	l.w.Schedule(until, func() {
		if keep && p.kept > 0 {
			l.w.Emit(p.name, engine.KindPause, -1, "%s is back online and sends the %d %s it kept, in the order they happened.", p.name, p.kept, plural(p.kept, "event", "events"))
			return
		}
		l.w.Emit(p.name, engine.KindPause, -1, "%s is back online.", p.name)
	})
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// burstPlan is a burst: records events made at once, their event times
// from happened every every, keys drawn from 1..keys.
type burstPlan struct {
	_        nocmp.NoCompare
	records  int
	from     vtime.Time
	hasFrom  bool
	every    vtime.Duration
	keys     int
	amount   span
	hasValue bool
	key      string // every event carries this key, when set: a burst of one key
}

// burstLine reads `burst PRODUCER at=T records=N [event-from=T]
// [event-every=D] [keys=K] [amount=MIN..MAX]`.
func (l *world) burstLine(c scenario.Command) error {
	p, rest, err := l.producerArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	b := burstPlan{}
	b.records = a.Int("records", 0, 1, 10_000_000)
	b.from, b.hasFrom = a.Time("event-from")
	b.every = a.Duration("event-every", 0)
	b.keys = a.Int("keys", 0, 1, 10_000_000)
	b.amount, b.hasValue = amountRange(a, "amount")
	if err := a.Done(); err != nil {
		return err
	}
	if b.records == 0 {
		return scenario.Errorf(scenario.ValueAt(c, "records"), "burst needs records=N")
	}
	if b.every < 0 {
		return scenario.Errorf(scenario.ValueAt(c, "event-every"), "expected event-every= to be zero or positive")
	}
	if !b.hasFrom && b.every > 0 && b.records > 1 {
		return scenario.Errorf(scenario.ValueAt(c, "event-every"), "event-every= spreads the events from event-from=, which is the send itself when not given, so every event after the first would happen after it is sent; give event-from=")
	}
	if b.hasFrom {
		// Its events happened before they are sent, as produce's event=
		// says (counted without adding up a time that could overflow).
		switch {
		case b.from > at:
			return scenario.Errorf(scenario.ValueAt(c, "event-from"), "expected event-from= at or before the send at=%s: an event cannot be sent before it happens", at)
		case b.every > 0 && int64(at.Sub(b.from)/b.every) < int64(b.records-1):
			return scenario.Errorf(scenario.ValueAt(c, "event-every"), "expected the burst's %d events, from %s every %s, to happen at or before its send at=%s: an event cannot be sent before it happens", b.records, b.from, b.every, at)
		}
	}
	if b.keys == 0 {
		b.keys = b.records
	}
	// Each record is an event and a record, and may name a new key.
	l.w.ChargeAhead(2*b.records + min(b.records, b.keys))
	if l.w.OverBudget() {
		return l.w.BudgetError(c.Pos)
	}
	l.planBurst(p, b)
	l.w.Schedule(at, func() { l.burst(p, b) })
	return nil
}

// planBurst sizes the trace for a burst's records.
func (l *world) planBurst(p *producer, b burstPlan) {
	l.w.Expect(b.records, b.records, min(b.records, b.keys))
	l.notes += b.records
	p.traffic += b.records
	if b.keys <= 4*b.records || b.keys <= 1<<16 {
		p.maxNumbered = max(p.maxNumbered, b.keys)
	}
}

// burst sends a burst's events one after the other at this instant, each
// a step of its own.
func (l *world) burst(p *producer, b burstPlan) {
	if !b.hasFrom {
		b.from = p.read(l.w.Now())
	}
	i := 0
	var next func()
	next = func() {
		for i < b.records {
			k := l.w.Rand().IntN(b.keys)
			s := sendPlan{num: k + 1, keyed: true, fail: "none", retry: "none",
				happened: b.from.Add(vtime.Duration(i) * b.every), hasTime: true}
			if b.key != "" {
				s.num, s.key = 0, b.key
			}
			if b.hasValue {
				s.amount = b.amount.draw(l.w.Rand())
			}
			before := l.w.NextStep()
			l.send(p, s)
			i++
			if l.w.NextStep() != before && i < b.records {
				l.w.Then(next) // the next one is a step of its own
				return
			}
			// Held back by an offline span, the send emitted nothing: go on.
		}
	}
	next()
}

// injectBurst sends f.Records events of producer f.Producer now, their
// event times spread evenly over the f.For before now: all of key f.Key
// when it is set (a hot key), else of keys spread over the burst.
func (l *world) injectBurst(f engine.Fault) error {
	p := l.producers[f.Producer]
	if p == nil {
		return prose.Errorf("unknown producer %q; this scenario's producers are %s", f.Producer, strings.Join(l.producerNames(), ", "))
	}
	if f.Records < 1 || f.Records > 10_000 {
		return prose.Errorf("a burst sends 1 to 10000 events, not %d", f.Records)
	}
	if f.For < 0 {
		return prose.Errorf("a burst's events happen over a span of zero or more, not %s", f.For)
	}
	b := burstPlan{records: f.Records, keys: f.Records, hasFrom: true, key: f.Key}
	if f.Key != "" {
		b.keys = 1
	}
	b.from = p.read(l.w.Now()).Add(-f.For)
	b.every = f.For / vtime.Duration(f.Records)
	l.planBurst(p, b)
	l.w.Then(func() { l.burst(p, b) })
	return nil
}

// read is producer p's clock at true time at: the clock it reads, plus
// the steps its own clock took (FaultProducerClock).
func (p *producer) read(at vtime.Time) vtime.Time { return p.clock.Read(at).Add(p.skew) }

// injectProducerClock steps producer f.Producer's own clock by f.By.
func (l *world) injectProducerClock(f engine.Fault) error {
	p := l.producers[f.Producer]
	if p == nil {
		return prose.Errorf("unknown producer %q; this scenario's producers are %s", f.Producer, strings.Join(l.producerNames(), ", "))
	}
	if f.By == 0 || f.By > maxProducerJump || f.By < -maxProducerJump {
		return prose.Errorf("a producer's clock is stepped by a non-zero amount of at most a day either way, not %s", f.By)
	}
	p.skew += f.By
	dir, abs := "forward", f.By
	if f.By < 0 {
		dir, abs = "back", -f.By
	}
	where := ""
	if p.pinned >= 0 {
		where = " (partition " + strconv.Itoa(p.pinned) + " of " + p.topic.Name + ")"
	}
	l.w.Emit(p.name, engine.KindClockJump, -1, "%s's own clock%s is stepped %s by %s at %s, as a device's drifting clock would; it now reads %s, and the events it makes from now on say they happened by that clock.",
		p.name, where, dir, abs, l.w.Now(), p.read(l.w.Now()))
	return nil
}
