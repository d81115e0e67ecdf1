//go:build !tm_stream

package widget

import (
	"strconv"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// The source chart: the source's transactions at one step, each a bar from
// begin to commit on a time axis, its updated_at a diamond, every stored
// mark a line (a timestamp mark where its value falls on the axis, an lsn
// mark after the last commit it covers: commits take log positions in commit
// order), and the step's time a thin line. chartAt works out what the chart
// shows; the stage writes it as HTML rows with small pictures, which keep
// their text legible at any width, and SourceChart writes it as one SVG for
// a static picture. Both read the same chart.

// maxBars is how many transactions the source chart draws: the last ones
// begun by the step.
const maxBars = 40

// chart is the source chart at one step: positions are fractions of the
// axis, from 0 (its start) to 1 (its end).
type chart struct {
	lo, hi vtime.Time
	ticks  []tick
	now    float64 // -1 before the first step
	bars   []bar
	marks  []markLine
	more   int // transactions begun before the first one shown
}

type tick struct {
	_     nocmp.NoCompare
	x     float64
	label string
}

type bar struct {
	tx         *hwm.TxnRecord
	from, to   float64 // begin, and commit (or the step's time while open)
	stamp      float64 // updated_at, or -1 when none is written yet
	state      string  // open, committed, rolled-back
	lsn        string  // the commit's log position, or ""
	keys       []string
	beforeMark bool // committed at or below an lsn mark (read or skipped by then)
}

type markLine struct {
	_     nocmp.NoCompare
	x     float64 // -1 when it lies off the axis to the left, 2 to the right
	label string
	kind  string // "timestamp" or "lsn"
	name  string
}

// chartAt works out the chart at step. A trace of at most maxBars
// transactions keeps one axis over every step, so nothing jumps as the
// learner steps; a longer one gets an axis over the transactions shown,
// rounded out to its ticks, so that it moves only now and then.
func chartAt(t *engine.Trace, ht *hwm.Trace, ix *stageIndex, step int) chart {
	shown, more := shownTxns(ht, step)
	now := vtime.Time(0)
	if step > 0 {
		now = t.Events[step-1].At
	}
	c := chart{lo: ix.lo, hi: ix.hi, more: more, now: -1}
	if len(ht.Txns) > maxBars && len(shown) > 0 {
		lo, hi := shown[0].BeginAt, now
		for _, tx := range shown {
			lo = min(lo, tx.BeginAt)
			if st, ok := tx.Stamp(); ok {
				lo = min(lo, st)
			}
		}
		if hi <= lo {
			hi = lo + 1000
		}
		// Round out to ticks of the span, and leave room right of the
		// step's time for it to move into.
		every := tickEvery(hi - lo)
		c.lo = lo - lo%vtime.Time(every)
		c.hi = hi - hi%vtime.Time(every) + 2*vtime.Time(every)
	}
	x := func(at vtime.Time) float64 { return float64(at-c.lo) / float64(c.hi-c.lo) }
	every := tickEvery(c.hi - c.lo)
	prev := ""
	for at := c.lo - c.lo%vtime.Time(every); at <= c.hi; at += vtime.Time(every) {
		if at >= c.lo {
			full := at.String()
			c.ticks = append(c.ticks, tick{x: x(at), label: tickLabel(full, prev)})
			prev = full
		}
	}
	if step > 0 {
		c.now = x(now)
	}
	var markLSN []int64 // the stored lsn marks
	for _, m := range ht.Marks {
		p, ok := ht.MarkAt(m, step)
		if !ok || !p.Set {
			continue
		}
		ml := markLine{name: m.Name, label: m.Name + "'s mark " + p.Display}
		if m.Kind.IsTimestamp() {
			ml.kind, ml.x = "timestamp", x(vtime.Time(p.Value))
		} else {
			ml.kind = "lsn"
			markLSN = append(markLSN, p.Value)
			ml.x = x(lsnTime(t, mvcc.LSN(p.Value), c.lo))
		}
		ml.x = min(max(ml.x, -1), 2)
		c.marks = append(c.marks, ml)
	}
	for _, tx := range shown {
		b := bar{tx: tx, from: x(tx.BeginAt), to: x(now), stamp: -1, state: "open", keys: tx.Keys()}
		if tx.EndStep > 0 && tx.EndStep <= step {
			b.to = x(tx.EndAt)
			if tx.State == mvcc.Committed {
				b.state = "committed"
				if tx.LSN > 0 { // a transaction that changed no row takes no position
					b.lsn = strconv.FormatInt(int64(tx.LSN), 10)
				}
				for _, v := range markLSN {
					b.beforeMark = b.beforeMark || (tx.LSN > 0 && int64(tx.LSN) <= v)
				}
			} else {
				b.state = "rolled-back"
			}
		}
		if st, ok := tx.Stamp(); ok {
			b.stamp = x(st)
		}
		c.bars = append(c.bars, b)
	}
	return c
}

// lsnTime is when the last commit at or below lsn committed, or lo when
// none had: the place on the time axis up to which an lsn mark has read.
func lsnTime(t *engine.Trace, lsn mvcc.LSN, lo vtime.Time) vtime.Time {
	i, _ := sorted.Search(len(t.Versions), func(k int) int {
		v := t.Versions[k]
		if v.LSN <= lsn {
			return -1
		}
		return 1
	})
	if i == 0 {
		return lo
	}
	return t.Events[t.Versions[i-1].CommitStep-1].At
}

// tickLabel writes a tick's time short: in full for the first tick, then
// only what changed since the one before ("10:00:00", ":02", ":04"), so
// that the labels fit a narrow chart without shrinking.
func tickLabel(full, prev string) string {
	if prev == "" || len(full) < 8 || len(prev) < 8 || full[:2] != prev[:2] {
		return full
	}
	if full[:5] == prev[:5] {
		return full[5:] // ":SS" or ":SS.mmm"
	}
	return full[:5] // "HH:MM" when the minute changes
}

// tickEvery is a round interval that cuts span into four to eight ticks.
// Past two hours it doubles until it does, so that a span of any length (a
// link's clock jump can make one of years) draws at most eight ticks.
func tickEvery(span vtime.Time) vtime.Duration {
	for _, d := range []vtime.Duration{100 * vtime.Millisecond, 200 * vtime.Millisecond, 500 * vtime.Millisecond,
		vtime.Second, 2 * vtime.Second, 5 * vtime.Second, 10 * vtime.Second, 15 * vtime.Second, 30 * vtime.Second,
		vtime.Minute, 2 * vtime.Minute, 5 * vtime.Minute, 10 * vtime.Minute, 15 * vtime.Minute, 30 * vtime.Minute, 60 * vtime.Minute} {
		if vtime.Duration(span)/d <= 6 {
			return d
		}
	}
	d := 2 * 60 * vtime.Minute
	for vtime.Duration(span)/d > 6 {
		d *= 2
	}
	return d
}

// shownTxns returns the last maxBars transactions begun by step, in trace
// order, and how many began before them. Transactions are recorded as they
// begin, so they are found by a binary search, not a scan.
func shownTxns(ht *hwm.Trace, step int) ([]*hwm.TxnRecord, int) {
	n, _ := sorted.Search(len(ht.Txns), func(k int) int {
		x := ht.Txns[k]
		if x.BeginStep <= step {
			return -1
		}
		return 1
	})
	from := max(0, n-maxBars)
	shown := make([]*hwm.TxnRecord, 0, n-from)
	for i := from; i < n; i++ {
		shown = append(shown, &ht.Txns[i])
	}
	return shown, from
}

// pct writes a fraction of the axis as an SVG percentage.
func pct(f float64) string { return strconv.FormatFloat(100*min(max(f, -5), 105), 'f', 2, 64) + "%" }

// SourceChart draws the source transactions at step as one SVG: the chart
// the stage draws, for a static picture. It returns the <svg> element and
// its size.
func SourceChart(t *engine.Trace, step int, o ChartOptions) (svg string, width, height float64) {
	var b builder
	step = clamp(step, t.Steps())
	ht := hwm.Of(t)
	if ht == nil {
		return "", 0, 0
	}
	c := chartAt(t, ht, indexTrace(t), step)
	look := lookFor(o, chartLook)
	const w, left, right, rowH, top = chartWidth, 110.0, 16.0, 24.0, 22.0
	x := func(f float64) float64 { return left + (w-left-right)*min(max(f, -0.02), 1.02) }
	height = top + rowH*float64(len(c.bars)) + 30
	base := height - 24
	desc := strconv.Itoa(len(c.bars)) + " transactions drawn as bars from begin to commit on a time axis; diamonds mark each one's updated_at; dashed lines are the stored marks"
	if o.Standalone {
		openStandalone(&b, o, height, "0 0 640 "+ftoa(height), desc, "12")
	} else {
		b.open("svg", "class", "tm-svg", "viewBox", "0 0 640 "+ftoa(height), "role", "img", "aria-label", desc, "data-testid", "source-chart")
	}
	for _, tk := range c.ticks {
		line(&b, look, "tm-grid", x(tk.x), top-4, x(tk.x), base)
		b.el("text", tk.label, append(look("tm-tick", "x", ftoa(x(tk.x)), "y", ftoa(height-6)), "text-anchor", "middle", "font-size", "11")...)
	}
	line(&b, look, "tm-axis", left, base, w-right, base)
	for i, m := range c.marks {
		if m.x < 0 || m.x > 1 {
			continue
		}
		cls := "tm-markline"
		if m.kind == "lsn" {
			cls += " tm-lsn"
		}
		mx := x(m.x)
		ly := 14 + 12*float64(i%2)
		line(&b, look, cls, mx, ly-10, mx, base)
		lcls := replaceFirst(cls, "tm-markline", "tm-marklabel")
		if mx > w-right-170 {
			b.el("text", m.label, append(look(lcls, "x", ftoa(mx-3), "y", ftoa(ly)), "text-anchor", "end")...)
		} else {
			textAt(&b, look, m.label, lcls, ftoa(mx+3), ly)
		}
	}
	if c.now >= 0 {
		line(&b, look, "tm-nowline", x(c.now), top-4, x(c.now), base)
	}
	for i, br := range c.bars {
		y := top + rowH*float64(i)
		label := br.tx.Name
		if len(br.keys) == 1 {
			label += " · " + br.keys[0]
		}
		if br.lsn != "" {
			label += " · " + br.lsn
		}
		textAt(&b, look, label, "tm-txlabel", "4", y+13)
		bw := max(x(br.to)-x(br.from), 3)
		b.void("rect", look("tm-bar tm-"+br.state, "x", ftoa(x(br.from)), "y", ftoa(y+2), "width", ftoa(bw), "height", "14", "rx", "3")...)
		if br.stamp >= 0 {
			sx := x(br.stamp)
			b.void("polygon", look("tm-stamp", "points", pts(sx, y, sx+5, y+9, sx, y+18, sx-5, y+9))...)
		}
	}
	b.close("svg")
	return b.String(), chartWidth, height
}
