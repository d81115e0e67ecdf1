package widget

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
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
	// polled holds, by target, the keys its consumer groups have read by
	// the step (polledKeys), found when a slot of the target first asks.
	polled map[string]map[string]bool
	// txn holds, by target, the keys a stream job's open transaction
	// holds at the step (transactionKeys), found when a slot first asks.
	txn map[string]map[string]bool
}

// waitingLabel says why a key missing from the target now is not lost. An
// extractor's run that holds it has read it; with none holding it, no run
// has. A consumer group's target says whether a member has read it, and a
// stream job's two-phase-commit sink whether its open transaction holds it.
func (v *atStep) waitingLabel(target, key string) string {
	if v.pending(target)[key] {
		return "◌ written, not committed yet"
	}
	fed, holds := v.pipeHolds(target, key)
	if holds {
		return "◌ read, not written yet"
	}
	if fed {
		return "◌ not read yet"
	}
	if v.lt != nil {
		if v.polled == nil {
			v.polled = map[string]map[string]bool{}
		}
		if v.polled[target] == nil {
			v.polled[target] = polledKeys(v.lt, target, v.s.Step)
		}
		if v.polled[target][key] {
			return "◌ read, not written yet"
		}
	}
	return "◌ not written yet"
}

// pending returns the keys whose rows a stream job's two-phase-commit sinks
// have written into target's transactions not committed yet at the step,
// found once per drawing (see transactionKeys).
func (v *atStep) pending(target string) map[string]bool {
	if v.txn == nil {
		v.txn = map[string]map[string]bool{}
	}
	keys, ok := v.txn[target]
	if !ok {
		keys = transactionKeys(v.t, target, v.s.Step)
		v.txn[target] = keys
	}
	return keys
}

// heldByPause says where a key missing from target for good waits, when a
// group writing target has a member paused past the run's end and the
// key's latest record in its topic lies at or after the group's final
// committed offset: the record is in the log, unprocessed, and the member
// would read it on resuming. A record behind the committed offset is lost
// whatever the pause does (it was marked done), and so is a key with no
// record. It returns "" when nothing holds the key.
func (v *atStep) heldByPause(target, key string) string {
	if v.lt == nil || len(v.t.Faults) == 0 {
		return "" // the usual case, at every lost slot of every step: no pause at all
	}
	pauses := pausesPastTheEnd(v.t)
	last := v.t.Steps()
	for _, g := range v.lt.Groups {
		if g.Target != target {
			continue
		}
		i := -1 // a loop: slices.IndexFunc is an instance per slice type in the browser module
		for k, p := range pauses {
			if p.Group == g.Name {
				i = k
				break
			}
		}
		if i < 0 {
			continue
		}
		for _, h := range v.lt.Topics {
			if h.Name != g.Topic {
				continue
			}
			for part := range h.PartitionsAt(last) {
				recs := v.lt.RecordsAt(h.Name, part, last)
				for o := len(recs) - 1; o >= 0; o-- {
					if h.Key(&recs[o]) != key {
						continue
					}
					if int64(o) >= g.CommittedAt(part, last) {
						return "⏸ in " + h.Name + "-" + itoa(part) + " at offset " + itoa(o) + ", unread: " +
							g.Name + "/" + pauses[i].Member + " is paused until " + pauses[i].Until.String() + ", past the end"
					}
					break
				}
			}
		}
	}
	return ""
}

// polledKeys returns the keys of the records that the consumer groups
// writing into target have read by step n. A key missing from target with
// such a record was read and is not written yet: in a batch still being
// processed, or one a crash or a rebalance left for the next member to read
// again. It reads every poll up to n, so a drawing asks once per target
// (atStep.polled), and only for a key the target is waiting for.
func polledKeys(lt *logs.Trace, target string, n int) map[string]bool {
	keys := map[string]bool{}
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
		for _, rr := range g.Reads {
			if int(rr.Step) > n {
				break
			}
			recs := lt.RecordsAt(g.Topic, int(rr.Partition), n)
			for o := rr.From; o < rr.To && o < int64(len(recs)); o++ {
				keys[h.Key(&recs[o])] = true
			}
		}
	}
	return keys
}

