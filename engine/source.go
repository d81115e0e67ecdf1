package engine

import (
	"strconv"

	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/vtime"
)

// stmt is one statement of a source transaction, as the scenario wrote it.
type stmt struct {
	op       mvcc.Op
	table    *mvcc.Table
	keys     []string // explicit keys; empty means take count ids from the sequence
	count    int
	amount   int64
	backdate *vtime.Time
}

func (w *World) sourceClock(t *mvcc.Table) *Clock { return w.clocks[t.Clock] }

func (w *World) begin(ts *txnState) {
	now := w.source.Read(w.now)
	w.db.BeginInto(&ts.tx, ts.name, ts.session, w.now, now)
	w.trace.Txns = append(w.trace.Txns, TxnRecord{Name: ts.name, Session: ts.session, BeginAt: w.now, BeginNow: now, BeginStep: w.step()})
	ts.rec = len(w.trace.Txns) - 1
	w.emitTxn(KindBegin, ts.rec, -1)
}

func (w *World) statement(ts *txnState, s *stmt) {
	clock := w.sourceClock(s.table)
	now := clock.Read(w.now)
	keys := s.keys
	if len(keys) == 0 {
		keys = make([]string, s.count)
		for i := range keys {
			keys[i] = strconv.FormatInt(s.table.NextVal(ts.session), 10)
		}
	} else {
		for _, k := range keys {
			if n, err := strconv.ParseInt(k, 10, 64); err == nil {
				s.table.SeeID(n)
			}
		}
	}
	w.charge(len(keys))
	var stamp vtime.Time
	target := w.targetFor(s.table.Name)
	for _, k := range keys {
		v := w.db.Write(&ts.tx, s.table, s.op, k, w.keyID(target, k), s.amount, now, s.backdate)
		stamp = v.UpdatedAt
	}
	rec := &w.trace.Txns[ts.rec]
	rec.Stmts = append(rec.Stmts, StmtRecord{Op: s.op, Table: s.table.Name, Keys: keys, Stamp: stamp, Mode: s.table.Stamp, Backdated: s.backdate != nil})
	w.emitTxn(KindInsert+Kind(s.op), ts.rec, len(rec.Stmts)-1)
}

func (w *World) commit(ts *txnState) {
	now := w.source.Read(w.now)
	w.db.Commit(&ts.tx, w.now, now)
	if w.log != nil {
		w.captureCommit(ts) // schedules the log's copies of this commit, after its own event
	}
	step := w.step()
	rec := &w.trace.Txns[ts.rec]
	rec.EndAt, rec.EndStep, rec.State, rec.LSN = w.now, step, mvcc.Committed, ts.tx.LSN
	for _, v := range ts.tx.Writes {
		w.trace.Versions = append(w.trace.Versions, VersionRecord{
			TableID: w.trace.tableID(v.Table), KeyID: v.ID, Op: v.Op, Seq: int32(v.Seq), UpdatedAt: v.UpdatedAt, LSN: v.LSN,
			CommitStep: int32(step), Backdated: v.Backdated,
		})
		target := w.targetFor(v.Table)
		ks := &w.keys[v.ID]
		ks.sourceSeq = int32(v.Seq)
		if v.Deleted() {
			ks.sourceSeq = 0
		}
		w.settle(target, v.ID)
	}
	w.emitTxn(KindCommit, ts.rec, -1)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func (w *World) rollback(ts *txnState) {
	w.db.Rollback(&ts.tx, w.now)
	rec := &w.trace.Txns[ts.rec]
	rec.EndAt, rec.EndStep, rec.State = w.now, w.step(), mvcc.RolledBack
	w.emitTxn(KindRollback, ts.rec, -1)
}

func (w *World) jump(clock string, by vtime.Duration) {
	c := w.clocks[clock]
	c.Skew += by
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
