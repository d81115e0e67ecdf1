package widget

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// The stage is one picture of the pipeline as it stands at the step, left
// to right: the source's transactions, each extractor with its stored mark
// and the rows a run holds, the partitioned log's topics and consumer
// groups, and each target with a slot per key. Rows are things on it: a row
// a run reads appears in the extractor and moves on to its target's slot
// when written; a row the mark left behind stays in the source marked so,
// and its slot in the target holds a ghost marked lost; a row committed but
// not read yet has a slot of its own, marked waiting; copies of a key stack.
// Beside or under the picture come the truth, the explanation of a key, the
// checks and, after a fault, the comparison with the original run; after
// them, the same step as tables (the text equivalent of the picture); and,
// for a long scenario, the steps around this one.
//
// Every part that changes from step to step is a fragment (builder.fopen),
// so that the browser can update the stage in place (see patch.go).

// atStep is what the stations of one step share.
type atStep struct {
	t     *engine.Trace
	s     State
	ix    *stageIndex
	at    engine.Snapshot
	n     int32
	ht    *hwm.Trace  // the high-water-mark world's part of the trace, or nil
	lt    *logs.Trace // the log world's part, or nil
	chart chart
	// explain writes the link that explains a key.
	explain func(key string) string
	// runs holds each pipeline's latest run by the step and the next one,
	// found once per drawing (see runsOf).
	runs map[string][2]*hwm.RunRecord
	// streams keeps what the stream chart asked of the trace, for the
	// text equivalent drawn at the same step.
	streams streamDrawing
}

// runsOf returns the pipeline's latest run that has read by the step, and
// the next run to come.
func (v *atStep) runsOf(pipeline string) (cur, next *hwm.RunRecord) {
	if r, ok := v.runs[pipeline]; ok {
		return r[0], r[1]
	}
	n := v.s.Step
	at := stepTime(v.t, n)
	for i := range v.ht.Runs {
		r := &v.ht.Runs[i]
		if r.Pipeline != pipeline {
			continue
		}
		if r.ReadStep > 0 && r.ReadStep <= n {
			cur = r
		} else if next == nil && (r.ReadStep == 0 || r.ReadStep > n) && r.At >= at {
			next = r
		}
	}
	if v.runs == nil {
		v.runs = map[string][2]*hwm.RunRecord{}
	}
	v.runs[pipeline] = [2]*hwm.RunRecord{cur, next}
	return cur, next
}

// holding reports whether the run has read its rows by step n and neither
// written nor dropped them yet.
func holding(r *hwm.RunRecord, n int) bool {
	return r != nil && !(r.WriteStep > 0 && r.WriteStep <= n) && !(r.Crashed && r.EndStep > 0 && r.EndStep <= n)
}

// waitingLabel says why a key missing from the target now is not lost. An
// extractor's run that holds it has read it; with none holding it, no run
// has. A consumer group's target only says the key is on its way.
func (v *atStep) waitingLabel(target, key string) string {
	fed := false
	if v.ht != nil {
		for i := range v.ht.Pipes {
			p := &v.ht.Pipes[i]
			if p.To != target {
				continue
			}
			fed = true
			if cur, _ := v.runsOf(p.Name); holding(cur, v.s.Step) && slices.Contains(cur.Keys, key) {
				return "◌ read, not written yet"
			}
		}
	}
	if fed {
		return "◌ not read yet"
	}
	if v.lt != nil && polledKey(v.lt, target, key, v.s.Step) {
		return "◌ read, not written yet"
	}
	return "◌ not written yet"
}

// polledKey reports whether a consumer group writing into target read a
// record of key at step n.
func polledKey(lt *logs.Trace, target, key string, n int) bool {
	for _, g := range lt.Groups {
		if g.Target != target {
			continue
		}
		var h *logs.TopicHistory
		for _, th := range lt.Topics {
			if th.Name == g.Topic {
				h = th
			}
		}
		if h == nil {
			continue
		}
		for _, rr := range readsAt(g, n) {
			recs := lt.RecordsAt(g.Topic, int(rr.Partition), n)
			for o := rr.From; o < rr.To && o < int64(len(recs)); o++ {
				if h.Key(&recs[o]) == key {
					return true
				}
			}
		}
	}
	return false
}

