package logs

import (
	"math"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine/group"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// This file parses the partitioned log's commands: topics, change capture
// and publishing applications, producers, consumer groups and their members.

func (l *world) topicArg(x scenario.Arg) (*TopicHistory, error) {
	t, err := scenario.Lookup(l.topics, x, "topic", "topic %s partitions=3")
	return t, l.w.Misnamed(x, "topic", err)
}

func (l *world) topic(c scenario.Command) error {
	n, rest, err := l.w.Declared(c, "topic", "a topic")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	parts := a.Int("partitions", 1, 1, 1024)
	retention := a.Duration("retention", 0)
	segment := a.Duration("segment", 0)
	compat := scenario.Choice(a, "compatibility", compatBackward, scenario.OneOf(compatBackward, compatForward, compatFull), "backward, forward or full")
	if err := a.Done(); err != nil {
		return err
	}
	if retention < 0 || segment < 0 {
		at := scenario.ValueAt(c, "segment")
		if retention < 0 {
			at = scenario.ValueAt(c, "retention")
		}
		return scenario.Errorf(at, "expected retention= and segment= to be zero (off) or positive")
	}
	l.lw()
	h := &TopicHistory{Topic: topic.New(n.Value, parts, retention, segment), Counts: []CountPoint{{Step: 0, N: parts}}, most: parts, compat: compat}
	h.Keys = l.w.KeyTexts()
	if err := l.hold(h, n.Pos); err != nil {
		return err
	}
	l.topics[n.Value] = h
	l.t.Topics = append(l.t.Topics, h)
	if retention > 0 {
		l.ticking = true
	}
	return nil
}

// time60s is Kafka Connect's default offset.flush.interval.ms.
const time60s = 60 * vtime.Second

func (l *world) producer(c scenario.Command) error {
	n, rest, err := l.w.Declared(c, "producer", "a producer")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	to, _ := a.Required("to", "TOPIC")
	p := &producer{name: n.Value, sticky: -1, ref: -1}
	p.idempotent = scenario.Choice(a, "idempotent", false, scenario.OnOff, "on or off")
	p.acks = scenario.Choice(a, "acks", "all", scenario.OneOf("all", "1", "0"), "all, 1 or 0")
	clock := a.Str("clock", "source")
	key := a.Str("key", "id")
	pin, pinned := a.Find("partition")
	p.pinned = a.Int("partition", -1, 0, maxPartitions-1)
	p.refresh = a.Duration("refresh", 0)
	p.schema = l.schemaArg(a)
	if err := a.Done(); err != nil {
		return err
	}
	if p.refresh < 0 {
		return scenario.Errorf(scenario.ValueAt(c, "refresh"), "expected refresh= zero or positive, found %s", p.refresh)
	}
	if p.idempotent && p.acks != "all" {
		x, _ := scenario.NewArgs(c, rest).Find("acks")
		return scenario.Errorf(x.ValuePos, "an idempotent producer needs acks=all, as Kafka requires")
	}
	if p.clock = l.w.Clock(clock); p.clock == nil {
		return scenario.Errorf(scenario.ValueAt(c, "clock"), "unknown clock %q; declare it first with `clock %s`", clock, clock)
	}
	h, err := l.topicArg(to)
	if err != nil {
		return err
	}
	if pinned && p.pinned >= len(h.Parts) {
		return scenario.Errorf(pin.ValuePos, "topic %s has partitions 0 to %d; expected partition= to name one of them, found %d", h.Name, len(h.Parts)-1, p.pinned)
	}
	p.topic = h
	h.registered = max(h.registered, p.schema)
	p.pid = l.newPID()
	l.producers[n.Value] = p
	l.prodOrd = append(l.prodOrd, n.Value)
	l.w.SetNoun(n.Value, key)
	l.t.Producers = append(l.t.Producers, ProducerInfo{Name: n.Value, Topic: h.Name, Partition: p.pinned, Clock: clock})
	return nil
}

func (l *world) producerArg(c scenario.Command) (*producer, []scenario.Arg, error) {
	n, rest, err := scenario.Name(c, "a producer")
	if err != nil {
		return nil, nil, err
	}
	p, err := scenario.Lookup(l.producers, n, "producer", "producer %s to=TOPIC")
	err = l.w.Misnamed(n, "producer", err)
	return p, rest, err
}

// retryParse reads a produce line's retry=: none, client, app or session,
// and broker as client.
func retryParse(v string) (string, bool) {
	switch v {
	case "broker":
		return "client", true
	case "none", "client", "app", "session":
		return v, true
	}
	return "", false
}

func (l *world) produce(c scenario.Command) error {
	p, rest, err := l.producerArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	s := sendPlan{}
	key, hasKey := a.Find("key")
	s.id = a.Str("id", "")
	s.fail = scenario.Choice(a, "fail", "none", scenario.OneOf("none", "timeout", "lost"), "none, timeout or lost")
	// client: the producer's client library resends the same batch. The
	// broker does not resend anything; broker is the older spelling of
	// client, still read so that scenarios written with it keep working.
	s.retry = scenario.Choice(a, "retry", "client", retryParse, "none, client, app or session")
	s.regenID = scenario.Choice(a, "ids", "regenerate", scenario.OneOf("regenerate", "keep"), "regenerate or keep") == "regenerate"
	s.retryAfter = a.Duration("retry-after", 0)
	if err := readEventTime(a, c, &s); err != nil {
		return err
	}
	s.amount = int64(a.Int("amount", 0, -maxAmount, maxAmount))
	if err := a.Done(); err != nil {
		return err
	}
	if s.retryAfter < 0 || s.retryAfter > 0 && s.retry != "app" && s.retry != "session" {
		return scenario.Errorf(scenario.ValueAt(c, "retry-after"), "retry-after= is how much later the application resends: it needs retry=app or retry=session and a positive duration")
	}
	if err := a.Within("retry-after", "the resend would come at", at.Add(s.retryAfter)); err != nil {
		return err
	}
	if s.fail == "none" {
		if err := resendOnlyOnFailure(c); err != nil {
			return err
		}
		s.retry = "none"
	}
	if s.hasTime && s.happened > at {
		return scenario.Errorf(scenario.ValueAt(c, "event"), "expected event= at or before the send at=%s: an event cannot be sent before it happens", at)
	}
	if hasKey {
		s.key, s.keyed = key.Value, true
	}
	// Without a key, the event is named by its id when it is sent (see send).
	l.w.ChargeAhead(2) // its record and key
	l.w.Expect(2, 0, 0)
	p.topic.until = max(p.topic.until, at)
	l.w.Schedule(at, func() { l.send(p, s) })
	return nil
}

// traffic generates many keyed sends from the world's seeded random source,
// one scheduled at a time like a workload.
func (l *world) traffic(c scenario.Command) error {
	p, rest, err := l.producerArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	n := a.Int("records", 0, 1, 10_000_000)
	from := a.RequiredTime("from")
	every := a.Duration("every", vtime.Second)
	unique := false
	if x, ok := a.Find("keys"); ok && x.Value == "unique" {
		unique = true // each record a key of its own: 1, 2, 3, … in the order sent
	}
	keys := 1000
	if !unique {
		keys = a.Int("keys", 1000, 1, 10_000_000)
	}
	lag, hasLag := durationRange(a, "event-lag", "0s..3s")
	amount, hasAmount := amountRange(a, "amount")
	scale := 1
	if x, ok := a.Find("scale"); ok {
		v, ok := whole.Int(strings.TrimSuffix(x.Value, "x"))
		if !ok || v < 1 || v > 10_000 {
			a.Fail(x.ValuePos, "expected scale= to be a factor from 1x to 10000x, such as 10x; found %q", x.Value)
		}
		scale = max(v, 1)
	}
	if err := a.Done(); err != nil {
		return err
	}
	if n == 0 {
		return scenario.Errorf(scenario.ValueAt(c, "records"), "traffic needs records=N")
	}
	if every <= 0 {
		return scenario.Errorf(scenario.ValueAt(c, "every"), "traffic needs every= with a positive duration")
	}
	if scale > 1 {
		// The same span of time, scale times as many events: a knob can
		// turn 1x into 10x or 100x.
		if n > 10_000_000/scale || every < vtime.Duration(scale) {
			return scenario.Errorf(scenario.ValueAt(c, "scale"), "traffic's scale= would send more than 10000000 records, or more than one a millisecond")
		}
		n, every = n*scale, every/vtime.Duration(scale)
	}
	if err := a.Within("from", "this traffic would run until", scenario.Span(from, n, every, 0)); err != nil {
		return err
	}
	if unique {
		keys = n
	}
	// Each record is an event and a record, and may name a new key.
	l.w.ChargeAhead(2*n + min(n, keys))
	if l.w.OverBudget() {
		return l.w.BudgetError(c.Pos)
	}
	named := min(n, keys)
	if !unique {
		named = distinctKeys(n, keys)
	}
	l.w.Expect(n, n, named)
	p.traffic += n
	if keys <= 4*n || keys <= 1<<16 {
		// Keys the records will mostly reach: an array by number is dense
		// enough. A few records over a vast key range go by name instead.
		p.maxNumbered = max(p.maxNumbered, keys)
	}
	p.topic.ReserveKeyed(n, keys)
	p.topic.until = max(p.topic.until, from.Add(vtime.Duration(n-1)*every))
	i := 0
	var next func()
	next = func() {
		var k int
		if unique {
			p.unique++
			k = p.unique - 1
		} else {
			k = l.w.Rand().IntN(keys)
		}
		s := sendPlan{num: k + 1, keyed: true, fail: "none", retry: "none"}
		// Only a line that asks for them draws lags and amounts, so the
		// random sequence of a line without them is what it always was.
		if hasLag {
			s.lag = vtime.Duration(lag.draw(l.w.Rand()))
		}
		if hasAmount {
			s.amount = amount.draw(l.w.Rand())
		}
		l.send(p, s)
		if i++; i < n {
			l.w.Schedule(from.Add(vtime.Duration(i)*every), next)
		}
	}
	l.w.Schedule(from, next)
	return nil
}

// distinctKeys is how many different keys n records drawing theirs at
// random from keys equally likely ones are expected to name, with room for
// chance (the count varies by less than its square root): the trace is
// sized for them. A million records over a million keys name about
// 632,000, and sizing for a million kept room for 368,000 keys unused.
func distinctKeys(n, keys int) int {
	if n <= 0 || keys <= 0 {
		return 0
	}
	// The expected count is keys·(1 − (1 − 1/keys)^n); the power is taken
	// by squaring, which math.Pow (with its Expm1 and Log1p, 1.5 KB of the
	// browser's module) would do no better for a size.
	e := float64(keys) * (1 - powInt(1-1/float64(keys), n))
	return min(n, keys, int(e+4*math.Sqrt(e))+16)
}

// powInt returns x to the power n ≥ 0 by repeated squaring.
func powInt(x float64, n int) float64 {
	p := 1.0
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			p *= x
		}
		x *= x
	}
	return p
}

