package stream

import (
	"hash/fnv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
)

// The job is every stream and operator of a scenario taken together, as
// one Flink job (see docs/scenarios.md, "Checkpoints and failures"). Its
// checkpoint coordinator triggers a checkpoint every interval: the sources
// note their positions and send a barrier after the records they have
// handed on; each operator takes its snapshot when the barrier reaches it,
// pre-committing its sink's transaction; when every operator has, the
// checkpoint completes and the two-phase-commit sinks commit. A failure of
// any stream or operator stops the whole job (Flink restarts every task of
// a job whose operators are connected); after the restart delay it
// restores the latest completed checkpoint and reads again from its
// positions.

// operator is what the job asks of each stateful operator.
type operator interface {
	base() *opBase
	// snapshot appends the operator's whole state.
	snapshot(dst []byte) []byte
	// restore puts back a snapshot, or empty state when b is nil.
	restore(b []byte) error
	// size is how many entries its state holds, for the panels.
	size() int
}

// opBase is what every operator has: its index among the job's operators,
// its input buffer and its writer, each nil when it has none.
type opBase struct {
	_   nocmp.NoCompare
	oi  int16
	in  *inbox
	out *writer
}

func (b *opBase) base() *opBase { return b }

// job is the stream job's coordinator.
type job struct {
	s       *world
	on      bool // a checkpoint line: checkpoints are taken
	grid    checkpoint.Grid
	timeout vtime.Duration
	// tolerable is how many checkpoints in a row may expire before the job
	// fails (Flink's execution.checkpointing.tolerable-failed-checkpoints,
	// 0 by default); expiredRow counts them, and a completed checkpoint or
	// any failure of the job starts the count again.
	tolerable, expiredRow int
	// epoch counts the job's failures: an action queued in an earlier
	// epoch finds it changed and does nothing.
	epoch   int32
	down    bool // failed, waiting to restart
	dead    bool // could not restore: it never runs again
	lastID  int32
	run     *ckptRun // the checkpoint in flight, or nil
	done    *ckptRun // the latest completed checkpoint, or nil
	plans   []failPlan
	ticking bool // a trigger is queued
	// queued counts the triggers that came while a checkpoint was in
	// flight: each is a request of its own, and they begin one after
	// another as soon as the one before ends (see trigger).
	queued   int
	active   bool // a record came since the last trigger
	drained  bool // the input has ended: streams end once they have read everything
	finished bool // the final checkpoint completed
	instant  []int16
	// takenAtCrash is, by operator, how many records had been taken off
	// its buffer without flow control when the job last failed.
	takenAtCrash []int64
	ooms         int   // failures for lack of memory so far
	expiries     int   // failures for expired checkpoints so far
	outOfRange   int   // failures of a source whose position retention deleted, under auto.offset.reset=none
	txnTimeouts  int   // failures of a sink whose open transaction the broker aborted
	lostFrom     int32 // the checkpoint last restored, whose buffers' loss is counted
}

// failRestart is how long a failed job waits to restart when nothing says
// otherwise: a fail line's default restart=, and the delay after a buffer
// runs out of memory.
const failRestart = 10 * vtime.Second

// maxQueued is how many checkpoint requests may wait, Flink's
// CheckpointRequestDecider's limit.
const maxQueued = 1000

// maxSameFailure is the failure of a kind the job causes itself (for lack
// of memory, or for a position retention deleted) that leaves the job
// down. A buffer that passes its memory= once its input has stopped fails
// the same way at every restart (the restore reads the same backlog into it
// at once), as does a source that falls behind retention again each time,
// and Flink's default restart strategy would go on restarting it without
// end; Tidemark stops the loop there, as a fixed-delay restart strategy of
// three attempts would.
const maxSameFailure = 4

// The points (FailPoint.Point) of the failures the job causes itself.
const (
	PointOutOfMemory = "out-of-memory"       // a buffer passed its memory=
	PointOutOfRange  = "offset-out-of-range" // a source's position was deleted, under auto.offset.reset=none
	PointExpired     = "checkpoint-expired"  // more checkpoints in a row expired than the job tolerates
	PointTxnTimeout  = "transaction-timeout" // the broker aborted a sink's open transaction, older than its txn-timeout=
)

// ckptRun is a checkpoint in flight, with the states taken so far.
type ckptRun struct {
	id     int32
	hi     int // its index in the history's Checkpoints
	states [][]byte
	took   []bool
	left   int
	final  bool
	armed  bool // its expiry is queued (armExpiry)
	// By operator, for a buffer without flow control (overflow=grow):
	// the records it held when the checkpoint began, which no snapshot
	// holds, and how many it had had taken off by then.
	buffered, taken []int64
}

// failPlan is a fail line waiting for a point of the next checkpoint.
type failPlan struct {
	_       nocmp.NoCompare
	who     string
	point   string
	restart vtime.Duration
	after   vtime.Time
}

// jobHist is the job's history, made on first use.
func (s *world) jobHist() *JobHistory {
	if s.t.Job == nil {
		s.t.Job = &JobHistory{}
	}
	return s.t.Job
}

// up reports whether the job is running.
func (j *job) up() bool { return !j.down && !j.dead }

// start queues the first trigger.
func (j *job) start() {
	if !j.on {
		return
	}
	if j.grid.From == watermark.None {
		at, ok := j.s.w.NextAt()
		if !ok {
			return
		}
		j.grid.From = at.Add(j.grid.Every)
	}
	j.s.t.Job.From = j.grid.From
	j.ticking = true
	j.s.w.Schedule(j.grid.From, j.trigger)
}