func stage(b *builder, t *engine.Trace, s State, ix *stageIndex) {
	if ix == nil {
		ix = indexTrace(t)
	}
	v := &atStep{t: t, s: s, ix: ix, at: t.Seek(s.Step), n: int32(s.Step), explain: explainLinks(t, s), ht: hwm.Of(t), lt: logs.Of(t)}
	if s.Present == "notes" {
		presenterNotes(b, t, s.Step)
	}
	b.fopen("flow", "div", "class", "tm-flow", "data-testid", "flow", "role", "group", "aria-label", "The pipeline at this step")
	cols := 0
	column := func(key, class string, draw func()) {
		if cols > 0 {
			b.fopen("arrow-"+key, "div", "class", "tm-arrow", "aria-hidden", "true")
			b.text("→")
			b.fclose("div")
		}
		cols++
		b.fopen("col-"+key, "div", "class", "tm-col tm-col-"+class)
		draw()
		b.fclose("div")
	}
	if v.ht != nil && len(v.ht.Txns) > 0 {
		v.chart = chartAt(t, v.ht, ix, s.Step)
		column("source", "source", func() { sourceStation(b, v) })
	}
	if v.ht != nil && len(v.ht.Pipes) > 0 {
		column("pipes", "pipe", func() {
			for i := range v.ht.Pipes {
				pipeStation(b, v, &v.ht.Pipes[i])
			}
		})
	}
	if v.lt != nil {
		column("log", "log", func() { logPanel(b, t, s) })
		if len(v.lt.Groups) > 0 {
			column("groups", "pipe", func() { groupStations(b, v, v.lt) })
		}
	}
	if hasStream(t) {
		column("streams", "stream", func() { streamStation(b, v) })
		if hasOps(t) {
			column("ops", "ops", func() { opsStation(b, v) })
		}
	}
	if len(t.Targets) > 0 {
		column("targets", "target", func() {
			for i := range ix.targets {
				targetStation(b, v, &ix.targets[i])
			}
		})
	}
	b.fclose("div")
	legend(b, v)

	b.fopen("aside", "div", "class", "tm-aside", "data-testid", "aside")
	if s.ShowTruth {
		b.fopen("truth", "p", "class", "tm-truth", "data-testid", "truth")
		b.el("strong", "Truth: ")
		b.text(truthText(v))
		b.fclose("p")
	}
	if s.Explain != "" {
		b.fopen("explain", "div", "class", "tm-explain", "role", "status", "data-testid", "explain")
		head, why := explain(t, s.Explain, s.Step)
		b.el("strong", head)
		b.text(why)
		b.text(" ")
		b.open("a", "href", stageLink(t, s, "explain", ""), "data-act", "explain", "data-key", "")
		b.text("Close")
		b.close("a")
		b.fclose("div")
	}
	jobPanel(b, t, s) // the stream job's: see jobpanel.go
	checksPanel(b, t, s.Step, s.checks)
	if s.Original != nil {
		comparePanel(b, t, s)
	}
	b.fclose("div")

	textEquivalent(b, v)
	if t.Steps() > maxTimeline {
		timelineWindow(b, t, s)
	}
}

// presenterNotes draws what the presenter's second window shows above the
// stage: the scenario's note for the step, and what the next step will say.
func presenterNotes(b *builder, t *engine.Trace, n int) {
	b.fopen("notes", "div", "class", "tm-notes", "data-testid", "notes")
	b.el("h3", "Notes for step "+itoa(n))
	if note := t.NoteAt(n); note != "" {
		b.el("p", note, "class", "tm-note-text", "data-testid", "note")
	} else {
		b.el("p", "No note for this step.", "class", "tm-note", "data-testid", "note")
	}
	if n < t.Steps() {
		b.open("p", "class", "tm-next", "data-testid", "next")
		b.el("strong", "Next: ")
		b.text(Narration(t, n+1))
		b.close("p")
	} else {
		b.el("p", "This is the last step.", "class", "tm-next", "data-testid", "next")
	}
	b.fclose("div")
}

// maxTimeline is the longest timeline drawn in full, as a list of every
// step. A longer trace gets a window of the list around the current step,
// drawn with the stage so that it follows the learner: ten thousand list
// items are no use to read, and make every redraw of the page around them
// slow (the browser lays them out again).
const maxTimeline = 500

// timelineWindow draws the steps around the current one of a long trace.
func timelineWindow(b *builder, t *engine.Trace, s State) {
	const before, after = 10, 20
	lo := max(1, min(s.Step-before, t.Steps()-before-after))
	hi := min(t.Steps(), lo+before+after)
	b.fopen("timeline", "details", "class", "tm-timeline", "data-testid", "timeline", "data-fold", "steps", "open?", on(s.StepsOpen))
	b.fopen("timeline-summary", "summary")
	b.text("Steps " + itoa(lo) + " to " + itoa(hi) + " of " + itoa(t.Steps()) + " (the list follows the current step)")
	b.fclose("summary")
	if s.Live && !s.StepsOpen {
		b.fclose("details")
		return
	}
	// Each item numbers itself (value), so that the list's own markup stays
	// the same as it slides and a step moves items rather than redraws it.
	b.fopen("timeline-list", "ol", "class", "tm-steps", "id", s.id("steps"))
	for n := lo; n <= hi; n++ {
		stepItem(b, t, s, n, true)
	}
	b.fclose("ol")
	b.fclose("details")
}

// maxListed is how many keys a sentence names before it counts the rest.
const maxListed = 100

// listKeys joins keys for a sentence, naming at most maxListed of them,
// and total of them in all.
func listKeys(keys []string, total int) string {
	if total <= len(keys) {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys, ", ") + " and " + itoa(total-len(keys)) + " more"
}

