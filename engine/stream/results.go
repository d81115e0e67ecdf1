package stream

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// filter is a stream's filter, kept in its history so that the truth and
// a team's recount can apply it.
type filter struct {
	minAmount, maxAmount int64
	hasMin, hasMax       bool
	keep                 map[string]bool
}

func (f *filter) kept(h *logs.TopicHistory, r *topic.Record) bool {
	if f.hasMin && r.Amount < f.minAmount || f.hasMax && r.Amount > f.maxAmount {
		return false
	}
	return f.keep == nil || f.keep[h.Key(r)]
}

// eventID returns a number for r's event id (topic.Topic.ID) that two
// records share exactly when their ids are equal, without spelling it;
// false for a record with none.
func eventID(r *topic.Record) (uint64, bool) {
	switch {
	case r.EventRef > 0:
		return 1<<62 | uint64(r.EventRef), true
	case r.Num == 0 || r.ProducerRef < 0:
		return 0, false
	}
	return uint64(r.ProducerRef)<<32 | uint64(uint32(r.Num)), true
}

// TruthRecord is one record of a stream as the truth counts it.
type TruthRecord struct {
	_     nocmp.NoCompare
	ID    int64
	Key   int32      // the stream's key id
	Time  vtime.Time // when it happened, without any map shift
	Value int64      // its amount, scaled
}

// truthRecords lists the records of stream si in the truth after step n:
// each event that reached its topic by then, once, that its filter keeps.
// With retained, what a team's batch query over the topic counts instead:
// the records retention has not deleted by then, each event id once (a
// resend that kept its id is the same event to it, one sent again under a
// new id another event: which records are resends only the simulator
// knows), and every record that carries no id (change capture's).
func (t *Trace) truthRecords(si, n int, retained bool) []TruthRecord {
	sh := t.Streams[si]
	lt := logs.Of(t.t)
	h := lt.TopicNamed(sh.Topic)
	if h == nil {
		return nil
	}
	var seen []uint64       // a bit per intended event already counted
	var ids map[uint64]bool // the event ids already counted, when retained
	var out []TruthRecord
	for p, part := range h.Parts {
		recs := part.Records[:part.EndAt(int32(n))]
		start := part.StartAt(int32(n)) // retention deletes the oldest first
		for i := range recs {
			r := &recs[i]
			if retained && int64(i) < start {
				continue
			}
			if retained {
				if id, ok := eventID(r); ok {
					if ids[id] {
						continue
					}
					if ids == nil {
						ids = map[uint64]bool{}
					}
					ids[id] = true
				}
			} else if r.Intent >= 0 {
				w, bit := int(r.Intent)/64, uint64(1)<<(r.Intent%64)
				for len(seen) <= w {
					seen = append(seen, 0)
				}
				if seen[w]&bit != 0 {
					continue
				}
				seen[w] |= bit
			}
			if !sh.filter.kept(h, r) {
				continue
			}
			et := r.UpdatedAt
			if sh.stamp {
				et = r.Time
			}
			key := int32(0)
			if sh.Keyed {
				if int(r.KeyID) >= len(sh.keyOf) || sh.keyOf[r.KeyID] == 0 {
					continue
				}
				key = sh.keyOf[r.KeyID] - 1
			}
			out = append(out, TruthRecord{ID: int64(sh.topicIdx)<<48 | int64(p)<<32 | int64(i), Key: key, Time: et, Value: r.Amount * sh.Scale})
		}
	}
	return out
}

func windowRecords(rs []TruthRecord) []window.Record {
	out := make([]window.Record, len(rs))
	for i, r := range rs {
		out[i] = window.Record{ID: r.ID, Key: r.Key, Time: r.Time, Value: r.Value}
	}
	return out
}

// WindowResult is one key's window of a window operator: what the truth
// says it holds, what was emitted for it, and the late records that fell in it.
type WindowResult struct {
	Key      int32
	Window   window.Window
	Truth    window.Acc    // zero when the truth has no such window
	Final    window.Acc    // its latest result emitted; zero when none was (or a larger session replaced it)
	Emitted  bool          // Final holds a result
	Firings  []FiringPoint // in step order
	Late     []int         // indexes in the trace's Late of the late records that fell in it, in step order
	Mismatch bool          // Final and Truth differ
}

