package stream

import (
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// This file is the run loop of docs/architecture.md ("The stream world"):
// what happens when a record is appended to a topic a stream reads, when
// the stream reads it, when its watermark ticks, and what its windows and
// joins do then. At one instant a stream does, in this order: the work a
// watermark that moved left for its operators, its processing-time windows
// that are due, the records that arrive (partition by partition in
// ascending order, each partition's in offset order), then its tick. Each
// is a step of its own, queued with Then, so that nothing else happens in
// between.

// topicState is one topic as the streams reading it see it.
//
// Invariant: appendAt[p][off] is the true time offset off of partition p
// was appended; seen has bit i set once intended event i is in the truth.
type topicState struct {
	s        *world
	h        *logs.TopicHistory
	idx      int
	appendAt [][]vtime.Time
	streams  []*stream
	seen     []uint64
}

// appended is the log's hook: a record was appended to partition p.
func (ts *topicState) appended(p int, off int64) {
	for len(ts.appendAt) <= p {
		ts.appendAt = append(ts.appendAt, nil)
	}
	ts.appendAt[p] = append(ts.appendAt[p], ts.s.w.Now())
	rec := &ts.h.Parts[p].Records[off]
	first := ts.first(rec)
	for _, st := range ts.streams {
		st.grow()
		st.unread[p/64] |= 1 << (p % 64)
		if first {
			st.truthRecord(rec, p, off)
		}
		if st.fromStart {
			st.lagFrom(p, ts.h.Parts[p].Start())
		} else {
			st.behind[p]++
			st.lagSum++
			st.noteLag(p)
		}
		st.armFor(p)
	}
	ts.s.job.touch()
}

// first reports whether rec is the first record of the event it carries to
// reach the topic: a retried or resent event counts once in the truth.
func (ts *topicState) first(rec *topic.Record) bool {
	if rec.Intent < 0 {
		return true
	}
	i := int(rec.Intent)
	for len(ts.seen) <= i/64 {
		ts.seen = append(ts.seen, 0)
	}
	if ts.seen[i/64]&(1<<(i%64)) != 0 {
		return false
	}
	ts.seen[i/64] |= 1 << (i % 64)
	return true
}

// slow is a stall or a delay of one partition's reads.
type slow struct {
	_           nocmp.NoCompare
	part        int
	from, until vtime.Time
	stall       bool           // nothing is read in [from, until); what comes due is read at until
	by          vtime.Duration // a delay: records appended in [from, until) are read this much later
}

// consumer is a window, an aggregate, a sink, or one side of a join
// reading a stream.
type consumer struct {
	_    nocmp.NoCompare
	win  *windowOp
	join *joinOp
	side join.Side
	agg  *aggOp
	snk  *sinkOp
}

// op is the operator the consumer is.
func (c consumer) op() operator {
	switch {
	case c.win != nil:
		return c.win
	case c.agg != nil:
		return c.agg
	case c.snk != nil:
		return c.snk
	}
	return c.join
}

// stream is the stream the consumer reads.
func (c consumer) stream() *stream {
	switch {
	case c.win != nil:
		return c.win.st
	case c.agg != nil:
		return c.agg.st
	case c.snk != nil:
		return c.snk.st
	}
	return c.join.sides[c.side]
}

// take processes a record of a window, an aggregate or a sink at
// processing time ptime, and reports whether a sink's dedup dropped it.
func (c consumer) take(s *world, r window.Record, ptime vtime.Time, ai int32, replay bool) (dup bool) {
	switch {
	case c.win != nil:
		c.win.add(s, r, ptime, ai)
	case c.agg != nil:
		c.agg.take(s, r, ptime, replay)
	case c.snk != nil:
		rec, _ := s.t.Record(r.ID)
		if dup = c.snk.take(s, r, rec, ptime, replay); dup {
			j := s.jobHist()
			j.Dups = append(j.Dups, ShedPoint{Step: int32(s.w.NextStep()), Arrival: ai, Op: c.snk.oi})
		}
	}
	return dup
}

// partState is where a stream is in one partition.
type partState struct {
	next   int64      // the next offset to read
	lastAt vtime.Time // when the last record was read: arrivals never go back
}

// advance is work a watermark left for one consumer of a stream: advance
// it, and emit what it fires or releases.
type advance struct {
	_   nocmp.NoCompare
	c   consumer
	end bool // the input ended
}

// stream is a source operator over one topic with its stateless steps.
//
// Invariants: len(parts) == src.Partitions() == len(shownWM); queued
// holds the true times of the stream's entries on the event queue, in
// ascending order; ticking says tickAt is a tick still to come.
type stream struct {
	s         *world
	name      string
	idx       int
	topic     *topicState
	stamp     bool // event-time=timestamp: the record's timestamp, not its payload's time
	lag       vtime.Duration
	clock     *engine.Clock
	wm        watermark.Config
	wmLine    scenario.Pos // where its watermark line is; Line 0 before one
	keyLine   scenario.Pos // where its key-by line is; Line 0 before one
	src       *watermark.Source
	flt       filter
	shift     vtime.Duration
	scale     int64
	keyed     bool
	keyOf     []int32 // by the core's key id: 1 + the id in keys, 0 before the stream sees it
	keys      *keySpace
	consumers []consumer
	slows     []slow
	parts     []partState
	queued    []vtime.Time
	tickAt    vtime.Time // the next tick, in processing time
	lastTick  vtime.Time
	ticking   bool
	cur       int      // the partition the reads of this instant have reached
	unread    []uint64 // bit p is set while partition p has records appended and not read
	jobs      []advance
	hist      *StreamHistory
	shownWM   []vtime.Time // each partition's watermark as last recorded
	shownIdle []bool
	lastWM    vtime.Time // the stream's watermark as last recorded
	lastIdle  bool
	ended     bool
	chainFn   func()
	// The second part: readers with a cost per record, where to resume
	// when a position is gone, replays, lag, and the end of input.
	par      int
	cost     vtime.Duration // what a record costs a reader now
	baseCost vtime.Duration // what the line set
	slowTo   vtime.Time     // when a slow fault ends
	busy     []vtime.Time   // by reader: when it is free
	reset    checkpoint.Reset
	hw       []int64 // by partition: the furthest position reached; a read below it is a replay
	behind   []int64 // by partition: records appended and not read (while the job is down, not committed; see lagFromCommitted)
	// fromStart: the job is down and no checkpoint committed offsets, so
	// each partition's lag counts from its log start, which retention
	// moves; an append counts it again rather than add one.
	fromStart   bool
	peak        []int64
	lagSum      int64
	peakSum     int64
	buffered    bool // a consumer has an input buffer
	ending      bool // the input has ended: the stream ends once it has read everything
	enderQueued bool
}

// strategy is the stream's watermark strategy as each of its readers runs
// it: under per-source scope, one generator per reader.
func (st *stream) strategy() watermark.Config {
	cfg := st.wm
	cfg.Readers = st.par
	return cfg
}

// start readies the stream before the first event.
func (st *stream) start() error {
	n := len(st.topic.h.Parts)
	var err error
	if st.src, err = watermark.New(st.strategy(), n); err != nil {
		return err
	}
	st.hist.Config = st.wm
	st.hist.Keyed, st.hist.Shift, st.hist.Scale = st.keyed, st.shift, st.scale
	st.hist.filter, st.hist.stamp = st.flt, st.stamp
	st.lastWM, st.lastTick = watermark.None, watermark.None
	st.chainFn = st.chain
	if st.keys == nil {
		st.keys = &keySpace{members: []*stream{st}}
	}
	if st.keys.byText == nil {
		st.keys.byText = map[string]int32{}
	}
	if !st.keyed {
		st.hist.Keys = []string{""}
	}
	st.hist.Parallelism, st.hist.Cost, st.hist.Reset = st.par, st.baseCost, st.reset.String()
	st.cost = st.baseCost
	st.busy = make([]vtime.Time, st.par)
	for _, c := range st.consumers {
		if c.join == nil && c.op().base().in != nil {
			st.buffered = true
		}
	}
	st.grow()
	if st.wm.Idleness > 0 {
		// Idleness is judged at ticks from the moment the job starts, so a
		// partition that never produces turns idle too.
		if at, ok := st.s.w.NextAt(); ok {
			st.ticking = true
			st.tickAt = st.nextTick(st.clock.Read(at))
			st.arm()
		}
	}
	return nil
}

// grow follows the topic's partition count.
func (st *stream) grow() {
	n := len(st.topic.h.Parts)
	if len(st.parts) >= n {
		return
	}
	if st.src != nil {
		st.src.Grow(n)
	}
	for len(st.unread)*64 < n {
		st.unread = append(st.unread, 0)
	}
	for len(st.parts) < n {
		st.parts = append(st.parts, partState{lastAt: math.MinInt64})
		st.shownWM = append(st.shownWM, watermark.None)
		st.shownIdle = append(st.shownIdle, false)
		st.hist.Parts = append(st.hist.Parts, PartHistory{})
		st.hw = append(st.hw, 0)
		st.behind = append(st.behind, 0)
		st.peak = append(st.peak, 0)
	}
}

// lagFrom makes partition p's lag the records appended from offset off on
// (the log end less off), noting a new peak, and returns the log end.
func (st *stream) lagFrom(p int, off int64) (end int64) {
	if p < len(st.topic.appendAt) {
		end = int64(len(st.topic.appendAt[p]))
	}
	st.lagSum += end - off - st.behind[p]
	st.behind[p] = end - off
	st.noteLag(p)
	return end
}

// noteLag records a new peak of partition p's lag, or of their sum.
func (st *stream) noteLag(p int) {
	step := int32(st.s.w.NextStep())
	if l := st.behind[p]; l > st.peak[p] {
		st.peak[p] = l
		ph := &st.hist.Parts[p]
		ph.Peaks = append(ph.Peaks, CountPoint{Step: step, N: int32(min(l, 1<<31-1))})
	}
	if st.lagSum > st.peakSum {
		st.peakSum = st.lagSum
		avg := float64(st.lagSum) / float64(len(st.parts))
		st.hist.AvgPeaks = append(st.hist.AvgPeaks, AvgPoint{Step: step, Avg: avg})
	}
}

// blocked reports whether a buffer with flow control is full: the stream
// reads nothing until there is room.
func (st *stream) blocked() bool {
	if !st.buffered {
		return false
	}
	for _, c := range st.consumers {
		if c.join == nil {
			if in := c.op().base().in; in != nil && in.blocks() {
				return true
			}
		}
	}
	return false
}

// costNow is what a record costs a reader at true time at.
func (st *stream) costNow(at vtime.Time) vtime.Duration {
	if st.slowTo > 0 && at >= st.slowTo {
		st.cost, st.slowTo = st.baseCost, 0
		st.hist.Costs = append(st.hist.Costs, CostPoint{Step: int32(st.s.w.NextStep()), Cost: st.cost})
	}
	return st.cost
}

// nextTick is the first tick at or after processing time p, aligned to the
// interval, after the last tick.
func (st *stream) nextTick(p vtime.Time) vtime.Time {
	iv := vtime.Time(st.wm.Interval)
	t := p - p%iv
	if p%iv < 0 {
		t -= iv
	}
	if t < p {
		t += iv
	}
	if st.lastTick != watermark.None && t <= st.lastTick {
		t = st.lastTick + iv
	}
	return t
}

// trueTime is the true time at which the stream's clock reads p.
func (st *stream) trueTime(p vtime.Time) vtime.Time { return p.Add(-st.clock.Skew) }

// baseArrival is when offset off of partition p is there to be read: its
// append plus the lag and any delay.
func (st *stream) baseArrival(p int, off int64) vtime.Time {
	appended := st.topic.appendAt[p][off]
	at := appended.Add(st.lag)
	for i := range st.slows {
		if sl := &st.slows[i]; sl.part == p && !sl.stall && appended >= sl.from && appended < sl.until {
			at = at.Add(sl.by)
		}
	}
	return at
}

// arrival is when the stream reads offset off of partition p: when it is
// there to be read, never before the partition's last read nor before its
// reader is free, and not inside a stall.
func (st *stream) arrival(p int, off int64) vtime.Time {
	at := max(st.baseArrival(p, off), st.parts[p].lastAt)
	if st.cost > 0 {
		at = max(at, st.busy[p%st.par])
	}
	for moved := true; moved; {
		moved = false
		for i := range st.slows {
			if sl := &st.slows[i]; sl.part == p && sl.stall && at >= sl.from && at < sl.until {
				at, moved = sl.until, true
			}
		}
	}
	return at
}

// due is when partition p's next record arrives, and false when every
// record appended so far has been read.
func (st *stream) due(p int) (vtime.Time, bool) {
	if !st.s.job.up() || st.buffered && st.blocked() {
		return 0, false
	}
	off := st.parts[p].next
	if p >= len(st.topic.appendAt) || off >= int64(len(st.topic.appendAt[p])) {
		return 0, false
	}
	return st.arrival(p, off), true
}

// nextUnread is the first partition at or after p with records not read
// yet, or -1.
func (st *stream) nextUnread(p int) int {
	for w := p / 64; w < len(st.unread); w++ {
		word := st.unread[w]
		if w == p/64 {
			word &^= 1<<(p%64) - 1
		}
		if word != 0 {
			return w*64 + bits.TrailingZeros64(word)
		}
	}
	return -1
}

// nextAt is the true time of the stream's next piece of work, and false when it has none.
func (st *stream) nextAt() (vtime.Time, bool) {
	at, ok := vtime.Time(math.MaxInt64), false
	for p := st.nextUnread(0); p >= 0; p = st.nextUnread(p + 1) {
		if t, has := st.due(p); has && t < at {
			at, ok = t, true
		}
	}
	if st.ticking {
		if t := st.trueTime(st.tickAt); t < at {
			at, ok = t, true
		}
	}
	for _, c := range st.consumers {
		if c.win == nil || c.win.cfg.Domain != window.ProcessingTime {
			continue
		}
		if t, has := c.win.op.NextTimer(); has {
			if t := st.trueTime(t); t < at {
				at, ok = t, true
			}
		}
	}
	return at, ok
}

// arm queues the stream's reader for its next piece of work, unless an
// entry already queued comes no later.
func (st *stream) arm() {
	if st.ended || st.chainFn == nil || !st.s.job.up() {
		return
	}
	at, ok := st.nextAt()
	if !ok {
		return
	}
	st.queue(at)
}

// armFor follows an append to partition p: its next record may be due
// before anything already queued. Everything else the stream had to do was
// queued when it last armed.
func (st *stream) armFor(p int) {
	if st.ended || st.chainFn == nil {
		return
	}
	if at, ok := st.due(p); ok {
		st.queue(at)
	}
}

// queue queues the stream's reader at at, unless an entry already queued
// comes no later.
func (st *stream) queue(at vtime.Time) {
	at = max(at, st.s.w.Now())
	if len(st.queued) > 0 && st.queued[0] <= at {
		return
	}
	// Entries only ever join at the front: keep the buffer, shift by one.
	st.queued = append(st.queued, 0)
	copy(st.queued[1:], st.queued)
	st.queued[0] = at
	st.s.w.ScheduleAction(at, st)
	st.s.w.Expect(-1, 0, 0) // the entry itself emits nothing: the steps it starts do
}

// rearm follows a change of the stream's slows: what was due may be due later.
func (st *stream) rearm() { st.arm() }

// Act runs one of the stream's queued entries: the work due now.
func (st *stream) Act() {
	now := st.s.w.Now()
	k := 0
	for k < len(st.queued) && st.queued[k] <= now {
		k++
	}
	st.queued = st.queued[:copy(st.queued, st.queued[k:])]
	if !st.s.job.up() {
		return // the job failed: the restart arms the stream again
	}
	st.cur = 0
	st.chain()
}

// work kinds, in the order a stream does them at one instant.
const (
	workNone = iota
	workJob
	workTimer
	workRead
	workTick
)

// next says what the stream does next at this instant.
func (st *stream) next() (kind int, arg int) {
	if len(st.jobs) > 0 {
		return workJob, 0
	}
	now := st.s.w.Now()
	ptime := st.clock.Read(now)
	for i, c := range st.consumers {
		if c.win != nil && c.win.cfg.Domain == window.ProcessingTime {
			if t, ok := c.win.op.NextTimer(); ok && t <= ptime {
				return workTimer, i
			}
		}
	}
	if st.cost > 0 {
		// Readers with a cost serve their partitions in the order their
		// records came to be read, so a busy partition does not starve
		// another of the same reader.
		best, at := -1, vtime.Time(0)
		for p := st.nextUnread(0); p >= 0; p = st.nextUnread(p + 1) {
			if t, ok := st.due(p); ok && t <= now {
				if b := st.baseArrival(p, st.parts[p].next); best < 0 || b < at {
					best, at = p, b
				}
			}
		}
		if best >= 0 {
			return workRead, best
		}
	} else {
		for st.cur = st.nextUnread(st.cur); st.cur >= 0; st.cur = st.nextUnread(st.cur + 1) {
			if t, ok := st.due(st.cur); ok && t <= now {
				return workRead, st.cur
			}
		}
	}
	st.cur = len(st.parts)
	if st.ticking && st.trueTime(st.tickAt) <= now {
		return workTick, 0
	}
	return workNone, 0
}

// chain does the stream's work at this instant, one step at a time: each
// piece of work that emits an event ends the action, and the rest follows
// with Then.
func (st *stream) chain() {
	if !st.s.job.up() {
		return
	}
	for {
		kind, arg := st.next()
		emitted := false
		switch kind {
		case workNone:
			st.arm()
			st.maybeEnd()
			return
		case workJob:
			j := st.jobs[0]
			st.jobs = st.jobs[1:]
			emitted = st.runJob(j)
		case workTimer:
			emitted = st.s.fireProcessing(st, st.consumers[arg].win)
		case workRead:
			if !st.outOfRange(arg) {
				st.read(arg)
			}
			emitted = true
		case workTick:
			emitted = st.tick()
		}
		if emitted {
			if k, _ := st.next(); k != workNone {
				st.s.w.Then(st.chainFn)
				return
			}
			st.arm()
			return
		}
		// Work that said nothing is charged, so that a loop that makes no
		// progress (a timer due that fires nothing was one) ends in the
		// budget's error rather than running forever.
		st.s.w.Charge(1)
		if st.s.w.OverBudget() {
			return
		}
	}
}

// eventTime is the event time of rec as the stream's timestamp assigner
// reads it, before any map shift.
func (st *stream) eventTime(rec *topic.Record) vtime.Time {
	if st.stamp {
		return rec.Time
	}
	return rec.UpdatedAt
}

// kept reports whether rec passes the stream's filters.
func (st *stream) kept(rec *topic.Record) bool { return st.flt.kept(st.topic.h, rec) }

// key is the stream's id for rec's key: 0 for every record when the
// stream is keyed by none, else the id of the key's text in the stream's
// key space (see keySpace).
func (st *stream) key(rec *topic.Record) int32 {
	if !st.keyed {
		return 0
	}
	id := rec.KeyID
	if int(id) < len(st.keyOf) && st.keyOf[id] > 0 {
		return st.keyOf[id] - 1
	}
	return st.newKey(id)
}

func (st *stream) newKey(id int32) int32 {
	for int(id) >= len(st.keyOf) {
		st.keyOf = append(st.keyOf, 0)
	}
	k := st.keys.id(st.s.w.KeyText(id))
	st.keyOf[id] = k + 1
	st.hist.keyOf = st.keyOf
	return k
}

// A keySpace numbers the key texts a set of keyed streams read, densely in
// the order any of them first reads one. Streams a join reads share one, so
// that the join pairs equal keys whichever stream read a key first; any
// other stream has its own.
//
// Invariant: keys[byText[k]] == k, and every member's hist.Keys is keys.
type keySpace struct {
	byText  map[string]int32
	keys    []string
	members []*stream
}

// id is the id of the key text, numbered now when no member read it before.
func (ks *keySpace) id(text string) int32 {
	if k, ok := ks.byText[text]; ok {
		return k
	}
	k := int32(len(ks.keys))
	ks.byText[text] = k
	ks.keys = append(ks.keys, text)
	for _, m := range ks.members {
		m.hist.Keys = ks.keys
	}
	return k
}

// shareKeys puts a's and b's key spaces together, before either reads.
func shareKeys(a, b *stream) {
	for _, st := range []*stream{a, b} {
		if st.keys == nil {
			st.keys = &keySpace{members: []*stream{st}}
		}
	}
	if a.keys == b.keys {
		return
	}
	into := a.keys
	for _, m := range b.keys.members {
		m.keys = into
		into.members = append(into.members, m)
	}
}

// recordID names offset off of partition p of the stream's topic in one
// number, as windows and joins carry it.
func (st *stream) recordID(p int, off int64) int64 {
	return int64(st.topic.idx)<<48 | int64(p)<<32 | off
}

// read is one arrival step: the stream reads partition p's next record,
// hands it to its windows and joins, then notes its event time for the
// watermark, which may move.
func (st *stream) read(p int) {
	s := st.s
	w := s.w
	t := s.t
	part := &st.parts[p]
	off := part.next
	part.next++
	if part.next == int64(len(st.topic.appendAt[p])) {
		st.unread[p/64] &^= 1 << (p % 64)
	}
	now := w.Now()
	part.lastAt = now
	if st.cost > 0 {
		st.busy[p%st.par] = now.Add(st.costNow(now))
	}
	rec := &st.topic.h.Parts[p].Records[off]
	step := int32(w.NextStep())
	if n := len(st.hist.Skews); n == 0 || st.hist.Skews[n-1].Skew != st.clock.Skew {
		st.hist.Skews = append(st.hist.Skews, SkewPoint{Step: step, Skew: st.clock.Skew})
	}
	ai := int32(len(t.Arrivals))
	t.Arrivals = append(t.Arrivals, Arrival{Step: step, Off: int32(off), Stream: uint16(st.idx), Part: uint16(p)})
	ph := &st.hist.Parts[p]
	// A replay reads an offset read before. One a reset jumped over (Read
	// holds minus the step it was passed at) is read for the first time
	// when a restart goes back before it, and keeps that entry.
	replay := off < st.hw[p] && ph.Read[off] > 0
	switch {
	case replay:
		t.Replays = append(t.Replays, ai)
	case off >= st.hw[p]:
		st.hw[p] = off + 1
		for int64(len(ph.Read)) < off {
			// Skipped by a reset: never read. The step it was skipped at,
			// negated, keeps the steps in order for a search (see readBy).
			ph.Read = append(ph.Read, -step)
		}
		ph.Read = append(ph.Read, step)
	}
	ph.Pos = append(ph.Pos, PosPoint{Step: step, Next: int32(off + 1)})
	st.behind[p]--
	st.lagSum--
	et := st.eventTime(rec).Add(st.shift)
	if st.hist.first == watermark.None || et < st.hist.first {
		st.hist.first = et
	}
	st.hist.last = max(st.hist.last, et)
	late, shed := len(t.Late), false
	if st.kept(rec) {
		key := st.key(rec)
		id := st.recordID(p, off)
		ptime := st.clock.Read(now)
		for _, c := range st.consumers {
			if c.join != nil {
				c.join.add(s, c.side, join.Record{ID: id, Key: key, Time: et}, rec.Amount*st.scale, ai)
				continue
			}
			r := window.Record{ID: id, Key: key, Time: et, Value: rec.Amount * st.scale}
			if in := c.op().base().in; in != nil {
				if !in.offer(r, ai, replay) {
					shed = true
				}
				continue
			}
			c.take(s, r, ptime, ai, replay)
		}
	} else {
		ph.Filtered++
	}
	var u watermark.Update
	u = st.src.Record(p, et)
	st.noted(p, u)
	if st.wm.Emission == watermark.Periodic || st.wm.Idleness > 0 {
		// The record makes the next tick count: it hands on the
		// watermark, or restarts the partition's idleness countdown.
		next := st.nextTick(st.clock.Read(now))
		if !st.ticking || next < st.tickAt {
			st.ticking, st.tickAt = true, next
		}
	}
	kind := engine.KindArrive
	switch {
	case len(t.Late) > late:
		kind = engine.KindLate
	case shed:
		kind = engine.KindShed
	}
	w.EmitLater(s.by, kind, ai, 0)
}

// outOfRange handles a read of partition p whose position retention has
// deleted meanwhile (a stream held back by a slow sink falls behind the log
// start): Kafka answers the fetch with OffsetOutOfRange and the consumer's
// auto.offset.reset decides. earliest and latest move the position to the
// log start or end, and the records jumped over are never read; none throws,
// and the source task fails, with the whole job. It reports whether it did
// either, as a step of its own; false leaves the read to read.
func (st *stream) outOfRange(p int) bool {
	s := st.s
	part := st.topic.h.Parts[p]
	off, start := st.parts[p].next, part.Start()
	if off >= start {
		return false
	}
	asks := prose.F("%s asks %s-%d for offset %d, which retention has deleted (the log now starts at %d)", st.name, st.topic.h.Name, p, off, start)
	if st.reset == checkpoint.None {
		s.job.crash(st.name, PointOutOfRange, failRestart, asks+": with auto.offset.reset=none Kafka's consumer throws OffsetOutOfRangeException and the source task fails")
		return true
	}
	r := checkpoint.Resume(off, start, part.End(), st.reset)
	st.jump(p, r.Next)
	s.w.Emit(st.name, engine.KindReset, -1, "%s: Kafka answers OffsetOutOfRange, and auto.offset.reset=%s moves the position to %d, skipping %s unread: the target does not get them from this stream.",
		asks, st.reset, r.Next, prose.Count(int(r.Skipped), "record", "records"))
	return true
}

// jump moves partition p's read position forward to next, past offsets
// that will never be read.
func (st *stream) jump(p int, next int64) {
	part := &st.parts[p]
	part.next = next
	st.hist.Parts[p].Pos = append(st.hist.Parts[p].Pos, PosPoint{Step: int32(st.s.w.NextStep()), Next: int32(next)})
	if end := st.lagFrom(p, next); next >= end {
		st.unread[p/64] &^= 1 << (p % 64)
	}
}

// tick is the periodic emission at processing time: idleness is judged and
// each generator hands on its watermark. It reports whether anything
// changed, in which case it is a step.
func (st *stream) tick() bool {
	ptime := st.clock.Read(st.s.w.Now())
	st.lastTick = st.tickAt
	u := st.src.Tick(ptime)
	first := len(st.s.t.Watermarks)
	st.noted(-1, u)
	changed := len(st.s.t.Watermarks) > first
	// The next tick that can change anything: none is needed while no
	// record arrives unless a partition may yet turn idle, and then not
	// before its countdown runs out (the ticks between would find nothing).
	st.ticking = false
	if at, ok := st.src.NextTick(st.nextTick(ptime + 1)); ok {
		st.ticking = true
		st.tickAt = st.nextTick(at)
	}
	if !changed {
		return false
	}
	st.s.emitNote(note{why: noteTick, who: int16(st.idx), i: int32(first), n: int32(len(st.s.t.Watermarks) - first)}, engine.KindWatermark)
	return true
}

// noted records what a call left the watermark at (partition p's, or
// every partition's when p is -1) and queues the work it leaves the
// stream's consumers.
func (st *stream) noted(p int, u watermark.Update) {
	t := st.s.t
	step := int32(st.s.w.NextStep())
	if st.wm.Scope == watermark.PerPartition {
		from, to := p, p+1
		if p < 0 {
			from, to = 0, len(st.parts)
		}
		for q := from; q < to; q++ {
			pw := st.src.Partition(q)
			if pw.Watermark != st.shownWM[q] || pw.Idle != st.shownIdle[q] {
				st.shownWM[q], st.shownIdle[q] = pw.Watermark, pw.Idle
				t.Watermarks = append(t.Watermarks, WatermarkPoint{Step: step, Stream: int16(st.idx), Part: int16(q), Value: pw.Watermark, Idle: pw.Idle})
			}
		}
	}
	if u.Watermark == st.lastWM && u.Idle == st.lastIdle {
		return
	}
	wasIdle := st.lastIdle
	st.lastWM, st.lastIdle = u.Watermark, u.Idle
	t.Watermarks = append(t.Watermarks, WatermarkPoint{Step: step, Stream: int16(st.idx), Part: -1, Value: u.Watermark, Idle: u.Idle})
	for _, c := range st.consumers {
		if c.agg != nil || c.snk != nil {
			continue // a watermark changes nothing for them
		}
		if c.win != nil {
			if u.Advanced && c.win.cfg.Domain == window.EventTime {
				if in := c.win.in; in != nil {
					in.push(elem{kind: elemWatermark, wm: u.Watermark})
				} else {
					st.jobs = append(st.jobs, advance{c: c})
				}
			}
			continue
		}
		// A join combines its two inputs: an idle input is left out of
		// its minimum until it reads again.
		j := c.join
		adv := false
		switch {
		case u.Idle:
			adv = j.comb.MarkIdle(int(c.side))
		case wasIdle:
			adv = j.comb.MarkActive(int(c.side))
			adv = j.comb.Emit(int(c.side), u.Watermark) || adv
		default:
			adv = j.comb.Emit(int(c.side), u.Watermark)
		}
		if adv {
			st.jobs = append(st.jobs, advance{c: c})
		}
	}
}

// runJob advances one consumer to the watermark its stream left, and
// reports whether that was a step (something fired or was released).
func (st *stream) runJob(j advance) bool {
	if j.c.win != nil {
		return st.s.fireEvent(st, j.c.win, j.end)
	}
	return st.s.release(st, j.c.join, j.end)
}

// ender is a stream's end of input, queued when the world drains.
type ender stream

func (e *ender) Act() {
	st := (*stream)(e)
	st.enderQueued = false
	if st.ended || !st.s.job.up() {
		return
	}
	st.ended = true
	s := st.s
	t := s.t
	first := len(t.Watermarks)
	step := int32(s.w.NextStep())
	t.Watermarks = append(t.Watermarks, WatermarkPoint{Step: step, Stream: int16(st.idx), Part: -1, Value: watermark.End})
	st.lastWM, st.lastIdle = watermark.End, false
	for _, c := range st.consumers {
		if c.join != nil {
			c.join.comb.Emit(int(c.side), watermark.End)
		}
		if c.agg != nil || c.snk != nil {
			continue
		}
		if in := c.op().base().in; in != nil {
			in.push(elem{kind: elemEnd})
			continue
		}
		st.jobs = append(st.jobs, advance{c: c, end: true})
	}
	s.emitNote(note{why: noteEnd, who: int16(st.idx), i: int32(first), n: 1}, engine.KindWatermark)
	if len(st.jobs) > 0 {
		s.w.Then(st.chainFn)
	}
	s.job.maybeFinal()
}

// maybeEnd queues the stream's end of input once the input has ended and
// the stream has read everything appended.
func (st *stream) maybeEnd() {
	if !st.ending || st.ended || st.enderQueued || !st.s.job.up() {
		return
	}
	for p := range st.parts {
		if p < len(st.topic.appendAt) && st.parts[p].next < int64(len(st.topic.appendAt[p])) {
			return
		}
	}
	st.enderQueued = true
	st.s.w.ScheduleAction(st.s.w.Now(), (*ender)(st))
}

// restart puts the stream back at the positions a restore resumes from,
// with new watermark generators (Flink does not checkpoint them), and
// returns how many records it will read again.
func (st *stream) restart(rs []checkpoint.Resumed) (rewound int64) {
	s := st.s
	now := s.w.Now()
	step := int32(s.w.NextStep())
	st.fromStart = false
	for p := range st.parts {
		next := int64(0)
		if p < len(rs) {
			next = rs[p].Next
		}
		part := &st.parts[p]
		ph := &st.hist.Parts[p]
		// What it reads again: the offsets from next that it had read,
		// not those a reset jumped over.
		rewound += int64(ph.readIn(next, part.next))
		part.next, part.lastAt = next, now
		ph.Pos = append(ph.Pos, PosPoint{Step: step, Next: int32(next)})
		if next < st.lagFrom(p, next) {
			st.unread[p/64] |= 1 << (p % 64)
		} else {
			st.unread[p/64] &^= 1 << (p % 64)
		}
	}
	for i := range st.busy {
		st.busy[i] = now
	}
	st.src, _ = watermark.New(st.strategy(), len(st.parts))
	st.lastWM, st.lastIdle, st.lastTick = watermark.None, false, watermark.None
	st.jobs, st.ticking, st.ended, st.enderQueued = st.jobs[:0], false, false, false
	t := s.t
	for p := range st.parts {
		st.shownWM[p], st.shownIdle[p] = watermark.None, false
		if st.wm.Scope == watermark.PerPartition {
			t.Watermarks = append(t.Watermarks, WatermarkPoint{Step: step, Stream: int16(st.idx), Part: int16(p), Value: watermark.None})
		}
	}
	t.Watermarks = append(t.Watermarks, WatermarkPoint{Step: step, Stream: int16(st.idx), Part: -1, Value: watermark.None})
	if st.wm.Idleness > 0 {
		st.ticking = true
		st.tickAt = st.nextTick(st.clock.Read(now))
	}
	return rewound
}

// --- Windows.

// resultKey names one key's window of one operator.
type resultKey struct {
	key        int32
	start, end vtime.Time
}

// result is what the truth knows of one key's window of an operator that
// writes a target, and what the target holds of it.
type result struct {
	_       nocmp.NoCompare
	rk      resultKey
	row     resultRow
	truth   window.Acc
	present bool
	has     window.Acc // what its latest row says
	n       int32      // the version (firing number) of its latest row
	seq     int32      // the source version last given to the core
	wrote   int32      // the highest firing number written: one at or below it is a replay's
}

// windowOp is one window operator.
type windowOp struct {
	opBase
	name    string
	idx     int
	st      *stream
	cfg     window.Config
	agg     window.Agg
	op      *window.Operator
	target  *sink.Table
	side    *sink.Table
	hist    *WindowHistory
	results map[resultKey]int32
	res     []result
	// sessions holds each key's truth sessions, by start, for session windows.
	sessions map[int32][]resultKey
	scratch  []window.Window
	rows     []pendingRow
	last     [][2]int32 // by key: the indexes in res of the key's latest tumbling window and one other, or -1
	keyBuf   []byte     // scratch for a row's key
}

// add hands a record to the operator at processing time ptime, and records
// what it did: a late record's fate, a window fired again at once.
func (op *windowOp) add(s *world, r window.Record, ptime vtime.Time, ai int32) {
	out := &s.wout
	out.Reset()
	if op.cfg.Assigner.Kind == window.Sliding {
		op.scratch = op.cfg.Assigner.Assign(r.Time, op.scratch[:0])
		s.w.Charge(len(op.scratch))
	} else {
		s.w.Charge(1)
	}
	op.op.Add(r, ptime, out)
	t := s.t
	step := int32(s.w.NextStep())
	for _, l := range out.Late {
		t.Late = append(t.Late, LatePoint{Step: step, Op: int16(op.idx), Arrival: ai, Fate: uint8(l.Fate), Window: l.Window,
			Watermark: l.Watermark, Lateness: l.Lateness, Key: l.Record.Key, Time: l.Record.Time, Value: l.Record.Value})
		if l.Fate == window.SideOutput && op.side != nil {
			s.sideOutput(op.side, op.st, ai, l.Record.Value)
		}
	}
	for _, m := range out.Opens {
		t.Merges = append(t.Merges, MergePoint{Step: step, Op: int16(op.idx), Key: m.Key, Into: m.Into})
	}
	for _, m := range out.Merges {
		t.Merges = append(t.Merges, MergePoint{Step: step, Op: int16(op.idx), Key: m.Key, Into: m.Into, From: len(m.From)})
	}
	if len(out.Firings) > 0 {
		op.record(s, out.Firings, step)
	}
}

// record keeps firings in the trace and writes them to the target.
func (op *windowOp) record(s *world, fs []window.Firing, step int32) {
	t := s.t
	op.rows = op.rows[:0]
	for i := range fs {
		f := &fs[i]
		fp := FiringPoint{Step: step, Op: int16(op.idx), N: f.N, Key: f.Key, Window: f.Window, Acc: f.Acc, At: f.At, Late: f.Late, From: -1}
		if f.Records != nil {
			fp.From, fp.Len = int32(len(t.contents)), int32(len(f.Records))
			t.contents = append(t.contents, f.Records...)
		}
		t.Firings = append(t.Firings, fp)
		if op.target == nil {
			continue
		}
		ri := op.resultIndex(s, resultKey{f.Key, f.Window.Start, f.Window.End})
		r := &op.res[ri]
		in := s.resultIn(r.row)
		in.Seq, in.UpdatedAt, in.Amount = int(f.N), op.st.clock.Read(s.w.Now()), op.agg.Of(f.Acc)
		s.emitted(op.oi, in, f.N > r.wrote)
		r.wrote = max(r.wrote, f.N)
		op.rows = append(op.rows, pendingRow{in: in, acc: f.Acc, ref: ri})
	}
	if len(op.rows) > 0 {
		op.out.write(slices.Clone(op.rows))
	}
	s.noteState(op)
}

// visible follows a window's row written to the target: the truth learns
// what the table holds of the window.
func (op *windowOp) visible(s *world, p *pendingRow, landed bool) {
	if !landed {
		return
	}
	r := &op.res[p.ref]
	r.present, r.has, r.n = true, p.acc, int32(p.in.Seq)
	op.settle(s, r)
}

// resultName is the key of a window's row in the target: KEY@START, or
// START alone for a stream keyed by none; a session adds its end, since
// sessions of one key can share a start.
func (op *windowOp) resultName(rk resultKey) string {
	b := op.keyBuf[:0]
	if op.st.keyed {
		b = append(append(b, op.st.hist.Keys[rk.key]...), '@')
	}
	b = appendTime(b, rk.start)
	if op.cfg.Assigner.Kind == window.Session {
		b = appendTime(append(b, '-'), rk.end)
	}
	op.keyBuf = b
	return string(b)
}

// appendTime appends t as vtime.Time.String prints it, without formatting
// through prose: a large scenario names a hundred thousand windows.
func appendTime(b []byte, t vtime.Time) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	ms := int64(t)
	two := func(b []byte, n int64) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
	h := ms / 3_600_000
	if h < 100 {
		b = two(b, h)
	} else {
		b = strconv.AppendInt(b, h, 10)
	}
	b = two(append(b, ':'), ms/60_000%60)
	b = two(append(b, ':'), ms/1000%60)
	if f := ms % 1000; f != 0 {
		b = append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
	}
	return b
}

