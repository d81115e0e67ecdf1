package stream

import (
	"sort"

	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/window"
)

// The truth of a window is the aggregate over every record of each key and
// window its event time falls in, however late it arrived: what the
// business meant (see docs/architecture.md, "The stream world"). A record
// counts once, the first time its event reaches the topic (a retry that
// lands twice is one event), with the stream's filter, key-by and scale,
// and at the time it happened: a map's shift is the job's mistake, not the
// business's. The truth of a join is every pair of such records in its
// interval.
//
// While the world runs, each operator that writes a target keeps the truth
// of each of its rows and tells the core what version of the row the
// truth wants, so that the core's truth (missing, stale, duplicated) and
// its checks work on window results as on any row. The full truth, for
// reports and expectations, is worked out again from the topics (Truth).

// truthRecord counts a record that reached the topic in the truth of the
// stream's operators that write a target.
func (st *stream) truthRecord(rec *topic.Record, p int, off int64) {
	if !st.kept(rec) {
		return
	}
	key := st.key(rec)
	et := st.eventTime(rec)
	for _, c := range st.consumers {
		switch {
		case c.win != nil && c.win.target != nil:
			c.win.truthAdd(st.s, key, et, rec.Amount*st.scale)
		case c.join != nil && c.join.target != nil:
			c.join.truthAdd(st.s, c.side, key, et)
		case c.agg != nil && c.agg.target != nil:
			c.agg.truthAdd(st.s, key, rec.Amount*st.scale)
		}
	}
}

// truthAdd adds a record to the truth of the windows it falls in.
func (op *windowOp) truthAdd(s *world, key int32, t vtime.Time, v int64) {
	a := op.cfg.Assigner
	if a.Merging() {
		op.truthSession(s, key, t, v)
		return
	}
	if a.Kind == window.Tumbling {
		// Most of a key's records fall in its latest window or the one
		// before (a record a little out of order): look there first.
		start := window.StartWithOffset(t, a.Offset, a.Size)
		rk := resultKey{key, start, start.Add(a.Size)}
		for int(key) >= len(op.last) {
			op.last = append(op.last, [2]int32{-1, -1})
		}
		last := &op.last[key]
		var i int32
		switch {
		case last[0] >= 0 && op.res[last[0]].rk == rk:
			i = last[0]
		case last[1] >= 0 && op.res[last[1]].rk == rk:
			i = last[1]
		default:
			i = op.resultIndex(s, rk)
			if last[0] < 0 || rk.start > op.res[last[0]].rk.start {
				last[0], last[1] = i, last[0]
			} else {
				last[1] = i
			}
		}
		r := &op.res[i]
		r.truth.Add(v)
		op.settle(s, r)
		return
	}
	op.scratch = a.Assign(t, op.scratch[:0])
	for _, w := range op.scratch {
		r := op.result(s, resultKey{key, w.Start, w.End})
		r.truth.Add(v)
		op.settle(s, r)
	}
}

// truthSession adds a record to its key's truth sessions: its window
// [t, t+gap) merges with every session it touches.
func (op *windowOp) truthSession(s *world, key int32, t vtime.Time, v int64) {
	if op.sessions == nil {
		op.sessions = map[int32][]resultKey{}
	}
	ss := op.sessions[key]
	w := window.Window{Start: t, End: t.Add(op.cfg.Assigner.Gap)}
	i := sort.Search(len(ss), func(k int) bool { return ss[k].end >= t })
	j := i
	for j < len(ss) && ss[j].start <= w.End {
		j++
	}
	if j-i == 1 && ss[i].start <= w.Start && ss[i].end >= w.End {
		r := op.result(s, ss[i])
		r.truth.Add(v)
		op.settle(s, r)
		return
	}
	cover := resultKey{key: key, start: w.Start, end: w.End}
	var acc window.Acc
	acc.Add(v)
	for _, old := range ss[i:j] {
		cover.start, cover.end = min(cover.start, old.start), max(cover.end, old.end)
		r := op.result(s, old)
		acc.Merge(r.truth)
		r.truth = window.Acc{}
		op.settle(s, r)
	}
	r := op.result(s, cover)
	r.truth = acc
	op.settle(s, r)
	op.sessions[key] = append(append(ss[:i:i], cover), ss[j:]...)
}

func cmpTime(a, b vtime.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bounds are a join's inclusive bounds, after its exclusive flags.
func bounds(c join.Config) (lower, upper vtime.Duration) {
	lower, upper = c.Lower, c.Upper
	if c.LowerExclusive {
		lower++
	}
	if c.UpperExclusive {
		upper--
	}
	return lower, upper
}

// truthAdd adds a record of one side to the join's truth: the pairs it
// makes with the other side's records, and the version the key's row
// should have (the number of pairs of the key).
func (j *joinOp) truthAdd(s *world, side join.Side, key int32, t vtime.Time) {
	if j.times[0] == nil {
		j.times = [2]map[int32][]vtime.Time{{}, {}}
		j.want = map[int32]int32{}
	}
	mine := j.times[side][key]
	at := sort.Search(len(mine), func(k int) bool { return mine[k] > t })
	mine = append(mine, 0)
	copy(mine[at+1:], mine[at:])
	mine[at] = t
	j.times[side][key] = mine
	lower, upper := bounds(j.cfg)
	lo, hi := t.Add(lower), t.Add(upper)
	if side == join.Right {
		lo, hi = t.Add(-upper), t.Add(-lower)
	}
	other := j.times[1-side][key]
	from := sort.Search(len(other), func(k int) bool { return other[k] >= lo })
	to := sort.Search(len(other), func(k int) bool { return other[k] > hi })
	if to <= from {
		return
	}
	j.want[key] += int32(to - from)
	s.w.SetSourceVersion(j.target, j.row(s, key).row, j.want[key])
}
