package stream

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// An inbox is an operator's input buffer (see docs/scenarios.md,
// "Backpressure"): an operator that takes rate= records a second keeps
// what its stream hands it in a buffer of buffer= records, and takes them
// off one at a time, each costing it 1/rate of a second. Watermarks,
// barriers and the end of input travel in the same buffer, behind the
// records handed on before them, as Flink's stream elements do, and cost
// nothing. When the buffer is full, overflow= decides:
//
//   - block: the stream stops reading until there is room, as Flink's
//     credit-based flow control makes a source wait: lag grows in the
//     topic, nothing is lost, and a checkpoint's barrier waits behind the
//     buffered records, so checkpoints take longer;
//   - grow: the buffer takes everything (memory grows). The stream reads on
//     as if nothing were wrong, so its positions run ahead of what the
//     operator has processed: a checkpoint's snapshot is taken at once, with
//     the buffered records in no snapshot, and a failure loses them. With
//     memory=N, a buffer that comes to hold more than N records fails its
//     task, out of memory, at once (see job.crash and maxSameFailure);
//   - drop: a record that finds the buffer full is dropped and counted,
//     load shedding.
type inbox struct {
	s        *world
	oi       int16
	c        consumer
	base     vtime.Duration // the cost per record the line set
	cost     vtime.Duration // the cost now: base, or more while slowed
	slowTo   vtime.Time     // when a slow fault ends
	cap      int
	overflow uint8
	memory   int // with overflow=grow, the records its memory holds; 0: no limit
	q        []elem
	head     int
	records  int        // records among the queued elements
	taken    int64      // records taken off the buffer so far
	ready    vtime.Time // when the operator is free for its next element
	armed    bool       // a service entry is queued in the job's current epoch
}

// Overflow policies.
const (
	overflowBlock uint8 = iota
	overflowGrow
	overflowDrop
)

var overflowNames = [...]string{"block", "grow", "drop"}

func parseOverflow(s string) (uint8, bool) {
	for i, n := range overflowNames {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

// Kinds of stream element.
const (
	elemRecord uint8 = iota
	elemWatermark
	elemBarrier
	elemEnd
)

// elem is one element in a buffer.
type elem struct {
	_      nocmp.NoCompare
	rec    window.Record
	at     vtime.Time // when it was handed on
	wm     vtime.Time // a watermark's value
	ai     int32      // a record's arrival
	ckpt   int32      // a barrier's checkpoint
	kind   uint8
	replay bool // a record read again after a restore
}

// full reports whether a record handed on now would not fit.
func (in *inbox) full() bool { return in.records >= in.cap }

// blocks reports whether the buffer makes its stream wait.
func (in *inbox) blocks() bool { return in.overflow == overflowBlock && in.full() }

// offer hands a record on, and reports false when the buffer drops it.
func (in *inbox) offer(r window.Record, ai int32, replay bool) bool {
	if in.full() && in.overflow == overflowDrop {
		j := in.s.jobHist()
		j.Shed = append(j.Shed, ShedPoint{Step: int32(in.s.w.NextStep()), Arrival: ai, Op: in.oi})
		return false
	}
	in.push(elem{kind: elemRecord, rec: r, ai: ai, replay: replay})
	if in.memory > 0 && in.records > in.memory {
		j := in.s.job
		j.s.w.Then(func() { j.crash(j.s.t.Ops[in.oi].Name, PointOutOfMemory, failRestart, "") })
	}
	return true
}

// push queues an element and makes sure the operator will take it.
func (in *inbox) push(e elem) {
	e.at = in.s.w.Now()
	in.q = append(in.q, e)
	if e.kind == elemRecord {
		in.records++
		in.noteQueue()
	}
	in.arm()
}

func (in *inbox) noteQueue() {
	oh := in.s.t.Ops[in.oi]
	oh.Queue = appendCount(oh.Queue, int32(in.s.w.NextStep()), int32(in.records))
}

// len is how many elements wait.
func (in *inbox) len() int { return len(in.q) - in.head }

// clear empties the buffer, as a failure does, and returns the records it held.
func (in *inbox) clear() int {
	n := in.records
	in.q, in.head, in.records = in.q[:0], 0, 0
	in.ready, in.armed = 0, false
	if n > 0 {
		in.noteQueue()
	}
	return n
}

// dueAt is when the operator takes its next element.
func (in *inbox) dueAt() vtime.Time {
	e := &in.q[in.head]
	at := max(e.at, in.ready)
	if e.kind == elemRecord {
		at = at.Add(in.costNow(at))
	}
	return at
}

// costNow is the cost per record at true time at.
func (in *inbox) costNow(at vtime.Time) vtime.Duration {
	if in.slowTo > 0 && at >= in.slowTo {
		in.cost, in.slowTo = in.base, 0
		in.s.t.Ops[in.oi].Costs = append(in.s.t.Ops[in.oi].Costs, CostPoint{Step: int32(in.s.w.NextStep()), Cost: in.cost})
	}
	return in.cost
}

// arm queues the operator's next service, unless one is queued.
func (in *inbox) arm() {
	j := in.s.job
	if in.armed || in.len() == 0 || j.down || j.dead {
		return
	}
	in.armed = true
	in.s.w.ScheduleAction(max(in.dueAt(), in.s.w.Now()), &service{in: in, epoch: j.epoch})
}

// service is a queued turn of an operator at its buffer, in the job's
// epoch when it was queued.
type service struct {
	_     nocmp.NoCompare
	in    *inbox
	epoch int32
}

func (x *service) Act() {
	if x.epoch != x.in.s.job.epoch {
		return // queued before a failure: the buffer it served is gone
	}
	x.in.act()
}

// act takes the next element off the buffer and does what it says: a
// record is processed (a step), a watermark advances the operator, a
// barrier makes it take its snapshot, the end of input fires what is open.
func (in *inbox) act() {
	s := in.s
	in.armed = false
	if in.len() == 0 || s.job.down {
		return
	}
	if at := in.dueAt(); at > s.w.Now() {
		in.arm() // slowed since it was queued
		return
	}
	e := in.q[in.head]
	in.head++
	if in.head == len(in.q) {
		in.q, in.head = in.q[:0], 0
	}
	in.ready = s.w.Now()
	st := in.c.stream()
	switch e.kind {
	case elemRecord:
		in.records--
		in.taken++
		in.noteQueue()
		oh := s.t.Ops[in.oi]
		oh.Processed = append(oh.Processed, int32(s.w.NextStep()))
		late := len(s.t.Late)
		s.t.processed = append(s.t.processed, processPoint{step: int32(s.w.NextStep()), op: in.oi, arrival: e.ai})
		in.c.take(s, e.rec, st.clock.Read(s.w.Now()), e.ai, e.replay)
		kind := engine.KindProcess
		if len(s.t.Late) > late {
			kind = engine.KindLate
		}
		s.w.EmitLater(s.by, kind, -int32(len(s.t.processed)), 0)
		if !st.blocked() {
			st.arm()
		}
	case elemWatermark:
		if c := in.c; c.win != nil {
			out := &s.wout
			out.Reset()
			c.win.op.AdvanceWatermark(e.wm, out)
			s.fired(c.win, out.Firings, false)
		}
	case elemEnd:
		if c := in.c; c.win != nil {
			out := &s.wout
			out.Reset()
			c.win.op.AdvanceWatermark(watermark.End, out)
			c.win.op.AdvanceProcessingTime(vtime.Time(1<<62), out)
			s.fired(c.win, out.Firings, true)
		}
	case elemBarrier:
		s.job.barrierAt(in.oi, e.ckpt)
	}
	in.arm()
}
