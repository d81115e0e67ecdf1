package hwm

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
)

// reads reports whether the pipeline reads table.
func (p *pipeline) reads(table string) bool { return slices.Contains(p.cfg.From, table) }

// runPlan is a run as the scenario scheduled it.
type runPlan struct {
	pipe   string
	worker string
	only   []string // tables this run reads; empty means all
	read   vtime.Time
	write  vtime.Time
	store  vtime.Time
	crash  extract.Crash
	// An interval run's interval, [from, to); zero for a run after a mark,
	// and for an interval run until scheduleRun computes it.
	from, to vtime.Time
}

// runState is one run in flight.
//
// Invariant: once dead is set, no later phase of the run touches the world.
type runState struct {
	id     int
	plan   runPlan
	p      *pipeline
	actor  string
	dead   bool
	wrote  bool                    // the whole write landed
	stored bool                    // the new mark was stored
	doom   string                  // set by an injected crash: the run dies at its next phase, saying this
	seen   map[string]extract.Mark // mark values read at the start, by mark name
	next   map[string]extract.Mark // mark values to store
	rows   []*mvcc.Version
	marks  []string // mark names this run moves, in order
}

func (h *world) rec(r *runState) *RunRecord { return &h.t.Runs[r.id] }

// runCost is the least work a run costs: itself, and the events of its
// read, its write and its end.
const runCost = 4

// scheduleRun queues the phases of a run in their order.
func (h *world) scheduleRun(plan runPlan) {
	h.w.Charge(1)
	p := h.pipes[plan.pipe]
	r := &runState{id: len(h.t.Runs), plan: plan, p: p, actor: p.cfg.Name}
	if plan.worker != "" {
		r.actor = p.cfg.Name + "/" + plan.worker
	}
	h.runs = append(h.runs, r)
	h.t.Runs = append(h.t.Runs, RunRecord{})
	rr := h.rec(r)
	rr.ID, rr.Pipeline, rr.Worker, rr.At = r.id, p.cfg.Name, plan.worker, plan.read
	if p.cfg.Interval > 0 && plan.to == 0 {
		r.plan.from, r.plan.to = p.cfg.Ended(plan.read)
	}
	h.w.Schedule(plan.read, func() { h.runRead(r) })
	c := plan.crash
	switch p.cfg.Advance {
	case extract.Before:
		h.w.Schedule(plan.store, func() { h.runStore(r) })
		if c == extract.AfterMark || c == extract.Between {
			h.w.Schedule(plan.write, func() { h.runCrash(r, "after storing the mark and before writing") })
		}
		h.w.Schedule(plan.write, func() { h.runWrite(r, c == extract.MidWrite) })
	case extract.After:
		h.w.Schedule(plan.write, func() { h.runWrite(r, c == extract.MidWrite) })
		if p.cfg.Interval > 0 {
			break // no mark to store
		}
		if c == extract.AfterWrite || c == extract.Between {
			h.w.Schedule(plan.store, func() { h.runCrash(r, "after writing and before storing the mark") })
		}
		h.w.Schedule(plan.store, func() { h.runStore(r) })
	case extract.Atomic:
		if c == extract.MidWrite || c == extract.AfterWrite || c == extract.Between {
			h.w.Schedule(plan.write, func() { h.runCrash(r, "before its transaction commits") })
		}
		h.w.Schedule(plan.write, func() { h.runAtomic(r) })
	}
	last := max(plan.write, plan.store)
	h.w.Schedule(last, func() { h.runEnd(r) })
	h.crashAfterEnd(r, last)
}