// result returns the truth's and the target's state of one key's window,
// naming its row's key on first use.
func (op *windowOp) result(s *world, rk resultKey) *result { return &op.res[op.resultIndex(s, rk)] }

// resultIndex is the index in res of one key's window, made on first use.
func (op *windowOp) resultIndex(s *world, rk resultKey) int32 {
	if i, ok := op.results[rk]; ok {
		return i
	}
	i := int32(len(op.res))
	name := op.resultName(rk)
	row := s.targetKey(op.target, name)
	op.res = append(op.res, result{rk: rk, row: row})
	op.results[rk] = i
	op.hist.results = append(op.hist.results, ResultRef{Key: rk.key, Window: window.Window{Start: rk.start, End: rk.end}, ID: row.id, Name: name})
	return i
}

// settle tells the core what version of a window's row the truth wants:
// the one present when it says what the truth does, one after it when it
// does not, none when the window has no records at all.
func (op *windowOp) settle(s *world, r *result) {
	var want int32
	switch {
	case r.truth.Count == 0:
		want = 0
	case r.present && r.has == r.truth:
		want = r.n
	case r.present:
		want = r.n + 1
	default:
		want = 1
	}
	if want != r.seq {
		r.seq = want
		s.w.SetSourceVersion(op.target, r.row.row, want)
	}
}