// Results lists window operator i's windows after step n, in order of key,
// window start and end: every window the truth has, every window that
// fired, and every window a late record fell in.
func (t *Trace) Results(i, n int) []WindowResult {
	wh := t.Windows[i]
	si := t.streamIndex(wh.Stream)
	truth := window.Truth(wh.Config.Assigner, windowRecords(t.truthRecords(si, n, false)))
	var fs []window.Firing
	byKey := map[resultKey][]FiringPoint{}
	for _, f := range t.FiringsAt(n) {
		if int(f.Op) != i {
			continue
		}
		fs = append(fs, window.Firing{Key: f.Key, Window: f.Window, Acc: f.Acc, At: f.At, N: f.N, Late: f.Late})
		rk := resultKey{f.Key, f.Window.Start, f.Window.End}
		byKey[rk] = append(byKey[rk], f)
	}
	final := window.Final(fs)
	lateBy := map[resultKey][]int{}
	for k, l := range t.LateAt(n) {
		if !l.Join && int(l.Op) == i {
			rk := resultKey{l.Key, l.Window.Start, l.Window.End}
			lateBy[rk] = append(lateBy[rk], k)
		}
	}
	all := map[resultKey]*WindowResult{}
	get := func(k int32, w window.Window) *WindowResult {
		rk := resultKey{k, w.Start, w.End}
		if r := all[rk]; r != nil {
			return r
		}
		r := &WindowResult{Key: k, Window: w, Firings: byKey[rk], Late: lateBy[rk]}
		all[rk] = r
		return r
	}
	for _, r := range truth {
		get(r.Key, r.Window).Truth = r.Acc
	}
	for _, r := range final {
		x := get(r.Key, r.Window)
		x.Final, x.Emitted = r.Acc, true
	}
	for rk := range byKey {
		get(rk.key, window.Window{Start: rk.start, End: rk.end})
	}
	for rk := range lateBy {
		get(rk.key, window.Window{Start: rk.start, End: rk.end})
	}
	out := make([]WindowResult, 0, len(all))
	for _, r := range all {
		r.Mismatch = r.Final != r.Truth
		out = append(out, *r)
	}
	sorted.Stable(out, func(i, j int32) int {
		a, b := &out[i], &out[j]
		if a.Key != b.Key {
			return int(a.Key) - int(b.Key)
		}
		return cmpWindows(a.Window, b.Window)
	})
	return out
}

// WrongStarts lists, after step n, the start of every window whose final
// result differs from the truth in any key of any window operator: missing,
// short, wrong or extra. Each start is listed once, in order.
func (t *Trace) WrongStarts(n int) []vtime.Time {
	var starts []vtime.Time
	for i := range t.Windows {
		for _, r := range t.Results(i, n) {
			if r.Mismatch {
				starts = append(starts, r.Window.Start)
			}
		}
	}
	sorted.Stable(starts, func(i, j int32) int { return cmpTime(starts[i], starts[j]) })
	return slices.Compact(starts)
}

// JoinTruth is the pairs join i should have emitted after step n, and the
// pairs it did, both as join.Truth and join.Matches sort them.
func (t *Trace) JoinTruth(i, n int) (want, got []join.Match) {
	jh := t.Joins[i]
	side := func(name string) []join.Record {
		si := t.streamIndex(name)
		rs := t.truthRecords(si, n, false)
		out := make([]join.Record, len(rs))
		for k, r := range rs {
			out[k] = join.Record{ID: r.ID, Key: r.Key, Time: r.Time}
		}
		return out
	}
	want = join.Truth(jh.Config, side(jh.Left), side(jh.Right))
	var pairs []join.Pair
	for _, p := range t.PairsAt(n) {
		if int(p.Op) == i {
			pairs = append(pairs, join.Pair{Left: join.Record{ID: p.Left, Key: p.Key}, Right: join.Record{ID: p.Right, Key: p.Key}})
		}
	}
	return want, join.Matches(pairs)
}

// Unmatched is the pairs of want (as JoinTruth gives them) missing from got.
func Unmatched(got, want []join.Match) []join.Match {
	missing, _ := join.Diff(got, want)
	return missing
}

// Unjoined counts, after step n, the pairs the truth has that no join emitted.
func (t *Trace) Unjoined(n int) int {
	c := 0
	for i := range t.Joins {
		want, got := t.JoinTruth(i, n)
		missing, _ := join.Diff(got, want)
		c += len(missing)
	}
	return c
}

