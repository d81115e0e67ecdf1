package widget

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

func compareKeys(a, b string) int { return mvcc.CompareKeys(a, b) }

// stage draws the panels for one step. The panel set is a list so the log
// and stream worlds can add theirs (partitions as lanes, the watermark line)
// beside these.
func stage(b *builder, t *engine.Trace, s State) {
	// The step's truth and a view of each target, read without copying the
	// target's rows (a large target would otherwise be copied every step).
	at := t.Seek(s.Step)
	truth := at.Truth
	if s.ShowTruth {
		truthSummary(b, truth)
	}
	if s.Explain != "" {
		b.open("div", "class", "tm-explain", "role", "status", "data-testid", "explain")
		head := "Why key " + s.Explain + "? "
		if strings.HasPrefix(s.Explain, "late:") {
			head = "Why was this record late? "
		}
		b.el("strong", head)
		b.text(explain(t, s.Explain, s.Step))
		b.open("a", "href", query(t, s, s.Step, "explain", ""), "data-act", "explain", "data-key", "")
		b.text("close")
		b.close("a")
		b.close("div")
	}
	b.open("div", "class", "tm-panels")
	if ht := hwm.Of(t); ht != nil && len(ht.Txns) > 0 {
		sourcePanel(b, t, s)
	}
	logPanel(b, t, s)
	streamPanel(b, t, s)
	marksPanel(b, t, s)
	targetPanel(b, t, s, truth, at.Targets)
	jobPanel(b, t, s)
	checksPanel(b, t, s.Step, s.checks)
	if s.Original != nil {
		comparePanel(b, t, s)
	}
	b.close("div")
	if t.Steps() > maxTimeline {
		timelineWindow(b, t, s)
	}
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
	b.open("details", "class", "tm-timeline", "data-testid", "timeline", "open?", on(!s.Embedded))
	b.el("summary", "Steps "+itoa(lo)+" to "+itoa(hi)+" of "+itoa(t.Steps())+" (the list follows the current step)")
	b.open("ol", "class", "tm-steps", "id", s.id("steps"), "start", itoa(lo))
	for step := lo; step <= hi; step++ {
		stepItem(b, t, s, step)
	}
	b.close("ol")
	b.close("details")
}

// maxListed is how many keys a sentence names before it counts the rest.
const maxListed = 100

// listKeys joins keys for a sentence, naming at most maxListed of them.
func listKeys(keys []string) string {
	if len(keys) <= maxListed {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys[:maxListed], ", ") + " and " + itoa(len(keys)-maxListed) + " more"
}

func truthSummary(b *builder, tr engine.Truth) {
	b.open("p", "class", "tm-truth", "data-testid", "truth")
	b.el("strong", "Truth: ")
	b.text(TruthText(tr))
	b.close("p")
}

// TruthText says in one sentence which keys the target lacks, holds more
// than once or holds an old version of, at one step: the truth no check sees.
func TruthText(tr engine.Truth) string {
	var parts []string
	if len(tr.Missing) > 0 {
		parts = append(parts, "not in the target: "+listKeys(tr.Missing))
	}
	if len(tr.Duplicated) > 0 {
		var d []string
		for _, k := range keysSorted(tr.Duplicated) {
			d = append(d, k+" ×"+itoa(tr.Duplicated[k]))
		}
		parts = append(parts, "duplicated: "+listKeys(d))
	}
	if len(tr.Stale) > 0 {
		parts = append(parts, "stale: "+listKeys(tr.Stale))
	}
	if len(parts) == 0 {
		parts = append(parts, "the target matches every committed source row")
	}
	return strings.Join(parts, "; ") + "."
}

func panel(b *builder, id, title string) {
	b.open("section", "class", "tm-panel tm-panel-"+id, "data-testid", "panel-"+id, "aria-label", title)
	b.el("h3", title)
}

// txns returns the source transactions of t's high-water-mark world, if any.
func txns(t *engine.Trace) []hwm.TxnRecord {
	if ht := hwm.Of(t); ht != nil {
		return ht.Txns
	}
	return nil
}