// fireEvent advances an event-time window to its stream's watermark (or to
// the end of input), and makes what fires a step.
func (s *world) fireEvent(st *stream, op *windowOp, end bool) bool {
	out := &s.wout
	out.Reset()
	if end {
		op.op.AdvanceWatermark(watermark.End, out)
		op.op.AdvanceProcessingTime(vtime.Time(math.MaxInt64), out)
	} else {
		op.op.AdvanceWatermark(st.lastWM, out)
	}
	return s.fired(op, out.Firings, end)
}

// fireProcessing fires a processing-time window's timers that are due.
func (s *world) fireProcessing(st *stream, op *windowOp) bool {
	out := &s.wout
	out.Reset()
	op.op.AdvanceProcessingTime(st.clock.Read(s.w.Now()), out)
	return s.fired(op, out.Firings, false)
}

// fired makes firings a step of their own, when there are any.
func (s *world) fired(op *windowOp, fs []window.Firing, end bool) bool {
	if len(fs) == 0 {
		return false
	}
	s.w.Charge(len(fs))
	first := len(s.t.Firings)
	op.record(s, fs, int32(s.w.NextStep()))
	why := noteFire
	if end {
		why = noteFireEnd
	}
	s.emitNote(note{why: why, who: int16(op.idx), i: int32(first), n: int32(len(s.t.Firings) - first)}, engine.KindFire)
	if end {
		// What the end of input fired may wait in a two-phase sink's open
		// transaction: the final checkpoint commits it.
		s.job.maybeFinal()
	}
	return true
}

