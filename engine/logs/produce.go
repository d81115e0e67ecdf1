package logs

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
)

// capture publishes committed source transactions to a topic: change data
// capture from the log (cdc), or the application itself after its commit
// (publish), with or without an outbox.
type capture struct {
	name    string
	table   string
	topic   *TopicHistory
	app     bool           // publish: the application sends after committing
	outbox  bool           // publish through an outbox row committed with the change
	delay   vtime.Duration // publish: how long after the commit the send happens
	crashes []vtime.Time   // publish: when the application crashed

	// cdc: the connector's saved position and its restarts. It saves the
	// position it has published through every flush of virtual time, on
	// the clock's multiples of it (Kafka Connect's offset.flush.interval.ms),
	// and a restart resumes from the last position saved.
	flush     vtime.Duration
	restarts  int         // crash lines naming this connector: sent is kept only when one does
	sent      []published // published after the last flush instant, oldest first
	down      bool        // crashed and not yet restarted
	pending   []published // committed while down, in commit order
	replay    []published // after a restart: what it has still to publish, in commit order
	savedLSN  mvcc.LSN    // the newest position saved (0: none yet), as of the last publish or crash
	crashedAt vtime.Time
}

// published is a committed transaction's changes as a capture hands them
// to its topic.
type published struct {
	txn      string
	lsn      mvcc.LSN
	at       vtime.Time // when it was published
	commitAt vtime.Time
	vs       []*mvcc.Version
	again    bool // a restart publishes it a second time
}

// producer is an application sending events of its own.
//
// Invariant: seq[p] is the sequence number the next new send to partition p
// gets (0 past the end of seq).
type producer struct {
	name        string
	topic       *TopicHistory
	idempotent  bool
	acks        string
	clock       *engine.Clock
	skew        vtime.Duration // steps of its own clock (FaultProducerClock), on top of clock's reading
	pid         int32
	seq         []int32
	sticky      int // partition keyless records stick to, or -1
	stickyN     int // partition count when sticky was chosen
	ids         int
	numbered    []int32          // 1 + the core's id of each key that is a whole number n up to maxNumbered (as traffic's are), at n-1; 0: not sent yet
	maxNumbered int              // the largest key its traffic lines can name
	unique      int              // keys its keys=unique traffic has used: the next is unique+1
	named       map[string]int32 // the core's id of every other key it has sent
	tableID     int16            // index of its name among the trace's table names, for the versions it means to send
	ref         int32            // index of the producer's name in its topic's Names, or -1 before its first send
	traffic     int              // records its traffic lines will send, to size the trace
	target      *sink.Table      // the target its events reach, once resolved
	resolved    bool
	pinned      int            // the partition every record goes to (partition=), or -1 for the partitioner
	refresh     vtime.Duration // how long after its topic grows the producer learns of it (refresh=, Kafka's metadata.max.age.ms at worst); 0: at once
	stale       int            // the partition count the producer still places by until it refreshes, or 0 when it knows the topic's own
	offline     []offline      // when it is cut off, in the order the lines gave them
	kept        int            // events kept while offline, still to send
	schema      uint8          // the schema version its records are written with, less one (see schema.go)
}

// keyNumber returns n when key is the decimal spelling of a whole number n
// in [1, max] (no sign, no leading zero), else 0.
func keyNumber(key string, max int) int {
	if len(key) == 0 || len(key) > 9 || key[0] == '0' {
		return 0
	}
	n := 0
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	if n > max {
		return 0
	}
	return n
}

// keyOf returns the core's id for a key a producer sends, given by its text
// or, when num is not 0, by its number, finding it by number when it has one
// so that a large traffic line neither hashes nor spells its keys.
func (l *world) keyOf(p *producer, key string, num int) int32 {
	if num == 0 {
		num = keyNumber(key, p.maxNumbered)
	}
	if num == 0 {
		if id, ok := p.named[key]; ok {
			return id
		}
		if p.named == nil {
			p.named = map[string]int32{}
		}
		id := l.w.KeyID(p.target, key)
		p.named[key] = id
		return id
	}
	if num > len(p.numbered) {
		p.numbered = append(p.numbered, make([]int32, num-len(p.numbered))...)
	}
	if id := p.numbered[num-1]; id > 0 {
		return id - 1
	}
	if key == "" {
		key = strconv.Itoa(num)
	}
	id := l.w.KeyID(p.target, key)
	p.numbered[num-1] = id + 1
	return id
}

// nextSeq returns the sequence number of the next new send to partition part.
func (p *producer) nextSeq(part int) int32 {
	for len(p.seq) <= part {
		p.seq = append(p.seq, 0)
	}
	p.seq[part]++
	return p.seq[part] - 1
}