// truthText is the truth at the step in one sentence, naming at most
// maxListed keys of each kind: only those are spelled out. How many keys
// there are of each kind is the snapshot's counts, so the keys are read
// only until every list is full: a step of a large trace can have
// thousands of keys that are not fine, and reading them all took 6% of a
// step of the hundred-thousand-step trace in wasm (BenchmarkStep).
func truthText(v *atStep) string {
	nm, nd, ns := int(v.at.Counts.Missing), int(v.at.Counts.Duplicated), int(v.at.Counts.Stale)
	missing := make([]string, 0, min(nm, maxListed))
	dup := make([]string, 0, min(nd, maxListed))
	stale := make([]string, 0, min(ns, maxListed))
	left := cap(missing) + cap(dup) + cap(stale)
	tv := v.at.Truth
	for i := 0; left > 0 && i < tv.Len(); i++ {
		id, st, rows := tv.At(i)
		switch {
		case st == engine.KeyMissing && len(missing) < cap(missing):
			missing = append(missing, v.t.TruthKey(id))
		case st == engine.KeyDuplicated && len(dup) < cap(dup):
			dup = append(dup, v.t.TruthKey(id)+" ×"+itoa(rows))
		case st == engine.KeyStale && len(stale) < cap(stale):
			stale = append(stale, v.t.TruthKey(id))
		default:
			continue
		}
		left--
	}
	return truthSentence(missing, nm, dup, nd, stale, ns)
}

func truthSentence(missing []string, nm int, dup []string, nd int, stale []string, ns int) string {
	var parts []string
	if nm > 0 {
		parts = append(parts, "not in the target: "+listKeys(missing, nm))
	}
	if nd > 0 {
		parts = append(parts, "duplicated: "+listKeys(dup, nd))
	}
	if ns > 0 {
		parts = append(parts, "stale: "+listKeys(stale, ns))
	}
	if len(parts) == 0 {
		parts = append(parts, "the target matches every committed source row")
	}
	return strings.Join(parts, "; ") + "."
}

// TruthText says in one sentence which keys the target lacks, holds more
// than once or holds an old version of, at one step: the truth no check sees.
func TruthText(tr engine.Truth) string {
	dup := make([]string, 0, len(tr.Duplicated))
	for _, k := range keysSorted(tr.Duplicated) {
		dup = append(dup, k+" ×"+itoa(tr.Duplicated[k]))
	}
	cut := func(keys []string) []string { return keys[:min(len(keys), maxListed)] }
	return truthSentence(cut(tr.Missing), len(tr.Missing), cut(dup), len(dup), cut(tr.Stale), len(tr.Stale))
}

// station opens a station of the picture: a section with a heading. Close
// it with b.fclose("section").
func station(b *builder, key, class, title, testid string) {
	b.fopen(key, "section", "class", "tm-station tm-station-"+class, "role", "group", "data-testid", testid, "aria-label", title)
	b.el("h3", title, "class", "tm-station-title")
}

// sourceStation draws the source's transactions: a row each, its bar on
// the time axis, its keys as chips the rows a run reads move from, and
// (with the truth shown) what became of each key.
func sourceStation(b *builder, v *atStep) {
	c := v.chart
	title := "Source"
	if len(v.ht.Tables) > 0 {
		var names []string
		for _, tb := range v.ht.Tables {
			names = append(names, tb.Name)
		}
		title += ": " + strings.Join(names, ", ")
	}
	station(b, "st-source", "source", title, "panel-source")
	b.fopen("chart", "div", "class", "tm-chart", "tabindex", "0", "role", "group",
		"aria-label", "the source's transactions and what became of each; scrolls sideways", "data-testid", "source-chart")
	// The axis, with a tick at round times: the hour and minute of the
	// first in the label column, and each tick by what changed since the
	// one before.
	b.fopen("axis", "div", "class", "tm-axisrow")
	base := ""
	if len(c.ticks) > 0 {
		base = c.ticks[0].label
		if len(base) >= 8 {
			base, c.ticks[0].label = base[:5], base[5:]
		}
	}
	b.el("span", base, "class", "tm-axisbase")
	b.open("svg", "class", "tm-axis-svg", "width", "100%", "height", "22", "role", "img",
		"aria-label", "time axis from "+c.lo.String()+" to "+c.hi.String())
	for _, tk := range c.ticks {
		b.void("line", "x1", pct(tk.x), "x2", pct(tk.x), "y1", "16", "y2", "22", "class", "tm-tickmark")
		anchor := "middle"
		if tk.x > 0.95 {
			anchor = "end"
		}
		b.el("text", tk.label, "x", pct(tk.x), "y", "12", "text-anchor", anchor, "class", "tm-tick")
	}
	b.close("svg")
	b.fclose("div")
	b.fopen("track", "div", "class", "tm-track")
	b.fopen("txns", "ol", "class", "tm-txns", "aria-label", "Transactions begun by this step, oldest first")
	fates := sourceFates(v)
	for i := range c.bars {
		txnRow(b, v, &c.bars[i], fates[i])
	}
	b.fclose("ol")
	// The lines that cross every row: the stored marks and the step's time.
	b.fopen("overlay", "svg", "class", "tm-overlay", "width", "100%", "height", "100%", "aria-hidden", "true")
	if c.now >= 0 {
		b.void("line", "x1", pct(c.now), "x2", pct(c.now), "y1", "0", "y2", "100%", "class", "tm-nowline")
	}
	for _, m := range c.marks {
		if m.x < 0 || m.x > 1 {
			continue
		}
		b.void("line", "x1", pct(m.x), "x2", pct(m.x), "y1", "0", "y2", "100%", "class", "tm-markline tm-mark-"+m.kind, "data-mark", m.name)
	}
	b.fclose("svg")
	b.fclose("div")
	b.fclose("div")
	// The marks and the step's time in words, under the chart.
	b.fopen("source-key", "p", "class", "tm-chart-key", "data-testid", "chart-marks")
	if c.now >= 0 {
		b.el("span", "│ now "+v.t.Events[v.s.Step-1].At.String(), "class", "tm-key-now")
	}
	for _, m := range c.marks {
		where := ""
		switch {
		case m.x < 0:
			where = " (left of the axis)"
		case m.x > 1:
			where = " (right of the axis)"
		}
		cls := "tm-key-mark tm-mark-" + m.kind
		glyph := "┆ "
		if m.kind == "lsn" {
			glyph = "┊ "
		}
		b.el("span", glyph+m.label+where, "class", cls, "data-testid", "chart-mark", "data-kind", m.kind)
	}
	if c.more > 0 {
		b.el("span", itoa(c.more)+" earlier transactions not drawn", "class", "tm-note")
	}
	b.fclose("p")
	b.fclose("section")
}