// runRead reads the stored marks and selects the rows after them in one
// snapshot; a run of an interval pipeline selects its interval's rows.
func (h *world) runRead(r *runState) {
	p, cfg := r.p, &r.p.cfg
	rr := h.rec(r)
	tables := cfg.From
	if len(r.plan.only) > 0 {
		tables = r.plan.only
	}
	r.seen, r.next = map[string]extract.Mark{}, map[string]extract.Mark{}
	// Only the clock the mark reads is read: a reading outside the day
	// stops the run (engine.Clock.Read), and an unread one is no error.
	// An interval pipeline has no mark, so it reads none.
	var readerNow, sourceNow vtime.Time
	switch {
	case cfg.Interval > 0:
	case cfg.Mark == extract.ReaderClock:
		readerNow = h.w.Clock(cfg.Clock).Read(h.w.Now())
	case cfg.Mark == extract.SourceClock:
		sourceNow = h.source.Read(h.w.Now())
	}
	lastLSN := h.db.LastLSN()
	var parts []string
	if from, to := r.plan.from, r.plan.to; to > 0 {
		// FROM <= updated_at < TO; times are whole milliseconds.
		for _, t := range tables {
			r.rows = append(r.rows, h.db.Table(t).SelectStamp(mvcc.Range{Lo: from, HasLo: true, LoInclusive: true, Hi: to - 1, HasHi: true})...)
		}
		rr.From, rr.To = from, to
		parts = append(parts, prose.F("no mark: it selects %s where %s <= updated_at < %s", strings.Join(tables, " and "), from, to))
	}
	var deleted []string // keys deleted by a commit a position read covers, which it cannot see
	var overlapRows, overlapKnown int
	// Group the tables by the mark that governs them.
	for _, mname := range cfg.MarkNames() {
		m := p.marks[mname]
		var group []string
		for _, t := range tables {
			if cfg.MarkFor(t) == mname {
				group = append(group, t)
			}
		}
		if len(group) == 0 {
			continue
		}
		r.seen[mname] = m.value
		lo, hasLo := cfg.Lower(m.value)
		var hi int64
		var got []*mvcc.Version
		switch cfg.Mark {
		case extract.Position:
			hi = int64(lastLSN)
			for _, t := range group {
				from := mvcc.LSN(lo)
				if !hasLo {
					from = 0
				}
				rows, del := h.db.Table(t).SelectLSN(from, lastLSN, hasLo && cfg.Predicate == extract.GTE)
				got, deleted = append(got, rows...), append(deleted, del...)
			}
		default:
			rg := mvcc.Range{Lo: vtime.Time(lo), HasLo: hasLo, LoInclusive: cfg.Predicate == extract.GTE}
			switch cfg.Mark {
			case extract.ReaderClock:
				rg.Hi, rg.HasHi, hi = readerNow, true, int64(readerNow)
			case extract.SourceClock:
				rg.Hi, rg.HasHi, hi = sourceNow, true, int64(sourceNow)
			}
			for _, t := range group {
				got = append(got, h.db.Table(t).SelectStamp(rg)...)
			}
			if cfg.Mark == extract.MaxSeen {
				hi = m.value.V
				if !m.value.Set && len(got) == 0 {
					hi = -1 << 62
				}
				for _, v := range got {
					hi = max(hi, int64(v.UpdatedAt))
				}
			}
		}
		next := extract.Mark{Set: true, V: hi}
		if cfg.Mark == extract.MaxSeen && !m.value.Set && len(got) == 0 {
			next = extract.Mark{}
		}
		r.next[mname] = next
		r.marks = append(r.marks, mname)
		if m.value.Set && cfg.Mark.IsTimestamp() && cfg.Overlap > 0 {
			for _, v := range got {
				if int64(v.UpdatedAt) <= m.value.V {
					overlapRows++
					if p.target.NewestID(v.Target) >= v.Seq {
						overlapKnown++
					} else {
						rr.OverlapDepth = max(rr.OverlapDepth, vtime.Duration(m.value.V-int64(v.UpdatedAt)))
						rr.Overlap = cfg.Overlap
					}
				}
			}
		}
		r.rows = append(r.rows, got...)
		parts = append(parts, h.windowPhrase(cfg, m.value, hasLo, lo, next, group, readerNow, sourceNow))
		rr.Lower, rr.Upper = cfg.Mark.Format(m.value), cfg.Mark.Format(next)
		rr.MarkBefore = joinMark(rr.MarkBefore, cfg.Mark.Format(m.value))
	}
	h.w.Charge(len(r.rows))
	keys := make([]string, len(r.rows))
	for i, v := range r.rows {
		keys[i] = v.Key
	}
	rr.ReadStep, rr.Read, rr.SourceCount, rr.Keys = h.w.NextStep(), len(r.rows), len(r.rows), keys
	rr.OverlapRows, rr.OverlapKnown = overlapRows, overlapKnown
	rr.MarkAfter = rr.MarkBefore
	n := h.w.Trace().Noun(tables[0])
	unseen := ""
	if len(deleted) > 0 {
		// A query on the commit position returns rows, and a deleted row
		// is none: logical decoding would have sent the delete.
		unseen = prose.F(" The delete of %s in that range leaves no row to read: only change capture sees a delete.", prose.Rows(n, deleted))
	}
	// Each part but the last reads "…, having no stored mark yet" before
	// the next one's semicolon, not "…, having no stored mark yet,;".
	for i := range len(parts) - 1 {
		parts[i] = strings.TrimSuffix(parts[i], ",")
	}
	found := prose.Rows(n, keys)
	if len(tables) > 1 && len(keys) > 0 {
		found = rowsOfTables(h.w.Trace(), tables, r.rows)
	}
	h.w.Emit(r.actor, engine.KindRead, r.id, "%s reads %s and finds %s.%s", r.actor, strings.Join(parts, "; "), found, unseen)
}

