package widget

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/sink"
)

// textEquivalent draws the step as tables, one per station of the picture:
// what a screen reader or a search reads instead of the drawing, folded
// away until opened.
func textEquivalent(b *builder, v *atStep) {
	b.fopen("text", "details", "class", "tm-text", "data-testid", "text-equivalent", "data-fold", "text", "open?", on(v.s.TextOpen))
	b.el("summary", "The same step as tables")
	if v.s.Live && !v.s.TextOpen {
		b.fclose("details")
		return
	}
	if v.ht != nil && len(v.ht.Txns) > 0 {
		sourceTable(b, v)
	}
	if v.ht != nil && len(v.ht.Marks) > 0 {
		marksTable(b, v)
	}
	if v.lt != nil {
		logTables(b, v.lt, v.s)
	}
	if hasStream(v.t) {
		streamList(b, v)
	}
	for i := range v.ix.targets {
		targetTable(b, v, &v.ix.targets[i])
	}
	b.fclose("details")
}

// tableOf opens a table that is a fragment, with its caption and its body
// fragments of their own, so that a step replaces only the rows it changes.
// Close it with endTable.
func tableOf(b *builder, key, caption string, cols []string, attrs ...string) {
	b.fopen(key, "table", attrs...)
	b.fopen(key+"-caption", "caption")
	b.text(caption)
	b.fclose("caption")
	b.open("thead")
	b.open("tr")
	for _, c := range cols {
		b.el("th", c, "scope", "col")
	}
	b.close("tr")
	b.close("thead")
	b.fopen(key+"-body", "tbody")
}

func endTable(b *builder) {
	b.fclose("tbody")
	b.fclose("table")
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
		b.el("td", state, "class", "tm-state-"+strings.ReplaceAll(state, " ", "-"))
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
		upto, _ := slices.BinarySearchFunc(m.Points, n, func(q check.MarkPoint, step int) int {
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

// targetTable lists the rows of the keys the target's station shows.
func targetTable(b *builder, v *atStep, g *targetIndex) {
	t, s := v.t, v.s
	h := g.h
	keys, caption := targetWindow(v, g)
	tableOf(b, "tbl-target-"+h.Name, "Target "+h.Name+": "+caption, []string{h.Key, "updated_at", "version", "written at", "note"},
		"class", "tm-table", "data-testid", "target-table")
	var buf []sink.Row
	for _, p := range keys {
		id := g.keys[p]
		k, frag := t.Key(id), "tbl-target-"+h.Name+":"+g.id(t, p)
		buf = g.rowsOf(buf[:0], p, v.n)
		st, _ := v.at.Truth.Of(id)
		if len(buf) == 0 {
			note := "✕ lost: committed in the source, and no later step brings it"
			if a := g.arrives(p, v.n); a > 0 {
				note = v.waitingLabel(h.Name, k) + ": committed in the source; written at step " + strconv.Itoa(int(a))
			}
			if g.from != nil && g.from[p] != "" {
				note += " (the row of " + g.from[p] + ")"
			}
			b.fopen(frag, "tr", "class", "tm-ghost", "data-testid", "row-missing", "data-key", k)
			b.el("th", k, "scope", "row")
			b.el("td", "—")
			b.el("td", "—")
			b.el("td", "—")
			b.el("td", note, "class", "tm-note")
			b.fclose("tr")
			continue
		}
		for i, r := range buf {
			cls, note := "", ""
			if len(buf) > 1 {
				cls, note = "tm-dup", "×"+itoa(len(buf))+" copies"
				if i > 0 {
					note = "another copy"
				}
			}
			if s.ShowTruth && st == engine.KeyStale {
				cls, note = cls+" tm-stale", strings.TrimSpace(note+" ⚠ stale: the source has a newer version")
			}
			if g.from != nil && g.from[p] != "" {
				note = strings.TrimSpace(note + " the row of " + g.from[p])
			}
			b.fopen(frag+":"+itoa(i), "tr", "class", strings.TrimSpace("tm-row "+cls), "data-key", k, "data-testid", "row")
			b.el("th", k, "scope", "row")
			b.el("td", r.UpdatedAt.String())
			b.el("td", "v"+itoa(int(r.Seq)))
			b.el("td", t.Events[r.AddedStep-1].At.String())
			b.el("td", note, "class", "tm-note")
			b.fclose("tr")
		}
	}
	endTable(b)
}