// LateCounts counts the late records by step n by fate: accepted within
// the allowed lateness, dropped, and sent to a side output.
func (t *Trace) LateCounts(n int) (accepted, dropped, side int) {
	for _, l := range t.LateAt(n) {
		switch window.Fate(l.Fate) {
		case window.Accepted:
			accepted++
		case window.Dropped:
			dropped++
		case window.SideOutput:
			side++
		}
	}
	return accepted, dropped, side
}

// VerifyClaim verifies the stream world's expect claims about the last
// step: windows wrong=, late dropped= accepted= side-output=, joins unjoined=.
func (t *Trace) VerifyClaim(e engine.Expectation) (got string, holds, known bool) {
	n := t.t.Steps()
	switch e.What {
	case "windows":
		var s []string
		for _, x := range t.WrongStarts(n) {
			s = append(s, x.String())
		}
		got = "none"
		if len(s) > 0 {
			got = strings.Join(s, ",")
		}
		want := "none"
		if e.Want != "none" {
			var ws []string
			for _, p := range strings.Split(e.Want, ",") {
				if x, err := vtime.ParseTime(p); err == nil {
					ws = append(ws, x.String())
				} else {
					ws = append(ws, p)
				}
			}
			sorted.Sort(ws)
			want = strings.Join(slices.Compact(ws), ",")
		}
		return got, got == want, true
	case "late":
		a, d, so := t.LateCounts(n)
		got = strconv.Itoa(named(e.Name, "accepted", a, "dropped", d, "side-output", so, "", 0))
		return got, got == e.Want, true
	case "joins":
		got = strconv.Itoa(t.Unjoined(n))
		return got, got == e.Want, true
	}
	return t.verifyState(e, n)
}

// Observe adds to o what a team could see of the streams after step n:
// each operator's late-records counter, each stream's watermark lag, the
// values each window's row took, with a recount from the topic for the
// closed ones, and each join's table beside a batch join of its topics.
func (t *Trace) Observe(n int, o *check.Observation) {
	n = t.t.ClampStep(n)
	v := &check.StreamView{}
	a, d, so := map[int]int64{}, map[int]int64{}, map[int]int64{}
	ja := map[int]int64{} // a join's late records sent to its side output, which are rows a team can count
	for _, l := range t.LateAt(n) {
		switch {
		case l.Join && window.Fate(l.Fate) == window.Dropped:
			// Flink's interval join drops a late record without counting
			// it: nothing a team can see.
		case l.Join:
			ja[int(l.Op)]++
		case window.Fate(l.Fate) == window.Dropped:
			d[int(l.Op)]++
		case window.Fate(l.Fate) == window.SideOutput:
			so[int(l.Op)]++
		default:
			a[int(l.Op)]++
		}
	}
	for i, w := range t.Windows {
		v.Operators = append(v.Operators, check.StreamOperator{Name: w.Name, EventTime: w.Config.Domain == window.EventTime, Dropped: d[i], SideOutput: so[i]})
	}
	for i, j := range t.Joins {
		v.Operators = append(v.Operators, check.StreamOperator{Name: j.Name, Join: true, EventTime: true, SideOutput: ja[i]})
	}
	for _, w := range t.Windows {
		si := t.streamIndex(w.Stream)
		v.Lags = append(v.Lags, t.lag(w.Name, t.streamMarks(si), t.firstRead(n, si), n))
	}
	for _, j := range t.Joins {
		ws := make([]WatermarkPoint, len(j.Watermarks))
		for k, x := range j.Watermarks {
			ws[k] = WatermarkPoint{Step: x.Step, Value: x.Value, Part: -1}
		}
		v.Lags = append(v.Lags, t.lag(j.Name, ws, t.firstRead(n, t.streamIndex(j.Left), t.streamIndex(j.Right)), n))
	}
	for i := range t.Windows {
		v.Windows = append(v.Windows, t.windowCounts(i, n)...)
	}
	for i, j := range t.Joins {
		if j.Target == "" {
			continue
		}
		v.Joins = append(v.Joins, t.joinCount(i, n))
	}
	v.Job = t.observeJob(n)
	if v.Job != nil {
		for _, oh := range t.Ops {
			o.Collapsed += int(countAt(oh.Collapsed, n))
		}
	}
	o.Stream = v
}