// rowsOfTables names rows read from several tables, table by table, since
// two tables may hold the same key: "orders 1, 2 of orders_eu and order 1
// of orders_us".
func rowsOfTables(t *engine.Trace, tables []string, rows []*mvcc.Version) string {
	var said []string
	for _, table := range tables {
		var keys []string
		for _, v := range rows {
			if v.Table() == table {
				keys = append(keys, v.Key)
			}
		}
		if len(keys) > 0 {
			said = append(said, prose.Rows(t.Noun(table), keys)+" of "+table)
		}
	}
	return strings.Join(said, " and ")
}

func joinMark(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}

func (h *world) windowPhrase(cfg *extract.Config, m extract.Mark, hasLo bool, lo int64, next extract.Mark, tables []string, readerNow, sourceNow vtime.Time) string {
	on := strings.Join(tables, " and ")
	if cfg.Mark == extract.Position {
		if !hasLo {
			return prose.F("every change to %s up to lsn %d, having no stored mark,", on, next.V)
		}
		after := "after"
		if cfg.Predicate == extract.GTE {
			after = "at or after" // the stored position's own commit is read again
		}
		return prose.F("%s for changes %s lsn %d up to lsn %d", on, after, lo, next.V)
	}
	var b strings.Builder
	if !hasLo {
		b.WriteString("every row of " + on)
	} else {
		b.WriteString(on)
		prose.Fprintf(&b, " where updated_at %s %s", cfg.Predicate.Symbol(), vtime.Time(lo))
		if cfg.Overlap > 0 {
			prose.Fprintf(&b, " (the mark %s less a %s overlap)", cfg.Mark.Format(m), cfg.Overlap)
		}
	}
	switch cfg.Mark {
	case extract.ReaderClock:
		prose.Fprintf(&b, " up to its own clock's now() %s", readerNow)
	case extract.SourceClock:
		prose.Fprintf(&b, " up to the source clock's now() %s", sourceNow)
	}
	if !hasLo {
		b.WriteString(", having no stored mark yet,")
	}
	return b.String()
}

// runWrite sends the rows read to the target; when mid is set the process
// dies halfway through, leaving the first half written.
func (h *world) runWrite(r *runState, mid bool) {
	if h.doomed(r) {
		return
	}
	rows := r.rows
	if mid {
		rows = rows[:len(rows)/2]
	}
	res := h.write(r, rows)
	rr := h.rec(r)
	rr.WriteStep, rr.Written, rr.Collapsed = h.w.NextStep(), len(rows), res.Collapsed
	keys := rr.Keys[:len(rows)] // the keys read, as rows are the rows read
	n := h.w.Trace().Noun(r.p.cfg.From[0])
	merged, deleted := "", "" // what a merge absorbed; what an overwrite deleted first
	if res.Collapsed > 0 {
		merged = prose.F("; the merge matches %d already present and absorbs them", res.Collapsed)
		if res.Collapsed == 1 {
			merged = "; the merge matches 1 already present and absorbs it"
		}
	}
	if res.Replaced > 0 && r.p.target.Mode == sink.Overwrite {
		deleted = h.removedPhrase(n, res.Removed)
	}
	if mid {
		r.dead = true
		rr.EndStep, rr.Crashed = h.w.NextStep(), true
		h.w.Emit(r.actor, engine.KindCrash, r.id, "%s", midWrite(r.actor, h.w.Now(), n, keys, len(r.rows), r.p.target.Name, merged, deleted))
		return
	}
	r.wrote = true
	if r.p.target.Mode == sink.Overwrite {
		extra := ""
		if deleted != "" {
			extra = "; it first deletes what the target already holds in that interval: " + deleted
		}
		if r.plan.to > 0 {
			extra += "; with no mark to store, the run is done"
		}
		h.w.Emit(r.actor, engine.KindWrite, r.id, "%s overwrites its interval of %s with %s%s.", r.actor, r.p.target.Name, prose.Rows(n, keys), extra)
		return
	}
	h.w.Emit(r.actor, engine.KindWrite, r.id, "%s %s %s into %s%s.", r.actor, r.p.target.Mode.Verb(), prose.Rows(n, keys), r.p.target.Name, merged)
}