// logNote points a bulk event at the records of the trace it is about, so
// that its sentence is written only when someone reads it (see
// Trace.Narration) rather than formatted for every event of a large run.
// A send needs no note: its event names its record (see sendRef).
//
// For notePoll and noteWrite, a is the group and i the first of n
// consecutive entries of its Reads (one poll's ranges); for noteWrite, c is
// how many rows the merge absorbed. For the commit notes, a is the group
// and i the first of n consecutive entries of its Commits, and b how many
// records the batch holds.
type logNote struct {
	_       nocmp.NoCompare
	i       int64
	a, b, c int32
	n       int32
	why     noteKind
}

// noteKind is what a logNote's event is: a poll, a write, or a commit and
// when the commit runs (its cause, which commitWhen words).
type noteKind uint8

const (
	notePoll noteKind = iota
	noteWrite
	noteCommitAfter  // committed after writing the batch
	noteCommitBefore // committed before writing the batch
	noteCommitReset  // committed where an offset reset left the position
)

// sendRef is what a send's event holds besides its record's offset: the
// topic's index and the partition, in one number (a topic has at most
// maxPartitions partitions).
func sendRef(topic int32, part int) int32 { return topic*maxPartitions + int32(part) }

// emitNote appends a bulk event by actor a (see engine.World.ActorID),
// narrated later from its note.
func (l *world) emitNote(a int32, kind engine.Kind, n logNote) {
	l.t.notes = append(l.t.notes, n)
	l.w.EmitLater(l.by, kind, a, int32(len(l.t.notes)-1))
}

// place picks the partition for a record of the key with id: murmur2 of the
// key for a keyed record, the sticky partition for a keyless one.
func (l *world) place(p *producer, id int32, keyed bool) int {
	n := len(p.topic.Parts)
	if p.stale > 0 {
		n = p.stale // it has not refreshed its metadata since the topic grew
	}
	if p.pinned >= 0 {
		return p.pinned // a producer that names its partition, as Kafka allows, overrides the partitioner
	}
	if keyed {
		return int(l.hashOf(id) % int32(n))
	}
	if p.sticky < 0 || p.stickyN != n {
		p.sticky, p.stickyN = l.w.Rand().IntN(n), n
	}
	return p.sticky
}

func (l *world) topicIndex(h *TopicHistory) int32 {
	for i, x := range l.t.Topics {
		if x == h {
			return int32(i)
		}
	}
	return -1
}

// srcRef is what a record or a row says of the source row src it copies,
// whose key has the id key: 0 when src is the key's own id, else 1 + src.
func srcRef(key, src int32) int32 {
	if src == key {
		return 0
	}
	return src + 1
}

// intend records an event the application means to deliver exactly once,
// for the key with id: the truth the target is compared with. The event is
// the next version of the producers' row of the key, a row of its own when
// a source table has a row with that key too (a table a stream looks values
// up in), so that the table's versions never number the events. It returns
// that row's id, the version and the event's index among the trace's
// versions.
func (l *world) intend(p *producer, id int32, happened vtime.Time) (row, seq, intent int32) {
	if !l.hasEvents {
		l.events, l.hasEvents = p.tableID, true
	}
	row = l.w.RowID(id, l.events)
	seq = l.w.SourceVersion(row) + 1
	op := mvcc.Insert
	if seq > 1 {
		op = mvcc.Update
	}
	step := l.w.NextStep()
	intent = l.w.AddVersion(engine.VersionRecord{TableID: p.tableID, KeyID: row, Op: op, Seq: seq, UpdatedAt: happened, CommitStep: int32(step)})
	l.w.SetSourceVersion(p.target, row, seq)
	return row, seq, intent
}

// sendPlan is one produce line.
type sendPlan struct {
	_       nocmp.NoCompare
	key     string
	num     int // the key as a number, for a traffic line; 0 when key gives it
	keyed   bool
	id      string
	fail    string // none, timeout, lost
	retry   string // none, broker, app, session
	regenID bool
	// When the event happened (its event time): at happened when hasTime,
	// else lag before the producer clock's reading when it is made.
	happened vtime.Time
	hasTime  bool
	lag      vtime.Duration
	amount   int64 // the value its payload carries
	// retryAfter is how long after the failed send an app or session
	// retry happens; 0: at once.
	retryAfter vtime.Duration
}

func (l *world) nextID(p *producer) string {
	p.ids++
	return p.name + "-" + strconv.Itoa(p.ids)
}