// sideOutput writes late record ai, read from stream st, to the
// side-output target of a window or a join, keyed by its event id, with
// amount (what the operator read as its value).
func (s *world) sideOutput(side *sink.Table, st *stream, ai int32, amount int64) {
	name := s.t.recordName(s.t.Arrivals[ai])
	r := s.targetKey(side, name)
	s.w.SetSourceVersion(side, r.row, 1)
	in := s.resultIn(r)
	in.Seq, in.UpdatedAt, in.Amount = 1, st.clock.Read(s.w.Now()), amount
	s.w.Deliver(side, []sink.In{in}, -1, nil)
}

// --- Joins.

// joinOp is one interval join.
type joinOp struct {
	opBase
	name   string
	idx    int
	sides  [2]*stream
	cfg    join.Config
	op     *join.Operator
	comb   watermark.Combiner
	target *sink.Table
	side   *sink.Table // receives late records with late=side-output (side=), or nil
	hist   *JoinHistory
	// truth: each key's records of each side by event time, the pairs the
	// truth has and the pairs emitted, by key.
	times   [2]map[int32][]vtime.Time
	want    map[int32]int32
	emitted map[int32]int32
	wrote   map[int32]int32     // by key: the most pairs written, across restores; a pair at or below it is a replay's
	rows    map[int32]resultRow // by key: its row in the target (see row)
	shownWM vtime.Time
}

