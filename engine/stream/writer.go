package stream

import (
	"slices"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/window"
)

// A writer is how an operator's results reach its target table, and it is
// what decides the output's guarantee (see docs/scenarios.md, "Sinks"):
//
//   - commit=auto: each result is written at once in a statement of its
//     own, as a JDBC sink in auto-commit mode writes. After a restore the
//     job writes everything since the checkpoint again: an append target
//     holds it twice, a keyed merge absorbs it.
//   - commit=two-phase: results go into the open transaction, which the
//     checkpoint's barrier pre-commits and the checkpoint's completion
//     commits (Flink's TwoPhaseCommitSinkFunction). A read-committed reader
//     sees nothing of a transaction until then; a failure before the
//     checkpoint completes aborts it.
type writer struct {
	s      *world
	oi     int16
	target *sink.Table
	twoPC  bool
	open   []pendingRow
	pre    []*txn // pre-committed, awaiting their checkpoint's completion
	// visible is the operator's bookkeeping once a row has been written to
	// the target (a window's or an aggregate's row, which the truth
	// compares): landed says whether the table now holds it, or a merge
	// absorbed it as no newer than the row present. nil for none.
	visible   func(p *pendingRow, landed bool)
	written   int32
	collapsed int32
	pending   int32
	since     vtime.Time // when the first row of the open transaction was written
	// timeout is how long a transaction may stay open, from its first
	// row, before the system behind the target aborts it on its own
	// (Kafka's transaction.timeout.ms); 0: it waits for ever, as a
	// database's prepared transaction does. Always longer than the
	// checkpoint interval, so only a job that is down or late reaches it.
	timeout vtime.Duration
	gen     int32         // numbers the open transactions, one after the other
	timer   *engine.Timer // the broker's timeout of the open transaction, or nil
	expired []*txn        // prepared transactions the broker aborted, which a restore of their checkpoint would commit
}

// pendingRow is one row on its way to the target.
type pendingRow struct {
	_   nocmp.NoCompare
	in  sink.In
	acc window.Acc // the aggregate it carries, for a window's or an aggregate's row
	ref int32      // what the operator's visible knows it by, or -1
}

// txn is a pre-committed transaction.
type txn struct {
	id    int32
	gen   int32 // the writer's number of it, from when it opened
	rows  []pendingRow
	since vtime.Time // when its first row was written
	// timer is the broker's timeout of it (see expire), stopped once it
	// commits or aborts, so that it does not hold the run's end back; nil
	// without txn-timeout=.
	timer *engine.Timer
}

// write hands rows to the target: at once, or into the open transaction.
func (wr *writer) write(rows []pendingRow) {
	if len(rows) == 0 {
		return
	}
	if wr.twoPC {
		if len(wr.open) == 0 {
			wr.since = wr.s.w.Now()
			wr.gen++
			if wr.timeout > 0 {
				// Kafka's transaction coordinator times a transaction from
				// its first write (AddPartitionsToTxn), open or prepared.
				gen := wr.gen
				wr.timer = wr.s.w.ScheduleTimer(wr.since.Add(wr.timeout), func() { wr.expire(gen) })
			}
		}
		wr.open = append(wr.open, rows...)
		wr.setPending(wr.pending + int32(len(rows)))
		return
	}
	wr.deliver(rows)
}

// deliver makes rows visible in the target in one statement.
func (wr *writer) deliver(rows []pendingRow) {
	s := wr.s
	in := make([]sink.In, len(rows))
	for i := range rows {
		in[i] = rows[i].in
	}
	res := s.w.Deliver(wr.target, in, -1, nil)
	if wr.visible != nil {
		single := wr.target.Mode == sink.Merge || wr.target.Mode == sink.Upsert
		for i := range rows {
			landed := !single || wr.target.NewestID(rows[i].in.ID) == rows[i].in.Seq
			wr.visible(&rows[i], landed)
		}
	}
	oh := s.t.Ops[wr.oi]
	step := int32(s.w.NextStep())
	wr.written += int32(len(rows))
	oh.Written = appendCount(oh.Written, step, wr.written)
	if res.Collapsed > 0 {
		wr.collapsed += int32(res.Collapsed)
		oh.Collapsed = appendCount(oh.Collapsed, step, wr.collapsed)
	}
}