func stage(b *builder, t *engine.Trace, s State, ix *stageIndex) {
	if ix == nil {
		ix = indexTrace(t)
	}
	v := &atStep{t: t, s: s, ix: ix, at: t.Seek(s.Step), n: int32(s.Step), explain: explainLinks(t, s), ht: hwmOf(t), lt: logs.Of(t)}
	if s.Present == "notes" {
		presenterNotes(b, t, s.Step, s.id("settings"))
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
		b.fopen("explain", "div", "class", "tm-explain", "data-testid", "explain")
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
// stage: the scenario's note for the step, what the next step will say, and
// a link to the knobs and faults (the element settingsID), which drive the
// room's and lie under the stage where the window is too narrow to keep
// them beside it.
func presenterNotes(b *builder, t *engine.Trace, n int, settingsID string) {
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
	b.open("p", "class", "tm-to-settings")
	b.el("a", "Knobs and faults", "href", "#"+settingsID, "data-testid", "to-settings")
	b.close("p")
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
const maxListed = 20

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
	ids := make([]int32, 0, cap(missing)) // of the missing keys listed
	dup := make([]string, 0, min(nd, maxListed))
	stale := make([]string, 0, min(ns, maxListed))
	left := cap(missing) + cap(dup) + cap(stale)
	tv := v.at.Truth
	for i := 0; left > 0 && i < tv.Len(); i++ {
		id, st, rows := tv.At(i)
		switch {
		case st == engine.KeyMissing && len(missing) < cap(missing):
			missing, ids = append(missing, v.t.TruthKey(id)), append(ids, id)
		case st == engine.KeyDuplicated && len(dup) < cap(dup):
			dup = append(dup, v.t.TruthKey(id)+" ×"+itoa(rows))
		case st == engine.KeyStale && len(stale) < cap(stale):
			stale = append(stale, v.t.TruthKey(id))
		default:
			continue
		}
		left--
	}
	// When every missing key is listed, those a later step writes are said
	// apart from those lost, as the target's slots tell them; with keys
	// left unlisted, which of those are on their way is unknown, and the
	// sentence stays whole.
	var coming []string
	if nm > 0 && nm == len(missing) {
		var lost []string
		for i, id := range ids {
			if v.arrivesLater(id) {
				coming = append(coming, missing[i])
			} else {
				lost = append(lost, missing[i])
			}
		}
		missing, nm = lost, len(lost)
	}
	return truthSentence(missing, nm, coming, dup, nd, stale, ns)
}

// arrivesLater reports whether a later step than the one drawn writes a
// row of the key with id into its target.
func (v *atStep) arrivesLater(id int32) bool {
	if v.ix == nil {
		return false // no index of the targets: the sentence does not split
	}
	key := v.t.Key(id)
	for i := range v.ix.targets {
		g := &v.ix.targets[i]
		for p := g.find(v.t, key); p >= 0 && p < len(g.keys) && v.t.Key(g.keys[p]) == key; p++ {
			if g.keys[p] == id && g.arrives(p, v.n) > 0 {
				return true
			}
		}
	}
	return false
}

// truthSentence says the truth in one sentence: nm keys missing (missing
// names some of them), coming keys missing that a later step writes (as
// the legend says it, "not in the target yet"), nd duplicated and ns stale.
func truthSentence(missing []string, nm int, coming, dup []string, nd int, stale []string, ns int) string {
	var parts []string
	if nm > 0 {
		parts = append(parts, "not in the target: "+listKeys(missing, nm))
	}
	if len(coming) > 0 {
		parts = append(parts, "not in the target yet: "+strings.Join(coming, ", "))
	}
	if nd > 0 {
		parts = append(parts, "duplicated: "+listKeys(dup, nd))
	}
	if ns > 0 {
		parts = append(parts, "stale: "+listKeys(stale, ns))
	}
	if len(parts) == 0 {
		parts = append(parts, "the target holds every row it should, once, in its latest version")
	}
	return strings.Join(parts, "; ") + "."
}

// TruthAt says the truth of trace t at step n in one sentence, as the
// widget's stage says it: which keys the target lacks (those a later step
// writes apart from those lost), holds more than once or holds an old
// version of. A picture and its text say it so, where a reader cannot step
// on to see which missing row arrives.
func TruthAt(t *engine.Trace, n int) string { return truthAt(t, n, nil) }

// truthAt is TruthAt with the stage's index of t when the caller has one
// (a session's); without, it indexes t only when the sentence splits the
// missing keys, as truthText does for a few of them.
func truthAt(t *engine.Trace, n int, ix *stageIndex) string {
	n = min(max(n, 0), t.Steps())
	v := &atStep{t: t, s: State{Step: n}, ix: ix, at: t.Seek(n), n: int32(n)}
	if m := v.at.Counts.Missing; ix == nil && m > 0 && m <= maxListed {
		v.ix = indexTrace(t)
	}
	return truthText(v)
}

// TruthText says in one sentence which keys the target lacks, holds more
// than once or holds an old version of, at one step: the truth no check sees.
func TruthText(tr engine.Truth) string {
	dup := make([]string, 0, len(tr.Duplicated))
	for _, k := range keysSorted(tr.Duplicated) {
		dup = append(dup, k+" ×"+itoa(tr.Duplicated[k]))
	}
	cut := func(keys []string) []string { return keys[:min(len(keys), maxListed)] }
	return truthSentence(cut(tr.Missing), len(tr.Missing), nil, cut(dup), len(dup), cut(tr.Stale), len(tr.Stale))
}

// station opens a station of the picture: a section with a heading. Close
// it with b.fclose("section").
func station(b *builder, key, class, title, testid string) {
	b.fopen(key, "section", "class", "tm-station tm-station-"+class, "role", "group", "data-testid", testid, "aria-label", title)
	b.el("h3", title, "class", "tm-station-title")
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

// maxInFlight is how many of a run's rows the extractor draws as chips.
const maxInFlight = 12

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
	stale := staleWord(t)
	for _, p := range keys {
		id := g.keys[p]
		key, chip := t.Key(id), g.id(t, p)
		buf = g.rowsOf(buf[:0], p, v.n)
		st, _ := v.at.Truth.Of(id)
		// The note says the slot's state on the screen, with a glyph;
		// spoken, the link's name, says it in words alone.
		state, note, spoken := "in", "", ""
		switch {
		case len(buf) == 0 && st == engine.KeyMissing && g.arrives(p, v.n) > 0:
			note = v.waitingLabel(h.Name, key)
			state, spoken = "waiting", strings.TrimPrefix(note, "◌ ")
		case len(buf) == 0 && v.heldByPause(h.Name, key) != "":
			state, note, spoken = "held", "⏸ held", "held"
		case len(buf) == 0:
			state, note, spoken = "lost", "✕ lost", "lost"
		case len(buf) > 1:
			state, note = "dup", "v"+itoa(int(buf[len(buf)-1].Seq))+" ×"+itoa(len(buf))
		case s.ShowTruth && st == engine.KeyStale:
			ver := "v" + itoa(int(buf[0].Seq))
			state, note, spoken = "stale", ver+" ⚠ "+stale, ver+" "+stale
		default:
			note = "v" + itoa(int(buf[0].Seq))
		}
		if spoken == "" {
			spoken = note
		}
		note += filedAs(t, key, buf)
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
		keyLink(b, v, key, spoken)
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

// filedAs names the keys other than key under which the target holds buf,
// the rows copying key's source row: a resend that regenerated its id is
// filed under the new id, which is why a uniqueness check on the key sees
// every key once while the slot counts two copies. It is "" when every
// row is under key itself, " · also as K" when one is, and " · as K" when
// none is.
func filedAs(t *engine.Trace, key string, buf []sink.Row) string {
	var others []string
	own := false
	for i := range buf {
		k := t.Key(buf[i].KeyID)
		if k == key {
			own = true
		} else if !slices.Contains(others, k) {
			others = append(others, k)
		}
	}
	if len(others) == 0 {
		return ""
	}
	if own {
		return " · also as " + strings.Join(others, ", ")
	}
	return " · as " + strings.Join(others, ", ")
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
	if t.IsUnwritten(g.h.Name) {
		// Zero rows, and not for want of a run: no line writes the table
		// as the knobs are set.
		caption += "; " + engine.UnwrittenNote
	}
	focus, where := g.latest(v.n), "the latest write"
	// Rows written into a transaction not committed yet are writes too,
	// the furthest along among them (a restored job writes them anew).
	for k := range v.pending(g.h.Name) {
		focus = max(focus, g.find(t, k))
	}
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

// keyLink draws the link that explains key, a target's slot whose state
// spoken says in words (lost, held, copies, a version): its name carries
// it, since a keyboard's Tab hears the link alone.
func keyLink(b *builder, v *atStep, key, spoken string) {
	b.open("a", "href", v.explain(key), "data-act", "explain", "data-key", key,
		"aria-label", "explain key "+key+" ("+spoken+")", "class", "tm-key tm-chip-key")
	b.text(key)
	b.close("a")
}

// logLegend says what a lane's shapes mean, on the stage and in a picture.
const logLegend = "record: offset, key; ✕ deleted by retention; ▲ a group's committed offset"

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
	sourceLegendItems(v, item)
	if hasStream(v.t) {
		streamLegendItems(v.t, item)
	} else if v.lt != nil {
		text := logLegend
		if v.lt.Schemas {
			text += "; s2: written with schema version 2"
		}
		item("tm-lg-cell", "▢", text)
	}
	item("tm-lg-chip", "▣", "row in the target, its version")
	item("tm-lg-dup", "❐", "×2: copies of a key")
	if v.s.ShowTruth {
		item("tm-lg-waiting", "◌", "not in the target yet: a later step writes it")
		item("tm-lg-lost", "✕", "lost: no later step brings it")
		if len(pausesPastTheEnd(v.t)) > 0 {
			item("tm-lg-waiting", "⏸", "held: in the log, unread, its consumer paused past the end")
		}
		if hasStream(v.t) {
			item("tm-lg-stale", "⚠", "stale: not the value the truth holds (an older version, or a window's count that misses records or counts others)")
		} else {
			item("tm-lg-stale", "⚠", "older version than the source's")
		}
	}
	b.fclose("ul")
}

// staleWord marks a target row the truth calls stale: an older version
// than the source's, or, where a stream job writes, a window's result
// that differs from the truth's count, which is no older version of it.
func staleWord(t *engine.Trace) string {
	if hasStream(t) {
		return "stale"
	}
	return "older"
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