// lag is the largest watermark lag of an operator at any step by n: the
// step's true time minus the watermark it worked to then (ws, its changes
// in step order), once it has one and before its input ends. It is
// largest at the last step before each change, and at step n. Before the
// operator has a watermark, from the step its input first read a record
// (first; 0 for none), it measures how long the operator has gone without
// one, which a dashboard sees as Flink's Long.MIN_VALUE watermark: a lag
// without bound.
func (t *Trace) lag(name string, ws []WatermarkPoint, first, n int) check.WatermarkLag {
	l := check.WatermarkLag{Operator: name}
	cur, from := watermark.None, 0
	sample := func(step int) {
		if cur == watermark.End || step < 1 || step < from {
			return
		}
		at := t.t.Events[step-1].At
		if cur == watermark.None {
			if first > 0 && step >= first {
				if d := at.Sub(t.t.Events[first-1].At); d > l.Without {
					l.Without, l.WithoutAt = d, at
				}
			}
			return
		}
		if d := at.Sub(cur); !l.Sampled || d > l.Max {
			l.Max, l.At, l.Sampled = d, at, true
		}
	}
	for _, w := range ws {
		if int(w.Step) > n {
			break
		}
		if w.Value == cur {
			continue
		}
		sample(int(w.Step) - 1)
		cur, from = w.Value, int(w.Step)
		sample(int(w.Step))
	}
	sample(n)
	return l
}

// firstRead is the step at which one of the streams first read a record,
// by step n, or 0.
func (t *Trace) firstRead(n int, streams ...int) int {
	for _, a := range t.Arrivals {
		if int(a.Step) > n {
			break
		}
		for _, si := range streams {
			if int(a.Stream) == si {
				return int(a.Step)
			}
		}
	}
	return 0
}

// closure is what closes a window operator's windows after a step: its
// stream's watermark then, and as the step's instant began, and the clock.
//
// Flink fires the windows a watermark passes as the watermark reaches the
// operator, before anyone could read a table, where the trace tells the
// watermark and each firing in steps of their own at one instant. Between
// them a window the watermark has just passed is not closed yet to anyone
// looking: it is closed once it has fired, or from the next instant on (a
// window all of whose records came late never fires).
type closure struct {
	wm, before, now vtime.Time
	lateness        vtime.Duration
	processing      bool
}

// closureAt is the closure of windows configured by cfg on stream si after
// step n. It reads the trace up to step n only, so that a seek to n sees the
// same.
func (t *Trace) closureAt(si, n int, cfg window.Config) closure {
	c := closure{now: t.t.TimeAt(n), lateness: cfg.Lateness, processing: cfg.Domain == window.ProcessingTime}
	c.wm, _ = t.Watermark(si, -1, n)
	// The last step of the instant before: steps are in time order, and
	// one instant may hold thousands of them (a burst), so it is searched.
	k := sort.Search(n, func(i int) bool { return t.t.TimeAt(i+1) >= c.now })
	c.before = watermark.None
	if k > 0 {
		c.before, _ = t.Watermark(si, -1, k)
	}
	return c
}

// closed reports whether window w is closed, fired saying whether it has
// fired (written a row, or, in the widget, fired at all).
func (c closure) closed(w window.Window, fired bool) bool {
	if c.processing {
		return w.End <= c.now && (fired || w.End < c.now)
	}
	end := w.MaxTimestamp().Add(c.lateness)
	return c.wm != watermark.None && end <= c.wm && (fired || c.before != watermark.None && end <= c.before)
}

// streamMarks is stream i's own watermark changes, in step order.
func (t *Trace) streamMarks(i int) []WatermarkPoint {
	var out []WatermarkPoint
	for _, w := range t.Watermarks {
		if int(w.Stream) == i && w.Part == -1 {
			out = append(out, w)
		}
	}
	return out
}

