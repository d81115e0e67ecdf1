package hwm

import (
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
)

// Explain says, from trace t alone, why key stands as it does in the target
// after step n: why it is missing, duplicated or stale, or that it is fine.
// It reads the core's versions and targets, and the high-water-mark
// world's pipelines, marks and runs when the scenario has them. When two
// sources (two tables) hold a row with the key, it explains each.
func Explain(t *engine.Trace, key string, n int) string {
	h := Of(t)
	if h == nil {
		h = &Trace{t: t}
	}
	n = t.ClampStep(n)
	var srcs []int32 // the source rows with the key, in the order first committed
	byRow := map[int32][]engine.VersionRecord{}
	for _, v := range t.VersionsAt(n) {
		if t.VersionKey(&v) == key {
			if _, ok := byRow[v.KeyID]; !ok {
				srcs = append(srcs, v.KeyID)
			}
			byRow[v.KeyID] = append(byRow[v.KeyID], v)
		}
	}
	var all []sink.Row
	for _, h := range t.Targets {
		all = append(all, t.TargetAt(h.Name, n)...)
	}
	copies := func(src int32) []sink.Row {
		var out []sink.Row // a loop, not slices.DeleteFunc: one instance less in the browser module
		for _, r := range all {
			if r.Src == src {
				out = append(out, r)
			}
		}
		return out
	}
	if len(srcs) == 0 {
		for _, r := range all {
			if t.RowKey(&r) == key {
				if of := t.Key(r.Src); of != key {
					return prose.F("The target's row %s copies %s, which reached the target again under a new key; no source row has key %s.", key, of, key)
				}
			}
		}
		return prose.F("No committed source row has key %s at this step.", key)
	}
	if len(srcs) == 1 {
		vs := byRow[srcs[0]]
		return h.explainRow(vs[len(vs)-1], copies(srcs[0]), key, n, false)
	}
	var tables, parts []string
	for _, src := range srcs {
		vs := byRow[src]
		v := vs[len(vs)-1]
		tables = append(tables, t.VersionTable(&v))
		parts = append(parts, h.explainRow(v, copies(src), key, n, true))
	}
	head := prose.F("Two tables hold a row with key %s (%s), and a target keyed on the key alone cannot tell them apart.", key, strings.Join(tables, " and "))
	if len(srcs) > 2 {
		head = prose.F("%d tables hold a row with key %s (%s), and a target keyed on the key alone cannot tell them apart.", len(srcs), key, strings.Join(tables, ", "))
	}
	return head + " " + strings.Join(parts, " ")
}