// fate is what became of one key of a source row, said with a glyph and a
// word so that it reads without colour.
type fate struct {
	key   string
	chip  string // the chip id runs move this key from
	state string // in, waiting, lost, dup, stale, superseded, or "" when the truth is hidden or the row is not committed
	label string
}

// sourceFates works out, for every bar drawn, what became of each of its
// keys: in the target, waiting for a run, left behind, and so on. Only the
// newest committed row of a key carries the key's fate; older ones are
// superseded.
func sourceFates(v *atStep) [][]fate {
	c := v.chart
	out := make([][]fate, len(c.bars))
	seen := map[string]bool{}
	for i := len(c.bars) - 1; i >= 0; i-- {
		br := &c.bars[i]
		target, table := "", ""
		gi := -1
		if len(br.tx.Stmts) > 0 {
			table = br.tx.Stmts[0].Table
			if ti, ok := v.ix.feeds(v.t, table); ok {
				gi = ti
				target = v.ix.targets[ti].h.Name
			}
		}
		for j, k := range br.keys {
			if j == 2 {
				break // the row names two keys and counts the rest
			}
			f := fate{key: k, chip: "src:" + target + ":" + k}
			p := -1
			if gi >= 0 {
				g := &v.ix.targets[gi]
				if p = g.findFrom(v.t, k, table); p >= 0 {
					f.chip = "src:" + target + ":" + g.id(v.t, p)
				}
			}
			if br.state == "committed" && v.s.ShowTruth && p >= 0 {
				switch {
				case seen[f.chip]:
					f.state, f.label = "superseded", "later version above"
				default:
					f.state, f.label = keyFate(v, &v.ix.targets[gi], p)
				}
				seen[f.chip] = true
			}
			out[i] = append(out[i], f)
		}
	}
	return out
}

// keyFate says where the key at position p stands in target g at the step.
func keyFate(v *atStep, g *targetIndex, p int) (state, label string) {
	key := v.t.Key(g.keys[p])
	st, rows := v.at.Truth.Of(g.keys[p])
	switch st {
	case engine.KeyMissing:
		if g.arrives(p, v.n) > 0 {
			return "waiting", v.waitingLabel(g.h.Name, key)
		}
		return "lost", "✕ left behind"
	case engine.KeyDuplicated:
		return "dup", "×" + itoa(rows) + " in target"
	case engine.KeyStale:
		return "stale", "⚠ older in target"
	}
	return "in", "✓ in target"
}

// txnRow draws one transaction of the source chart.
func txnRow(b *builder, v *atStep, br *bar, fates []fate) {
	tx := br.tx
	b.fopen("tx-"+tx.Name, "li", "class", "tm-txrow tm-"+br.state, "data-testid", "txn", "data-txn", tx.Name, "data-state", br.state)
	// The label and the state are fragments too: a read or a write changes
	// the keys' fates in them and nothing else in the row.
	b.fopen("txl-"+tx.Name, "span", "class", "tm-txlabel")
	b.el("b", tx.Name)
	for _, f := range fates {
		attrs := []string{"class", "tm-keychip", "data-chip", f.chip, "data-key", f.key}
		if f.state != "" {
			attrs = append(attrs, "data-fate", f.state)
		}
		b.el("span", f.key, attrs...)
	}
	if len(br.keys) > len(fates) {
		b.el("span", "+"+itoa(len(br.keys)-len(fates)), "class", "tm-note")
	}
	b.fclose("span")
	// The bar, on the axis the overlay and the ticks share.
	label := tx.Name + ": began " + tx.BeginAt.String()
	switch br.state {
	case "committed":
		label += ", committed " + tx.EndAt.String()
		if br.lsn != "" {
			label += " as lsn " + br.lsn
		} else {
			label += ", changing no row"
		}
	case "rolled-back":
		label += ", rolled back " + tx.EndAt.String()
	default:
		label += ", still open"
	}
	if st, ok := tx.Stamp(); ok {
		label += "; updated_at " + st.String()
	}
	b.open("svg", "class", "tm-txbar", "width", "100%", "height", "24", "role", "img", "aria-label", label)
	// The bar and the stamp are fragments of their own: an open
	// transaction's bar grows at every step, and when the axis moves every
	// bar and stamp moves with it, while the rest of the row stays; only
	// they need be sent.
	if br.to-br.from < 0.006 {
		// An instant: begin and commit at once.
		b.fopen("bar-"+tx.Name, "svg", "x", pct(br.from), "overflow", "visible")
		b.void("rect", "x", "-2", "y", "5", "width", "4", "height", "14", "rx", "1", "class", "tm-bar tm-"+br.state)
		b.fclose("svg")
	} else {
		b.fvoid("bar-"+tx.Name, "rect", "x", pct(br.from), "y", "5", "width", pct(br.to-br.from), "height", "14", "rx", "3", "class", "tm-bar tm-"+br.state)
	}
	if br.stamp >= 0 {
		b.fopen("stamp-"+tx.Name, "svg", "x", pct(br.stamp), "overflow", "visible")
		b.void("polygon", "points", "0,1 6,12 0,23 -6,12", "class", "tm-stamp")
		b.fclose("svg")
	}
	b.close("svg")
	b.fopen("txs-"+tx.Name, "span", "class", "tm-txstate")
	switch br.state {
	case "committed":
		if br.lsn != "" {
			b.el("span", "lsn "+br.lsn, "class", "tm-lsn-label")
		} else {
			b.el("span", "no row changed", "class", "tm-note")
		}
	case "rolled-back":
		b.el("span", "rolled back", "class", "tm-note")
	default:
		b.el("span", "open", "class", "tm-note")
	}
	for _, f := range fates {
		if f.label != "" {
			b.el("span", f.label, "class", "tm-fate tm-fate-"+f.state, "data-testid", "fate", "data-key", f.key, "data-fate", f.state)
			break // one key's fate is room enough; the tables list the rest
		}
	}
	b.fclose("span")
	b.fclose("li")
}