// trigger is the coordinator's periodic timer: it begins a checkpoint
// unless one is running (one at a time) or the job is down, expires one
// that has run past its timeout, and queues the next trigger while
// anything else is queued.
func (j *job) trigger() {
	s := j.s
	j.ticking = false
	if j.dead || j.finished {
		return
	}
	now := s.w.Now()
	expired := false
	if j.run != nil && now.Sub(s.t.Job.Checkpoints[j.run.hi].BeginAt) >= j.timeout {
		j.expire() // one whose expiry no timer was armed for (see armExpiry)
		expired = true
	}
	more := j.busy()
	if j.up() && !j.drained {
		switch {
		case j.run != nil:
			// One at a time: the request waits for the checkpoint in
			// flight. Flink's coordinator queues every periodic request
			// (up to 1000) rather than merging them, and with its default
			// minimum pause of 0 it begins the oldest the moment the one
			// in flight completes or expires, so a checkpoint that
			// overran k triggers is followed by k back to back.
			j.queued = min(j.queued+1, maxQueued)
		case expired:
			j.queued = min(j.queued+1, maxQueued)
			j.next() // as a step of its own
		default:
			j.begin(false)
		}
	}
	// The next trigger, while the job has work, had some since this one,
	// or has input still to come: Flink's coordinator triggers whether
	// records flow or not, so a quiet spell between sends is checkpointed
	// on the grid. Only after the scenario's last send does a job idle for
	// a whole interval stop checkpointing until a record comes: another
	// world's timer, such as the log's retention, must not keep this one
	// running forever, nor it them.
	if more {
		next := j.grid.Next(now)
		j.armExpiry(next)
		j.ticking = true
		s.w.Schedule(next, j.trigger)
	}
	j.active = false
}

// armExpiry queues the expiry of the checkpoint in flight for the instant
// its timeout runs out, as Flink's coordinator gives a checkpoint up then,
// when that instant comes no later than the next trigger (at, queued while
// a checkpoint is in flight). A later expiry is armed by a later trigger:
// a timer queued further ahead would outlive the job's own and stretch the
// run past its end.
func (j *job) armExpiry(at vtime.Time) {
	run := j.run
	if run == nil || run.armed {
		return
	}
	s := j.s
	end := s.t.Job.Checkpoints[run.hi].BeginAt.Add(j.timeout)
	if end > at {
		return
	}
	run.armed = true
	epoch := j.epoch
	s.w.Schedule(end, func() {
		if j.epoch == epoch && j.run == run {
			j.expire()
			j.next()
		}
	})
}

// busy reports whether the job has work, had some since the last trigger,
// or reads a topic that a produce or traffic line will still send to.
func (j *job) busy() bool {
	if j.active || j.down || j.run != nil {
		return true
	}
	s := j.s
	for _, st := range s.order {
		if s.w.Now() < st.topic.h.SendsUntil() {
			return true
		}
		for p := range st.parts {
			if p < len(st.topic.appendAt) && st.parts[p].next < int64(len(st.topic.appendAt[p])) {
				return true
			}
		}
	}
	for _, op := range s.ops {
		b := op.base()
		if b.in != nil && b.in.len() > 0 || b.out != nil && len(b.out.open) > 0 {
			return true
		}
	}
	return false
}

// touch notes activity: a record appended to a topic the job reads. It
// queues a trigger if the job had stopped checkpointing while idle.
func (j *job) touch() {
	j.active = true
	if j.on && !j.ticking && j.up() && !j.finished && !j.drained && j.grid.From != watermark.None {
		j.ticking = true
		j.s.w.Schedule(j.grid.Next(j.s.w.Now()), j.trigger)
	}
}

// rearm queues a trigger after a restart, if none is queued.
func (j *job) rearm() {
	if j.on && !j.ticking && !j.dead && !j.finished {
		j.ticking = true
		j.s.w.Schedule(j.grid.Next(j.s.w.Now()), j.trigger)
	}
}

// begin starts a checkpoint: the sources note their positions and send
// barriers; operators without a buffer (or with one that grows without
// bound) take their snapshots at once, one step each; the others when the
// barrier comes off their buffer.
func (j *job) begin(final bool) {
	s := j.s
	h := s.t.Job
	j.lastID++
	id := j.lastID
	n := len(s.ops)
	run := &ckptRun{id: id, hi: len(h.Checkpoints), states: make([][]byte, n), took: make([]bool, n), left: n, final: final}
	j.run = run
	cp := CheckpointPoint{ID: id, Begin: int32(s.w.NextStep()), BeginAt: s.w.Now(), Final: final,
		Sizes: make([]int, n), Snapshots: make([]int32, n), Digests: make([]uint64, n)}
	for i := range cp.Sizes {
		cp.Sizes[i] = -1
	}
	var where []string
	for _, st := range s.order {
		ps := make([]int64, len(st.parts))
		for p := range st.parts {
			ps[p] = st.parts[p].next
		}
		cp.Positions = append(cp.Positions, ps)
		where = append(where, st.name+" "+positions(st.topic.h.Name, ps))
	}
	j.instant = j.instant[:0]
	var queued []string
	for _, op := range s.ops {
		b := op.base()
		if b.in != nil && b.in.overflow != overflowGrow {
			if b.in.records > 0 {
				queued = append(queued, prose.F("behind the %s in %s's buffer", prose.Count(b.in.records, "record", "records"), s.t.Ops[b.oi].Name))
			}
			b.in.push(elem{kind: elemBarrier, ckpt: id})
			continue
		}
		if b.in != nil {
			cp.Buffered += b.in.records
			if run.buffered == nil {
				run.buffered, run.taken = make([]int64, len(s.ops)), make([]int64, len(s.ops))
			}
			run.buffered[b.oi], run.taken[b.oi] = int64(b.in.records), b.in.taken
		}
		j.instant = append(j.instant, b.oi)
	}
	h.Checkpoints = append(h.Checkpoints, cp)
	var sb strings.Builder
	switch {
	case final:
		prose.Fprintf(&sb, "Every stream has ended: a last checkpoint, %d, begins so that what is still pending commits, as Flink does when a job's tasks finish", id)
	default:
		prose.Fprintf(&sb, "Checkpoint %d begins", id)
	}
	prose.Fprintf(&sb, ": the sources note where they are (%s) and send a barrier after the records they have handed on", strings.Join(where, "; "))
	if len(queued) > 0 {
		prose.Fprintf(&sb, "; the barrier waits %s", strings.Join(queued, " and "))
	}
	if cp.Buffered > 0 {
		prose.Fprintf(&sb, "; %s no flow control, so the snapshot is taken at once and the buffers' %s are in no checkpoint", prose.Count(countGrow(s), "buffer holds", "buffers hold"), prose.Count(cp.Buffered, "record", "records"))
	}
	sb.WriteString(".")
	s.w.Emit("checkpoint coordinator", engine.KindCheckpoint, -1, "%s", sb.String())
	if j.fire("barrier") {
		return
	}
	if n == 0 {
		j.afterSnapshots(run)
		return
	}
	j.nextInstant(run)
}