// add hands a record of one side to the join and records what it did;
// value is what the stream read as the record's value, which a late
// record carries to the side output as a window's does.
func (j *joinOp) add(s *world, side join.Side, r join.Record, value int64, ai int32) {
	out := &s.jout
	out.Reset()
	s.w.Charge(1)
	j.op.Add(side, r, out)
	t := s.t
	step := int32(s.w.NextStep())
	for _, l := range out.Late {
		t.Late = append(t.Late, LatePoint{Step: step, Op: int16(j.idx), Join: true, Side: uint8(l.Side), Arrival: ai,
			Fate: joinFate(l.Fate), Watermark: l.Watermark, Key: l.Record.Key, Time: l.Record.Time})
		if l.Fate == join.SideOutput && j.side != nil {
			s.sideOutput(j.side, j.sides[l.Side], ai, value)
		}
	}
	if len(out.Pairs) == 0 {
		return
	}
	var in []pendingRow
	for _, p := range out.Pairs {
		t.Pairs = append(t.Pairs, PairPoint{Step: step, Op: int16(j.idx), Key: p.Left.Key, Left: p.Left.ID, Right: p.Right.ID, LeftTime: p.Left.Time, RightTime: p.Right.Time})
		if j.target == nil {
			continue
		}
		if j.emitted == nil {
			j.emitted = map[int32]int32{}
		}
		j.emitted[p.Left.Key]++
		r := j.row(s, p.Left.Key)
		n := j.emitted[p.Left.Key]
		row := s.resultIn(r)
		row.Seq, row.UpdatedAt, row.Amount = int(n), j.sides[side].clock.Read(s.w.Now()), int64(n)
		if j.wrote == nil {
			j.wrote = map[int32]int32{}
		}
		s.emitted(j.oi, row, n > j.wrote[p.Left.Key])
		j.wrote[p.Left.Key] = max(j.wrote[p.Left.Key], n)
		in = append(in, pendingRow{in: row, ref: -1})
	}
	j.out.write(in)
	s.noteState(j)
}