// feeds returns the index of the target a source table or producer feeds.
func (x *stageIndex) feeds(t *engine.Trace, table string) (int, bool) {
	name := ""
	for _, r := range t.Routes() {
		if r.Table == table {
			name = r.Target
		}
	}
	for i := range x.targets {
		if x.targets[i].h.Name == name {
			return i, true
		}
	}
	return -1, false
}

// pipeStation draws one extractor: how it reads, its stored marks, and the
// run in flight with the rows it holds.
func pipeStation(b *builder, v *atStep, p *extract.Config) {
	ht := v.ht
	station(b, "st-pipe-"+p.Name, "pipe", "Extractor: "+p.Name, "panel-pipe")
	b.el("p", pipeWords(p), "class", "tm-pipe-config")
	for _, m := range ht.Marks {
		if m.Pipeline != p.Name {
			continue
		}
		pt, _ := ht.MarkAt(m, v.s.Step)
		b.fopen("mark-"+m.Name, "div", "class", "tm-markbox tm-mark-"+pick(m.Kind.IsTimestamp(), "timestamp", "lsn"), "data-testid", "mark-"+m.Name)
		name := "stored mark"
		if len(ht.Marks) > 1 {
			name = "mark " + m.Name
		}
		b.el("span", name+" ("+m.Kind.String()+")", "class", "tm-mark-name")
		b.el("span", pt.Display, "class", "tm-mark-value", "data-testid", "mark-value")
		if pt.Step == v.s.Step && v.s.Step > 0 {
			b.el("span", "stored at this step", "class", "tm-mark-new")
		}
		b.fclose("div")
	}
	if pt, n, ok := ht.ProcessedThrough(p.Name, v.s.Step); ok {
		b.fopen("processed-"+p.Name, "p", "class", "tm-processed", "data-testid", "processed-through")
		b.el("strong", "processed through "+pt.Display)
		b.text(": the smallest of its " + itoa(n) + " marks; a row of the table that lags may lie anywhere after it.")
		b.fclose("p")
	}
	runBox(b, v, p)
	b.fclose("section")
}

// pipeWords says how a pipeline reads, in a line.
func pipeWords(p *extract.Config) string {
	op := ">"
	if p.Predicate == extract.GTE {
		op = "≥"
	}
	col := "updated_at"
	if !p.Mark.IsTimestamp() {
		col = "lsn"
	}
	when := "after the write"
	switch p.Advance {
	case extract.Before:
		when = "before the write"
	case extract.Atomic:
		when = "with the write, atomically"
	}
	w := "reads " + col + " " + op + " mark; stores " + p.Mark.Describe() + ", " + when
	if p.Overlap > 0 {
		w += "; re-reads " + p.Overlap.String() + " behind it"
	}
	return w
}

// runBox draws the pipeline's latest run by the step: what it read, whether
// it wrote, and the rows it holds between read and write.
func runBox(b *builder, v *atStep, p *extract.Config) {
	n := v.s.Step
	cur, next := v.runsOf(p.Name)
	b.fopen("run-"+p.Name, "div", "class", "tm-run", "data-testid", "run")
	target := p.To
	switch {
	case cur == nil:
		b.el("p", "No run has read yet.", "class", "tm-run-state")
	default:
		read := listWords(cur.Keys, 6)
		state, holds := "", false
		switch {
		case cur.WriteStep > 0 && cur.WriteStep <= n:
			state = "wrote " + plural(cur.Written, "row")
			if cur.MarkStep > 0 && cur.MarkStep <= n {
				state += " and stored its mark"
			}
		case cur.Crashed && cur.EndStep > 0 && cur.EndStep <= n:
			state = "crashed before writing: the rows it read are dropped"
		default:
			state, holds = "holds them; writing next", true
		}
		b.open("p", "class", "tm-run-state")
		b.el("strong", "Run at "+cur.At.String())
		b.text(": read " + plural(len(cur.Keys), "row") + read + " — " + state + ".")
		b.close("p")
		if holds || (cur.Crashed && cur.EndStep == n) {
			b.open("ul", "class", "tm-slots tm-inflight", "aria-label", "Rows the run holds")
			for i, k := range cur.Keys {
				if i == maxInFlight {
					b.el("li", "+"+itoa(len(cur.Keys)-i)+" more", "class", "tm-note")
					break
				}
				attrs := []string{"class", "tm-chip tm-chip-flight", "data-chip", "run:" + target + ":" + k, "data-key", k, "data-testid", "inflight"}
				if cur.ReadStep == n {
					attrs = append(attrs, "data-from", "src:"+target+":"+k, "data-new", "on")
				}
				if cur.Crashed {
					attrs = append(attrs, "data-state", "dropped")
				}
				b.open("li", attrs...)
				b.el("span", k, "class", "tm-chip-key")
				if cur.Crashed {
					b.el("span", "✕ dropped", "class", "tm-chip-note")
				}
				b.close("li")
			}
			b.close("ul")
		}
	}
	if next != nil {
		b.el("p", "Next run at "+next.At.String()+".", "class", "tm-note")
	}
	b.fclose("div")
}

