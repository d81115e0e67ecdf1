package widget

import (
	"cmp"
	"math"
	"slices"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// stageIndex is what the stage reads from a trace at every step, worked out
// once per trace, so that drawing a step costs the same at the tenth step
// of a lesson and at the hundred-thousandth of a generated workload: each
// target's keys in key order, with the step each can first be shown, each
// key's rows, and the trace's time span.
//
// The stage reads the trace's histories in few places: targets and
// versions here (indexTrace) and through engine.Trace.Seek; transactions
// and marks in chartAt and lsnTime (sourcechart.go); marks and runs in
// pipeStation, runBox and marksTable (source.go); the log in logPanel,
// logTables and groupStations (logpanel.go); streams in worlds_stream.go and
// the files it names.
type stageIndex struct {
	t       *engine.Trace
	targets []targetIndex
	lo, hi  vtime.Time // the span of every begin, commit, stamp and event
}

// targetIndex is one target's keys and rows, for windows of keys around a
// focus found by scanning rather than by sorting every key at every step.
//
// Invariants: keys is in key order; pos[keys[i]] == i, and pos is -1 for a
// key of another target; rowAt has len(keys)+1 entries and the rows of the
// key at position i are rows[rowAt[i]:rowAt[i+1]], indices into the
// target's Rows in step order; blocks[b] is the smallest birth of positions
// [b*blockSize, (b+1)*blockSize).
type targetIndex struct {
	h       *engine.TargetHistory
	keys    []int32
	pos     []int32
	birth   []int32 // by position: the first step the key was committed or had a row
	blocks  []int32
	rowAt   []int32
	rows    []int32
	removed []int // the step each removed row was removed at, sorted
	// from names, by position, the source of a key's row when two sources
	// wrote rows with the key (two tables' order 1, two rows to the truth
	// and one key to a target keyed by order_id); "" otherwise.
	from []string
	// nums is the value of each key that is a whole number: key order puts
	// those first, so they are keys[:len(nums)], and find compares numbers
	// there rather than parsing a key at every probe of its search.
	nums []int64
}

// id is what tells the key at position i apart in the stage's fragments
// and moves: its text, and its source when another source has the key.
func (g *targetIndex) id(t *engine.Trace, i int) string {
	if g.from != nil && g.from[i] != "" {
		return t.Key(g.keys[i]) + "~" + g.from[i]
	}
	return t.Key(g.keys[i])
}

// blockSize is how many keys one entry of targetIndex.blocks covers.
const blockSize = 64

// never is a birth later than any step.
const never = math.MaxInt32

func indexTrace(t *engine.Trace) *stageIndex {
	x := &stageIndex{t: t}
	x.lo, x.hi = span(t, hwmOf(t))
	nkeys := t.KeyCount()
	target := map[string]int{}
	for i, h := range t.Targets {
		target[h.Name] = i
	}
	feeds := map[string]int{} // a source table or producer → its target
	for _, r := range t.Routes() {
		if ti, ok := target[r.Target]; ok {
			feeds[r.Table] = ti
		}
	}
	owner := make([]int32, nkeys)
	born := make([]int32, nkeys)
	table := make([]string, nkeys) // the source of each source row
	for i := range owner {
		owner[i], born[i] = -1, never
	}
	for i := range t.Versions {
		v := &t.Versions[i]
		if ti, ok := feeds[t.VersionTable(v)]; ok {
			table[v.KeyID] = t.VersionTable(v)
			owner[v.KeyID] = int32(ti)
			born[v.KeyID] = min(born[v.KeyID], v.CommitStep)
		}
	}
	for ti, h := range t.Targets {
		for _, r := range h.Rows {
			// A row is kept with the source row it copies: with two
			// sources of a key, the target's one row is one source's.
			owner[r.Src] = int32(ti)
			born[r.Src] = min(born[r.Src], r.AddedStep)
		}
	}
	order := t.KeyOrder()
	for ti := range t.Targets {
		h := &t.Targets[ti]
		g := targetIndex{h: h, pos: make([]int32, nkeys)}
		for _, id := range order {
			if owner[id] == int32(ti) {
				g.keys = append(g.keys, id)
			}
		}
		if len(t.Targets) > 1 {
			// The engine orders keys by the truth's names, which carry the
			// target's name in front; within a target, order the keys
			// themselves (a target's keys are distinct).
			parsed := make([]mvcc.ParsedKey, len(g.keys))
			for i, id := range g.keys {
				parsed[i] = mvcc.ParseKey(t.Key(id))
			}
			g.keys = inOrder(g.keys, parsed)
		}
		for i := range g.pos {
			g.pos[i] = -1
		}
		g.birth = make([]int32, len(g.keys))
		g.blocks = make([]int32, (len(g.keys)+blockSize-1)/blockSize)
		for b := range g.blocks {
			g.blocks[b] = never
		}
		for i, id := range g.keys {
			g.pos[id] = int32(i)
			g.birth[i] = born[id]
			g.blocks[i/blockSize] = min(g.blocks[i/blockSize], born[id])
		}
		for _, id := range g.keys {
			p := mvcc.ParseKey(t.Key(id))
			if !p.Num {
				break
			}
			g.nums = append(g.nums, p.N)
		}
		for i := 1; i < len(g.keys); i++ {
			if t.Key(g.keys[i]) == t.Key(g.keys[i-1]) {
				if g.from == nil {
					g.from = make([]string, len(g.keys))
				}
				g.from[i-1], g.from[i] = table[g.keys[i-1]], table[g.keys[i]]
			}
		}
		g.rowAt = make([]int32, len(g.keys)+1)
		for _, r := range h.Rows {
			if p := g.pos[r.Src]; p >= 0 {
				g.rowAt[p+1]++
			}
		}
		for i := 1; i < len(g.rowAt); i++ {
			g.rowAt[i] += g.rowAt[i-1]
		}
		g.rows = make([]int32, g.rowAt[len(g.keys)])
		fill := slices.Clone(g.rowAt[:len(g.keys)])
		for ri, r := range h.Rows {
			if r.RemovedStep != sink.Live {
				g.removed = append(g.removed, int(r.RemovedStep))
			}
			if p := g.pos[r.Src]; p >= 0 {
				g.rows[fill[p]] = int32(ri)
				fill[p]++
			}
		}
		sorted.Sort(g.removed)
		x.targets = append(x.targets, g)
	}
	return x
}

// inOrder returns ids in the order of their distinct parsed keys, sorting
// the keys (with the sort mvcc.SortKeys uses, so the browser module carries
// one sort of keys rather than two) and placing each id by a binary search.
func inOrder(ids []int32, parsed []mvcc.ParsedKey) []int32 {
	keys := slices.Clone(parsed)
	sorted.Stable(keys, func(i, j int32) int { return keys[i].Compare(keys[j]) })
	out := make([]int32, len(ids))
	taken := make([]bool, len(ids))
	for i, p := range parsed {
		r, _ := sorted.Search(len(keys), func(j int) int { return keys[j].Compare(p) })
		for taken[r] {
			r++ // an equal key came first
		}
		taken[r] = true
		out[r] = ids[i]
	}
	return out
}

// rowsOf appends to buf the rows of the key at position i present after
// step n, in the order written.
func (g *targetIndex) rowsOf(buf []sink.Row, i int, n int32) []sink.Row {
	for _, ri := range g.rows[g.rowAt[i]:g.rowAt[i+1]] {
		r := &g.h.Rows[ri]
		if r.AddedStep > n {
			break
		}
		if r.RemovedStep > n {
			buf = append(buf, *r)
		}
	}
	return buf
}

// arrives is the step after n at which a row of the key at position i is
// next written, or 0 if none is: a key missing at n is waiting for that
// step, or lost for the rest of the run.
func (g *targetIndex) arrives(i int, n int32) int32 {
	for _, ri := range g.rows[g.rowAt[i]:g.rowAt[i+1]] {
		if s := g.h.Rows[ri].AddedStep; s > n {
			return s
		}
	}
	return 0
}

// written reports whether a row of the key at position i was written at step n.
func (g *targetIndex) written(i int, n int32) bool {
	for _, ri := range g.rows[g.rowAt[i]:g.rowAt[i+1]] {
		if s := g.h.Rows[ri].AddedStep; s >= n {
			return s == n
		}
	}
	return false
}

// present is the number of rows in the target after step n.
func (g *targetIndex) present(n int32) int {
	added, _ := sorted.Search(len(g.h.Rows), func(k int) int {
		r := g.h.Rows[k]
		if r.AddedStep <= n {
			return -1
		}
		return 1
	})
	removed, _ := sorted.Search(len(g.removed), func(j int) int { return cmp.Compare(g.removed[j], int(n)+1) })
	return added - removed
}

// latest is the position of the key last written by step n and still
// present, or -1.
func (g *targetIndex) latest(n int32) int {
	k, _ := sorted.Search(len(g.h.Rows), func(k int) int {
		r := g.h.Rows[k]
		if r.AddedStep <= n {
			return -1
		}
		return 1
	})
	for i := k - 1; i >= 0; i-- {
		if r := &g.h.Rows[i]; r.RemovedStep > n {
			return int(g.pos[r.Src])
		}
	}
	return -1
}

// find is the position of key among the target's keys, or -1. When two
// sources wrote the key, it is the first source's.
func (g *targetIndex) find(t *engine.Trace, key string) int {
	want := mvcc.ParseKey(key)
	var i int
	var found bool
	if want.Num {
		i, found = sorted.Search(len(g.nums), func(j int) int { return cmp.Compare(g.nums[j], want.N) })
	} else {
		rest := g.keys[len(g.nums):]
		i, found = sorted.Search(len(rest), func(k int) int { return mvcc.CompareKeys(t.Key(rest[k]), key) })
		i += len(g.nums)
	}
	if !found {
		return -1
	}
	return i
}

// findFrom is the position of key as source wrote it, or -1.
func (g *targetIndex) findFrom(t *engine.Trace, key, source string) int {
	i := g.find(t, key)
	if i < 0 || g.from == nil {
		return i
	}
	for j := i; j < len(g.keys) && t.Key(g.keys[j]) == key; j++ {
		if g.from[j] == source {
			return j
		}
	}
	return i
}

// window returns up to size positions, in key order, of keys for which
// shown holds (it is asked only of keys born by step n), around focus:
// about three quarters of them at or before it. It scans outwards from
// focus, skipping blocks of keys not yet born, so its cost is the window's
// and not the target's.
func (g *targetIndex) window(n int32, focus, size int, shown func(i int) bool) []int {
	if len(g.keys) == 0 {
		return nil
	}
	focus = clamp(focus, len(g.keys)-1)
	var before, after []int
	// down scans from i downwards for the next shown key; up upwards.
	down := func(i int) int {
		for i >= 0 {
			if g.blocks[i/blockSize] > n {
				i = i/blockSize*blockSize - 1
				continue
			}
			if g.birth[i] <= n && shown(i) {
				return i
			}
			i--
		}
		return -1
	}
	up := func(i int) int {
		for i < len(g.keys) {
			if g.blocks[i/blockSize] > n {
				i = (i/blockSize + 1) * blockSize
				continue
			}
			if g.birth[i] <= n && shown(i) {
				return i
			}
			i++
		}
		return -1
	}
	lo, hi := focus, focus+1
	wantBefore := size * 3 / 4
	for len(before) < wantBefore {
		if lo = down(lo); lo < 0 {
			break
		}
		before = append(before, lo)
		lo--
	}
	for len(before)+len(after) < size {
		if hi = up(hi); hi < 0 {
			break
		}
		after = append(after, hi)
		hi++
	}
	for lo >= 0 && len(before)+len(after) < size {
		if lo = down(lo); lo < 0 {
			break
		}
		before = append(before, lo)
		lo--
	}
	slices.Reverse(before)
	return append(before, after...)
}

// span is the time axis shared by the source drawing: every begin, commit,
// run and stamp.
func span(t *engine.Trace, ht *hwm.Trace) (lo, hi vtime.Time) {
	first := true
	see := func(x vtime.Time) {
		if first {
			lo, hi, first = x, x, false
			return
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	var txns []hwm.TxnRecord
	if ht != nil {
		txns = ht.Txns
	}
	for i := range txns {
		x := &txns[i]
		see(x.BeginAt)
		if x.EndStep > 0 {
			see(x.EndAt)
		}
		if st, ok := x.Stamp(); ok {
			see(st)
		}
	}
	for i := range t.Events {
		see(t.Events[i].At)
	}
	if hi == lo {
		hi = lo + 1000
	}
	return lo, hi
}