// send is one produce: the intended event, the first attempt and any retry.
// A producer that is offline keeps the event for later, or never makes it.
func (l *world) send(p *producer, s sendPlan) {
	if !s.hasTime {
		s.happened, s.hasTime = p.read(l.w.Now()).Add(-s.lag), true
	}
	if l.heldBack(p, s) {
		return
	}
	l.w.Charge(1) // the record
	var num int32
	if s.id == "" {
		p.ids++
		num = int32(p.ids)
	}
	if !s.keyed {
		// A record without a key is an event of its own: its business key is
		// its id, the one given or the producer's running name for it, which a
		// resend keeps even when the resent record's id is regenerated.
		s.key = s.id
		if s.key == "" {
			s.key = p.name + "-" + strconv.Itoa(int(num))
		}
	}
	if !p.resolved {
		p.target, p.resolved = l.w.RouteOf(p.name), true
		p.ref = p.topic.NameRef(p.name)
		p.tableID = l.w.TableID(p.name)
	}
	// A key's events are one source row whichever producer sends them:
	// each is the key's next version.
	id := l.keyOf(p, s.key, s.num)
	row, seq, intent := l.intend(p, id, s.happened)
	part := l.place(p, id, s.keyed)
	now := p.read(l.w.Now())
	rec := attempt{Record: topic.Record{KeyID: id, Src: srcRef(id, row), Keyed: s.keyed, Time: now, UpdatedAt: s.happened, Amount: s.amount, Seq: seq,
		EventRef: p.topic.EventRefOf(s.id), Num: num, ProducerRef: p.ref, Intent: intent, Step: int32(l.w.NextStep()), Schema: p.schema},
		pid: p.pid, pseq: p.nextSeq(part)}
	if s.fail == "none" && s.keyed {
		// The bulk of a large run: narrated on demand from the record.
		// The event names the record itself, by topic, partition and
		// offset, rather than a note: a large run sends a million.
		off, _ := p.append(part, rec)
		l.w.EmitLater(l.by, engine.KindProduce, sendRef(l.topicIndex(p.topic), part), int32(off))
		return
	}
	s.key = l.w.KeyText(id)
	l.sendSlow(p, s, rec, part)
}

// attempt is one try at sending a record: the record, and the producer id
// and sequence number the broker knows the try by.
type attempt struct {
	_ nocmp.NoCompare
	topic.Record
	pid, pseq int32
}

// append sends rec to partition part of p's topic, as topic.Topic.Append does.
func (p *producer) append(part int, rec attempt) (offset int64, dup bool) {
	return p.topic.Append(part, rec.Record, rec.pid, rec.pseq, p.idempotent)
}

// sendSlow is a send narrated at once: a keyless one, or one that fails.
func (l *world) sendSlow(p *producer, s sendPlan, rec attempt, part int) {
	pname := p.topic.Name + "-" + strconv.Itoa(part)
	what, tag := keyPhrase(l.w.Trace(), p.name, s.key), " (event "+p.topic.ID(&rec.Record)+")"
	where := prose.F("murmur2 of key %s places it on %s", s.key, pname)
	switch {
	case p.pinned >= 0:
		where = prose.F("it goes to %s, the partition %s is pinned to", pname, p.name)
		if !s.keyed {
			what, tag = "event "+s.key, ""
		}
	case !s.keyed:
		what, tag = "event "+s.key, "" // its id is all that names it
		where = prose.F("it is sent without a record key (its line has no key=), so it goes to the partition the producer sticks to, %s", pname)
	}
	switch {
	case s.fail == "none":
		off, _ := p.append(part, rec)
		l.w.Emit(p.name, engine.KindProduce, -1, "%s sends %s%s; %s; the broker appends it at offset %d and acks.", p.name, what, tag, where, off)
		return
	case p.acks == "0":
		if s.fail == "timeout" {
			off, _ := p.append(part, rec)
			l.w.Emit(p.name, engine.KindProduce, -1, "%s sends %s%s with acks=0; %s; it lands at offset %d, and the producer never waits to hear so.", p.name, what, tag, where, off)
			return
		}
		l.w.Emit(p.name, engine.KindLost, -1, "%s sends %s%s with acks=0 and the request is lost on the way; with no acknowledgement expected, nobody retries and the event is gone.", p.name, what, tag)
		return
	case s.fail == "lost":
		l.w.Emit(p.name, engine.KindLost, -1, "%s sends %s%s for %s and the request is lost before the broker sees it; the send times out.", p.name, what, tag, pname)
	default:
		off, _ := p.append(part, rec)
		l.w.Emit(p.name, engine.KindProduce, -1, "%s sends %s%s; %s; the broker appends it at offset %d but the acknowledgement is lost, so the send times out and %s cannot tell whether it landed.", p.name, what, tag, where, off, p.name)
	}
	if s.retryAfter > 0 {
		// The application retries later, from a queue of failed sends.
		l.w.Schedule(l.w.Now().Add(s.retryAfter), func() { l.retry(p, s, rec, part, pname, what) })
		return
	}
	l.w.Then(func() { l.retry(p, s, rec, part, pname, what) })
}