// maxInFlight is how many of a run's rows the extractor draws as chips.
const maxInFlight = 12

// listWords names up to n keys after a count: ": 1, 2, 3" or "".
func listWords(keys []string, n int) string {
	if len(keys) == 0 {
		return ""
	}
	if len(keys) <= n {
		return " (" + strings.Join(keys, ", ") + ")"
	}
	return " (" + strings.Join(keys[:n], ", ") + " …)"
}

// stepTime is the time of step n, or 0 before the first.
func stepTime(t *engine.Trace, n int) vtime.Time {
	if n <= 0 || n > t.Steps() {
		return 0
	}
	return t.Events[n-1].At
}

// targetStation draws a target: a slot per key, for a window of keys
// around the latest write (or the key explained) when there are many.
func targetStation(b *builder, v *atStep, g *targetIndex) {
	t, s := v.t, v.s
	h := g.h
	station(b, "st-target-"+h.Name, "target", "Target: "+h.Name+" ("+h.Mode.String()+")", "panel-target")
	keys, caption := targetWindow(v, g)
	b.fopen("target-caption-"+h.Name, "p", "class", "tm-note tm-target-caption")
	b.text(caption)
	b.fclose("p")
	b.fopen("slots-"+h.Name, "ul", "class", "tm-slots", "data-testid", "slots", "aria-label", "Keys of "+h.Name+", one slot each")
	var buf []sink.Row
	for _, p := range keys {
		id := g.keys[p]
		key, chip := t.Key(id), g.id(t, p)
		buf = g.rowsOf(buf[:0], p, v.n)
		st, _ := v.at.Truth.Of(id)
		state, note := "in", ""
		switch {
		case len(buf) == 0 && st == engine.KeyMissing && g.arrives(p, v.n) > 0:
			state, note = "waiting", v.waitingLabel(h.Name, key)
		case len(buf) == 0:
			state, note = "lost", "✕ lost"
		case len(buf) > 1:
			state, note = "dup", "v"+itoa(int(buf[len(buf)-1].Seq))+" ×"+itoa(len(buf))
		case s.ShowTruth && st == engine.KeyStale:
			state, note = "stale", "v"+itoa(int(buf[0].Seq))+" ⚠ older"
		default:
			note = "v" + itoa(int(buf[0].Seq))
		}
		if g.from != nil && g.from[p] != "" {
			note += " · " + g.from[p] // whose row of the key this slot is
		}
		attrs := []string{"class", "tm-chip tm-chip-" + state, "data-testid", "slot", "data-key", key, "data-state", state,
			"data-chip", "tgt:" + h.Name + ":" + chip}
		if len(buf) > 0 && g.written(p, v.n) {
			from := "run:" + h.Name + ":" + key
			if o := rowOrigin(t, h.Name, id, key, s.Step); o != "" {
				from = o
			}
			attrs = append(attrs, "data-from", from, "data-new", "on")
		}
		if len(buf) > 1 {
			attrs = append(attrs, "data-copies", itoa(min(len(buf), 4)))
		}
		b.fopen("slot-"+h.Name+":"+chip, "li", attrs...)
		keyLink(b, v, key)
		b.el("span", note, "class", "tm-chip-note")
		b.fclose("li")
	}
	if len(keys) == 0 {
		b.fopen("slots-empty-"+h.Name, "li", "class", "tm-note")
		b.text("no rows yet")
		b.fclose("li")
	}
	b.fclose("ul")
	b.fclose("section")
}