// removedPhrase names the rows an overwrite's delete removed, by the runs
// that wrote them: "orders 1, 2 (written by the run at 10:00:01)".
func (h *world) removedPhrase(n string, rows []sink.Row) string {
	var parts []string
	for i := 0; i < len(rows); {
		j := i
		var keys []string
		for ; j < len(rows) && rows[j].Run == rows[i].Run; j++ {
			keys = append(keys, h.w.KeyText(rows[j].KeyID))
		}
		by := "a consumer of the log"
		if r := int(rows[i].Run); r >= 0 && r < len(h.t.Runs) {
			by = prose.F("the run at %s", h.t.Runs[r].At)
			if w := h.t.Runs[r].Worker; w != "" {
				by = prose.F("%s's run at %s", w, h.t.Runs[r].At)
			}
		}
		parts = append(parts, prose.F("%s (written by %s)", prose.Rows(n, keys), by))
		i = j
	}
	return strings.Join(parts, " and ")
}

func keysOf(vs []*mvcc.Version) []string {
	keys := make([]string, len(vs))
	for i, v := range vs {
		keys[i] = v.Key
	}
	return keys
}

func (h *world) write(r *runState, rows []*mvcc.Version) sink.Result {
	if cap(h.in) < len(rows) {
		h.in = make([]sink.In, len(rows))
	}
	in := h.in[:len(rows)]
	for i, v := range rows {
		in[i] = sink.In{ID: v.Target, Key: v.Key, Seq: v.Seq, UpdatedAt: v.UpdatedAt, LSN: int64(v.LSN), Amount: v.Amount}
		if v.ID != v.Target {
			in[i].Src = v.ID + 1 // another table's row with this key reached the target first
		}
	}
	var inInterval func(sink.Row) bool
	if from, to := r.plan.from, r.plan.to; to > 0 {
		inInterval = func(row sink.Row) bool { return row.UpdatedAt >= from && row.UpdatedAt < to }
	} else if r.p.target.Mode == sink.Overwrite {
		cfg := &r.p.cfg
		lo, hasLo := extract.Mark{}, false
		for _, mn := range r.marks {
			lo, hasLo = r.seen[mn], r.seen[mn].Set
		}
		var hi extract.Mark
		for _, mn := range r.marks {
			hi = r.next[mn]
		}
		inInterval = func(row sink.Row) bool {
			v := int64(row.UpdatedAt)
			if cfg.Mark == extract.Position {
				v = row.LSN
			}
			if hasLo {
				l, _ := cfg.Lower(lo)
				if v < l || v == l && cfg.Predicate == extract.GT {
					return false
				}
			}
			return !hi.Set || v <= hi.V
		}
	}
	return h.w.Deliver(r.p.target, in, r.id, inInterval)
}

