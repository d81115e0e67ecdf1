package hwm

import (
	"slices"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
)

// stmt is one statement of a source transaction, as the scenario wrote it.
type stmt struct {
	txn      *txnState // the transaction it belongs to; nil for a workload's shared statement
	op       mvcc.Op
	table    *mvcc.Table
	keys     []string // explicit keys; empty means take count ids from the sequence
	count    int
	amount   int64
	backdate *vtime.Time
	pos      scenario.Pos // the statement's word in the file, or its workload's line
}

// Act runs the statement in its transaction.
func (s *stmt) Act() { s.txn.h.statement(s.txn, s) }

func (h *world) sourceClock(t *mvcc.Table) *engine.Clock { return h.w.Clock(t.Clock) }

// begin begins ts in its session. A PostgreSQL session runs one
// transaction at a time, so a begin in a session whose transaction is still
// open stops the run with an error at ts's line; a workload picks a free
// session before it begins one (see workload.Act).
func (h *world) begin(ts *txnState) {
	if o := h.busy[ts.sid]; o != nil {
		var pos scenario.Pos
		switch tp := h.txns[ts.name]; {
		case tp != nil:
			pos = tp.pos
		case ts.pool != nil:
			pos = ts.pool.insert.pos // the workload's line
		}
		h.w.Refuse(scenario.Errorf(pos, "%s begins at %s in session %s, where %s is still open: a PostgreSQL session runs one transaction at a time; "+
			"give %s a session of its own with session=, or end %s first", ts.name, h.w.Now(), ts.session, o.name, ts.name, o.name))
		return
	}
	h.busy[ts.sid] = ts
	now := h.source.Read(h.w.Now())
	h.db.BeginInto(&ts.tx, ts.name, ts.session, h.w.Now(), now)
	h.t.Txns = append(h.t.Txns, TxnRecord{Name: ts.name, Session: ts.session, BeginAt: h.w.Now(), BeginNow: now, BeginStep: h.w.NextStep()})
	ts.rec = len(h.t.Txns) - 1
	h.emitTxn(engine.KindBegin, ts.rec, -1)
}

func (h *world) statement(ts *txnState, s *stmt) {
	clock := h.sourceClock(s.table)
	now := clock.Read(h.w.Now())
	keys := s.keys
	if len(keys) == 0 {
		keys = h.carveKeys(s.count)
		for i := range keys {
			keys[i] = h.idText(s.table.NextVal(ts.session))
		}
	}
	h.w.Charge(len(keys))
	stamp := now
	switch {
	case s.backdate != nil:
		stamp = *s.backdate
	case s.table.Stamp == mvcc.StampTxnStart:
		stamp = ts.tx.BeginNow
	}
	target := h.targetFor(s.table.Name)
	table := h.w.TableID(s.table.Name)
	// Each row is this table's: its own id to the truth (rows), the key's
	// id to the target (keyIDs), both numbered once for the check and the write.
	keyIDs, rows := h.keyIDs[:0], h.rowIDs[:0]
	for _, k := range keys {
		id := h.w.KeyID(target, k)
		keyIDs, rows = append(keyIDs, id), append(rows, h.w.RowID(id, table))
	}
	h.keyIDs, h.rowIDs = keyIDs, rows
	if err := h.refusal(ts, s, keys, rows); err != nil {
		h.w.Refuse(err)
		return
	}
	var unmatched []string // keys an update or delete named that have no row
	for i, k := range keys {
		if v := h.db.Write(&ts.tx, s.table, s.op, k, rows[i], s.amount, now, s.backdate); v == nil {
			if unmatched == nil {
				keys = slices.Clone(keys[:i]) // the rows changed so far, and only those from now on
			}
			unmatched = append(unmatched, k)
		} else {
			v.Target = keyIDs[i]
			if unmatched != nil {
				keys = append(keys, k)
			}
		}
	}
	rec := &h.t.Txns[ts.rec]
	h.addStmt(rec, StmtRecord{Op: s.op, Table: s.table.Name, Keys: keys, Stamp: stamp, Mode: s.table.Stamp, Backdated: s.backdate != nil, Drawn: len(s.keys) == 0})
	if unmatched != nil {
		h.t.Unmatched = append(h.t.Unmatched, Unmatched{Txn: ts.rec, Stmt: len(rec.Stmts) - 1, Keys: unmatched})
	}
	h.emitTxn(engine.KindInsert+engine.Kind(s.op), ts.rec, len(rec.Stmts)-1)
}

