package engine

import (
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"

	"github.com/tidemark/tidemark/engine/prose"
)

// Narration is the one sentence that says what an event did and why.
func (t *Trace) Narration(e *Event) string {
	switch e.by {
	case 0:
		return t.texts[e.b]
	case srcNarrator:
	default:
		return t.histories[e.by-1].Narration(e)
	}
	rec := &t.Txns[e.a]
	switch e.Kind {
	case KindBegin:
		return prose.F("%s begins at %s; now() inside it reads %s on the source clock.", rec.Name, rec.BeginAt, rec.BeginNow)
	case KindInsert, KindUpdate, KindDelete:
		return t.statementNarration(rec, &rec.Stmts[e.b])
	case KindCommit:
		return t.commitNarration(rec)
	case KindRollback:
		return prose.F("%s rolls back at %s; its writes vanish, but any ids it drew from the sequence stay used, leaving holes.", rec.Name, rec.EndAt)
	}
	return ""
}

func (t *Trace) statementNarration(rec *TxnRecord, s *StmtRecord) string {
	var when string
	switch {
	case s.Backdated:
		when = prose.F(" with updated_at set by hand to %s, a backdated value", s.Stamp)
	case s.Mode == mvcc.StampTxnStart:
		when = prose.F(" with updated_at = now() = %s, the transaction's start", s.Stamp)
	case s.Mode == mvcc.StampStatement:
		when = prose.F(" with updated_at = statement_timestamp() = %s, the statement's time on the source clock", s.Stamp)
	default:
		when = "; updated_at will be the commit time"
	}
	verb := [...]string{"inserts", "updates", "deletes"}[s.Op]
	prep := [...]string{"into", "in", "from"}[s.Op]
	return prose.F("%s %s %s %s %s%s; no other session can see it until %s commits.",
		rec.Name, verb, prose.Rows(t.noun[s.Table], s.Keys), prep, s.Table, when, rec.Name)
}

// commitNarration says what a commit made visible and, for a timestamp mark
// already past a row's updated_at, that no later run will read it. The mark
// is the one stored just before the commit, read back from its history.
func (t *Trace) commitNarration(rec *TxnRecord) string {
	n := "row"
	if len(rec.Stmts) > 0 {
		n = t.noun[rec.Stmts[0].Table]
		for _, s := range rec.Stmts[1:] {
			if t.noun[s.Table] != n {
				n = "row"
			}
		}
	}
	var lost []string
	var note string
	for _, v := range t.versionsOf(rec) {
		if v.Op == mvcc.Delete {
			continue
		}
		table := t.VersionTable(&v)
		p := t.pipeFor(table)
		if p == nil || !p.Mark.IsTimestamp() {
			continue
		}
		m, ok := t.markBefore(p, table, int(v.CommitStep))
		if !ok || !p.Unreachable(m, int64(v.UpdatedAt)) {
			continue
		}
		lost = append(lost, t.VersionKey(&v))
		if note == "" {
			rel := "at or below"
			if p.Predicate == extract.GTE {
				rel = "below"
			}
			note = prose.F("its updated_at %s is already %s %s's stored mark %s", v.UpdatedAt, rel, p.Name, p.Mark.Format(m))
			if p.Overlap > 0 {
				note += prose.F(" less its %s overlap", p.Overlap)
			}
		}
	}
	visible, gone := splitDeletes(rec)
	if len(lost) > 0 {
		it := "it"
		if len(lost) > 1 {
			it = "them"
		}
		also := ""
		if len(gone) > 0 {
			also = " and " + prose.Rows(n, gone) + " gone"
		}
		return prose.F("%s commits at %s as lsn %d, making %s visible%s; %s, so no later run will read %s.",
			rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, visible), also, note, it)
	}
	switch {
	case len(gone) == 0:
		return prose.F("%s commits at %s as lsn %d; %s %s now visible to new readers.", rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, visible), prose.IsAre(len(visible)))
	case len(visible) == 0:
		return prose.F("%s commits at %s as lsn %d; %s %s now gone for new readers.", rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, gone), prose.IsAre(len(gone)))
	}
	return prose.F("%s commits at %s as lsn %d; %s %s now visible to new readers and %s gone.",
		rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, visible), prose.IsAre(len(visible)), prose.Rows(n, gone))
}

// splitDeletes divides the keys a transaction wrote into those its commit
// makes visible and those it deletes, each in the order first written; a
// key's last statement decides.
func splitDeletes(rec *TxnRecord) (visible, gone []string) {
	deleted := false
	for _, s := range rec.Stmts {
		deleted = deleted || s.Op == mvcc.Delete
	}
	if !deleted {
		return rec.Keys(), nil
	}
	last := map[string]mvcc.Op{}
	var order []string
	for _, s := range rec.Stmts {
		for _, k := range s.Keys {
			if _, ok := last[k]; !ok {
				order = append(order, k)
			}
			last[k] = s.Op
		}
	}
	for _, k := range order {
		if last[k] == mvcc.Delete {
			gone = append(gone, k)
		} else {
			visible = append(visible, k)
		}
	}
	return visible, gone
}

// versionsOf returns the versions a committed transaction wrote: a run of
// Versions at its commit step.
func (t *Trace) versionsOf(rec *TxnRecord) []VersionRecord {
	vs := t.VersionsAt(rec.EndStep)
	i := len(vs)
	for i > 0 && int(vs[i-1].CommitStep) == rec.EndStep {
		i--
	}
	return vs[i:]
}

// Narrations returns every event's sentence, in order; a text of the whole
// trace for readers and screen readers.
func (t *Trace) Narrations() []string {
	out := make([]string, len(t.Events))
	for i := range t.Events {
		out[i] = t.Narration(&t.Events[i])
	}
	return out
}