// targetWindow returns the positions of the keys a target's station and
// table show at the step, and a caption saying which they are. A key is
// shown when the target holds a row of it, or (with the truth shown) when
// it is missing. A large target shows maxRows keys around the latest write,
// or the key being explained.
func targetWindow(v *atStep, g *targetIndex) ([]int, string) {
	t, s := v.t, v.s
	shown := func(i int) bool {
		id := g.keys[i]
		if s.ShowTruth {
			if st, _ := v.at.Truth.Of(id); st != engine.KeyFine {
				return st == engine.KeyMissing || st == engine.KeyDuplicated || st == engine.KeyStale
			}
		}
		for _, ri := range g.rows[g.rowAt[i]:g.rowAt[i+1]] {
			r := &g.h.Rows[ri]
			if r.AddedStep > v.n {
				break
			}
			if r.RemovedStep > v.n {
				return true
			}
		}
		return false
	}
	rows := g.present(v.n)
	caption := plural(rows, "row") + " at this step"
	focus, where := g.latest(v.n), "the latest write"
	if s.Explain != "" {
		if p := g.find(t, s.Explain); p >= 0 {
			focus, where = p, "key "+s.Explain
		}
	}
	if focus < 0 {
		focus = len(g.keys) - 1
	}
	most := maxRows
	if s.Present == "on" {
		most = maxPresented
	}
	keys := g.window(v.n, focus, most+1, shown)
	if len(keys) > most {
		keys = g.window(v.n, focus, most, shown)
		caption += "; showing " + itoa(len(keys)) + " keys around " + where + ", " + t.Key(g.keys[keys[0]]) + " to " + t.Key(g.keys[keys[len(keys)-1]])
	}
	return keys, caption
}

// maxRows is how many keys a target draws. A larger target is drawn as a
// window of maxRows keys, so that a step costs the same at row 30 and at
// row 30,000 (and a screen reader is not handed thousands of rows).
const maxRows = 40

// maxPresented is how many keys a target draws in presenter mode, where
// the whole stage must fit a projector's screen in type a room can read.
const maxPresented = 12

// stageLink is a link from the stage to the step drawn with a choice
// changed. Drawn by the browser module, where the page follows such a link
// itself, it leaves the step out: a link that named the step would change
// at every step, and so would every fragment holding one (see patch.go).
func stageLink(t *engine.Trace, s State, extra ...string) string {
	if s.Live {
		v := linkValues(t, s, s.Step, extra...)
		delete(v, "step")
		return s.BasePath + "?" + Encode(v)
	}
	return query(t, s, s.Step, extra...)
}

// explainLinks returns the links that explain a key from the stage, the
// rest of the query encoded once for every key of the step.
func explainLinks(t *engine.Trace, s State) func(key string) string {
	before, after, _ := strings.Cut(stageLink(t, s, "explain", "\x00"), "%00")
	return func(key string) string {
		var b strings.Builder
		b.WriteString(before)
		queryEscape(&b, key)
		b.WriteString(after)
		return b.String()
	}
}

func keyLink(b *builder, v *atStep, key string) {
	b.open("a", "href", v.explain(key), "data-act", "explain", "data-key", key,
		"aria-label", "explain key "+key, "class", "tm-key tm-chip-key")
	b.text(key)
	b.close("a")
}

// legend says what the picture's shapes mean, each with its glyph, so that
// nothing is told by colour alone.
func legend(b *builder, v *atStep) {
	b.fopen("legend", "ul", "class", "tm-legend", "aria-label", "Legend", "data-testid", "legend")
	item := func(class, glyph, text string) {
		b.open("li")
		b.el("span", glyph, "class", "tm-legend-glyph "+class, "aria-hidden", "true")
		b.text(text)
		b.close("li")
	}
	if v.ht != nil && len(v.ht.Txns) > 0 {
		item("tm-lg-bar", "▭", "transaction, begin to commit (dashed: open)")
		item("tm-lg-stamp", "◆", "updated_at")
		item("tm-lg-now", "│", "now")
		for _, m := range v.ht.Marks {
			if m.Kind.IsTimestamp() {
				item("tm-lg-mark", "┆", "timestamp mark: updated_at at or left of it is not read again")
			} else {
				item("tm-lg-lsn", "┊", "lsn mark: commits left of it are not read again")
			}
			break
		}
	}
	if hasStream(v.t) {
		streamLegendItems(v.t, item)
	} else if v.lt != nil {
		item("tm-lg-cell", "▢", "record: offset, key; ✕ deleted by retention; ▲ a group's committed offset")
	}
	item("tm-lg-chip", "▣", "row in the target, its version")
	item("tm-lg-dup", "❐", "×2: copies of a key")
	if v.s.ShowTruth {
		item("tm-lg-waiting", "◌", "not in the target yet: a later step writes it")
		item("tm-lg-lost", "✕", "lost: no later step brings it")
		item("tm-lg-stale", "⚠", "older version than the source's")
	}
	b.fclose("ul")
}

// keysSorted returns map keys in business-key order.
func keysSorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortKeys(out)
	return out
}

// sortKeys sorts keys in business-key order.
func sortKeys(keys []string) {
	mvcc.SortKeys(keys)
}

// checkView is what the checks panel draws. A session with a large trace
// runs the checks after the step is drawn (they cost time in proportion to
// the whole target); until then it shows the latest verdicts it has, saying
// which step they are from.
type checkView struct {
	results []check.Result
	step    int  // the step results are for
	pending bool // the verdicts at the step drawn are still being worked out
}