// countGrow counts the operators with a buffer that grows without bound.
func countGrow(s *world) int {
	c := 0
	for _, op := range s.ops {
		if in := op.base().in; in != nil && in.overflow == overflowGrow {
			c++
		}
	}
	return c
}

// positions spells a stream's positions: "orders 0:41 1:39".
func positions(topic string, ps []int64) string {
	var parts []string
	for p, x := range ps {
		parts = append(parts, prose.F("%d:%d", p, x))
	}
	return "at offsets " + strings.Join(limitList(parts, 6), " ")
}

// nextInstant takes the next snapshot due at once, as a step of its own.
func (j *job) nextInstant(run *ckptRun) {
	if len(j.instant) == 0 {
		return
	}
	epoch := j.epoch
	j.s.w.Then(func() {
		if j.epoch != epoch || j.run != run || len(j.instant) == 0 {
			return
		}
		oi := j.instant[0]
		j.instant = j.instant[1:]
		j.take(run, oi)
		if j.run == run && j.epoch == epoch {
			j.nextInstant(run)
		}
	})
}

// barrierAt is a barrier coming off operator oi's buffer.
func (j *job) barrierAt(oi int16, id int32) {
	if j.run == nil || j.run.id != id || j.run.took[oi] {
		return // a barrier of a checkpoint that expired
	}
	j.take(j.run, oi)
}

// take is operator oi taking its snapshot for run: its state, and its
// sink's transaction pre-committed. When it is the last, the checkpoint
// can complete.
func (j *job) take(run *ckptRun, oi int16) {
	s := j.s
	op := s.ops[oi]
	b := op.base()
	state := op.snapshot(nil)
	run.states[oi], run.took[oi] = state, true
	run.left--
	cp := &s.t.Job.Checkpoints[run.hi]
	cp.Sizes[oi], cp.Snapshots[oi], cp.Digests[oi] = len(state), int32(s.w.NextStep()), digest(state)
	oh := s.t.Ops[oi]
	var sb strings.Builder
	prose.Fprintf(&sb, "%s takes its snapshot for checkpoint %d: %s, %s", oh.Name, run.id, j.sizeWords(oi, op.size()), bytesWord(len(state)))
	if b.out != nil && b.out.twoPC {
		if rows := b.out.precommit(run.id); rows > 0 {
			prose.Fprintf(&sb, "; it pre-commits transaction %d with %s, which no read-committed reader sees until the checkpoint completes", run.id, prose.Count(rows, "row", "rows"))
		}
	}
	sb.WriteString(".")
	s.w.Emit(oh.Name, engine.KindCheckpoint, -1, "%s", sb.String())
	if run.left == 0 {
		j.afterSnapshots(run)
	}
}

// sizeWords says what an operator's state holds.
func (j *job) sizeWords(oi int16, n int) string {
	switch j.s.t.Ops[oi].Kind {
	case "window":
		return prose.Count(n, "window open", "windows open")
	case "join":
		return prose.Count(n, "record buffered", "records buffered")
	case "aggregate":
		return prose.Count(n, "key", "keys")
	}
	if n == 0 {
		return "no state"
	}
	return prose.Count(n, "id remembered", "ids remembered")
}

func bytesWord(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return prose.F("%d bytes", n)
}