func (l *world) group(c scenario.Command) error {
	n, rest, err := l.w.Declared(c, "group", "a consumer group")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	tp, _ := a.Required("topic", "TOPIC")
	to, hasTo := a.Find("to")
	g := &groupState{toPos: to.ValuePos, name: n.Value, members: map[string]*member{}, exited: map[string]*member{}, seenIDs: map[string]bool{}, named: map[string]bool{}}
	g.commit = scenario.Choice(a, "commit", "after", scenario.OneOf("after", "before", "auto"), "after, before or auto")
	g.interval = a.Duration("interval", 5*vtime.Second)
	g.autoPoll = scenario.Choice(a, "auto-commit", "timer", scenario.OneOf("timer", "poll"), "timer or poll") == "poll"
	g.maxPoll = a.Duration("max-poll-interval", 5*vtime.Minute)
	g.session = a.Duration("session-timeout", 45*vtime.Second)
	if x, ok := a.Find("membership"); ok {
		g.memberAt = x.ValuePos
	}
	switch scenario.Choice(a, "membership", "", scenario.OneOf("dynamic", "static"), "dynamic or static") {
	case "dynamic":
		g.member = memberDynamic
	case "static":
		g.member = memberStatic
	}
	g.reset = scenario.Choice(a, "reset", "latest", scenario.OneOf("earliest", "latest", "none"), "earliest, latest or none")
	strategy := scenario.Choice(a, "assign", group.Range, group.ParseStrategy, "range or roundrobin")
	g.dedup = scenario.Choice(a, "dedup", "none", scenario.OneOf("none", "event-id"), "none or event-id") == "event-id"
	g.tsMark = scenario.Choice(a, "mark", "offset", scenario.OneOf("offset", "timestamp"), "offset or timestamp") == "timestamp"
	g.refresh = a.Duration("refresh", 0)
	committed := a.Int("committed", -1, 0, 1<<40)
	g.schema = l.schemaArg(a)
	g.skipBad = scenario.Choice(a, "on-error", "stop", scenario.OneOf("stop", "skip"), "stop or skip") == "skip"
	if err := a.Done(); err != nil {
		return err
	}
	if err := autoCommitOnly(c, g.commit); err != nil {
		return err
	}
	// An auto-commit interval under a second is refused: the log's clock
	// runs a group's commit timers once a second (each at its own instant
	// within it), so a shorter one would commit less often than it says.
	if g.interval < vtime.Second || g.refresh < 0 {
		at := scenario.ValueAt(c, "refresh")
		if g.interval < vtime.Second {
			at = scenario.ValueAt(c, "interval")
		}
		return scenario.Errorf(at, "expected interval= of 1s or more (auto.commit.interval.ms; a shorter one is not modelled) and refresh= zero or positive")
	}
	if g.maxPoll <= 0 {
		x, _ := scenario.NewArgs(c, rest).Find("max-poll-interval")
		return scenario.Errorf(x.ValuePos, "expected max-poll-interval= to be positive, such as 5m")
	}
	// The broker refuses a join whose session timeout is outside
	// group.min.session.timeout.ms and group.max.session.timeout.ms, 6
	// seconds and 30 minutes by default.
	if g.session < 6*vtime.Second || g.session > 30*vtime.Minute {
		return scenario.Errorf(scenario.ValueAt(c, "session-timeout"), "expected session-timeout= from 6s to 30m (the broker's group.min.session.timeout.ms and group.max.session.timeout.ms), such as 45s, Kafka's default")
	}
	h, err := l.topicArg(tp)
	if err != nil {
		return err
	}
	g.topic = h
	if err := l.hold(h, tp.ValuePos); err != nil {
		return err
	}
	g.g = group.New(n.Value, h.Name, strategy, len(h.Parts))
	g.hist = &GroupHistory{Name: n.Value, Topic: h.Name, Strategy: strategy, Schemas: []SchemaPoint{{Version: g.schema}}}
	if committed >= 0 {
		// The group existed before the scenario began and had committed this offset everywhere.
		for p := range g.g.Committed {
			g.g.Committed[p] = int64(committed)
			g.hist.Commits = append(g.hist.Commits, CommitPoint{Step: 0, Partition: int16(p), Offset: int64(committed), Member: g.hist.MemberRef("before")})
		}
	}
	if hasTo {
		if g.target, err = l.w.TargetArg(to); err != nil {
			return err
		}
		g.hist.Target = to.Value
	}
	g.idx = int32(len(l.t.Groups))
	l.groups[n.Value] = g
	l.groupOrd = append(l.groupOrd, n.Value)
	l.t.Groups = append(l.t.Groups, g.hist)
	if g.commit == "auto" && !g.autoPoll {
		l.ticking = true
	}
	return nil
}

