package hwm

import (
	"slices"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"

	"github.com/tidemark/tidemark/engine/prose"
)

// Narration writes the sentence of a source event from its transaction's
// record: the transaction's steps keep no sentence while the world runs.
func (t *Trace) Narration(e *engine.Event) string {
	a, b := e.Ref()
	rec := &t.Txns[a]
	switch e.Kind {
	case engine.KindBegin:
		return prose.F("%s begins at %s; now() inside it reads %s on the source clock.", rec.Name, rec.BeginAt, rec.BeginNow)
	case engine.KindInsert, engine.KindUpdate, engine.KindDelete:
		return t.statementNarration(rec, &rec.Stmts[b], t.UnmatchedOf(int(a), int(b)))
	case engine.KindCommit:
		return t.commitNarration(rec)
	case engine.KindRollback:
		// A sequence is not rolled back: the ids an insert drew from it
		// stay used. Keys written by hand leave no such hole.
		drawn := 0
		for i := range rec.Stmts {
			if s := &rec.Stmts[i]; s.Drawn && s.Op == mvcc.Insert {
				drawn += len(s.Keys)
			}
		}
		switch {
		case drawn == 1:
			return prose.F("%s rolls back at %s; its writes vanish, but the id it drew from the sequence stays used, leaving a hole.", rec.Name, rec.EndAt)
		case drawn > 1:
			return prose.F("%s rolls back at %s; its writes vanish, but the %d ids it drew from the sequence stay used, leaving holes.", rec.Name, rec.EndAt, drawn)
		}
		return prose.F("%s rolls back at %s; its writes vanish.", rec.Name, rec.EndAt)
	}
	return ""
}

func (t *Trace) statementNarration(rec *TxnRecord, s *StmtRecord, unmatched []string) string {
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
	noun := t.t.Noun(s.Table)
	if len(s.Keys) == 0 {
		exists := "no such row exists"
		if len(unmatched) > 1 {
			exists = "no such rows exist"
		}
		return prose.F("%s %s %s %s %s, but %s (none committed, none written by %s), so the statement matches nothing and changes nothing.",
			rec.Name, verb, prose.Rows(noun, unmatched), prep, s.Table, exists, rec.Name)
	}
	also := ""
	if n := len(unmatched); n > 0 {
		has := "has no row, so nothing happens to it"
		if n > 1 {
			has = "have no rows, so nothing happens to them"
		}
		also = prose.F(" It also names %s, which %s.", prose.Rows(noun, unmatched), has)
	}
	if s.Op == mvcc.Delete {
		// A deleted row writes no updated_at: at commit it is simply gone.
		// A row the transaction inserted itself was never seen by anyone
		// else, and its commit shows neither the insert nor the delete.
		own := ownInserts(rec, s)
		var seen, mine []string
		for _, k := range s.Keys {
			if own[k] {
				mine = append(mine, k)
			} else {
				seen = append(seen, k)
			}
		}
		never := prose.F("%s inserted %s itself, so no other session ever saw %s, and no reader will", rec.Name, prose.ItThem(len(mine)), prose.ItThem(len(mine)))
		switch {
		case len(mine) == 0:
			return prose.F("%s deletes %s from %s; other sessions still see %s until %s commits, and then %s gone: no query of changed rows can return %s (only change capture sees a delete).%s",
				rec.Name, prose.Rows(noun, s.Keys), s.Table, prose.ItThem(len(seen)), rec.Name, prose.ItThey(len(seen))+" "+prose.IsAre(len(seen)), prose.ItThem(len(seen)), also)
		case len(seen) == 0:
			return prose.F("%s deletes %s from %s: %s.%s", rec.Name, prose.Rows(noun, mine), s.Table, never, also)
		}
		return prose.F("%s deletes %s from %s. Other sessions still see %s until %s commits, and then %s gone (only change capture sees a delete); as for %s, %s.%s",
			rec.Name, prose.Rows(noun, s.Keys), s.Table, prose.Rows(noun, seen), rec.Name, prose.ItThey(len(seen))+" "+prose.IsAre(len(seen)), prose.Rows(noun, mine), never, also)
	}
	return prose.F("%s %s %s %s %s%s; no other session can see it until %s commits.%s",
		rec.Name, verb, prose.Rows(noun, s.Keys), prep, s.Table, when, rec.Name, also)
}