// marks returns the stored marks of t's high-water-mark world, if any.
func marks(t *engine.Trace) []*hwm.MarkHistory {
	if ht := hwm.Of(t); ht != nil {
		return ht.Marks
	}
	return nil
}

// span is the time axis shared by the source drawing: every begin, commit,
// run and stamp, padded a little.
func span(t *engine.Trace) (lo, hi vtime.Time) {
	first := true
	see := func(x vtime.Time) {
		if first {
			lo, hi, first = x, x, false
			return
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	for _, x := range txns(t) {
		see(x.BeginAt)
		if x.EndStep > 0 {
			see(x.EndAt)
		}
		if st, ok := x.Stamp(); ok {
			see(st)
		}
	}
	for _, e := range t.Events {
		see(e.At)
	}
	if hi == lo {
		hi = lo + 1000
	}
	return lo, hi
}

func sourcePanel(b *builder, t *engine.Trace, s State) {
	panel(b, "source", "Source transactions")
	shown := shownTxns(t, s.Step)
	sourceChart(b, t, s.Step, shown, ChartOptions{})
	// The same facts as a table: the text equivalent of the drawing.
	b.table("Transactions at this step", []string{"txn", "rows", "begin", "updated_at", "end", "lsn", "state"},
		"class", "tm-table", "data-testid", "source-table")
	for _, tx := range shown {
		b.open("tr")
		b.el("th", tx.Name, "scope", "row")
		b.el("td", strings.Join(tx.Keys(), ", "))
		b.el("td", tx.BeginAt.String())
		stamp := "at commit"
		if st, ok := tx.Stamp(); ok {
			stamp = st.String()
		}
		b.el("td", stamp)
		end, lsn, state := "—", "—", "open"
		if tx.EndStep > 0 && tx.EndStep <= s.Step {
			end = tx.EndAt.String()
			if tx.State == mvcc.Committed {
				state = "committed"
				if tx.LSN > 0 { // a transaction that changed no row takes no position
					lsn = strconv.FormatInt(int64(tx.LSN), 10)
				}
			} else {
				state = "rolled back"
			}
		}
		b.el("td", end)
		b.el("td", lsn)
		b.el("td", state, "class", "tm-state-"+strings.ReplaceAll(state, " ", "-"))
		b.close("tr")
	}
	b.close("tbody")
	b.close("table")
	b.close("section")
}

// maxBars is how many transactions the source chart draws: the last ones
// begun by the step.
const maxBars = 40

// shownTxns returns the last maxBars transactions begun by step, in trace order.
func shownTxns(t *engine.Trace, step int) []*hwm.TxnRecord {
	var shown []*hwm.TxnRecord
	all := txns(t)
	for i := len(all) - 1; i >= 0 && len(shown) < maxBars; i-- {
		if all[i].BeginStep <= step {
			shown = append(shown, &all[i])
		}
	}
	slices.Reverse(shown)
	return shown
}

// ChartOptions says where the source chart goes and how it is coloured.
type ChartOptions struct {
	// Standalone draws the chart for a document without the site's
	// stylesheet (a picture for a README): each shape carries its colours
	// as presentation attributes, which no Content-Security-Policy blocks,
	// in the light scheme.
	Standalone bool
	// LateHref, when set, makes each late record of a stream chart a link
	// to the address it returns for the record's index in the stream
	// trace's Late, so a learner can open why it was late.
	LateHref func(late int) string
	// X and Y place the chart inside an enclosing SVG; they are written
	// only for a standalone chart.
	X, Y float64
}

// chartWidth is the width of the source chart in user units.
const chartWidth = 640.0

// SourceChart draws the source transactions at step as bars from begin to
// commit on a time axis, with each one's updated_at as a diamond, the
// timestamp marks as dashed lines and the step's time as a thin line. It
// returns the <svg> element and its size. The scenario page's source panel
// and the static picture both draw with it.
func SourceChart(t *engine.Trace, step int, o ChartOptions) (svg string, width, height float64) {
	var b builder
	step = clamp(step, t.Steps())
	height = sourceChart(&b, t, step, shownTxns(t, step), o)
	return b.String(), chartWidth, height
}

// chartLook holds the presentation attributes of a standalone chart, by
// class: the colours app.css gives them in the light scheme.
var chartLook = map[string][]string{
	"tm-axis":               {"stroke", "#4a5560"},
	"tm-tick":               nil,
	"tm-markline":           {"stroke", "#b23c0a", "stroke-width", "2", "stroke-dasharray", "6 3"},
	"tm-marklabel":          {"fill", "#b23c0a", "font-weight", "700"},
	"tm-nowline":            {"stroke", "#4a5560", "stroke-width", "1"},
	"tm-txlabel":            nil,
	"tm-bar tm-open":        {"fill", "#f4b942", "fill-opacity", "0.55", "stroke", "#1b1f23", "stroke-dasharray", "4 2"},
	"tm-bar tm-committed":   {"fill", "#0b4f6c", "fill-opacity", "0.55", "stroke", "#1b1f23"},
	"tm-bar tm-rolled-back": {"fill", "none", "stroke", "#1b1f23", "stroke-dasharray", "2 2"},
	"tm-stamp":              {"fill", "#1b1f23"},
}

// sourceChart draws the chart of shown at step and returns its height.
func sourceChart(b *builder, t *engine.Trace, step int, shown []*hwm.TxnRecord, o ChartOptions) float64 {
	// look appends a class and, for a standalone chart, its colours.
	look := func(class string, attrs ...string) []string {
		attrs = append(attrs, "class", class)
		if o.Standalone {
			attrs = append(attrs, chartLook[class]...)
		}
		return attrs
	}
	now := vtime.Time(0)
	if step > 0 {
		now = t.Events[step-1].At
	}
	lo, hi := span(t)
	const w, left, right, rowH = chartWidth, 96.0, 16.0, 26.0
	x := func(at vtime.Time) float64 {
		return left + (w-left-right)*float64(at-lo)/float64(hi-lo)
	}
	h := rowH*float64(len(shown)) + 44
	desc := strconv.Itoa(len(shown)) + " transactions drawn as bars from begin to commit on a time axis; diamonds mark each one's updated_at"
	if o.Standalone {
		b.open("svg", "x", ftoa(o.X), "y", ftoa(o.Y), "width", ftoa(w), "height", ftoa(h), "viewBox", "0 0 640 "+ftoa(h),
			"role", "img", "aria-label", desc, "font-family", "ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace",
			"font-size", "12", "fill", "#1b1f23")
	} else {
		b.open("svg", "class", "tm-svg", "viewBox", "0 0 640 "+ftoa(h), "role", "img", "aria-label", desc, "data-testid", "source-chart")
	}
	// Time axis.
	b.void("line", look("tm-axis", "x1", ftoa(left), "y1", ftoa(h-24), "x2", ftoa(w-right), "y2", ftoa(h-24))...)
	b.el("text", lo.String(), look("tm-tick", "x", ftoa(left), "y", ftoa(h-6))...)
	b.el("text", hi.String(), append(look("tm-tick", "x", ftoa(w-right), "y", ftoa(h-6)), "text-anchor", "end")...)
	// Timestamp marks as vertical lines.
	ht := hwm.Of(t)
	for _, m := range marks(t) {
		p, ok := ht.MarkAt(m, step)
		if !ok || !p.Set || !m.Kind.IsTimestamp() {
			continue
		}
		mx := x(vtime.Time(p.Value))
		b.void("line", look("tm-markline", "x1", ftoa(mx), "y1", "4", "x2", ftoa(mx), "y2", ftoa(h-24))...)
		// A label near the right edge is written to the left of its line,
		// so the chart does not cut it off.
		if mx > w-right-120 {
			b.el("text", "mark "+p.Display, append(look("tm-marklabel", "x", ftoa(mx-3), "y", "14"), "text-anchor", "end")...)
		} else {
			b.el("text", "mark "+p.Display, look("tm-marklabel", "x", ftoa(mx+3), "y", "14")...)
		}
	}
	if step > 0 {
		nx := x(now)
		b.void("line", look("tm-nowline", "x1", ftoa(nx), "y1", "4", "x2", ftoa(nx), "y2", ftoa(h-24))...)
	}
	for i, tx := range shown {
		y := 20 + rowH*float64(i)
		end, state := now, "open"
		if tx.EndStep > 0 && tx.EndStep <= step {
			end = tx.EndAt
			state = map[mvcc.TxnState]string{mvcc.Committed: "committed", mvcc.RolledBack: "rolled-back"}[tx.State]
		}
		label := tx.Name
		if keys := tx.Keys(); len(keys) == 1 {
			label += " · " + keys[0]
		}
		b.el("text", label, look("tm-txlabel", "x", "4", "y", ftoa(y+13))...)
		bw := max(x(end)-x(tx.BeginAt), 3)
		b.void("rect", look("tm-bar tm-"+state, "x", ftoa(x(tx.BeginAt)), "y", ftoa(y+2), "width", ftoa(bw), "height", "14", "rx", "3")...)
		if st, ok := tx.Stamp(); ok {
			sx := x(st)
			b.void("polygon", look("tm-stamp", "points", ftoa(sx)+","+ftoa(y)+" "+ftoa(sx+5)+","+ftoa(y+9)+" "+ftoa(sx)+","+ftoa(y+18)+" "+ftoa(sx-5)+","+ftoa(y+9))...)
		}
	}
	b.close("svg")
	return h
}

func marksPanel(b *builder, t *engine.Trace, s State) {
	ht := hwm.Of(t)
	if ht == nil || len(ht.Marks) == 0 {
		return
	}
	panel(b, "marks", "Stored marks")
	for _, m := range ht.Marks {
		p, _ := ht.MarkAt(m, s.Step)
		b.open("div", "class", "tm-mark", "data-testid", "mark-"+m.Name)
		b.el("div", m.Name+" ("+m.Kind.String()+")", "class", "tm-mark-name")
		b.el("div", p.Display, "class", "tm-mark-value", "data-testid", "mark-value")
		var pts []struct {
			step int
			v    int64
		}
		for _, q := range m.Points {
			if q.Step <= s.Step && q.Set {
				pts = append(pts, struct {
					step int
					v    int64
				}{q.Step, q.Value})
			}
		}
		if len(pts) > 0 {
			vlo, vhi := pts[0].v, pts[0].v
			for _, q := range pts {
				vlo, vhi = min(vlo, q.v), max(vhi, q.v)
			}
			if vhi == vlo {
				vhi = vlo + 1
			}
			steps := max(t.Steps(), 1)
			var poly []string
			for _, q := range pts {
				px := 4 + 232*float64(q.step)/float64(steps)
				py := 56 - 48*float64(q.v-vlo)/float64(vhi-vlo)
				poly = append(poly, ftoa(px)+","+ftoa(py))
			}
			b.open("svg", "class", "tm-spark", "viewBox", "0 0 240 60", "role", "img", "aria-label", "history of "+m.Name+": "+itoa(len(pts))+" stored values")
			b.void("polyline", "points", strings.Join(poly, " "), "class", "tm-sparkline")
			b.close("svg")
		}
		// The stored values as text, the latest maxHistory of them.
		upto, _ := slices.BinarySearchFunc(m.Points, s.Step, func(q check.MarkPoint, step int) int {
			if q.Step <= step {
				return -1
			}
			return 1
		})
		const maxHistory = 20
		from := max(0, upto-maxHistory)
		if from > 0 {
			b.el("p", itoa(from)+" earlier values not listed", "class", "tm-note")
			b.open("ol", "class", "tm-history", "start", itoa(from+1))
		} else {
			b.open("ol", "class", "tm-history")
		}
		for _, q := range m.Points[from:upto] {
			txt := q.Display + " at " + q.At.String()
			if q.Reset {
				txt += " (reset by an operator)"
			}
			b.el("li", txt)
		}
		b.close("ol")
		b.close("div")
	}
	for _, p := range ht.Pipes {
		if pt, n, ok := ht.ProcessedThrough(p.Name, s.Step); ok {
			b.open("p", "class", "tm-processed", "data-testid", "processed-through")
			b.el("strong", p.Name+" processed through: "+pt.Display)
			b.text(" — the smallest of its " + itoa(n) + " marks: a row of the table that lags may lie anywhere after it.")
			b.close("p")
		}
	}
	b.close("section")
}

func targetPanel(b *builder, t *engine.Trace, s State, truth engine.Truth, views []engine.TargetView) {
	for i, h := range t.Targets {
		panel(b, "target", "Target "+h.Name+" ("+h.Mode.String()+")")
		var missing, stale []string // sorted by key
		if s.ShowTruth {
			missing, stale = truth.Missing, truth.Stale
			if len(t.Targets) > 1 {
				missing, stale = ofTarget(missing, h.Name), ofTarget(stale, h.Name)
			}
		}
		// Every key the table could show, the rows' and the missing ones,
		// sorted; a large target is then cut to a window of them.
		buf := keyBuffers.Get().(*[]mvcc.ParsedKey)
		pk, nrows, latest := (*buf)[:0], 0, ""
		views[i].Each(func(r sink.Row) bool {
			key := t.RowKey(&r)
			pk = append(pk, mvcc.ParseKey(key))
			nrows++
			latest = key // rows arrive in step order
			return true
		})
		for _, k := range missing {
			pk = append(pk, mvcc.ParseKey(k))
		}
		caption := itoa(nrows) + " rows at this step"
		sorted.Func(pk, mvcc.ParsedKey.Compare)
		shown := slices.CompactFunc(pk, func(a, b mvcc.ParsedKey) bool { return a.S == b.S })
		if len(shown) > maxRows {
			focus, where := mvcc.ParseKey(latest), "the latest write"
			if _, found := slices.BinarySearchFunc(shown, mvcc.ParseKey(s.Explain), mvcc.ParsedKey.Compare); found && s.Explain != "" {
				focus, where = mvcc.ParseKey(s.Explain), "key "+s.Explain
			}
			shown = window(shown, focus)
			caption += "; showing the " + itoa(len(shown)) + " keys around " + where + ", " + shown[0].S + " to " + shown[len(shown)-1].S
		}
		keys := make([]string, len(shown))
		for j, k := range shown {
			keys[j] = k.S
		}
		*buf = pk[:0]
		keyBuffers.Put(buf)
		// The rows of the keys drawn, each key's in the order written.
		byKey := make(map[string][]sink.Row, len(keys))
		for _, k := range keys {
			byKey[k] = nil
		}
		views[i].Each(func(r sink.Row) bool {
			if rs, ok := byKey[t.RowKey(&r)]; ok {
				byKey[t.RowKey(&r)] = append(rs, r)
			}
			return true
		})
		isStale := func(k string) bool {
			_, found := slices.BinarySearchFunc(stale, k, compareKeys)
			return found
		}
		b.table(caption, []string{h.Key, "updated_at", "version", "written at", "note"},
			"class", "tm-table", "data-testid", "target-table")
		for _, k := range keys {
			rs := byKey[k]
			if len(rs) == 0 {
				b.open("tr", "class", "tm-ghost", "data-testid", "row-missing", "data-key", k)
				b.open("th", "scope", "row")
				keyLink(b, t, s, k)
				b.close("th")
				b.el("td", "—")
				b.el("td", "—")
				b.el("td", "—")
				b.el("td", "◌ missing: committed in the source, absent here", "class", "tm-note")
				b.close("tr")
				continue
			}
			for i, r := range rs {
				cls, note := "", ""
				if s.ShowTruth && len(rs) > 1 {
					cls, note = "tm-dup", "×"+itoa(len(rs))+" duplicate"
				}
				if isStale(k) {
					cls, note = cls+" tm-stale", strings.TrimSpace(note+" ⚠ stale: the source has a newer version")
				}
				b.open("tr", "class", strings.TrimSpace("tm-row "+cls), "data-key", k, "data-testid", "row")
				b.open("th", "scope", "row")
				keyLink(b, t, s, k)
				if len(rs) > 1 && s.ShowTruth {
					b.el("span", "×"+itoa(len(rs)), "class", "tm-badge", "aria-label", "appears "+itoa(len(rs))+" times")
				}
				b.close("th")
				b.el("td", r.UpdatedAt.String())
				b.el("td", "v"+itoa(int(r.Seq)))
				b.el("td", t.Events[r.AddedStep-1].At.String())
				if i > 0 && note != "" {
					note = "another copy"
				}
				b.el("td", note, "class", "tm-note")
				b.close("tr")
			}
		}
		b.close("tbody")
		b.close("table")
		b.close("section")
	}
}

// ofTarget returns the keys of the truth that belong to one target (with
// several targets the truth names keys "target:key"), without the prefix,
// sorted by key.
func ofTarget(keys []string, target string) []string {
	var out []string
	for _, k := range keys {
		if rest, ok := strings.CutPrefix(k, target+":"); ok {
			out = append(out, rest)
		}
	}
	sortKeys(out)
	return out
}

// maxRows is how many keys a table draws. A larger target is drawn as a
// window of maxRows keys, so that a step costs the same at row 30 and at
// row 30,000 (and a screen reader is not handed thousands of rows).
const maxRows = 40

// window returns maxRows of the sorted, distinct keys around focus: about
// three quarters of them before it, fewer if there are not as many.
func window(keys []mvcc.ParsedKey, focus mvcc.ParsedKey) []mvcc.ParsedKey {
	i, _ := slices.BinarySearchFunc(keys, focus, mvcc.ParsedKey.Compare)
	lo := clamp(i-maxRows*3/4, len(keys)-maxRows)
	return keys[lo : lo+maxRows]
}

func keyLink(b *builder, t *engine.Trace, s State, key string) {
	b.open("a", "href", query(t, s, s.Step, "explain", key), "data-act", "explain", "data-key", key,
		"aria-label", "explain key "+key, "class", "tm-key")
	b.text(key)
	b.close("a")
}

// keyBuffers reuses the buffers of parsed keys that drawing a large target
// needs at every step, so the browser's garbage collector runs less often.
var keyBuffers = sync.Pool{New: func() any { return new([]mvcc.ParsedKey) }}

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

func checksPanel(b *builder, t *engine.Trace, step int, cv *checkView) {
	if cv == nil {
		cv = &checkView{results: t.ChecksAt(step), step: step}
	}
	panel(b, "checks", "Checks a team could run")
	if cv.pending {
		b.open("ul", "class", "tm-checks tm-pending", "data-testid", "checks", "aria-busy", "true", "data-step", itoa(cv.step))
		if cv.results == nil {
			b.el("li", "Running the checks at this step…", "class", "tm-note")
		} else {
			b.el("li", "Running the checks at this step; until they finish, these are the verdicts at step "+itoa(cv.step)+".", "class", "tm-note")
		}
	} else {
		b.open("ul", "class", "tm-checks", "data-testid", "checks")
	}
	for _, c := range cv.results {
		mark := CheckStatus(c.Status)
		b.open("li", "class", "tm-check tm-check-"+string(c.Status), "data-check", c.Name, "data-status", string(c.Status))
		b.el("span", mark, "class", "tm-status")
		b.el("strong", " "+c.Name)
		b.el("span", ": "+c.Detail, "class", "tm-detail")
		b.open("details")
		b.el("summary", "What it catches and misses")
		b.el("p", "Catches: "+c.Catches+".")
		b.el("p", "Still misses: "+c.Misses+".")
		b.close("details")
		b.close("li")
	}
	b.close("ul")
	b.close("section")
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
	panel(b, "compare", "Original against your fork")
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
	b.table(caption, []string{"key", "original", "fork", ""}, "class", "tm-table tm-compare", "data-testid", "compare-table")
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
	b.el("p", itoa(diff)+" keys differ. The fork's final truth: "+verdict(f.Final())+"; the original's: "+verdict(t.Final())+".", "data-testid", "compare-summary")
	b.close("section")
}

func verdict(tr engine.Truth) string {
	return itoa(len(tr.Missing)) + " missing, " + itoa(len(tr.Duplicated)) + " duplicated, " + itoa(len(tr.Stale)) + " stale"
}