// runStore stores the run's new marks, conditionally when CAS is on.
func (h *world) runStore(r *runState) {
	if h.doomed(r) {
		return
	}
	cfg := &r.p.cfg
	rr := h.rec(r)
	var said []string
	moved := false
	for _, mn := range r.marks {
		m := r.p.marks[mn]
		seen, next := r.seen[mn], r.next[mn]
		if !next.Set {
			continue
		}
		if cfg.CAS {
			if m.value != seen {
				r.dead = true
				rr.Aborted, rr.EndStep = true, h.w.NextStep()
				why := "the run gives up and its output, already written, is left to the idempotent write"
				if cfg.Advance == extract.Before {
					why = "the run gives up before writing anything"
				}
				h.w.Emit(r.actor, engine.KindConflict, r.id, "%s's conditional update finds mark %s at %s where it read %s, so it updates no row; %s.",
					r.actor, mn, cfg.Mark.Format(m.value), cfg.Mark.Format(seen), why)
				return
			}
			if m.value.Set && next.V <= m.value.V {
				said = append(said, prose.F("leaves %s at %s (the conditional update only moves forward)", markLabel(cfg, mn), cfg.Mark.Format(m.value)))
				continue
			}
		}
		prev := m.value
		h.storeMark(m, next, r.id, false)
		if !prev.Set || next.V > prev.V {
			moved = true
		}
		what := markLabel(cfg, mn)
		switch {
		case prev.Set && next.V < prev.V:
			said = append(said, prose.F("stores %s %s over %s: the mark moves backwards", what, cfg.Mark.Format(next), cfg.Mark.Format(prev)))
		case prev != seen:
			said = append(said, prose.F("stores %s %s, overwriting %s that another worker stored after this run read %s", what, cfg.Mark.Format(next), cfg.Mark.Format(prev), cfg.Mark.Format(seen)))
		default:
			said = append(said, prose.F("stores %s %s (was %s)", what, cfg.Mark.Format(next), cfg.Mark.Format(prev)))
		}
	}
	rr.MarkStep, rr.Advanced = h.w.NextStep(), moved
	rr.MarkAfter = h.marksPhrase(r)
	r.stored = true
	if len(said) == 0 {
		said = append(said, "has no new mark to store")
	}
	h.w.Emit(r.actor, engine.KindMark, r.id, "%s %s.", r.actor, strings.Join(said, "; "))
}

// markLabel names a mark in narration: "its mark" when the pipeline has one,
// "mark extract/orders_eu" otherwise.
func markLabel(cfg *extract.Config, name string) string {
	if name == cfg.Name {
		return "its mark"
	}
	return "mark " + name
}

func (h *world) marksPhrase(r *runState) string {
	var out []string
	for _, mn := range r.marks {
		out = append(out, r.p.cfg.Mark.Format(r.p.marks[mn].value))
	}
	return strings.Join(out, ", ")
}

// runAtomic writes and stores the mark in one transaction.
func (h *world) runAtomic(r *runState) {
	if h.doomed(r) {
		return
	}
	cfg := &r.p.cfg
	rr := h.rec(r)
	if cfg.CAS {
		for _, mn := range r.marks {
			if m := r.p.marks[mn]; m.value != r.seen[mn] {
				r.dead = true
				rr.Aborted, rr.EndStep = true, h.w.NextStep()
				h.w.Emit(r.actor, engine.KindConflict, r.id, "%s's conditional update finds mark %s at %s where it read %s; the transaction rolls back, taking its write with it.",
					r.actor, mn, cfg.Mark.Format(m.value), cfg.Mark.Format(r.seen[mn]))
				return
			}
		}
	}
	res := h.write(r, r.rows)
	moved := false
	for _, mn := range r.marks {
		m := r.p.marks[mn]
		next := r.next[mn]
		if !next.Set || cfg.CAS && m.value.Set && next.V <= m.value.V {
			continue
		}
		if !m.value.Set || next.V > m.value.V {
			moved = true
		}
		h.storeMark(m, next, r.id, false)
	}
	r.wrote, r.stored = true, true
	step := h.w.NextStep()
	rr.WriteStep, rr.MarkStep, rr.Written, rr.Collapsed, rr.Advanced = step, step, len(r.rows), res.Collapsed, moved
	rr.MarkAfter = h.marksPhrase(r)
	n := h.w.Trace().Noun(cfg.From[0])
	h.w.Emit(r.actor, engine.KindAtomic, r.id, "%s writes %s into %s and stores the mark %s in the same transaction, so the two cannot disagree.",
		r.actor, prose.Rows(n, keysOf(r.rows)), r.p.target.Name, rr.MarkAfter)
}