// retry is what follows a failed send: nothing, the client's own retry, or
// the application's resend.
func (l *world) retry(p *producer, s sendPlan, rec attempt, part int, pname, what string) {
	rec.Step = int32(l.w.NextStep())
	switch s.retry {
	case "none":
		tail := "the event is not in the log"
		if s.fail == "timeout" {
			tail = "the event is in the log all the same, once"
		}
		l.w.Emit(p.name, engine.KindProduce, -1, "%s gives up and reports the send as failed; %s.", p.name, tail)
	case "client":
		off, dup := p.append(part, rec)
		switch {
		case dup:
			l.w.Emit(p.name, engine.KindProduce, -1, "%s's client retries the same batch (producer id %d, sequence %d); the broker, which tracks an idempotent producer's sequences, has already appended that one on %s and drops the copy: one event, acked.", p.name, rec.pid, rec.pseq, pname)
		case s.fail == "timeout":
			l.w.Emit(p.name, engine.KindProduce, -1, "%s's client retries the same batch; without idempotence the broker cannot recognise it and appends it again at offset %d: %s is in the log twice.", p.name, off, what)
		default:
			l.w.Emit(p.name, engine.KindProduce, -1, "%s's client retries the batch and the broker appends it at offset %d; the first attempt never arrived, so this is the only copy.", p.name, off)
		}
	case "app", "session":
		why := "the application catches the timeout and sends the event again as a new record with a new sequence number, so even with idempotence on, the broker sees a new write"
		if s.retry == "session" {
			p.pid = l.newPID()
			p.seq = p.seq[:0]
			why = "the application restarts its producer and sends the event again; without idempotence nothing links the resend to the first attempt"
			if p.idempotent {
				why = prose.F("the application restarts its producer, which gets producer id %d and starts its sequences again; the broker cannot link the resend to the first attempt", p.pid)
			}
		}
		if s.retryAfter > 0 {
			why = prose.F("%s after the timeout, from its queue of failed sends, %s", s.retryAfter, strings.TrimPrefix(why, "the application catches the timeout and "))
		}
		rec.pid, rec.pseq = p.pid, p.nextSeq(part)
		if s.regenID {
			id := l.nextID(p)
			rec.EventRef = p.topic.EventRefOf(id)
			why += prose.F(", and the event is built afresh with id %s", id)
		}
		part2 := l.place(p, rec.KeyID, s.keyed)
		off, _ := p.append(part2, rec)
		dup := "twice"
		if s.fail == "lost" {
			dup = "once, as intended"
		}
		l.w.Emit(p.name, engine.KindProduce, -1, "%s resends %s: %s; it lands at offset %d on %s-%d, and the event is in the log %s.", p.name, what, why, off, p.topic.Name, part2, dup)
	}
}

func (l *world) newPID() int32 {
	l.nextPID++
	return l.nextPID
}

// tick is the log's housekeeping, once a second of virtual time while the
// world has anything else to do: retention, then auto-commit timers.
func (l *world) tick() {
	// Asked first: a timer this tick queues for an instant before the
	// next one must not keep the ticking alive on its own.
	_, more := l.w.NextAt()
	for _, h := range l.t.Topics {
		l.w.Then(func() { l.expire(h) })
	}
	for _, name := range l.groupOrd {
		g := l.groups[name]
		if g.commit != "auto" || g.autoPoll {
			// auto-commit=poll commits inside the member's next poll (the
			// Java consumer), never on a timer, even when the log ticks
			// for a topic's retention or another group's timer.
			continue
		}
		for _, m := range g.g.Members {
			// A timer due before the next tick fires at its own instant: a
			// member that joined or restarted between two ticks keeps the
			// phase of its start.
			if mm := g.members[m]; mm != nil && mm.nextAuto > l.w.Now() && mm.nextAuto < l.w.Now().Add(vtime.Second) {
				l.w.Schedule(mm.nextAuto, func() { l.autoCommit(g, m) })
				continue
			}
			l.w.Then(func() { l.autoCommit(g, m) })
		}
	}
	if more {
		l.w.Schedule(l.w.Now().Add(vtime.Second), l.tick)
		l.w.Expect(-1, 0, 0) // the tick itself emits no event
	}
}