// explainRow says why the source row whose latest version is v stands as
// it does, given the target rows that copy it; qualify names its table.
func (h *Trace) explainRow(v engine.VersionRecord, rows []sink.Row, key string, n int, qualify bool) string {
	t := h.t
	table := t.VersionTable(&v)
	name := t.Noun(table) + " " + key
	if qualify {
		name += " of " + table
	}
	p := h.pipeFor(table)
	at := &t.Events[v.CommitStep-1]
	sent := at.Kind == engine.KindProduce // a producer's event: Kafka has no commit and no LSN for it
	committed := prose.F("%s committed at %s (lsn %d) with updated_at %s", prose.Capital(name), at.At, v.LSN, v.UpdatedAt)
	if sent {
		committed = prose.F("%s was sent by %s at %s with updated_at %s", prose.Capital(name), table, at.At, v.UpdatedAt)
	}
	if v.Backdated {
		committed += ", a value set by hand"
	}
	switch {
	case len(rows) == 0 && v.Op == mvcc.Delete:
		return prose.Capital(name) + " was deleted in the source and is absent from the target, as it should be."
	case len(rows) == 0:
		if p == nil {
			// Through the log: a consumer group or a stream's sink
			// writes it, and has not yet, or lost it on the way.
			if to := t.RouteOf(table); to != "" {
				return committed + "; it has not reached " + to + " by this step."
			}
			return committed + "; nothing copies " + table + "'s rows to a target."
		}
		if why := h.lostBy(key, v, n); why != "" {
			return committed + "; " + why
		}
		if p, m, ok := h.passedBy(table, v); ok {
			return prose.F("%s; %s's mark was already %s, so no run reading from the mark returns it unless the mark is moved back.", committed, p.Name, p.Mark.Format(m))
		}
		if late := h.readBefore(table, v); late != "" {
			return committed + "; " + late + "."
		}
		if qualify && h.readBy(key, table, v, n) != "" {
			return prose.F("%s; %s read it, but the target's one row with key %s copies another table's row.", committed, h.readBy(key, table, v, n), key)
		}
		return committed + "; no run has read it yet. The next run will."
	case len(rows) > 1:
		var by []string
		var kinds [3]int // rows written by each writerKind
		otherKey := false
		for _, r := range rows {
			w, kind := writer(t, h, r)
			kinds[kind]++
			if k := t.RowKey(&r); k != key {
				w += " under key " + k
				otherKey = true
			}
			by = append(by, w)
		}
		// Why an append-only target holds copies: an extractor's run read
		// the row again; through the log, the log held the event more than
		// once, or a consumer or a stream job read it again.
		why := " A re-read into an append-only target adds a copy each time."
		switch len(rows) {
		case kinds[byConsumer]:
			why = " Each is a record a consumer wrote: the log held the event more than once (a producer's retry), or a consumer read it again (its offset not committed before a crash or a rebalance), and an append-only target keeps every copy."
		case kinds[byJob]:
			why = " Each is a row the job's sink wrote: the log held the event more than once (a producer's retry), or the job read it again (restored from a checkpoint, it reads again what it had read after it), and an append-only sink writes every copy."
		}
		if otherKey {
			why += " A copy under another key is one no merge or uniqueness check can match."
		}
		return prose.F("%s is in the target %d times: written by %s.%s", prose.Capital(name), len(rows), strings.Join(by, " and by "), why)
	}
	r := rows[0]
	if r.Seq < v.Seq {
		why := ""
		if p, m, ok := h.passedBy(table, v); ok {
			why = prose.F(" The new version's updated_at %s was already behind %s's mark %s when it committed, so no run will read it unless the mark is moved back.", v.UpdatedAt, p.Name, p.Mark.Format(m))
		}
		if sent {
			return prose.F("The target holds version %d of %s (updated_at %s); %s sent version %d at %s with updated_at %s.%s", r.Seq, name, r.UpdatedAt, table, v.Seq, at.At, v.UpdatedAt, why)
		}
		return prose.F("The target holds version %d of %s (updated_at %s); the source has version %d, %s.%s", r.Seq, name, r.UpdatedAt, v.Seq, strings.TrimPrefix(committed, prose.Capital(name)+" "), why)
	}
	w, _ := writer(t, h, r)
	return prose.F("%s; %s copied it to the target, and it is current.", committed, w)
}

// writerKind is what wrote a target row: an extractor's run, a consumer
// group's member, or a stream job's sink.
type writerKind uint8

const (
	byRun writerKind = iota
	byConsumer
	byJob
)

// writer names what wrote row r, with the time it wrote, and its kind. A
// row no run wrote was written at an event of a group's member (its
// actor GROUP/MEMBER, billing/c1) or of a stream job's sink (its actor
// the stream it reads).
func writer(t *engine.Trace, h *Trace, r sink.Row) (string, writerKind) {
	if r.Run >= 0 && int(r.Run) < len(h.Runs) {
		return prose.F("the run at %s", h.Runs[r.Run].At), byRun
	}
	e := &t.Events[r.AddedStep-1]
	if a := t.Actor(e); a != "" && !strings.Contains(a, "/") {
		return prose.F("stream %s at %s", a, e.At), byJob
	} else if a != "" {
		return prose.F("consumer %s at %s", a, e.At), byConsumer
	}
	return prose.F("a consumer at %s", e.At), byConsumer
}