func checksPanel(b *builder, t *engine.Trace, n int, cv *checkView) {
	if cv == nil {
		cv = &checkView{results: t.ChecksAt(n), step: n}
	}
	b.fopen("checks", "section", "class", "tm-panel tm-panel-checks", "role", "group", "data-testid", "panel-checks", "aria-label", "Checks a team could run")
	b.el("h3", "Checks a team could run")
	// Whether the verdicts are the step's own is said apart from them, so
	// that working them out changes this line and not the list.
	b.fopen("checks-state", "p", "class", "tm-note", "data-testid", "checks-state", "aria-busy", pick(cv.pending, "true", "false"),
		"data-step", itoa(cv.step), "hidden?", on(!cv.pending))
	switch {
	case !cv.pending:
	case cv.results == nil:
		b.text("Running the checks at this step…")
	default:
		b.text("Running the checks at this step; until they finish, these are the verdicts at step " + itoa(cv.step) + ".")
	}
	b.fclose("p")
	b.fopen("checks-list", "ul", "class", "tm-checks", "data-testid", "checks")
	for _, c := range cv.results {
		b.fopen("check-"+c.Name, "li", "class", "tm-check tm-check-"+string(c.Status), "data-check", c.Name, "data-status", string(c.Status))
		b.el("span", CheckStatus(c.Status), "class", "tm-status")
		b.el("strong", " "+c.Name)
		b.el("span", ": "+c.Detail, "class", "tm-detail")
		b.open("details", "data-key", c.Name)
		b.el("summary", "What it catches and misses")
		b.el("p", "Catches: "+c.Catches+".")
		b.el("p", "Still misses: "+c.Misses+".")
		b.close("details")
		b.fclose("li")
	}
	b.fclose("ul")
	b.fclose("section")
}

// CheckStatus writes a check's verdict as a glyph and a word, so that it
// reads without colour: "✓ pass", "✗ fail" or "– not run".
func CheckStatus(st check.Status) string {
	switch st {
	case check.Pass:
		return "✓ pass"
	case check.Fail:
		return "✗ fail"
	case check.NotRun:
		return "– not run"
	}
	return string(st)
}

// comparePanel shows the original timeline's target beside the fork's (the
// trace drawn) at the same step, marking the keys whose rows differ.
func comparePanel(b *builder, f *engine.Trace, s State) {
	t := s.Original
	b.fopen("compare", "section", "class", "tm-panel tm-panel-compare", "role", "group", "data-testid", "panel-compare", "aria-label", "Original against your fork")
	b.el("h3", "Original against your fork")
	fs := clamp(s.Step, f.Steps())
	os := clamp(s.Step, t.Steps())
	// Each key's copies, and the versions they hold: a fork can leave the
	// same number of rows holding another version (a stale one, say).
	type copies struct {
		n        int
		versions string // the distinct versions held, in order: "v1, v2"
	}
	count := func(tr *engine.Trace, step int) map[string]copies {
		seen := map[string][]int{}
		for _, h := range tr.Targets {
			for _, r := range tr.TargetAt(h.Name, step) {
				seen[tr.RowKey(&r)] = append(seen[tr.RowKey(&r)], int(r.Seq))
			}
		}
		m := make(map[string]copies, len(seen))
		for k, vs := range seen {
			sorted.Sort(vs)
			vs = slices.Compact(vs)
			txt := make([]string, len(vs))
			for i, v := range vs {
				txt[i] = "v" + itoa(v)
			}
			m[k] = copies{n: len(seen[k]), versions: strings.Join(txt, ", ")}
		}
		return m
	}
	a, c := count(t, os), count(f, fs)
	all := map[string]bool{}
	for k := range a {
		all[k] = true
	}
	for k := range c {
		all[k] = true
	}
	for _, v := range t.LiveAt(os) {
		all[t.VersionKey(&v)] = true
	}
	keys := keysSorted(all)
	diff := 0
	for _, k := range keys {
		if a[k] != c[k] {
			diff++
		}
	}
	caption := "Copies of each key in the target at this step"
	if len(keys) > maxRows {
		// A large target: only the keys that differ, at most maxRows of them.
		var differing []string
		for _, k := range keys {
			if a[k] != c[k] && len(differing) < maxRows {
				differing = append(differing, k)
			}
		}
		keys = differing
		caption = "Copies of each key that differs at this step"
		if diff > maxRows {
			caption += " (the first " + itoa(maxRows) + " of " + itoa(diff) + ")"
		}
	}
	b.table(caption, []string{"key", "original", "fork", "difference"}, "class", "tm-table tm-compare", "data-testid", "compare-table")
	for _, k := range keys {
		differs := a[k] != c[k]
		attrs := []string{"data-key", k}
		if differs {
			attrs = append(attrs, "class", "tm-differs", "data-testid", "row-differs")
		}
		b.open("tr", attrs...)
		b.el("th", k, "scope", "row")
		orig, fork, note := itoa(a[k].n), itoa(c[k].n), ""
		switch {
		case a[k].n != c[k].n:
			note = "≠ differs"
		case differs:
			// As many copies, other versions: say which.
			orig, fork = orig+" ("+a[k].versions+")", fork+" ("+c[k].versions+")"
			note = "≠ differs: another version"
		}
		b.el("td", orig)
		b.el("td", fork)
		b.el("td", note, "class", "tm-note")
		b.close("tr")
	}
	b.close("tbody")
	b.close("table")
	differ := plural(diff, "key") + " differ"
	if diff == 1 {
		differ = "1 key differs"
	}
	b.el("p", differ+". The fork's final truth: "+verdict(f.Final())+"; the original's: "+verdict(t.Final())+".", "data-testid", "compare-summary")
	b.fclose("section")
}

func verdict(tr engine.Truth) string {
	return itoa(len(tr.Missing)) + " missing, " + itoa(len(tr.Duplicated)) + " duplicated, " + itoa(len(tr.Stale)) + " stale"
}