func (l *world) expire(h *TopicHistory) {
	step := int32(l.w.NextStep())
	gone := h.Expire(l.w.Now(), step)
	if len(gone) == 0 {
		return
	}
	var parts []string
	for _, d := range gone {
		s := d.Segment
		pname := prose.F("%s-%d", h.Name, d.Partition)
		txt := prose.F("%s %s (newest record %s)", pname, offsets(s.Base, s.End), s.Newest)
		for _, name := range l.groupOrd {
			g := l.groups[name]
			if g.topic != h {
				continue
			}
			pos := g.readFrom(d.Partition)
			if pos < s.End {
				n := int(s.End - max(pos, s.Base))
				txt += prose.F(", of which %s %s never read by %s", offsets(max(pos, s.Base), s.End), prose.WereWas(n), g.name)
			}
		}
		parts = append(parts, txt)
	}
	l.w.Emit("broker", engine.KindRetention, -1, "Retention (%s) deletes whole segments whose newest record is older than that: %s; each log start moves past them.", h.Retention, strings.Join(parts, "; "))
}

// offsets names the offsets [a, b): "offset 3", "offsets 3–5".
func offsets(a, b int64) string {
	if b-a == 1 {
		return "offset " + strconv.FormatInt(a, 10)
	}
	return prose.F("offsets %d–%d", a, b-1)
}

// addPartitions grows a topic; groups on it rebalance after their refresh.
func (l *world) addPartitions(h *TopicHistory, n int) {
	before := len(h.Parts)
	if n <= before {
		l.w.Emit("operator", engine.KindRebalance, -1, "An operator asks for %s on %s, which already has %d; partitions can only be added, so nothing changes.", prose.Count(n, "partition", "partitions"), h.Name, before)
		return
	}
	h.Grow(n)
	h.Counts = append(h.Counts, CountPoint{Step: int32(l.w.NextStep()), N: n})
	// Producers that refresh later place by the count they know until then.
	var later []string
	others := false // a producer or a capture on h that learns at once
	for _, c := range l.captures {
		others = others || c.topic == h
	}
	for _, name := range l.prodOrd {
		switch p := l.producers[name]; {
		case p.topic != h:
		case p.refresh == 0:
			others = true
		default:
			if p.stale == 0 {
				p.stale = before
			}
			later = append(later, prose.F("%s after %s", p.name, p.refresh))
			l.w.Schedule(l.w.Now().Add(p.refresh), func() { l.refreshProducer(p) })
		}
	}
	when := "here at once"
	switch {
	case len(later) > 0 && others:
		when = prose.F("%s; any other at once", strings.Join(later, ", "))
	case len(later) > 0:
		when = strings.Join(later, ", ")
	}
	step := l.w.NextStep()
	l.w.Emit("operator", engine.KindRebalance, -1, "An operator raises %s from %d to %d partitions; no record moves, but once producers refresh their metadata (%s) murmur2(key) mod %d places keys, so many keys' next events land on a different partition than their history.", h.Name, before, n, when, n)
	for _, name := range l.groupOrd {
		g := l.groups[name]
		if g.topic == h {
			g.g.Resize(n)
			if len(g.hist.Assignments) > 0 {
				g.noteAssignment(step) // the new partitions wait for the group to notice them
			}
			// A Kafka group notices at its leader's next metadata refresh;
			// refresh=0s, the default, is the luckiest phase, and says so.
			why := prose.F("%s notices %s now has %d partitions at once here, where a Kafka group's leader notices at its next metadata refresh (metadata.max.age.ms, up to 5m later by default)", g.name, h.Name, n)
			if g.refresh > 0 {
				why = prose.F("%s's leader refreshes its metadata %s after the change and notices %s now has %d partitions", g.name, g.refresh, h.Name, n)
			}
			l.w.Schedule(l.w.Now().Add(g.refresh), func() { l.requestRebalance(g, why) })
		}
	}
}

// refreshProducer is producer p's metadata refresh after its topic grew:
// from now on it places records by the topic's partition count. A refresh
// that finds it already knows the count (a second growth refreshed by the
// first's) says nothing.
func (l *world) refreshProducer(p *producer) {
	if p.stale == 0 {
		return
	}
	n := len(p.topic.Parts)
	l.w.Emit(p.name, engine.KindRebalance, -1, "%s refreshes its metadata and learns %s has %d partitions, not %d: from now on murmur2(key) mod %d places its keyed records.", p.name, p.topic.Name, n, p.stale, n)
	p.stale = 0
}

func keysOf(vs []*mvcc.Version) []string {
	keys := make([]string, len(vs))
	for i, v := range vs {
		keys[i] = v.Key
	}
	return keys
}
