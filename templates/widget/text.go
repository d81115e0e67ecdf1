package widget

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
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
			} else if held := v.heldByPause(h.Name, k); held != "" {
				note = held
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