// midWrite narrates a crash in the middle of a write of read rows called n,
// after written of them (half, rounded down) reached target. merged is what
// a merge said of the rows it absorbed ("" for none); deleted, for a target
// that overwrites an interval, what the write deleted from it first ("" for
// nothing), which the sentence tells before the rows, as it happened.
func midWrite(actor string, at vtime.Time, n string, written []string, read int, target, merged, deleted string) string {
	if deleted != "" {
		done := prose.F("%s crashes mid-write at %s after deleting what %s held in that interval: %s", actor, at, target, deleted)
		switch {
		case read == 0:
			return done + "; it had read nothing to put back, so the interval is left as a finished run would leave it."
		case len(written) == 0:
			return done + prose.F("; the one %s it read never arrives.", n)
		}
		return done + prose.F("; it wrote %d of the %d %s it read (%s), and %s.", len(written), read, prose.Plural(n), prose.Rows(n, written), neverArrive(read-len(written)))
	}
	switch {
	case read == 0:
		return prose.F("%s crashes mid-write at %s: it had read nothing, so nothing is lost or repeated.", actor, at)
	case len(written) == 0: // one row read, none of it written
		return prose.F("%s crashes mid-write at %s before the one %s it read reaches %s; it never arrives.", actor, at, n, target)
	}
	return prose.F("%s crashes mid-write at %s after writing %d of the %d %s it read into %s (%s)%s; %s.", actor, at, len(written), read, prose.Plural(n), target, prose.Rows(n, written), merged, neverArrive(read-len(written)))
}

// neverArrive says that the rest of a write's rows, left of them, never
// reach its target.
func neverArrive(left int) string {
	if left == 1 {
		return "the last never arrives"
	}
	return "the rest never arrive"
}

func (h *world) runCrash(r *runState, where string) {
	if r.dead {
		return
	}
	r.dead = true
	rr := h.rec(r)
	rr.EndStep, rr.Crashed = h.w.NextStep(), true
	cfg := &r.p.cfg
	n := h.w.Trace().Noun(cfg.From[0])
	keys := keysOf(r.rows)
	var effect string
	switch {
	case len(keys) == 0:
		effect = "it had read nothing, so nothing is lost or repeated"
	case cfg.Interval > 0:
		effect = "it stores no mark, so a run of the same interval again overwrites whatever it left"
	case r.stored && !r.wrote:
		effect = prose.F("the mark already says %s %s processed, and none of them is in %s", prose.Rows(n, keys), prose.IsAre(len(keys)), r.p.target.Name)
	case r.wrote && !r.stored:
		effect = prose.F("%s %s written but the mark still says %s, so the next run reads them again", prose.Rows(n, keys), prose.WereWas(len(keys)), rr.MarkBefore)
	case r.wrote && r.stored:
		effect = "its output and its mark were both durable, so nothing is lost or repeated"
	case cfg.Advance == extract.Atomic:
		effect = "the transaction rolls back, so neither the rows nor the mark change"
	default:
		effect = prose.F("nothing it did was durable, so the next run reads %s again", prose.Rows(n, keys))
	}
	h.w.Emit(r.actor, engine.KindCrash, r.id, "%s crashes %s: %s.", r.actor, where, effect)
}

// doomed reports whether the run is over: dead already, or killed now by an
// injected crash, which it narrates.
func (h *world) doomed(r *runState) bool {
	if r.dead {
		return true
	}
	if r.doom != "" {
		h.runCrash(r, r.doom)
		return true
	}
	return false
}

func (h *world) runEnd(r *runState) {
	if h.doomed(r) {
		return
	}
	r.dead = true
	rr := h.rec(r)
	rr.Finished = true
	rr.EndStep = h.w.NextStep() - 1 // the run's last phase; no event of its own
}

// reset moves a mark to a chosen value, as an operator recovering from a skip would.
func (h *world) reset(pipe, mark string, v extract.Mark) {
	p := h.pipes[pipe]
	m := p.marks[mark]
	prev := m.value
	h.storeMark(m, v, -1, true)
	from, to := p.cfg.Mark.Format(prev), p.cfg.Mark.Format(v)
	var effect string
	switch {
	case prev == v:
		effect = "the mark already held that value, so nothing changes"
	case v.Set && !prev.Set:
		effect = prose.F("the next run starts after %s instead of from the beginning, so whatever lies up to it is never read", to)
	case v.Set && v.V > prev.V:
		effect = prose.F("it moves forward, so whatever lies after %s and up to %s is never read", from, to)
	case !v.Set:
		effect = "the next run reads everything from the beginning again, which is safe only if the write is idempotent"
	default:
		effect = "the next run re-reads everything after it, which is safe only if the write is idempotent"
	}
	if v.Set && !prev.Set {
		// A first position, as a team gives a new extract at a cutover.
		h.w.Emit("operator", engine.KindReset, -1, "An operator sets %s, which held no mark, to %s; %s.", mark, to, effect)
		return
	}
	h.w.Emit("operator", engine.KindReset, -1, "An operator resets %s from %s to %s; %s.", mark, from, to, effect)
}