// setPending records how many rows are written and not yet committed.
func (wr *writer) setPending(n int32) {
	wr.pending = n
	oh := wr.s.t.Ops[wr.oi]
	oh.Pending = appendCount(oh.Pending, int32(wr.s.w.NextStep()), n)
}

// appendCount records a count from step on, replacing one at the same step.
func appendCount(xs []CountPoint, step, n int32) []CountPoint {
	if k := len(xs); k > 0 && xs[k-1].Step == step {
		xs[k-1].N = n
		return xs
	}
	if k := len(xs); k > 0 && xs[k-1].N == n {
		return xs
	}
	return append(xs, CountPoint{Step: step, N: n})
}

// precommit closes the open transaction at checkpoint id's barrier: it is
// flushed and prepared, and becomes visible when the checkpoint completes.
// It returns how many rows it holds.
func (wr *writer) precommit(id int32) int {
	if !wr.twoPC || len(wr.open) == 0 {
		return 0 // nothing written since the last barrier: nothing to commit
	}
	rows := wr.open
	wr.open = nil
	x := &txn{id: id, gen: wr.gen, rows: rows, since: wr.since, timer: wr.timer}
	wr.timer = nil
	wr.pre = append(wr.pre, x)
	wr.txnPoint(id, checkpoint.PreCommitted, len(rows), false)
	return len(rows)
}

// expire is the broker's timer for the transaction the writer numbered
// gen, txn-timeout= after its first row: if it is still open, the broker
// aborts it and the sink's next write is fenced, which fails the job; if
// it is prepared and nothing has committed it, the broker aborts it on
// its own (timedOut). A transaction committed or rolled back by then is
// gone, and the timer does nothing.
func (wr *writer) expire(gen int32) {
	if gen == wr.gen && len(wr.open) > 0 {
		oh := wr.s.t.Ops[wr.oi]
		wr.s.job.crash(oh.Name, PointTxnTimeout, failRestart, prose.F("The broker aborts %s's open transaction to %s, open since %s, longer than txn-timeout=%s (Kafka's transaction.timeout.ms): the sink's next write is fenced (ProducerFencedException) and its task fails",
			oh.Name, oh.Target, wr.since, wr.timeout))
		return
	}
	for _, x := range wr.pre {
		if x.gen == gen {
			wr.timedOut(x)
			return
		}
	}
}

// timedOut is the broker aborting prepared transaction x on its own: it
// has been open longer than the timeout, and nothing committed it. What
// that costs depends on its checkpoint: completed, its rows are lost (a
// restore that commits it finds it aborted, and Flink's Kafka committer
// logs that and drops it); not completed with the job down, nothing, for
// the restore of an earlier checkpoint reads them again; not completed
// with the job running, the next checkpoint to complete would commit it,
// so its rows are lost.
func (wr *writer) timedOut(x *txn) {
	j := wr.s.job
	wr.pre = without(wr.pre, x)
	wr.txnPoint(x.id, checkpoint.Aborted, len(x.rows), false)
	wr.setPending(wr.pending - int32(len(x.rows)))
	oh := wr.s.t.Ops[wr.oi]
	rows := prose.Count(len(x.rows), "row", "rows")
	var fate string
	switch {
	case j.done != nil && j.done.id >= x.id:
		wr.expired = append(wr.expired, x)
		fate = prose.F("Checkpoint %d has completed, so its %s were to be committed; a restored job that commits it finds it aborted, and Flink's Kafka committer logs that and drops it: the rows are lost", j.done.id, rows)
	case !j.up():
		fate = prose.F("Its checkpoint never completed, so nothing is lost: the restore goes back to an earlier checkpoint and reads its %s again", rows)
	default:
		fate = prose.F("Its checkpoint never completed; the next one to complete would commit it, finds it aborted, and Flink's Kafka committer logs that and drops it: its %s are lost", rows)
	}
	wr.s.w.Emit("broker", engine.KindTransaction, -1, "The broker aborts %s's transaction %d to %s on its own: it has been open since %s, longer than txn-timeout=%s (Kafka's transaction.timeout.ms), and nothing has committed it. %s.",
		oh.Name, x.id, oh.Target, x.since, wr.timeout, fate)
}