// groupMember reads GROUP MEMBER at the start of a command.
func (l *world) groupMember(c scenario.Command) (*groupState, scenario.Arg, []scenario.Arg, error) {
	g, rest, err := l.groupArg(c)
	if err != nil {
		return nil, scenario.Arg{}, nil, err
	}
	if len(rest) == 0 || rest[0].Key != "" || rest[0].Quoted {
		return nil, scenario.Arg{}, nil, scenario.Errorf(c.Pos, "expected %s GROUP MEMBER, such as `%s %s c1 at=10:00:00`", c.Name, c.Name, g.name)
	}
	if c.Name != "member" {
		g.unjoined = append(g.unjoined, rest[0])
	}
	return g, rest[0], rest[1:], nil
}

func (l *world) member(c scenario.Command) error {
	g, m, rest, err := l.groupMember(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	if err := a.Done(); err != nil {
		return err
	}
	joining := c.Name == "member"
	if joining {
		g.joins++
	}
	joined, ok := g.named[m.Value]
	if !ok && len(g.named) >= maxMembers {
		return scenario.Errorf(m.Pos, "group %s already has %d members; a group has at most %d", g.name, maxMembers, maxMembers)
	}
	g.named[m.Value] = joined || joining
	l.w.Schedule(at, func() { l.join(g, m.Value, joining) })
	return nil
}

func (l *world) pollLine(c scenario.Command) error {
	g, m, rest, err := l.groupMember(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	pl := pollPlan{member: m.Value}
	pl.max = a.Int("max", 500, 1, 1_000_000)
	pl.process = a.Duration("process", 0)
	pl.crash = scenario.Choice(a, "crash", "none", scenario.OneOf("none", "before-write", "before-commit"), "none, before-write or before-commit")
	if err := a.Done(); err != nil {
		return err
	}
	if pl.process < 0 {
		return scenario.Errorf(scenario.ValueAt(c, "process"), "expected process= to be zero or positive")
	}
	if err := a.Within("process", "the batch's processing would end at", at.Add(pl.process)); err != nil {
		return err
	}
	if pl.crash != "none" && g.crashAt.Line == 0 {
		g.crashAt = scenario.ValueAt(c, "crash")
	}
	if pl.process > g.maxPoll && g.dynAt.Line == 0 {
		g.dynAt = scenario.ValueAt(c, "process")
	}
	l.w.Expect(3, 0, 0)
	l.w.Schedule(at, func() { l.poll(g, pl) })
	return nil
}

// polls schedules a poll by every member every interval.
func (l *world) polls(c scenario.Command) error {
	g, rest, err := l.groupArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from := a.RequiredTime("from")
	until := a.RequiredTime("until")
	every := a.Duration("every", 0)
	mx := a.Int("max", 500, 1, 1_000_000)
	if err := a.Done(); err != nil {
		return err
	}
	if every <= 0 || until < from {
		at := scenario.ValueAt(c, "until")
		if every <= 0 {
			at = scenario.ValueAt(c, "every")
		}
		return scenario.Errorf(at, "polls needs every= positive and from= at or before until=")
	}
	if int64(until-from)/int64(every) > 1_000_000 {
		return scenario.Errorf(scenario.ValueAt(c, "every"), "polls would schedule more than a million rounds; expected fewer")
	}
	// One round is queued at a time, each queueing the next, so a long
	// schedule of polls keeps the event queue small.
	rounds := int(int64(until-from)/int64(every)) + 1
	l.w.ChargeAhead(rounds) // one event a round; what each member's poll does is charged as it happens
	if l.w.OverBudget() {
		return l.w.BudgetError(c.Pos)
	}
	g.rounds += rounds
	var round func(t vtime.Time) func()
	round = func(t vtime.Time) func() {
		return func() {
			// Each member's poll is a step of its own: the first now, the
			// others next, at the same instant.
			for i, name := range g.pollers() {
				pl := pollPlan{member: name, max: mx, crash: "none"}
				if i == 0 {
					l.poll(g, pl)
				} else {
					l.w.Then(func() { l.poll(g, pl) })
				}
			}
			if until-t >= vtime.Time(every) { // not t+every <= until, which can overflow
				next := t.Add(every)
				l.w.Schedule(next, round(next))
			}
		}
	}
	l.w.Schedule(from, round(from))
	return nil
}

func (l *world) pauseLine(c scenario.Command) error {
	g, m, rest, err := l.groupMember(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	until := a.RequiredTime("until")
	if err := a.Done(); err != nil {
		return err
	}
	if until < at {
		return scenario.Errorf(scenario.ValueAt(c, "until"), "pause needs until= at or after at=")
	}
	l.w.Schedule(at, func() { l.pause(g, m.Value, until) })
	return nil
}

func (l *world) addPartitionsLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a topic")
	if err != nil {
		return err
	}
	h, err := l.topicArg(scenario.Arg{Value: n.Value, Pos: n.Pos, ValuePos: n.Pos})
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	to := a.Int("to", 0, 1, 1024)
	if err := a.Done(); err != nil {
		return err
	}
	if to == 0 {
		return scenario.Errorf(c.Pos, "add-partitions needs to=N, the new partition count")
	}
	if to > h.most {
		// Every holder so far grows with the topic; those declared later
		// are charged the new count (hold).
		grown := (to - h.most) * h.holders
		if l.held+grown > MaxHeld {
			return scenario.Errorf(scenario.ValueAt(c, "to"), "growing %s to %d partitions would bring the partitions kept in all (by topics, groups and streams) to %d; a scenario keeps at most %d", h.Name, to, l.held+grown, MaxHeld)
		}
		l.held += grown
		l.w.Charge(grown)
		h.most = to
	}
	l.w.Schedule(at, func() { l.addPartitions(h, to) })
	return nil
}

// MaxHeld bounds the partitions a scenario keeps state for, summed over
// its topics and the groups and streams reading them: the widget draws
// each as a lane, so a short file of many readers of a topic of a thousand
// partitions would otherwise draw a page of tens of megabytes.
const MaxHeld = 8192

// hold counts one more holder of state for each of h's partitions and
// charges a unit for each partition h will have (see Log.Hold). Past the
// budget, Build stops at the line; past MaxHeld, it is an error at pos.
func (l *world) hold(h *TopicHistory, pos scenario.Pos) error {
	if l.held+h.most > MaxHeld {
		return scenario.Errorf(pos, "%s's %d partitions would bring the partitions kept in all (by topics, groups and streams) to %d; a scenario keeps at most %d", h.Name, h.most, l.held+h.most, MaxHeld)
	}
	h.holders++
	l.held += h.most
	l.w.Charge(h.most)
	return nil
}

func (l *world) resnapshotLine(c scenario.Command) error {
	g, rest, err := l.groupArg(c)
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	if err := a.Done(); err != nil {
		return err
	}
	l.w.Schedule(at, func() { l.resnapshot(g) })
	return nil
}

// finish wires the log once every command is read: which tables and
// producers reach which target, and the housekeeping tick. A group that
// would copy rows another target already receives is refused at its to=.
func (l *world) finish() error {
	if l.t == nil {
		return nil
	}
	// feed routes table's rows, which reach topic h, into the target of
	// each group that reads h; a second target is refused (see Route).
	feed := func(table string, h *TopicHistory) error {
		routed := l.w.RouteOf(table) != nil // by a pipeline: the log adds no feed of its own
		for _, name := range l.groupOrd {
			g := l.groups[name]
			if g.topic != h || g.target == nil {
				continue
			}
			if !l.w.Route(table, g.target) {
				return l.w.RouteRefused(g.toPos, table, "group "+g.name, g.target)
			}
			if !routed {
				l.t.Feeds = append(l.t.Feeds, Feed{Table: table, Target: g.target.Name})
				routed = true
			}
		}
		return nil
	}
	for _, c := range l.captures {
		if err := feed(c.table, c.topic); err != nil {
			return err
		}
	}
	for _, n := range l.producerNames() {
		if err := feed(n, l.producers[n].topic); err != nil {
			return err
		}
	}
	for _, name := range l.groupOrd {
		// A member no member line joins can only be a mistyped name: it
		// would poll, pause or leave as nobody, and the run would say so
		// at that step only.
		g := l.groups[name]
		for _, m := range g.unjoined {
			if g.named[m.Value] {
				continue
			}
			var joined []string
			for n, ok := range g.named {
				if ok {
					joined = append(joined, n)
				}
			}
			sorted.Sort(joined)
			return scenario.Errorf(m.Pos, "no line `member %s %s at=…` joins %s to group %s%s", g.name, m.Value, m.Value, g.name, scenario.DidYouMean(m.Value, joined))
		}
	}
	for _, name := range l.groupOrd {
		g := l.groups[name]
		if g.member == memberDynamic && g.crashAt.Line > 0 {
			return scenario.Errorf(g.crashAt, "a crashed member restarts keeping its partitions, as only a static member does, but group %s has membership=dynamic (line %d); expected membership=static, or no crash= in its poll lines", g.name, g.memberAt.Line)
		}
		if g.static() && g.dynAt.Line > 0 {
			why := prose.F("a crashed member of %s restarts as a static member (crash= on line %d)", g.name, g.crashAt.Line)
			if g.member == memberStatic {
				why = prose.F("group %s has membership=static (line %d)", g.name, g.memberAt.Line)
			}
			return scenario.Errorf(g.dynAt, "%s, and a static member past max.poll.interval.ms sends no LeaveGroup but stops its heartbeats, so that the coordinator removes it only when session.timeout.ms has passed as well, which is not modelled; expected no process= longer than max-poll-interval= in its group", why)
		}
	}
	for _, name := range l.groupOrd {
		g := l.groups[name]
		if g.rounds == 0 {
			continue
		}
		records := 0
		for _, p := range l.producers {
			if p.topic == g.topic {
				records += p.traffic
			}
		}
		// Every member polls, writes and commits once a round.
		polls := g.rounds * max(1, g.joins)
		l.w.Expect(3*polls, 0, 0)
		l.notes += 3 * polls
		n := readsExpected(g.rounds, len(g.topic.Parts), records)
		g.hist.Reads = slices.Grow(g.hist.Reads, n)
		g.hist.Commits = slices.Grow(g.hist.Commits, n)
	}
	if start, ok := l.w.NextAt(); l.ticking && ok {
		l.w.Schedule(start-start%vtime.Time(vtime.Second), l.tick)
	}
	return nil
}

// producerNames lists the producers' names in order.
func (l *world) producerNames() []string {
	names := make([]string, 0, len(l.producers))
	for n := range l.producers {
		names = append(names, n)
	}
	sorted.Sort(names)
	return names
}

// groupArg reads the command's first word as the name of a declared consumer group.
func (l *world) groupArg(c scenario.Command) (*groupState, []scenario.Arg, error) {
	n, rest, err := scenario.Name(c, "a consumer group")
	if err != nil {
		return nil, nil, err
	}
	g, err := scenario.Lookup(l.groups, n, "group", "group %s topic=TOPIC")
	err = l.w.Misnamed(n, "group", err)
	return g, rest, err
}

// readsExpected is how many ranges a group's rounds of polls will read from
// parts partitions that receive records records spread evenly over the
// rounds: a poll reads a partition when at least one record came since the
// last, which for a partition getting λ records a round happens with
// probability 1 - e^-λ. A margin covers the draw; past it, the trace's
// slices grow as any would.
func readsExpected(rounds, parts, records int) int {
	pairs := rounds * parts
	if pairs == 0 || records == 0 {
		return 0
	}
	lambda := float64(records) / float64(pairs)
	n := float64(pairs) * -math.Expm1(-lambda)
	return min(pairs, records, int(n+4*math.Sqrt(n))+64)
}

// autoCommitOnly refuses interval= or auto-commit= on a group whose
// commit= is not auto: they say when and where auto-commit runs, and a
// group that commits by hand would ignore them in silence. A commit= a
// knob sets may be auto for one value and not another, so one line serves
// every value.
func autoCommitOnly(c scenario.Command, commit string) error {
	if commit == "auto" || scenario.KnobSets(c, "commit") {
		return nil
	}
	for _, x := range c.Args {
		if x.Key == "interval" || x.Key == "auto-commit" {
			return scenario.Errorf(x.Pos, "%s= says how auto-commit runs, and this group commits with commit=%s; give commit=auto, or leave %s= out", x.Key, commit, x.Key)
		}
	}
	return nil
}

// resendOnlyOnFailure refuses retry= or ids= on a produce line whose send
// does not fail: they say how a failed send is resent, and a send that
// succeeds would ignore them in silence. A fail= a knob sets may be none
// for one value and not another, so one line serves every value.
func resendOnlyOnFailure(c scenario.Command) error {
	if scenario.KnobSets(c, "fail") {
		return nil
	}
	for _, x := range c.Args {
		if (x.Key == "retry" && x.Value != "none" || x.Key == "ids") && !x.FromKnob {
			return scenario.Errorf(x.Pos, "%s= says how a failed send is resent, and this send does not fail; give fail=timeout or fail=lost, or leave %s= out", x.Key, x.Key)
		}
	}
	return nil
}
