package engine

import (
	"slices"

	"github.com/tidemark/tidemark/engine/group"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
)

// This file parses the partitioned log's commands: topics, change capture
// and publishing applications, producers, consumer groups and their members.

// logMaps is the log world's registries for reading: empty when no log
// command has run yet. The maps of noLog are nil and never written.
func (b *builder) logMaps() *logWorld {
	if b.w.log == nil {
		return &noLog
	}
	return b.w.log
}

var noLog logWorld

func (b *builder) topicArg(x scenario.Arg) (*TopicHistory, error) {
	return known(b.logMaps().topics, x, "topic", "topic %s partitions=3")
}

func (b *builder) topic(c scenario.Command) error {
	n, rest, err := b.declared(c, "topic", "a topic")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	parts := a.integer("partitions", 1, 1, 1024)
	retention := a.duration("retention", 0)
	segment := a.duration("segment", 0)
	if err := a.done(); err != nil {
		return err
	}
	if retention < 0 || segment < 0 {
		return errorf(c.Pos, "expected retention= and segment= to be zero (off) or positive")
	}
	l := b.w.lw()
	h := &TopicHistory{Topic: topic.New(n.Value, parts, retention, segment), Counts: []CountPoint{{Step: 0, N: parts}}}
	h.Keys = &b.w.trace.keyText
	l.topics[n.Value] = h
	b.w.trace.Log.Topics = append(b.w.trace.Log.Topics, h)
	if retention > 0 {
		l.ticking = true
	}
	return nil
}

// capture reads `cdc NAME from=TABLE to=TOPIC` and
// `publish NAME from=TABLE to=TOPIC [outbox=on|off] [delay=D]`.
func (b *builder) capture(c scenario.Command) error {
	n, rest, err := b.declared(c, c.Name, "a capture")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	from, _ := a.required("from", "TABLE")
	to, _ := a.required("to", "TOPIC")
	cp := &capture{name: n.Value, app: c.Name == "publish"}
	if cp.app {
		cp.outbox = choice(a, "outbox", false, parseOnOff, "on or off")
		cp.delay = a.duration("delay", vtime.Second)
	}
	if err := a.done(); err != nil {
		return err
	}
	if b.w.db.Table(from.Value) == nil {
		return errorf(from.ValuePos, "unknown source table %q; declare it first with `source %s key=...`", from.Value, from.Value)
	}
	if cp.delay < 0 {
		return errorf(c.Pos, "expected delay= to be zero or positive")
	}
	h, err := b.topicArg(to)
	if err != nil {
		return err
	}
	cp.table, cp.topic = from.Value, h
	b.w.log.captures = append(b.w.log.captures, cp)
	return nil
}

func (b *builder) crash(c scenario.Command) error {
	n, rest, err := b.name(c, "an application")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	if err := a.done(); err != nil {
		return err
	}
	var cp *capture
	for _, x := range b.logMaps().captures {
		if x.name == n.Value && x.app {
			cp = x
		}
	}
	if cp == nil {
		return errorf(n.Pos, "unknown application %q; crash names a `publish` application (consumers crash with `poll ... crash=`)", n.Value)
	}
	b.w.schedule(at, func() { b.w.crashApp(cp) })
	return nil
}

func (b *builder) producer(c scenario.Command) error {
	n, rest, err := b.declared(c, "producer", "a producer")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	to, _ := a.required("to", "TOPIC")
	p := &producer{name: n.Value, sticky: -1, actor: -1, ref: -1}
	p.idempotent = choice(a, "idempotent", false, parseOnOff, "on or off")
	p.acks = choice(a, "acks", "all", oneOf("all", "1", "0"), "all, 1 or 0")
	clock := a.str("clock", "source")
	key := a.str("key", "id")
	if err := a.done(); err != nil {
		return err
	}
	if p.idempotent && p.acks != "all" {
		x, _ := newArgs(c, rest).find("acks")
		return errorf(x.ValuePos, "an idempotent producer needs acks=all, as Kafka requires")
	}
	if p.clock = b.w.clocks[clock]; p.clock == nil {
		return errorf(c.Pos, "unknown clock %q; declare it first with `clock %s`", clock, clock)
	}
	h, err := b.topicArg(to)
	if err != nil {
		return err
	}
	p.topic = h
	l := b.w.lw()
	p.pid = l.newPID()
	l.producers[n.Value] = p
	b.w.trace.noun[n.Value] = noun(key)
	return nil
}