// digest is a hash of a snapshot, to compare a restore with.
func digest(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// afterSnapshots follows the last snapshot: the checkpoint completes, as
// a step of its own, unless a fail line waits for this point.
func (j *job) afterSnapshots(run *ckptRun) {
	epoch := j.epoch
	j.s.w.Then(func() {
		if j.epoch != epoch || j.run != run {
			return
		}
		if j.fire("snapshot") {
			return
		}
		j.complete(run)
	})
}

// complete marks run completed: the latest a restore can use. Then each
// two-phase-commit sink commits its transaction, each a step.
func (j *job) complete(run *ckptRun) {
	s := j.s
	cp := &s.t.Job.Checkpoints[run.hi]
	cp.Status, cp.End, cp.EndAt = CheckpointCompleted, int32(s.w.NextStep()), s.w.Now()
	j.run, j.done = nil, run
	j.expiredRow = 0
	var commits []string
	txns := 0
	for _, op := range s.ops {
		if out := op.base().out; out != nil && out.twoPC {
			if k := len(out.committable(run.id)); k > 0 {
				commits = append(commits, s.t.Ops[op.base().oi].Name)
				txns += k
			}
		}
	}
	tail := ""
	if len(commits) > 0 {
		whose, what := "their", "transactions"
		if len(commits) == 1 {
			whose = "its"
		}
		if txns == 1 {
			what = "transaction"
		}
		tail = prose.F("; %s can now commit %s %s", strings.Join(commits, " and "), whose, what)
	}
	s.w.Emit("checkpoint coordinator", engine.KindCheckpoint, -1, "Checkpoint %d completes: every operator has taken its snapshot, %s in all, %s after it began; a failure from now on restores it%s.",
		run.id, bytesWord(cp.Size()), cp.EndAt.Sub(cp.BeginAt), tail)
	if j.fire("commit") {
		return
	}
	j.commitAll(run)
	if j.drained && !run.final {
		j.maybeFinal() // the input ended while this one ran
	}
	j.next()
}

// next begins, as a step of its own, the checkpoint a trigger asked for
// while another was in flight.
func (j *job) next() {
	if j.queued == 0 {
		return
	}
	j.queued--
	epoch := j.epoch
	j.s.w.Then(func() {
		if j.epoch == epoch && j.up() && j.run == nil && !j.drained && !j.finished {
			j.begin(false)
			if j.ticking {
				j.armExpiry(j.grid.Next(j.s.w.Now()))
			}
		}
	})
}

// commitAll commits run's pre-committed transactions, one step each.
func (j *job) commitAll(run *ckptRun) {
	s := j.s
	epoch := j.epoch
	for _, op := range s.ops {
		out := op.base().out
		if out == nil || !out.twoPC {
			continue
		}
		for _, x := range out.committable(run.id) {
			s.w.Then(func() {
				if j.epoch != epoch {
					return
				}
				j.commit(out, x, run.id, false)
			})
		}
	}
	if run.final {
		s.w.Then(func() {
			if j.epoch == epoch {
				j.finished = true
			}
		})
	}
}

// commit is one sink committing a transaction, as a step, because
// checkpoint by completed (by is x's own checkpoint, or a later one when
// x's expired).
func (j *job) commit(out *writer, x *txn, by int32, recovered bool) {
	s := j.s
	oh := s.t.Ops[out.oi]
	writes := len(x.rows)
	rows := out.commit(x, recovered)
	wait := s.t.Job.Txns[len(s.t.Job.Txns)-1].Wait
	why := "its checkpoint has completed"
	if by != x.id {
		why = prose.F("checkpoint %d has completed, and a completed checkpoint commits every earlier transaction still prepared (checkpoint %d, which pre-committed it, never completed)", by, x.id)
	}
	if recovered {
		why = prose.F("the restore found checkpoint %d completed and its transaction still prepared; committing again is harmless, as a two-phase commit must allow", x.id)
		if by != x.id {
			why = prose.F("the restore found checkpoint %d completed, which commits every earlier transaction still prepared, and this one (pre-committed for checkpoint %d, which never completed) still prepared; committing again is harmless, as a two-phase commit must allow", by, x.id)
		}
	}
	lands := prose.Count(rows, "row becomes", "rows become")
	if rows != writes {
		lands = prose.F("its %s land as %s (the last of each key), which become", prose.Count(writes, "write", "writes"), prose.Count(rows, "row", "rows"))
	}
	s.w.Emit(oh.Name, engine.KindTransaction, -1, "%s commits transaction %d to %s because %s: %s visible to read-committed readers at once, the oldest %s after it was written.",
		oh.Name, x.id, oh.Target, why, lands, wait)
}

// expire gives up the checkpoint in flight: it took longer than the timeout.
func (j *job) expire() {
	s := j.s
	run := j.run
	cp := &s.t.Job.Checkpoints[run.hi]
	cp.Status, cp.End, cp.EndAt = CheckpointExpired, int32(s.w.NextStep()), s.w.Now()
	j.run = nil
	var waiting []string
	for oi, took := range run.took {
		if !took {
			waiting = append(waiting, s.t.Ops[oi].Name)
		}
	}
	var prepared []string
	for _, op := range s.ops {
		if out := op.base().out; out != nil && out.twoPC {
			for _, x := range out.pre {
				if x.id == run.id {
					prepared = append(prepared, prose.F("%s's transaction %d", s.t.Ops[out.oi].Name, x.id))
				}
			}
		}
	}
	j.expiredRow++
	fail := j.expiredRow > j.tolerable
	tail := ""
	switch {
	case len(prepared) > 0 && fail:
		tail = prose.F("; %s, pre-committed at the barrier, is aborted when the job restores, since its checkpoint never completed", strings.Join(prepared, " and "))
	case len(prepared) > 0:
		tail = prose.F("; %s, pre-committed at the barrier, stays prepared until a later checkpoint completes and commits it", strings.Join(prepared, " and "))
	}
	restore := "no checkpoint has completed yet, so a failure now would start the job from the beginning"
	if j.done != nil {
		restore = prose.F("the last checkpoint a restore can use is still %d, growing older", j.done.id)
	}
	then := prose.F("The job runs on: it tolerates %s in a row (tolerable=%d), and this is the %d%s.", prose.Count(j.tolerable, "failed checkpoint", "failed checkpoints"), j.tolerable, j.expiredRow, ordinal(j.expiredRow))
	if fail {
		then = prose.F("That is %d in a row, more than the %d the job tolerates (Flink's execution.checkpointing.tolerable-failed-checkpoints, 0 by default), so the job fails.", j.expiredRow, j.tolerable)
	}
	its := "their"
	if len(waiting) == 1 {
		its = "its"
	}
	s.w.Emit("checkpoint coordinator", engine.KindCheckpoint, -1, "Checkpoint %d expires: it began %s ago, past the timeout of %s, and %s had not taken %s snapshot, its barrier still behind buffered records; %s%s. %s",
		run.id, s.w.Now().Sub(cp.BeginAt), j.timeout, strings.Join(waiting, " and "), its, restore, tail, then)
	if fail {
		epoch, id := j.epoch, run.id
		s.w.Then(func() {
			if j.epoch == epoch {
				j.crash("checkpoint coordinator", PointExpired, failRestart, prose.F("Checkpoint %d expired, one more than the job tolerates: ", id))
			}
		})
	}
}

// prepared reports whether a two-phase sink holds a transaction
// pre-committed and waiting for its commit, of checkpoint id or, with
// earlier, of an earlier one too: what id's completion commits.
func (j *job) prepared(id int32, earlier bool) bool {
	for _, op := range j.s.ops {
		if out := op.base().out; out != nil && out.twoPC {
			for _, x := range out.pre {
				if x.id == id || earlier && x.id < id {
					return true
				}
			}
		}
	}
	return false
}

// fire makes the job fail next, as a step of its own, if a fail line
// waits for point of this checkpoint, and reports whether it will.
func (j *job) fire(point string) bool {
	for k, p := range j.plans {
		if p.point == point && j.s.w.Now() >= p.after {
			j.plans = append(j.plans[:k:k], j.plans[k+1:]...)
			j.s.w.Then(func() { j.crash(p.who, point, p.restart, "") })
			return true
		}
	}
	return false
}

// crash stops the whole job now: what was in flight is lost, and it
// restarts after restart. who failed at point: now, a point of a
// checkpoint, or out-of-memory when who's buffer passed its memory=.
// crash fails the job at point (now, barrier, snapshot, commit, or one of
// the failures the job causes itself: PointOutOfMemory, PointOutOfRange),
// to restart after restart; why, when not empty, opens the narration with
// what made the task fail.
func (j *job) crash(who, point string, restart vtime.Duration, why string) {
	s := j.s
	if !j.up() {
		return
	}
	var sb strings.Builder
	sb.WriteString(why)
	same := 0 // failures of this kind so far, for the ones the job causes itself
	switch point {
	case PointOutOfMemory:
		in := s.byName[who].base().in
		prose.Fprintf(&sb, "%s's buffer reaches %d records, more than the %d its memory holds: the task fails, out of memory", who, in.records, in.memory)
		j.ooms++
		same = j.ooms
	case PointOutOfRange:
		j.outOfRange++
		same = j.outOfRange
	case PointExpired:
		j.expiries++
		same = j.expiries
		sb.WriteString("the job fails")
	case PointTxnTimeout:
		j.txnTimeouts++
		same = j.txnTimeouts
	}
	j.expiredRow = 0
	j.epoch++
	j.queued = 0 // a restarted job triggers afresh (rearm)
	j.down = true
	fp := FailPoint{Step: int32(s.w.NextStep()), At: s.w.Now(), Who: who, Point: point, RestartAt: s.w.Now().Add(restart), Down: same == maxSameFailure, Last: -1}
	if j.done != nil {
		fp.Last = int32(j.done.hi)
	}
	if point == "commit" && j.done != nil {
		fp.Ckpt = j.done.id
	}
	j.takenAtCrash = j.takenAtCrash[:0]
	for _, op := range s.ops {
		n := int64(0)
		if in := op.base().in; in != nil && in.overflow == overflowGrow {
			n = in.taken
		}
		j.takenAtCrash = append(j.takenAtCrash, n)
	}
	for _, op := range s.ops {
		b := op.base()
		if b.out != nil {
			id := j.lastID + 1
			if j.run != nil && !j.run.took[b.oi] {
				id = j.run.id
			}
			fp.Aborted += int32(b.out.abortOpen(id))
		}
		if b.in != nil {
			fp.Buffered += int32(b.in.clear())
		}
	}
	if j.run != nil {
		cp := &s.t.Job.Checkpoints[j.run.hi]
		cp.Status, cp.End, cp.EndAt = CheckpointAbandoned, fp.Step, fp.At
		fp.Ckpt = j.run.id
		j.run = nil
	}
	for _, st := range s.order {
		st.jobs = st.jobs[:0]
		st.ticking = false
	}
	h := s.jobHist()
	h.Failures = append(h.Failures, fp)
	lagNote := j.lagFromCommitted(&h.Failures[len(h.Failures)-1])
	switch point {
	case PointOutOfMemory, PointOutOfRange, PointExpired, PointTxnTimeout:
	case "barrier":
		prose.Fprintf(&sb, "%s fails between checkpoint %d's barrier and its snapshot", who, fp.Ckpt)
	case "snapshot":
		prose.Fprintf(&sb, "%s fails after every operator has taken its snapshot for checkpoint %d and before the checkpoint completes", who, fp.Ckpt)
		if j.prepared(fp.Ckpt, false) {
			sb.WriteString("; the transaction its snapshot pre-committed stays prepared, invisible, until the restart rolls it back")
		}
	case "commit":
		if j.prepared(fp.Ckpt, true) {
			prose.Fprintf(&sb, "%s fails while the sinks commit checkpoint %d's transactions: the checkpoint is complete, the commits never reach the table", who, fp.Ckpt)
		} else {
			prose.Fprintf(&sb, "%s fails as checkpoint %d completes, where the sinks commit its transactions; it has none, so no row waits on the commit", who, fp.Ckpt)
		}
	default:
		prose.Fprintf(&sb, "%s fails", who)
	}
	sb.WriteString("; the whole job stops, as Flink stops every task of a job whose operators are connected")
	if fp.Ckpt > 0 && point != "commit" {
		prose.Fprintf(&sb, ", and checkpoint %d is abandoned", fp.Ckpt)
	}
	if fp.Aborted > 0 {
		prose.Fprintf(&sb, "; the open transactions roll back %s no reader ever saw", prose.Count(int(fp.Aborted), "row", "rows"))
	}
	if fp.Buffered > 0 {
		prose.Fprintf(&sb, "; the %s waiting in buffers are thrown away", prose.Count(int(fp.Buffered), "record", "records"))
	}
	if fp.Down {
		j.dead = true
		prose.Fprintf(&sb, ". The job has now failed %s %d times: Flink's default restart strategy would restart it again, and it would fail again, without end; Tidemark gives up here, as a fixed-delay restart strategy of %d attempts would. The job stays down and nothing more is read.", fp.Where(), maxSameFailure, maxSameFailure-1)
		j.strand(&sb)
		s.w.Emit(who, engine.KindCrash, -1, "%s%s", sb.String(), lagNote)
		return
	}
	from := "nothing: no checkpoint has completed, so it will start over from the beginning with empty state"
	if j.done != nil {
		from = prose.F("checkpoint %d, taken at %s", j.done.id, s.t.Job.Checkpoints[j.done.hi].BeginAt)
	}
	prose.Fprintf(&sb, ". It restarts at %s from %s.", fp.RestartAt, from)
	s.w.Emit(who, engine.KindCrash, -1, "%s%s", sb.String(), lagNote)
	epoch := j.epoch
	s.w.Schedule(fp.RestartAt, func() {
		if j.epoch == epoch {
			j.restart()
		}
	})
}

// lagFromCommitted counts each partition's lag, from failure f on, from the offset the source last committed to Kafka: a job that is
// down reports no lag of its own, and what a team sees is the group's,
// which Flink's Kafka source commits only when a checkpoint completes
// (Trace.CommittedAt). It returns a sentence saying so when that is not
// where the job had read to, and "" when it is.
func (j *job) lagFromCommitted(f *FailPoint) string {
	s := j.s
	var kept, read []string
	for _, st := range s.order {
		ps := make([]int64, len(st.parts))
		moved := false
		for p := range st.parts {
			if ps[p] = s.t.Job.committed(f, st.idx, p); ps[p] < 0 {
				// Nothing committed: from the log start, as it moves.
				ps[p], st.fromStart = st.topic.h.Parts[p].Start(), true
			}
			moved = moved || ps[p] != st.parts[p].next
			st.lagFrom(p, ps[p])
		}
		if moved {
			kept = append(kept, st.name+" "+positions(st.topic.h.Name, ps))
			for p := range st.parts {
				ps[p] = st.parts[p].next
			}
			read = append(read, st.name+" "+positions(st.topic.h.Name, ps))
		}
	}
	if kept == nil {
		return ""
	}
	from := prose.F("the log start, as no checkpoint has committed any offsets: %s", strings.Join(kept, "; "))
	if j.done != nil {
		from = prose.F("the offsets checkpoint %d committed, %s", j.done.id, strings.Join(kept, "; "))
	}
	return prose.F(" While it is down it reports no lag: the lag a team sees is the Kafka group's, counted from %s, not from where it had read to (%s).", from, strings.Join(read, "; "))
}

// missed narrates a fail line whose instant at finds the job down, as a
// step of its own so that the line does not pass in silence: with
// point=now while the job waits to restart, or with any point once it
// stays down. A job that is not running has no task to fail, so nothing
// more happens, and a pending restart keeps its time, as Flink's does
// while the job is restarting. (A point of a checkpoint while the job
// waits to restart is no miss: it waits for the first checkpoint after
// the restart.)
func (j *job) missed(who, point string, at vtime.Time) {
	s := j.s
	h := s.jobHist()
	var sb strings.Builder
	if point == "now" {
		prose.Fprintf(&sb, "The failure of %s planned for %s", who, at)
	} else {
		prose.Fprintf(&sb, "The failure of %s planned for the %s of the first checkpoint at or after %s", who, point, at)
	}
	var fp *FailPoint
	if n := len(h.Failures); n > 0 {
		fp = &h.Failures[n-1]
	}
	var rp *RestorePoint
	if n := len(h.Restores); n > 0 && h.Restores[n-1].Failed {
		rp = &h.Restores[n-1]
	}
	switch {
	case rp != nil:
		prose.Fprintf(&sb, " finds the job down for good: it could not restart at %s, its input deleted by retention, and it stays down", rp.At)
	case fp == nil: // the job is down only after a failure
		panic("stream: a job down with no failure")
	case fp.Down:
		prose.Fprintf(&sb, " finds the job down for good: it has failed %s %d times, the last at %s, and stays down", fp.Where(), maxSameFailure, fp.At)
	default:
		prose.Fprintf(&sb, " finds the job already down: at %s %s, and the job restarts at %s", fp.At, fp.why(), fp.RestartAt)
	}
	sb.WriteString(". A job that is not running has no task to fail: nothing more happens")
	if j.down && !j.dead {
		sb.WriteString(", and the restart keeps its time")
	}
	sb.WriteString(".")
	s.w.Emit(who, engine.KindCrash, -1, "%s", sb.String())
}

// strand ends the narration of the step that leaves the job down for
// good (its last failure for lack of memory, or a restore that fails)
// with a sentence for the fail lines still waiting for a checkpoint's
// point: no checkpoint begins again, so they would pass in silence. They
// are said here, in the step that strands them, rather than in steps of
// their own as missed's are: they have no instant of their own to come
// at, only this one. It forgets them.
func (j *job) strand(sb *strings.Builder) {
	if len(j.plans) == 0 {
		return
	}
	prose.Fprintf(sb, " %s will never come: no checkpoint will begin again.", j.plansText())
	j.plans = nil
}

// unreached is the step at the end of a run that still has fail lines
// waiting for a point of a checkpoint: the job has read everything and
// stopped checkpointing (a job idle after the scenario's last send takes
// none, and the last checkpoint at the end of input is taken only for a
// two-phase-commit sink's open transactions), so those points never come.
// It forgets them.
func (j *job) unreached() {
	who := j.plans[0].who
	text := prose.F("%s will never come: the job has read all of its input, and no checkpoint will begin again.", j.plansText())
	j.plans = nil
	j.s.w.Emit(who, engine.KindCrash, -1, "%s", text)
}

// plansText names the fail lines waiting for a point of a checkpoint, as
// the subject of a sentence.
func (j *job) plansText() string {
	var ps []string
	for _, p := range j.plans {
		ps = append(ps, prose.F("the failure of %s planned for the %s of the first checkpoint at or after %s", p.who, p.point, p.after))
	}
	ps[0] = "T" + ps[0][1:]
	return strings.Join(ps, " and ")
}

// why is what failed, as a clause: "load failed at checkpoint 4's barrier".
func (fp *FailPoint) why() string {
	if w := fp.Where(); w != "" {
		return fp.Who + " failed " + w
	}
	return fp.Who + " failed"
}

// restart restores the latest completed checkpoint (or empty state, from
// the beginning, when none completed): every operator's state, every
// stream's positions, and each two-phase-commit sink's transactions.
func (j *job) restart() {
	s := j.s
	now := s.w.Now()
	rp := RestorePoint{Step: int32(s.w.NextStep()), At: now, Exact: true}
	var buffered int64 // what the buffers held when the restored checkpoint began, written or not
	var cp *CheckpointPoint
	var states [][]byte
	if j.done != nil {
		rp.From = j.done.id
		cp = &s.t.Job.Checkpoints[j.done.hi]
		states = j.done.states
		// What the buffers held when it began, less what a sink or an
		// aggregate took off them and wrote at once before the failure:
		// never to be read again (see bufferLoss).
		// A checkpoint restored before lost them then: the buffers it
		// held were cleared, and nothing read since sits before its
		// positions.
		if j.done.id != j.lostFrom {
			rp.Lost = int32(j.bufferLoss(j.done))
			for _, n := range j.done.buffered {
				buffered += n
			}
			j.lostFrom = j.done.id
		}
		rp.Behind = now.Sub(cp.BeginAt)
	}
	// Where each partition resumes, and whether the input it needs is there.
	// With no checkpoint, a source starts afresh, as it first did: from the
	// log start (Flink's OffsetsInitializer.earliest()), which retention
	// may have moved since; auto.offset.reset plays no part.
	var gone, failed, fresh []string
	for si, st := range s.order {
		var rs []checkpoint.Resumed
		for p := range st.parts {
			part := st.topic.h.Parts[p]
			pos := int64(0)
			switch {
			case cp == nil:
				pos = part.Start()
				if pos > 0 {
					fresh = append(fresh, prose.F("%s-%d from offset %d", st.topic.h.Name, p, pos))
				}
			case si < len(cp.Positions) && p < len(cp.Positions[si]):
				pos = cp.Positions[si][p]
			}
			r := checkpoint.Resume(pos, part.Start(), part.End(), st.reset)
			rs = append(rs, r)
			if r.Gone {
				pname := prose.F("%s-%d", st.topic.h.Name, p)
				if r.Failed {
					failed = append(failed, prose.F("%s needs offset %d and the log starts at %d", pname, pos, part.Start()))
				} else {
					// Of the offsets it jumps over, those read before the
					// failure did their work then, as far as the restore
					// kept it; the rest are never read at all.
					read := st.hist.Parts[p].readIn(pos, r.Next)
					skips := prose.Count(int(r.Skipped), "offset", "offsets")
					never := prose.Count(int(r.Skipped), "record is", "records are") + " never read"
					switch {
					case read == int(r.Skipped):
						// None is unread: say so, and that nothing redoes
						// what the restore undid of their work (state
						// rewound, a prepared transaction aborted).
						switch read {
						case 1:
							never = "it skips 1 offset, read before the failure: it is not read again, so nothing redoes what the restore undid of its work"
						case 2:
							never = "it skips 2 offsets, both read before the failure: neither is read again, so nothing redoes what the restore undid of their work"
						default:
							never = "it skips " + skips + ", all read before the failure: none is read again, so nothing redoes what the restore undid of their work"
						}
					case read > 0:
						never = prose.F("it skips %s: %d %s read before the failure, and %s never read at all", skips, read, prose.WereWas(read), prose.Count(int(r.Skipped)-read, "record is", "records are"))
					}
					gone = append(gone, prose.F("%s needs offset %d, which retention has deleted (the log starts at %d), so auto.offset.reset=%s resumes at %d and %s", pname, pos, part.Start(), st.reset, r.Next, never))
				}
			}
		}
		rp.Resumed = append(rp.Resumed, rs)
	}
	h := s.t.Job
	// Each two-phase-commit sink decides its prepared transactions as its
	// state is restored, before any source reads: Flink's committer
	// commits the restored checkpoint's (and earlier) ones in its
	// initializeState, so they commit even when a source then fails.
	var commits []*txn
	var writers []*writer
	for _, op := range s.ops {
		if out := op.base().out; out != nil && out.twoPC {
			cs, aborted, expired := out.recover(rp.From)
			rp.Aborted += int32(aborted)
			rp.Expired += int32(expired)
			for _, x := range cs {
				commits = append(commits, x)
				writers = append(writers, out)
				rp.Committed += int32(len(x.rows))
			}
		}
	}
	decided := decidedText(&rp, commits)
	if len(failed) > 0 {
		rp.Failed = true
		j.dead = true
		h.Restores = append(h.Restores, rp)
		src := "from the beginning"
		if cp != nil {
			src = prose.F("from checkpoint %d", cp.ID)
		}
		var sb strings.Builder
		prose.Fprintf(&sb, "The job cannot restart %s: %s; retention deleted the input the checkpoint needs, and with auto.offset.reset=none the source fails at once, every time.",
			src, strings.Join(limitList(failed, 3), "; "))
		if decided != "" {
			prose.Fprintf(&sb, " Before it fails, the sinks restore their state: %s.", decided)
		}
		sb.WriteString(" The job stays down and nothing more is read.")
		j.strand(&sb)
		s.w.Emit("job", engine.KindRestore, -1, "%s", sb.String())
		j.commitRecovered(commits, writers, rp.From)
		return
	}
	// Put the state back.
	for oi, op := range s.ops {
		var b []byte
		if states != nil {
			b = states[oi]
		}
		if err := op.restore(b); err != nil {
			panic("stream: a checkpoint's own snapshot does not restore: " + err.Error())
		}
		if b != nil && digest(op.snapshot(nil)) != digest(b) {
			rp.Exact = false
		}
		j.afterRestore(op)
	}
	var rewound []string
	for si, st := range s.order {
		back := st.restart(rp.Resumed[si])
		rp.Rewound += back
		for _, r := range rp.Resumed[si] {
			rp.Skipped += r.Skipped
		}
		if back > 0 {
			rewound = append(rewound, prose.F("%s reads %s again", st.name, prose.Count(int(back), "record", "records")))
		}
	}
	j.down = false
	h.Restores = append(h.Restores, rp)
	var sb strings.Builder
	if cp != nil {
		prose.Fprintf(&sb, "The job restarts from checkpoint %d, taken at %s: every operator gets back the state it had then, the watermarks start again from nothing as a restored Flink job's do", cp.ID, cp.BeginAt)
	} else {
		sb.WriteString("The job restarts with no checkpoint to restore: every operator starts empty and every stream reads from the beginning")
		if len(fresh) > 0 {
			prose.Fprintf(&sb, " of what its log still holds (%s: retention has deleted what came before)", strings.Join(limitList(fresh, 3), ", "))
		}
	}
	if len(rewound) > 0 {
		prose.Fprintf(&sb, "; %s", strings.Join(rewound, ", "))
	}
	if len(gone) > 0 {
		prose.Fprintf(&sb, "; %s", strings.Join(limitList(gone, 3), "; "))
	}
	if rp.Lost > 0 {
		gone := "are in no snapshot and before every position, and nothing they changed survives the restore: lost"
		if rp.Lost == 1 {
			gone = "is in no snapshot and before every position, and nothing it changed survives the restore: lost"
		}
		if written := buffered - int64(rp.Lost); written > 0 {
			// The step that began the checkpoint counted them all; some
			// were written before the failure, and stay.
			prose.Fprintf(&sb, "; of the %d records that sat in buffers without flow control when the checkpoint began, %d %s written before the failure, and the other %d %s", buffered, written, prose.WereWas(int(written)), rp.Lost, gone)
		} else {
			prose.Fprintf(&sb, "; %s that sat in buffers without flow control when the checkpoint began %s", prose.Count(int(rp.Lost), "record", "records"), gone)
		}
	}
	if decided != "" {
		prose.Fprintf(&sb, "; %s", decided)
	}
	sb.WriteString(".")
	s.w.Emit("job", engine.KindRestore, -1, "%s", sb.String())
	j.commitRecovered(commits, writers, rp.From)
	for _, st := range s.order {
		st.arm()
		st.maybeEnd()
	}
	j.rearm()
}

// decidedText says, as clauses, what restore rp's sinks did with their
// prepared transactions: the rows of checkpoints that never completed
// rolled back, the transactions committed now (commits), and the rows the
// broker had aborted already; "" when they had none.
func decidedText(rp *RestorePoint, commits []*txn) string {
	from := rp.From
	var parts []string
	if rp.Aborted > 0 {
		parts = append(parts, prose.F("transactions pre-committed for checkpoints that never completed are rolled back (%s)", prose.Count(int(rp.Aborted), "row", "rows")))
	}
	switch {
	case len(commits) == 1 && commits[0].id == from:
		parts = append(parts, prose.F("checkpoint %d's transaction is still prepared, and will be committed now", from))
	case len(commits) == 1:
		parts = append(parts, prose.F("transaction %d is still prepared, and checkpoint %d's completion covers it: it will be committed now", commits[0].id, from))
	case len(commits) > 0:
		ids := make([]string, len(commits))
		for i, x := range commits {
			ids[i] = prose.F("%d", x.id)
		}
		parts = append(parts, prose.F("transactions %s are still prepared, and checkpoint %d's completion covers each: they will be committed now", strings.Join(ids, ", "), from))
	}
	if rp.Expired > 0 {
		parts = append(parts, prose.F("the broker has already aborted %s the restore would commit (their transaction outlived txn-timeout=): Flink's Kafka committer finds it aborted, logs that and drops it, so those rows are lost", prose.Count(int(rp.Expired), "prepared row", "prepared rows")))
	}
	return strings.Join(parts, "; ")
}

// commitRecovered commits, each as a step of its own, the transactions a
// restore found prepared for a completed checkpoint; writers[i] holds
// commits[i].
func (j *job) commitRecovered(commits []*txn, writers []*writer, by int32) {
	epoch := j.epoch
	for i, x := range commits {
		out := writers[i]
		j.s.w.Then(func() {
			if j.epoch == epoch {
				j.commit(out, x, by, true)
			}
		})
	}
}

// bufferLoss counts the records the buffers without flow control held when
// done began and whose row does not survive a restore of it: they are in
// no snapshot and before every position, so nothing reads them again. A
// buffer hands records on in order, so those it held were the first taken
// off it after the checkpoint began; the row a sink or an aggregate wrote
// for one at once stays in its table (an aggregate's state forgets it, so
// a later row of its key may undercount), while a two-phase-commit sink's
// transaction rolls back and a window's state, which has written nothing
// yet, is replaced by the snapshot.
func (j *job) bufferLoss(done *ckptRun) int64 {
	lost := int64(0)
	for oi, held := range done.buffered {
		if held == 0 {
			continue
		}
		kept := int64(0)
		if writesAtOnce(j.s.ops[oi]) && oi < len(j.takenAtCrash) {
			kept = min(held, j.takenAtCrash[oi]-done.taken[oi])
		}
		lost += held - kept
	}
	return lost
}

// writesAtOnce reports whether op writes a row for each record it takes,
// visible at once: a sink or an aggregate that does not commit in two
// phases.
func writesAtOnce(op operator) bool {
	switch op.(type) {
	case *sinkOp, *aggOp:
		out := op.base().out
		return out != nil && !out.twoPC
	}
	return false
}

// afterRestore resets what a restored Flink operator does not keep: its
// watermark.
func (j *job) afterRestore(op operator) {
	switch o := op.(type) {
	case *windowOp:
		o.op.ResetWatermark()
	case *joinOp:
		o.op.ResetWatermark()
		o.comb = watermark.NewCombiner(2)
		o.shownWM = watermark.None
	}
	j.s.noteState(op)
}
