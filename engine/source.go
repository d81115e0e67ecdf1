package engine

import (
	"fmt"
	"strconv"

	"github.com/tidemark/tidemark/engine/extract"
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

func (w *World) begin(name, session string) {
	now := w.clocks["source"].Read(w.now)
	tx := w.db.Begin(name, session, w.now, now)
	w.trace.Txns = append(w.trace.Txns, TxnRecord{Name: name, Session: session, BeginAt: w.now, BeginStep: w.step()})
	w.txns[name] = &txnState{tx: tx, rec: len(w.trace.Txns) - 1, tables: map[string]bool{}}
	w.emit(name, KindBegin, -1, nil, "%s begins at %s; now() inside it reads %s on the source clock.", name, w.now, now)
}

func (w *World) statement(name string, s stmt) {
	ts := w.txns[name]
	clock := w.sourceClock(s.table)
	now := clock.Read(w.now)
	keys := s.keys
	if len(keys) == 0 {
		keys = make([]string, s.count)
		for i := range keys {
			keys[i] = strconv.FormatInt(s.table.NextVal(ts.tx.Session), 10)
		}
	} else {
		for _, k := range keys {
			if n, err := strconv.ParseInt(k, 10, 64); err == nil {
				s.table.SeeID(n)
			}
		}
	}
	var stamp vtime.Time
	for _, k := range keys {
		v := w.db.Write(ts.tx, s.table, s.op, k, s.amount, now, s.backdate)
		stamp = v.UpdatedAt
	}
	ts.tables[s.table.Name] = true
	rec := &w.trace.Txns[ts.rec]
	rec.Keys = append(rec.Keys, keys...)
	if s.table.Stamp != mvcc.StampCommit || s.backdate != nil {
		rec.Stamp, rec.HasStamp = stamp, true
	}
	n := w.trace.noun[s.table.Name]
	var when string
	switch {
	case s.backdate != nil:
		when = fmt.Sprintf("with updated_at set by hand to %s, a backdated value", *s.backdate)
	case s.table.Stamp == mvcc.StampTxnStart:
		when = fmt.Sprintf("with updated_at = now() = %s, the transaction's start", stamp)
	case s.table.Stamp == mvcc.StampStatement:
		when = fmt.Sprintf("with updated_at %s from the statement's clock", stamp)
	default:
		when = "; updated_at will be the commit time"
	}
	verb := map[mvcc.Op]string{mvcc.Insert: "inserts", mvcc.Update: "updates", mvcc.Delete: "deletes"}[s.op]
	prep := map[mvcc.Op]string{mvcc.Insert: "into", mvcc.Update: "in", mvcc.Delete: "from"}[s.op]
	sep := " "
	if when[0] == ';' {
		sep = ""
	}
	w.emit(name, Kind(s.op.String()), -1, keys, "%s %s %s %s %s%s%s; no other session can see it until %s commits.",
		name, verb, rowsPhrase(n, keys), prep, s.table.Name, sep, when, name)
}

func (w *World) commit(name string) {
	ts := w.txns[name]
	now := w.clocks["source"].Read(w.now)
	w.db.Commit(ts.tx, w.now, now)
	step := w.step()
	rec := &w.trace.Txns[ts.rec]
	rec.EndAt, rec.EndStep, rec.State, rec.LSN = w.now, step, mvcc.Committed, ts.tx.LSN
	var lost []string
	var lostNote string
	for _, v := range ts.tx.Writes {
		w.trace.Versions = append(w.trace.Versions, VersionRecord{
			Table: v.Table, Key: v.Key, Op: v.Op, Seq: v.Seq, UpdatedAt: v.UpdatedAt, LSN: v.LSN,
			Txn: name, CommitAt: w.now, CommitStep: step, Backdated: v.Backdated,
		})
		target := w.targetFor(v.Table)
		tk := v.Key
		if len(w.targets) > 1 && target != nil {
			tk = target.Name + ":" + v.Key
		}
		ks := w.keys[tk]
		if ks == nil {
			ks = &keyState{}
			w.keys[tk] = ks
		}
		ks.sourceSeq = v.Seq
		if v.Deleted() {
			ks.sourceSeq = 0
		}
		w.refreshKey(target, v.Key)
		if v.Deleted() {
			continue
		}
		// Would any pipeline reading this table never see this version?
		for _, pn := range w.pipeOrd {
			p := w.pipes[pn]
			if !p.reads(v.Table) || !p.cfg.Mark.IsTimestamp() {
				continue
			}
			m := p.marks[p.cfg.MarkFor(v.Table)]
			if p.cfg.Unreachable(m.value, int64(v.UpdatedAt)) {
				lost = append(lost, v.Key)
				if lostNote == "" {
					rel := "at or below"
					if p.cfg.Predicate == extract.GTE {
						rel = "below"
					}
					lostNote = fmt.Sprintf("its updated_at %s is already %s %s's stored mark %s", v.UpdatedAt, rel, p.cfg.Name, p.cfg.Mark.Format(m.value))
					if p.cfg.Overlap > 0 {
						lostNote += fmt.Sprintf(" less its %s overlap", p.cfg.Overlap)
					}
				}
				break
			}
		}
	}
	w.endSession(ts)
	keys := rec.Keys
	n := w.nounOf(ts)
	if len(lost) > 0 {
		subject := rowsPhrase(n, lost)
		w.emit(name, KindCommit, -1, keys, "%s commits at %s as lsn %d, making %s visible; %s, so no later run will read %s.",
			name, w.now, ts.tx.LSN, rowsPhrase(n, keys), lostNote, pronoun(subject, len(lost)))
		return
	}
	w.emit(name, KindCommit, -1, keys, "%s commits at %s as lsn %d; %s %s now visible to new readers.",
		name, w.now, ts.tx.LSN, rowsPhrase(n, keys), isAre(len(keys)))
}

func pronoun(_ string, n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func (w *World) nounOf(ts *txnState) string {
	for name := range ts.tables {
		if len(ts.tables) == 1 {
			return w.trace.noun[name]
		}
	}
	return "row"
}

func (w *World) rollback(name string) {
	ts := w.txns[name]
	w.db.Rollback(ts.tx, w.now)
	rec := &w.trace.Txns[ts.rec]
	rec.EndAt, rec.EndStep, rec.State = w.now, w.step(), mvcc.RolledBack
	w.endSession(ts)
	w.emit(name, KindRollback, -1, rec.Keys, "%s rolls back at %s; its writes vanish, but any ids it drew from the sequence stay used, leaving holes.", name, w.now)
}

// endSession is a no-op: sessions keep their cached sequence blocks across
// transactions, as PostgreSQL backends do until they disconnect.
func (w *World) endSession(*txnState) {}

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
	w.emit("clock "+clock, KindClockJump, -1, nil, "The %s clock is stepped %s by %s at %s, as a time-sync correction would; it now reads %s.", clock, dir, abs, w.now, c.Read(w.now))
}