func oneOf(vals ...string) func(string) (string, bool) {
	return func(s string) (string, bool) { return s, slices.Contains(vals, s) }
}

func (b *builder) producerArg(c scenario.Command) (*producer, []scenario.Arg, error) {
	n, rest, err := b.name(c, "a producer")
	if err != nil {
		return nil, nil, err
	}
	p, err := known(b.logMaps().producers, n, "producer", "producer %s to=TOPIC")
	return p, rest, err
}

func (b *builder) produce(c scenario.Command) error {
	p, rest, err := b.producerArg(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	s := sendPlan{}
	key, hasKey := a.find("key")
	s.id = a.str("id", "")
	s.fail = choice(a, "fail", "none", oneOf("none", "timeout", "lost"), "none, timeout or lost")
	s.retry = choice(a, "retry", "broker", oneOf("none", "broker", "app", "session"), "none, broker, app or session")
	s.regenID = choice(a, "ids", "regenerate", oneOf("regenerate", "keep"), "regenerate or keep") == "regenerate"
	if err := a.done(); err != nil {
		return err
	}
	if s.fail == "none" {
		s.retry = "none"
	}
	if hasKey {
		s.key, s.keyed = key.Value, true
	}
	// Without a key, the event is named by its id when it is sent (see send).
	b.w.reserve(2) // its record and key
	b.w.hint.events += 2
	b.w.schedule(at, func() { b.w.send(p, s) })
	return nil
}

// traffic generates many keyed sends from the world's seeded random source,
// one scheduled at a time like a workload.
func (b *builder) traffic(c scenario.Command) error {
	p, rest, err := b.producerArg(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	n := a.integer("records", 0, 1, 10_000_000)
	from := a.requiredTime("from")
	every := a.duration("every", vtime.Second)
	keys := a.integer("keys", 1000, 1, 10_000_000)
	if err := a.done(); err != nil {
		return err
	}
	if n == 0 {
		return errorf(c.Pos, "traffic needs records=N")
	}
	if every <= 0 {
		return errorf(c.Pos, "traffic needs every= with a positive duration")
	}
	w := b.w
	// Each record is an event and a record, and may name a new key.
	w.reserve(2*n + min(n, keys))
	if w.budget.over {
		return w.budgetError(c.Pos)
	}
	w.hint.events += n
	w.hint.notes += n
	w.hint.versions += n
	w.hint.keys += min(n, keys)
	p.traffic += n
	if keys <= 4*n || keys <= 1<<16 {
		// Keys the records will mostly reach: an array by number is dense
		// enough. A few records over a vast key range go by name instead.
		p.maxNumbered = max(p.maxNumbered, keys)
	}
	p.topic.Reserve(n)
	i := 0
	var next func()
	next = func() {
		k := w.rng.IntN(keys)
		w.send(p, sendPlan{num: k + 1, keyed: true, fail: "none", retry: "none"})
		if i++; i < n {
			w.schedule(from.Add(vtime.Duration(i)*every), next)
		}
	}
	w.schedule(from, next)
	return nil
}

func (b *builder) group(c scenario.Command) error {
	n, rest, err := b.declared(c, "group", "a consumer group")
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	tp, _ := a.required("topic", "TOPIC")
	to, hasTo := a.find("to")
	g := &groupState{name: n.Value, members: map[string]*member{}, seenIDs: map[string]bool{}}
	g.commit = choice(a, "commit", "after", oneOf("after", "before", "auto"), "after, before or auto")
	g.interval = a.duration("interval", 5*vtime.Second)
	g.reset = choice(a, "reset", "latest", oneOf("earliest", "latest", "none"), "earliest, latest or none")
	strategy := choice(a, "assign", group.Range, group.ParseStrategy, "range or roundrobin")
	g.dedup = choice(a, "dedup", "none", oneOf("none", "event-id"), "none or event-id") == "event-id"
	g.tsMark = choice(a, "mark", "offset", oneOf("offset", "timestamp"), "offset or timestamp") == "timestamp"
	g.refresh = a.duration("refresh", 0)
	committed := a.integer("committed", -1, 0, 1<<40)
	if err := a.done(); err != nil {
		return err
	}
	if g.interval <= 0 || g.refresh < 0 {
		return errorf(c.Pos, "expected interval= positive and refresh= zero or positive")
	}
	h, err := b.topicArg(tp)
	if err != nil {
		return err
	}
	g.topic = h
	g.g = group.New(n.Value, h.Name, strategy, len(h.Parts))
	g.hist = &GroupHistory{Name: n.Value, Topic: h.Name, Strategy: strategy}
	if committed >= 0 {
		// The group existed before the scenario began and had committed this offset everywhere.
		for p := range g.g.Committed {
			g.g.Committed[p] = int64(committed)
			g.hist.Commits = append(g.hist.Commits, CommitPoint{Step: 0, Partition: int32(p), Offset: int64(committed), Member: g.hist.MemberRef("before")})
		}
	}
	if hasTo {
		if g.target, err = known(b.w.targets, to, "target", targetDecl); err != nil {
			return err
		}
		g.hist.Target = to.Value
	}
	l := b.w.log
	g.idx = int32(len(b.w.trace.Log.Groups))
	l.groups[n.Value] = g
	l.groupOrd = append(l.groupOrd, n.Value)
	b.w.trace.Log.Groups = append(b.w.trace.Log.Groups, g.hist)
	if g.commit == "auto" {
		l.ticking = true
	}
	return nil
}

// groupMember reads GROUP MEMBER at the start of a command.
func (b *builder) groupMember(c scenario.Command) (*groupState, scenario.Arg, []scenario.Arg, error) {
	g, rest, err := b.groupArg(c)
	if err != nil {
		return nil, scenario.Arg{}, nil, err
	}
	if len(rest) == 0 || rest[0].Key != "" || rest[0].Quoted {
		return nil, scenario.Arg{}, nil, errorf(c.Pos, "expected %s GROUP MEMBER, such as `%s %s c1 at=10:00:00`", c.Name, c.Name, g.name)
	}
	return g, rest[0], rest[1:], nil
}

func (b *builder) member(c scenario.Command) error {
	g, m, rest, err := b.groupMember(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	if err := a.done(); err != nil {
		return err
	}
	joining := c.Name == "member"
	if joining {
		g.joins++
	}
	b.w.schedule(at, func() { b.w.join(g, m.Value, joining) })
	return nil
}

func (b *builder) poll(c scenario.Command) error {
	g, m, rest, err := b.groupMember(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	pl := pollPlan{member: m.Value}
	pl.max = a.integer("max", 500, 1, 1_000_000)
	pl.process = a.duration("process", 0)
	pl.crash = choice(a, "crash", "none", oneOf("none", "before-write", "before-commit"), "none, before-write or before-commit")
	if err := a.done(); err != nil {
		return err
	}
	if pl.process < 0 {
		return errorf(c.Pos, "expected process= to be zero or positive")
	}
	b.w.hint.events += 3
	b.w.schedule(at, func() { b.w.poll(g, pl) })
	return nil
}

// polls schedules a poll by every member every interval.
func (b *builder) polls(c scenario.Command) error {
	g, rest, err := b.groupArg(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	from := a.requiredTime("from")
	until := a.requiredTime("until")
	every := a.duration("every", 0)
	mx := a.integer("max", 500, 1, 1_000_000)
	if err := a.done(); err != nil {
		return err
	}
	if every <= 0 || until < from {
		return errorf(c.Pos, "polls needs every= positive and from= at or before until=")
	}
	if int64(until-from)/int64(every) > 1_000_000 {
		return errorf(c.Pos, "polls would schedule more than a million rounds; expected fewer")
	}
	// One round is queued at a time, each queueing the next, so a long
	// schedule of polls keeps the event queue small.
	w := b.w
	rounds := int(int64(until-from)/int64(every)) + 1
	w.reserve(rounds) // one event a round; what each member's poll does is charged as it happens
	if w.budget.over {
		return w.budgetError(c.Pos)
	}
	g.rounds += rounds
	var round func(t vtime.Time) func()
	round = func(t vtime.Time) func() {
		return func() {
			for _, name := range slices.Clone(g.g.Members) {
				w.poll(g, pollPlan{member: name, max: mx, crash: "none"})
			}
			if until-t >= vtime.Time(every) { // not t+every <= until, which can overflow
				next := t.Add(every)
				w.schedule(next, round(next))
			}
		}
	}
	w.schedule(from, round(from))
	return nil
}

func (b *builder) pause(c scenario.Command) error {
	g, m, rest, err := b.groupMember(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	until := a.requiredTime("until")
	if err := a.done(); err != nil {
		return err
	}
	if until < at {
		return errorf(c.Pos, "pause needs until= at or after at=")
	}
	b.w.schedule(at, func() { b.w.pause(g, m.Value, until) })
	return nil
}

func (b *builder) addPartitions(c scenario.Command) error {
	n, rest, err := b.name(c, "a topic")
	if err != nil {
		return err
	}
	h, err := b.topicArg(scenario.Arg{Value: n.Value, Pos: n.Pos, ValuePos: n.Pos})
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	to := a.integer("to", 0, 1, 1024)
	if err := a.done(); err != nil {
		return err
	}
	if to == 0 {
		return errorf(c.Pos, "add-partitions needs to=N, the new partition count")
	}
	b.w.schedule(at, func() { b.w.addPartitions(h, to) })
	return nil
}

func (b *builder) resnapshot(c scenario.Command) error {
	g, rest, err := b.groupArg(c)
	if err != nil {
		return err
	}
	a := newArgs(c, rest)
	at := a.requiredTime("at")
	if err := a.done(); err != nil {
		return err
	}
	b.w.schedule(at, func() { b.w.resnapshot(g) })
	return nil
}

// finishLog wires the log once every command is read: which tables and
// producers reach which target, and the housekeeping tick.
func (b *builder) finishLog() {
	l := b.w.log
	if l == nil {
		return
	}
	t := b.w.trace
	feed := func(table string, h *TopicHistory) {
		if t.feedTarget(table) != "" || t.targetOf(table) != "" {
			return
		}
		for _, name := range l.groupOrd {
			g := l.groups[name]
			if g.topic == h && g.target != nil {
				t.Feeds = append(t.Feeds, Feed{Table: table, Target: g.target.Name})
				return
			}
		}
	}
	for _, c := range l.captures {
		feed(c.table, c.topic)
	}
	names := make([]string, 0, len(l.producers))
	for n := range l.producers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		feed(n, l.producers[n].topic)
	}
	// Size what a large generated load will append, once.
	for _, n := range names {
		p := l.producers[n]
		if p.traffic == 0 {
			continue
		}
		if tg := b.w.targets[t.feedTarget(n)]; tg != nil {
			tg.ReserveRows(p.traffic)
			t.truth.changes = slices.Grow(t.truth.changes, 2*p.traffic) // a key falls behind, then catches up
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
		b.w.hint.events += 3 * polls
		b.w.hint.notes += 3 * polls
		n := min(g.rounds*len(g.topic.Parts), records)
		g.hist.Reads = slices.Grow(g.hist.Reads, n)
		g.hist.Commits = slices.Grow(g.hist.Commits, n)
	}
	if l.ticking && len(b.w.q) > 0 {
		start := b.w.q[0].at
		b.w.schedule(start-start%vtime.Time(vtime.Second), b.w.tick)
	}
}

// groupArg reads the command's first word as the name of a declared consumer group.
func (b *builder) groupArg(c scenario.Command) (*groupState, []scenario.Arg, error) {
	n, rest, err := b.name(c, "a consumer group")
	if err != nil {
		return nil, nil, err
	}
	g, err := known(b.logMaps().groups, n, "group", "group %s topic=TOPIC")
	return g, rest, err
}