// commitNarration says what a commit made visible and, for a timestamp mark
// already past a row's updated_at (every pipeline's that reads the table),
// that no later run will read it unless the mark is moved back. The mark
// is the one stored just before the commit, read back from its history.
func (t *Trace) commitNarration(rec *TxnRecord) string {
	n := "row"
	if len(rec.Stmts) > 0 {
		n = t.t.Noun(rec.Stmts[0].Table)
		for _, s := range rec.Stmts[1:] {
			if t.t.Noun(s.Table) != n {
				n = "row"
			}
		}
	}
	visible, gone, never := splitDeletes(rec)
	// The rows this narration speaks of: a row no reader will ever see
	// (inserted and deleted inside the transaction, and left out of rec's
	// statements when the narration recurses) is not one a run misses.
	rows := map[row]bool{}
	for _, s := range rec.Stmts {
		for _, k := range s.Keys {
			rows[row{s.Table, k}] = true
		}
	}
	var lost []string
	var note, late string // late: what an interval pipeline's run read before this commit
	vs := t.versionsOf(rec)
	for i, v := range vs {
		table := t.t.VersionTable(&v)
		if r := (row{table, t.t.VersionKey(&v)}); v.Op == mvcc.Delete || !rows[r] || slices.Contains(never, r) || len(rec.Stmts) > 1 && rewritten(&v, vs[i+1:]) {
			continue
		}
		p, m, ok := t.passedBy(table, v)
		if !ok || !p.Mark.IsTimestamp() {
			if late == "" {
				late = t.readBefore(table, v)
			}
			continue
		}
		lost = append(lost, t.t.VersionKey(&v))
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
	if rec.LSN == 0 {
		return prose.F("%s commits at %s having changed no row, so it takes no log position and new readers see nothing new.", rec.Name, rec.EndAt)
	}
	if len(never) > 0 {
		// Rows inserted and deleted inside the transaction: the commit
		// shows none of them.
		keys := make([]string, len(never))
		for i, r := range never {
			keys[i] = r.key
		}
		them := prose.F("%s, inserted and deleted inside %s, %s never visible to any reader.", prose.Rows(n, keys), rec.Name, prose.WereWas(len(never)))
		if len(visible) == 0 && len(gone) == 0 {
			return prose.F("%s commits at %s as lsn %d; %s", rec.Name, rec.EndAt, rec.LSN, them)
		}
		rec := *rec
		rec.Stmts = withoutKeys(rec.Stmts, never)
		return t.commitNarration(&rec) + " " + prose.Capital(them)
	}
	if len(lost) > 0 {
		it := "it"
		if len(lost) > 1 {
			it = "them"
		}
		also := ""
		if len(gone) > 0 {
			also = " and " + prose.Rows(n, gone) + " gone"
		}
		return prose.F("%s commits at %s as lsn %d, making %s visible%s; %s, so no later run will read %s unless the mark is moved back.",
			rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, visible), also, note, it)
	}
	switch {
	case late != "" && len(gone) == 0:
		return prose.F("%s commits at %s as lsn %d, making %s visible; %s.", rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, visible), late)
	case len(gone) == 0:
		return prose.F("%s commits at %s as lsn %d; %s %s now visible to new readers.", rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, visible), prose.IsAre(len(visible)))
	case len(visible) == 0:
		return prose.F("%s commits at %s as lsn %d; %s %s now gone for new readers.", rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, gone), prose.IsAre(len(gone)))
	}
	return prose.F("%s commits at %s as lsn %d; %s %s now visible to new readers and %s gone.",
		rec.Name, rec.EndAt, rec.LSN, prose.Rows(n, visible), prose.IsAre(len(visible)), prose.Rows(n, gone))
}

// rewritten reports whether a version in after is of v's row: a row the
// transaction wrote twice commits as its last version, and an earlier one,
// stamped otherwise, is no row a run could miss. One statement writes each
// row once.
func rewritten(v *engine.VersionRecord, after []engine.VersionRecord) bool {
	for i := range after {
		if after[i].KeyID == v.KeyID && after[i].TableID == v.TableID {
			return true
		}
	}
	return false
}

// row is a row a transaction wrote: a key of a table (two tables' rows with
// one key are two).
type row struct{ table, key string }

// splitDeletes divides the keys a transaction wrote into those its commit
// makes visible, those it deletes, and those it both inserted and deleted,
// which no reader ever sees, each in the order first written; a key's
// first and last statements decide.
func splitDeletes(rec *TxnRecord) (visible, gone []string, never []row) {
	deleted := false
	for _, s := range rec.Stmts {
		deleted = deleted || s.Op == mvcc.Delete
	}
	if !deleted && len(rec.Stmts) < 2 {
		return rec.Keys(), nil, nil // one statement names each row once
	}
	first, last := map[row]mvcc.Op{}, map[row]mvcc.Op{}
	var order []row
	for _, s := range rec.Stmts {
		for _, k := range s.Keys {
			r := row{s.Table, k}
			if _, ok := last[r]; !ok {
				order = append(order, r)
				first[r] = s.Op
			}
			last[r] = s.Op
		}
	}
	for _, r := range order {
		switch {
		case last[r] == mvcc.Delete && first[r] == mvcc.Insert:
			never = append(never, r)
		case last[r] == mvcc.Delete:
			gone = append(gone, r.key)
		default:
			visible = append(visible, r.key)
		}
	}
	return visible, gone, never
}

// withoutKeys returns stmts with rows left out of each statement.
func withoutKeys(stmts []StmtRecord, rows []row) []StmtRecord {
	out := make([]StmtRecord, 0, len(stmts))
	for _, s := range stmts {
		var kept []string
		for _, k := range s.Keys {
			if !slices.Contains(rows, row{s.Table, k}) {
				kept = append(kept, k)
			}
		}
		if len(kept) > 0 {
			s.Keys = kept
			out = append(out, s)
		}
	}
	return out
}

// ownInserts returns which of the keys of statement s the transaction had
// inserted itself, in an earlier statement on the same table, and not
// deleted since: rows no other session has ever seen.
func ownInserts(rec *TxnRecord, s *StmtRecord) map[string]bool {
	own := map[string]bool{}
	for i := range rec.Stmts {
		p := &rec.Stmts[i]
		if p == s {
			break
		}
		if p.Table != s.Table {
			continue
		}
		for _, k := range p.Keys {
			switch p.Op {
			case mvcc.Insert:
				own[k] = true
			case mvcc.Delete:
				delete(own, k)
			}
		}
	}
	return own
}

// versionsOf returns the versions a committed transaction wrote: a run of
// Versions at its commit step.
func (t *Trace) versionsOf(rec *TxnRecord) []engine.VersionRecord {
	vs := t.t.VersionsAt(rec.EndStep)
	i := len(vs)
	for i > 0 && int(vs[i-1].CommitStep) == rec.EndStep {
		i--
	}
	return vs[i:]
}
