package stream

import (
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// Explain says, from trace t alone, why the row with key stands as it does
// in a window's or a join's target after step n: what the truth holds, what
// the row says and when it was written, and which records came too late.
// It returns "" for a key no window or join of t writes (a key of another
// world's target).
func Explain(t *engine.Trace, key string, n int) string {
	st := Of(t)
	if st == nil {
		return ""
	}
	n = t.ClampStep(n)
	if _, name, ok := strings.Cut(key, ":"); ok && st.findResult(key) == nil {
		key = name // a key the truth names TARGET:KEY
	}
	if ref, op := st.findResultOp(key); ref != nil {
		return st.explainWindow(op, ref, n)
	}
	for i, jh := range st.Joins {
		if jh.Target != "" {
			if why := st.explainJoin(i, key, n); why != "" {
				return why
			}
		}
	}
	return ""
}

func (t *Trace) findResult(key string) *ResultRef {
	r, _ := t.findResultOp(key)
	return r
}

// findResultOp finds the window result whose row has key, and its operator.
func (t *Trace) findResultOp(key string) (*ResultRef, int) {
	for i, wh := range t.Windows {
		for k := range wh.results {
			if wh.results[k].Name == key {
				return &wh.results[k], i
			}
		}
	}
	return nil, -1
}

// explainWindow explains one key's window of window operator i.
func (t *Trace) explainWindow(i int, ref *ResultRef, n int) string {
	wh := t.Windows[i]
	var res *WindowResult
	for _, r := range t.Results(i, n) {
		if r.Key == ref.Key && r.Window == ref.Window {
			res = &r
			break
		}
	}
	head := prose.F("Window %s of %s", ref.Window, wh.Name)
	if sh := t.StreamNamed(wh.Stream); sh != nil && sh.Keyed {
		head += " for key " + sh.KeyName(ref.Key)
	}
	if res == nil {
		return head + " holds nothing at this step."
	}
	truth := "the truth has no such window"
	if res.Truth.Count > 0 {
		truth = prose.F("the truth is %s %d over %s (every record of the window, however late)", wh.Agg, wh.Agg.Of(res.Truth), prose.Count(int(res.Truth.Count), "record", "records"))
	}
	var row string
	switch {
	case len(res.Firings) == 0:
		si := t.streamIndex(wh.Stream)
		wm, _ := t.Watermark(si, -1, n)
		if wh.Config.Domain == window.ProcessingTime {
			// Just past its last instant, at its end (see window.firesAt).
			row = prose.F("it has not fired yet: it fires when the stream's clock reaches %s", ref.Window.End)
		} else {
			row = prose.F("it has not fired yet: the watermark is %s and it fires when the watermark reaches %s", Time(wm), ref.Window.MaxTimestamp())
		}
	default:
		f := res.Firings[len(res.Firings)-1]
		row = prose.F("its row says %s %d, written when it fired at %s (%s)", wh.Agg, wh.Agg.Of(f.Acc), Time(f.At), t.t.Events[f.Step-1].At)
		if len(res.Firings) > 1 {
			row += prose.F(", its %d%s update", f.N, ordinal(int(f.N)))
		}
	}
	var late []string
	for _, k := range res.Late {
		l := &t.Late[k]
		ar := t.Arrivals[l.Arrival]
		late = append(late, prose.F("%s (event time %s, read at %s, %s)", t.recordName(ar), l.Time, t.t.Events[ar.Step-1].At, window.Fate(l.Fate)))
	}
	s := head + ": " + truth + "; " + row
	if len(late) > 0 {
		s += prose.F("; %d came after its end: %s", len(late), strings.Join(limitList(late, 5), ", "))
	}
	switch {
	case res.Truth.Count > 0 && !res.Mismatch:
		s += "; it says what the truth does"
	case res.Truth.Count == 0 && res.Emitted:
		s += "; the truth has no such window, so the row is extra"
	case res.Mismatch && res.Emitted:
		s += "; it does not say what the truth does"
	}
	return s + "."
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

// explainJoin explains the row of key in join i's target, or "" when the
// join has no such key.
func (t *Trace) explainJoin(i int, key string, n int) string {
	jh := t.Joins[i]
	sh := t.StreamNamed(jh.Left)
	want, got := t.JoinTruth(i, n)
	var k int32 = -1
	if sh.Keyed {
		for id, name := range sh.Keys {
			if name == key {
				k = int32(id)
			}
		}
	} else if key == "all" {
		k = 0
	}
	if k < 0 {
		return ""
	}
	count := func(ms []join.Match) int {
		c := 0
		for _, m := range ms {
			if m.Key == k {
				c++
			}
		}
		return c
	}
	w, g := count(want), count(got)
	s := prose.F("Key %s of %s: the truth has %d %s in the interval, the join has emitted %d", key, jh.Name, w, pairWord(w), g)
	var late []string
	for k2 := range t.LateAt(n) {
		l := &t.Late[k2]
		if l.Join && int(l.Op) == i && l.Key == k {
			late = append(late, t.WhyLate(k2))
		}
	}
	if len(late) > 0 {
		s += "; " + strings.TrimSuffix(strings.Join(late, " "), ".")
	}
	if wm := jh.WatermarkAt(n); g < w && wm != watermark.End {
		s += prose.F("; the join's watermark is %s", Time(wm))
	}
	return s + "."
}

func pairWord(n int) string {
	if n == 1 {
		return "pair"
	}
	return "pairs"
}

// ResultWindow returns the window operator (an index in Windows) and the
// window whose result row has the core's key id, or -1 when no window
// writes that row.
func (t *Trace) ResultWindow(id int32) (op int, w window.Window) {
	for i, wh := range t.Windows {
		for k := range wh.results {
			if wh.results[k].ID == id {
				return i, wh.results[k].Window
			}
		}
	}
	return -1, window.Window{}
}

// IsReplay reports whether arrival i read its record again after a restore.
func (t *Trace) IsReplay(i int32) bool { return t.isReplay(i) }

// TakenOff returns the arrivals (indices in Arrivals) that operator op
// took off its buffer at step n.
func (t *Trace) TakenOff(op, n int) []int32 {
	lo := stepIndex(len(t.processed), n-1, func(i int) int32 { return t.processed[i].step })
	var out []int32
	for _, p := range t.processed[lo:] {
		if p.step != int32(n) {
			break
		}
		if int(p.op) == op {
			out = append(out, p.arrival)
		}
	}
	return out
}

// InTransaction returns the keys of the rows that two-phase-commit sinks
// have written, by step n, into target's open transactions, which a
// read-committed reader does not see until they commit: those of the
// records each sink took in (read from its stream, or off its buffer when it
// has one) since its pending rows were last none (a commit, an abort, or
// the start). It returns nil while no open transaction holds a row. It
// reads the open transaction's records only, found by step: the widget
// asks at every step it draws.
func (t *Trace) InTransaction(target string, n int) map[string]bool {
	var keys map[string]bool
	add := func(ai int32) {
		if rec, h := t.Record(t.arrivalID(t.Arrivals[ai])); rec != nil {
			keys[h.Label(rec)] = true
		}
	}
	for op, oh := range t.Ops {
		if oh.Target != target || oh.Commit != "two-phase" || countAt(oh.Pending, n) == 0 {
			continue
		}
		// The transaction began after the latest point its pending rows
		// were none, at or before step n.
		since := int32(0)
		for i := stepIndex(len(oh.Pending), n, func(i int) int32 { return oh.Pending[i].Step }) - 1; i >= 0; i-- {
			if oh.Pending[i].N == 0 {
				since = oh.Pending[i].Step
				break
			}
		}
		if keys == nil {
			keys = map[string]bool{}
		}
		if oh.Buffer > 0 {
			for _, p := range t.processed[stepIndex(len(t.processed), int(since), func(i int) int32 { return t.processed[i].step }):] {
				if p.step > int32(n) {
					break
				}
				if int(p.op) == op {
					add(p.arrival)
				}
			}
			continue
		}
		si := t.streamIndex(oh.Stream)
		for ai := stepIndex(len(t.Arrivals), int(since), func(i int) int32 { return t.Arrivals[i].Step }); ai < len(t.Arrivals) && t.Arrivals[ai].Step <= int32(n); ai++ {
			if int(t.Arrivals[ai].Stream) == si {
				add(int32(ai))
			}
		}
	}
	return keys
}