// windowCounts is what a team sees of window operator i's results after
// step n: the values its rows took, and for each closed window of a kind a
// batch query can recount (tumbling and sliding), the recount from the
// records retention still holds.
func (t *Trace) windowCounts(i, n int) []check.WindowCount {
	wh := t.Windows[i]
	if wh.Target == "" {
		return nil
	}
	si := t.streamIndex(wh.Stream)
	sh := t.Streams[si]
	written := map[int32][]int64{}
	for _, h := range t.t.Targets {
		if h.Name != wh.Target {
			continue
		}
		for _, r := range h.Rows {
			if int(r.AddedStep) <= n {
				written[r.KeyID] = append(written[r.KeyID], r.Amount)
			}
		}
	}
	type win struct {
		key int32
		w   window.Window
	}
	byWin := map[win]*check.WindowCount{}
	var order []win
	add := func(k int32, w window.Window) *check.WindowCount {
		x := win{k, w}
		if c := byWin[x]; c != nil {
			return c
		}
		c := &check.WindowCount{Operator: wh.Name, Window: w.String(), Agg: wh.Agg.String(), Key: resultName(sh, wh.Config.Assigner, k, w),
			Session: wh.Config.Assigner.Kind == window.Session}
		byWin[x] = c
		order = append(order, x)
		return c
	}
	for _, r := range wh.results {
		if vals := written[r.ID]; len(vals) > 0 {
			add(r.Key, r.Window).Written = vals
		}
	}
	// A closed window: its end (plus the allowed lateness) behind the
	// watermark, or for processing time its end reached by the clock (it
	// takes a record read at its last instant), and written, or closed
	// since an instant before (see closure).
	cl := t.closureAt(si, n, wh.Config)
	closed := func(x win) bool {
		c := byWin[x]
		return cl.closed(x.w, c != nil && len(c.Written) > 0)
	}
	if wh.Config.Assigner.Kind != window.Session {
		recount := map[win]*window.Acc{}
		var ws []window.Window
		var last win
		var lastAcc *window.Acc // records come mostly in order: the window of the one before saves a lookup
		for _, r := range t.truthRecords(si, n, true) {
			ws = wh.Config.Assigner.Assign(r.Time, ws[:0])
			for _, w := range ws {
				x := win{r.Key, w}
				acc := lastAcc
				if acc == nil || x != last {
					if acc = recount[x]; acc == nil {
						acc = &window.Acc{}
						recount[x] = acc
					}
				}
				if len(ws) == 1 {
					last, lastAcc = x, acc
				}
				acc.Add(r.Value)
			}
		}
		for x, acc := range recount {
			if closed(x) {
				c := add(x.key, x.w)
				c.Recount, c.Counted = wh.Agg.Of(*acc), true
			}
		}
		for _, x := range order {
			if c := byWin[x]; !c.Counted && closed(x) {
				c.Counted = true // closed, and the topic holds none of its records
			}
		}
	}
	for _, x := range order {
		byWin[x].Closed = closed(x)
	}
	sorted.Stable(order, func(i, j int32) int {
		a, b := &order[i], &order[j]
		switch {
		case a.w.Start != b.w.Start:
			return cmpTime(a.w.Start, b.w.Start)
		case a.key != b.key:
			return int(a.key) - int(b.key)
		}
		return cmpTime(a.w.End, b.w.End)
	})
	out := make([]check.WindowCount, len(order))
	for k, x := range order {
		out[k] = *byWin[x]
	}
	return out
}

// resultName is the key of a window's row in its target (see windowOp.resultName).
func resultName(sh *StreamHistory, a window.Assigner, k int32, w window.Window) string {
	name := w.Start.String()
	if a.Kind == window.Session {
		name += "-" + w.End.String()
	}
	if sh.Keyed {
		name = sh.KeyName(k) + "@" + name
	}
	return name
}

// joinCount is join i's target beside a batch join of the records its
// topics still hold after step n: pairs per key found, against the pairs
// the table's rows count.
func (t *Trace) joinCount(i, n int) check.JoinCount {
	jh := t.Joins[i]
	side := func(name string) []join.Record {
		rs := t.truthRecords(t.streamIndex(name), n, true)
		out := make([]join.Record, len(rs))
		for k, r := range rs {
			out[k] = join.Record{ID: r.ID, Key: r.Key, Time: r.Time}
		}
		return out
	}
	want := join.Truth(jh.Config, side(jh.Left), side(jh.Right))
	perKey := map[int32]int{}
	for _, m := range want {
		perKey[m.Key]++
	}
	sh := t.StreamNamed(jh.Left)
	rows := map[string]int64{}
	for _, h := range t.t.Targets {
		if h.Name != jh.Target {
			continue
		}
		for _, r := range h.Rows {
			if int(r.AddedStep) <= n && r.RemovedStep > int32(n) {
				rows[t.t.RowKey(&r)] = max(rows[t.t.RowKey(&r)], r.Amount)
			}
		}
	}
	c := check.JoinCount{Operator: jh.Name, Expected: len(want)}
	for k, pairs := range perKey {
		name := "all"
		if sh.Keyed {
			name = sh.KeyName(k)
		}
		if have := int(rows[name]); have < pairs {
			c.Absent += pairs - have
		}
	}
	return c
}

// cmpWindows orders windows by start, then end.
func cmpWindows(a, b window.Window) int {
	if a.Start != b.Start {
		return cmpTime(a.Start, b.Start)
	}
	return cmpTime(a.End, b.End)
}