// committable returns the pre-committed transactions that checkpoint id's
// completion commits, oldest first: its own and every earlier one still
// prepared, such as a transaction pre-committed for a checkpoint that then
// expired. Flink's TwoPhaseCommitSinkFunction commits, on a checkpoint's
// completion, every pending transaction of that checkpoint or an earlier
// one (notifyCheckpointComplete), and does nothing when one is aborted.
func (wr *writer) committable(id int32) []*txn {
	var out []*txn
	for _, x := range wr.pre {
		if x.id <= id {
			out = append(out, x)
		}
	}
	return out
}

// commit makes transaction x visible: its rows land in one statement. It
// returns how many rows land: a table with one row per key takes the last
// write of each key.
func (wr *writer) commit(x *txn, recovered bool) (landed int) {
	wr.pre = without(wr.pre, x)
	wr.s.w.Stop(x.timer) // a committed transaction is gone: its timeout has nothing left to abort
	rows := x.rows
	if wr.target.Mode == sink.Merge || wr.target.Mode == sink.Upsert {
		rows = lastPerKey(rows)
	}
	wr.txnPoint(x.id, checkpoint.Committed, len(x.rows), recovered)
	j := wr.s.t.Job
	j.Txns[len(j.Txns)-1].Wait = wr.s.w.Now().Sub(x.since)
	wr.setPending(wr.pending - int32(len(x.rows)))
	if len(rows) > 0 {
		wr.deliver(rows)
	}
	return len(rows)
}

// lastPerKey keeps the last row of each key, in the order of those rows:
// what a transaction that wrote a key several times leaves in a table
// with one row per key.
func lastPerKey(rows []pendingRow) []pendingRow {
	last := map[int32]int{}
	for i, r := range rows {
		last[r.in.ID] = i
	}
	out := make([]pendingRow, 0, len(last))
	for i, r := range rows {
		if last[r.in.ID] == i {
			out = append(out, r)
		}
	}
	return out
}

// abortOpen rolls back the open transaction, which checkpoint id would
// have pre-committed, as a failure does, and returns how many rows it held.
func (wr *writer) abortOpen(id int32) int {
	n := len(wr.open)
	if wr.twoPC && n > 0 {
		wr.txnPoint(id, checkpoint.Aborted, n, false)
		wr.setPending(wr.pending - int32(n))
	}
	wr.open = nil
	wr.s.w.Stop(wr.timer)
	wr.timer = nil
	return n
}

// recover decides each pre-committed transaction after a restore from
// checkpoint restored (0: none): the restored checkpoint's and earlier
// ones commit now, later ones abort. It returns the transactions to
// commit, each a step of its own, how many rows it aborted, and how many
// rows of transactions it would have committed the broker had aborted
// already (lost).
func (wr *writer) recover(restored int32) (commits []*txn, aborted, expired int) {
	for _, x := range wr.expired {
		if x.id <= restored {
			expired += len(x.rows)
		}
	}
	wr.expired = nil
	for _, x := range slices.Clone(wr.pre) {
		switch checkpoint.Recover(checkpoint.Txn{ID: x.id, State: checkpoint.PreCommitted}, restored) {
		case checkpoint.Commit:
			commits = append(commits, x)
		case checkpoint.Abort:
			wr.pre = without(wr.pre, x)
			wr.s.w.Stop(x.timer)
			wr.txnPoint(x.id, checkpoint.Aborted, len(x.rows), true)
			wr.setPending(wr.pending - int32(len(x.rows)))
			aborted += len(x.rows)
		}
	}
	return commits, aborted, expired
}

// txnPoint records a transaction's change of state.
func (wr *writer) txnPoint(id int32, st checkpoint.TxnState, rows int, recovered bool) {
	j := wr.s.jobHist()
	j.Txns = append(j.Txns, TxnPoint{Step: int32(wr.s.w.NextStep()), Op: wr.oi, ID: id, State: st, Rows: int32(rows), Recovered: recovered})
}

// without removes x from ts in place, as slices.DeleteFunc(ts, func(y
// *txn) bool { return y == x }) does, without its instance for
// transactions in the browser module.
func without(ts []*txn, x *txn) []*txn {
	out := ts[:0]
	for _, y := range ts {
		if y != x {
			out = append(out, y)
		}
	}
	clear(ts[len(out):])
	return out
}
