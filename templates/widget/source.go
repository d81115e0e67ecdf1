//go:build !tm_stream

package widget

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sorted"
)

// The high-water-mark world's part of the stage: the source's transactions,
// each extractor with its marks and its run, their tables in the text
// equivalent, and why a key of theirs stands as it does. The build of the
// log and stream worlds (wasm/worlds_stream.go) runs no source database and
// has worlds_nohwm.go instead, which stands in for this file and
// sourcechart.go, so that its download leaves them out.

// hwmOf returns the high-water-mark world's part of trace t, or nil.
func hwmOf(t *engine.Trace) *hwm.Trace { return hwm.Of(t) }

// runsOf returns the pipeline's latest run that has read by the step, and
// the next run to come.
func (v *atStep) runsOf(pipeline string) (cur, next *hwm.RunRecord) {
	if r, ok := v.runs[pipeline]; ok {
		return r[0], r[1]
	}
	n := v.s.Step
	at := v.t.TimeAt(n)
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
	_     nocmp.NoCompare
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
	if p.Interval > 0 {
		when := "as each ends"
		if p.Settle > 0 {
			when = p.Settle.String() + " after each ends"
		}
		return "reads updated_at in " + p.Interval.String() + " intervals, " + when + "; overwrites each; stores no mark"
	}
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
		// The rows are dropped once the crash has happened, not before (at
		// an earlier step the run still holds them), and only when it
		// came before the write: rows written are in the target.
		crashed := cur.Crashed && cur.EndStep > 0 && cur.EndStep <= n
		wrote := cur.WriteStep > 0 && cur.WriteStep <= n
		dropped := crashed && !wrote
		switch {
		case wrote:
			state = "wrote " + plural(cur.Written, "row")
			switch {
			case cur.MarkStep > 0 && cur.MarkStep <= n:
				state += " and stored its mark"
			case crashed:
				state += ", then crashed before storing its mark"
			}
		case dropped:
			state = "crashed before writing: the rows it read are dropped"
		default:
			state, holds = [...]string{"writing next", "holds it; writing next", "holds them; writing next"}[min(len(cur.Keys), 2)], true
		}
		b.open("p", "class", "tm-run-state")
		b.el("strong", "Run at "+cur.At.String())
		if cur.To > 0 {
			b.text(" of " + cur.From.String() + "–" + cur.To.String())
		}
		b.text(": read " + plural(len(cur.Keys), "row") + read + " — " + state + ".")
		b.close("p")
		if holds || (dropped && cur.EndStep == n) {
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
				if dropped {
					attrs = append(attrs, "data-state", "dropped")
				}
				b.open("li", attrs...)
				b.el("span", k, "class", "tm-chip-key")
				if dropped {
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

func sourceTable(b *builder, v *atStep) {
	c := v.chart
	caption := "Transactions at this step"
	if c.more > 0 {
		caption += "; the last " + itoa(len(c.bars)) + ", " + itoa(c.more) + " earlier not listed"
	}
	tableOf(b, "tbl-source", caption, []string{"txn", "rows", "begin", "updated_at", "end", "lsn", "state"},
		"class", "tm-table", "data-testid", "source-table")
	for _, br := range c.bars {
		tx := br.tx
		b.fopen("tbl-source-"+tx.Name, "tr")
		b.el("th", tx.Name, "scope", "row")
		b.el("td", strings.Join(br.keys, ", "))
		b.el("td", tx.BeginAt.String())
		stamp := "at commit"
		if st, ok := tx.Stamp(); ok {
			stamp = st.String()
		}
		b.el("td", stamp)
		end, lsn, state := "—", "—", "open"
		switch br.state {
		case "committed":
			end, state = tx.EndAt.String(), "committed"
			if br.lsn != "" {
				lsn = br.lsn
			}
		case "rolled-back":
			end, state = tx.EndAt.String(), "rolled back"
		}
		b.el("td", end)
		b.el("td", lsn)
		b.el("td", state, "class", "tm-state-"+prose.ReplaceAll(state, " ", "-"))
		b.fclose("tr")
	}
	endTable(b)
}

// marksTable lists each mark's latest stored values.
func marksTable(b *builder, v *atStep) {
	n := v.s.Step
	const maxHistory = 20
	tableOf(b, "tbl-marks", "Stored marks: the latest "+itoa(maxHistory)+" values of each", []string{"mark", "value", "stored at", "step"},
		"class", "tm-table", "data-testid", "marks-table")
	for _, m := range v.ht.Marks {
		upto, _ := sorted.Search(len(m.Points), func(k int) int {
			q, step := m.Points[k], n
			if q.Step <= step {
				return -1
			}
			return 1
		})
		if upto == 0 {
			b.fopen("tbl-marks-"+m.Name+"-none", "tr")
			b.el("th", m.Name+" ("+m.Kind.String()+")", "scope", "row")
			b.el("td", "none yet", "colspan", "3")
			b.fclose("tr")
			continue
		}
		for i := upto - 1; i >= max(0, upto-maxHistory); i-- {
			q := m.Points[i]
			b.fopen("tbl-marks-"+m.Name+"-"+itoa(i), "tr")
			b.el("th", m.Name+" ("+m.Kind.String()+")", "scope", "row")
			val := q.Display
			if q.Reset {
				val += " (reset by an operator)"
			}
			if i == upto-1 {
				val += " — held now"
			}
			b.el("td", val)
			b.el("td", q.At.String())
			b.el("td", itoa(q.Step))
			b.fclose("tr")
		}
	}
	endTable(b)
}

// pipeHolds reports whether an extractor writes into target, and whether
// the latest run of one that does holds key at the step: read, not written
// yet.
func (v *atStep) pipeHolds(target, key string) (fed, holds bool) {
	if v.ht == nil {
		return false, false
	}
	for i := range v.ht.Pipes {
		p := &v.ht.Pipes[i]
		if p.To != target {
			continue
		}
		fed = true
		if cur, _ := v.runsOf(p.Name); holding(cur, v.s.Step) && slices.Contains(cur.Keys, key) {
			return true, true
		}
	}
	return fed, false
}

// sourceLegendItems adds the source chart's shapes to the stage's legend.
func sourceLegendItems(v *atStep, item func(class, glyph, text string)) {
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
}