// refusal returns the error that stops the run when statement s of ts
// would write a row as PostgreSQL would not let it, or nil: a row another
// open transaction has written (PostgreSQL makes s wait for that one to
// end), or an insert of a key that already has a row ts can see
// (unique_violation, which aborts ts), among them an id drawn from the
// sequence that a key inserted by hand already holds. The simulation models neither the
// wait nor the aborted transaction, so it says so rather than let both
// writes through.
func (h *world) refusal(ts *txnState, s *stmt, keys []string, rows []int32) error {
	// drawn ends the refusal of an insert whose sequence draws an id a key
	// inserted by hand holds.
	const drawn = "which the simulation does not model; start the sequence past the explicit keys with first-id= on the source, or give this insert its keys"
	// what names the statement's write of key k, spelled only for an error:
	// a workload's statements come by the million.
	what := func(k string) string {
		return prose.F("%s's %s of %s=%s in %s at %s", ts.name, s.op, s.table.Key, k, s.table.Name, h.w.Now())
	}
	for i, k := range keys {
		id := rows[i]
		// Each row is looked up once: these run for every key a
		// workload writes.
		o := h.db.Holder(&ts.tx, s.table, id)
		exists := (s.op == mvcc.Insert || o != nil) && h.db.Exists(&ts.tx, s.table, id)
		if s.op == mvcc.Insert && len(s.keys) == 0 && o != nil && !exists {
			// The holder has not committed: PostgreSQL makes the insert
			// wait for it, and fails it only if the holder commits.
			return scenario.Errorf(s.pos, "%s's insert draws %s=%s from %s's sequence at %s, but %s, still open, has inserted that key explicitly: "+
				"PostgreSQL's sequence does not skip ids inserted by hand, so the insert waits until %s ends and then fails with a duplicate key (unique_violation) if %s commits, "+drawn,
				ts.name, s.table.Key, k, s.table.Name, h.w.Now(), o.Name, o.Name, o.Name)
		}
		if s.op == mvcc.Insert && len(s.keys) == 0 && exists {
			return scenario.Errorf(s.pos, "%s's insert draws %s=%s from %s's sequence at %s, but a row with that key was inserted explicitly: "+
				"PostgreSQL's sequence does not skip ids inserted by hand, so the insert fails with a duplicate key (unique_violation) and aborts %s, "+drawn,
				ts.name, s.table.Key, k, s.table.Name, h.w.Now(), ts.name)
		}
		if o != nil && (s.op == mvcc.Insert || exists) {
			return scenario.Errorf(s.pos, what(k)+" comes while %s, still open, has written that row: PostgreSQL would make %s wait until %s ends (a row lock), "+
				"which the simulation does not model; end %s before this statement", o.Name, ts.name, o.Name, o.Name)
		}
		if s.op == mvcc.Insert && exists {
			return scenario.Errorf(s.pos, what(k)+" finds that row already there: PostgreSQL refuses a duplicate key (unique_violation) and aborts %s, "+
				"which the simulation does not model; insert a key with no row, or update this one", ts.name)
		}
	}
	return nil
}

// endSession frees ts's session for the next transaction.
func (h *world) endSession(ts *txnState) {
	h.busy[ts.sid] = nil
	if ts.pool != nil {
		ts.pool.release(ts)
	}
}

func (h *world) commit(ts *txnState) {
	now := h.source.Read(h.w.Now())
	h.db.Commit(&ts.tx, h.w.Now(), now)
	for _, fn := range h.onCommit {
		fn(&ts.tx) // the log's change capture schedules its copies of this commit, after its own event
	}
	step := h.w.NextStep()
	rec := &h.t.Txns[ts.rec]
	rec.EndAt, rec.EndStep, rec.State, rec.LSN = h.w.Now(), step, mvcc.Committed, ts.tx.LSN
	for _, v := range ts.tx.Writes {
		table := v.Table()
		h.w.AddVersion(engine.VersionRecord{
			TableID: h.w.TableID(table), KeyID: v.ID, Op: v.Op, Seq: int32(v.Seq), UpdatedAt: v.UpdatedAt, LSN: v.LSN,
			CommitStep: int32(step), Backdated: v.Backdated,
		})
		seq := int32(v.Seq)
		if v.Deleted() {
			seq = 0
		}
		h.w.SetSourceVersion(h.targetFor(table), v.ID, seq)
	}
	h.endSession(ts)
	h.emitTxn(engine.KindCommit, ts.rec, -1)
}

func (h *world) rollback(ts *txnState) {
	h.db.Rollback(&ts.tx, h.w.Now())
	rec := &h.t.Txns[ts.rec]
	rec.EndAt, rec.EndStep, rec.State = h.w.Now(), h.w.NextStep(), mvcc.RolledBack
	h.endSession(ts)
	h.emitTxn(engine.KindRollback, ts.rec, -1)
}

// ruleWords say how each rule fills updated_at, by mvcc.Stamp.
var ruleWords = [...]string{"now(), the transaction's start", "statement_timestamp(), the statement's time", "the commit time"}

// alter changes the rule that fills t's updated_at for its later
// statements, as a deploy does that replaces a trigger or an application's
// default: the schema stays as it was.
func (h *world) alter(t *mvcc.Table, rule mvcc.Stamp) {
	from := t.Stamp
	t.Stamp = rule
	kept := "a row already written keeps the value it got"
	if from == mvcc.StampCommit {
		kept = "a row already written still gets its commit's time"
	}
	h.w.Emit("deploy", engine.KindAlter, -1, "At %s a deploy changes how %s.updated_at is filled: from now on it is %s, where it was %s. The schema is unchanged and nothing announces it; %s, and an open transaction's next statement takes the new rule.",
		h.w.Now(), t.Name, ruleWords[rule], ruleWords[from], kept)
}