// joinFate is a join's fate of a late record as a window's Fate.
func joinFate(f join.Fate) uint8 {
	if f == join.SideOutput {
		return uint8(window.SideOutput)
	}
	return uint8(window.Dropped)
}

// row names the row of one key in the join's target.
func (j *joinOp) row(s *world, key int32) resultRow {
	if r, ok := j.rows[key]; ok {
		return r
	}
	if j.rows == nil {
		j.rows = map[int32]resultRow{}
	}
	name := "all"
	if j.sides[0].keyed {
		name = j.sides[0].hist.Keys[key]
	}
	r := s.targetKey(j.target, name)
	j.rows[key] = r
	return r
}

// release advances a join to its combined watermark (or the end), and
// makes what it releases a step.
func (s *world) release(st *stream, j *joinOp, end bool) bool {
	out := &s.jout
	out.Reset()
	wm := j.comb.Watermark()
	if end && j.sides[0].ended && j.sides[1].ended {
		wm = watermark.End
	}
	if wm == j.shownWM {
		return false
	}
	j.shownWM = wm
	j.op.AdvanceWatermark(wm, out)
	t := s.t
	step := int32(s.w.NextStep())
	j.hist.Watermarks = append(j.hist.Watermarks, JoinWatermark{Step: step, Value: wm})
	if len(out.Expired) == 0 {
		return false
	}
	first := len(t.Released)
	for _, e := range out.Expired {
		t.Released = append(t.Released, ReleasePoint{Step: step, Op: int16(j.idx), Side: uint8(e.Side), Key: e.Record.Key, ID: e.Record.ID, Time: e.Record.Time, Matches: int32(e.Matches)})
	}
	s.w.Charge(len(out.Expired))
	s.emitNote(note{why: noteRelease, who: int16(j.idx), i: int32(first), n: int32(len(t.Released) - first)}, engine.KindRelease)
	return true
}

// emitNote appends a step narrated on demand from a note.
func (s *world) emitNote(n note, kind engine.Kind) {
	s.t.notes = append(s.t.notes, n)
	s.w.EmitLater(s.by, kind, int32(len(s.t.notes)-1), 0)
}

// noteSlow records a stall or delay in the history when it begins.
func (st *stream) noteSlow(sl slow) {
	st.hist.Slows = append(st.hist.Slows, Slow{Step: int32(st.s.w.NextStep()), Part: sl.part, From: sl.from, Until: sl.until, Stall: sl.stall, By: sl.by})
	st.arm()
}
