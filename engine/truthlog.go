package engine

import (
	"slices"

	"github.com/tidemark/tidemark/engine/mvcc"
)

// truthEvery is the fewest truth changes between two snapshots. A snapshot
// is also never taken before as many changes as it holds keys have passed,
// so snapshots cost at most as much memory as the changes themselves and
// rebuilding the truth costs at most the larger of truthEvery and the size
// of the truth it returns.
const truthEvery = 512

// truthChange is one key's truth changing at a step: 12 bytes, as a large
// run logs two changes for each row it sends or copies.
type truthChange struct {
	step int32
	id   int32  // the key's dense id; truthLog.keys names it
	word uint32 // count<<4 | previous status<<2 | status: see pack
}

// maxTruthCount is the most rows of one key a truth change can say are
// present. A key with that many rows would take a quarter of a billion
// writes, far past any work budget.
const maxTruthCount = 1<<28 - 1

// pack makes the word of a change of a key's status from prev to s with
// count rows present.
func pack(prev, s status, count int32) uint32 {
	if count < 0 || count > maxTruthCount {
		panic("engine: a key's row count is out of the truth log's range")
	}
	return uint32(count)<<4 | uint32(prev)<<2 | uint32(s)
}

func (c truthChange) status() status { return status(c.word & 3) }
func (c truthChange) prev() status   { return status(c.word >> 2 & 3) }
func (c truthChange) count() int32   { return int32(c.word >> 4) }

// countsEvery is how many truth changes pass between two checkpoints of the
// counts. The counts after any step are a checkpoint plus at most this many
// changes, so a trace keeps no counts per step.
const countsEvery = 64

// truthSnap is every key not fine after the change before next, in no order.
type truthSnap struct {
	next int   // index of the first change the snapshot does not include
	step int32 // step of the last change it includes
	bad  []truthChange
}

// truthLog records every change of a key's truth, with periodic snapshots,
// keys named by their dense ids so that its millions of entries hold no
// pointers for the garbage collector to trace,
// so the truth at any step is rebuilt without scanning the whole trace.
//
// Invariant: bad holds exactly the keys whose latest change is not fine,
// and the world's keyState.bad of each key is its index in bad, or -1;
// snaps[i].next increases, by at least truthEvery and at least len(snaps[i].bad).
//
// The counts of keys missing, duplicated and stale come from the same
// changes: cur is the counts after the last change, and counts[k] the
// counts before changes[k*countsEvery].
type truthLog struct {
	changes []truthChange
	snaps   []truthSnap
	bad     []truthChange
	// names is each key's name, by id, once some key's name is not its
	// text (as with several targets, where a name is target:key); nil
	// while every name is the key's text, which the trace keeps already,
	// so one target costs no second string per key.
	names  []string
	cur    statusCount // after the last change
	counts []statusCount
}

// statusCount is how many keys are in each status.
type statusCount [4]int32

// Counts are the counts of the statuses that are not fine.
func (c *statusCount) Counts() Counts {
	return Counts{Missing: c[missing], Duplicated: c[duplicated], Stale: c[stale]}
}

// name names the key with id, whose text is text[id]. Ids are dense and
// given in order, so this appends; a gap would be left unnamed rather than
// stop the run.
func (l *truthLog) name(id int32, name string, text []string) {
	if l.names == nil {
		if int(id) < len(text) && text[id] == name {
			return
		}
		// The first name that is not its key's text: every key before it
		// is named by its text.
		l.names = make([]string, min(int(id), len(text)), max(cap(text), int(id)+1))
		copy(l.names, text)
	}
	for int(id) >= len(l.names) {
		l.names = append(l.names, "")
	}
	l.names[id] = name
}

// nameOf returns the name of the key with id, whose text is text[id].
func (l *truthLog) nameOf(id int32, text []string) string {
	if l.names == nil {
		return text[id]
	}
	return l.names[id]
}

// record logs that the key with id (a dense number the world gives each
// key) changed from status prev to s with count rows present, at step. keys
// is the world's state of every key, whose bad fields record keeps current.
func (l *truthLog) record(step int, id int32, prev, s status, count int32, keys []keyState) {
	c := truthChange{step: int32(step), id: id, word: pack(prev, s, count)}
	if uint(len(l.changes))%countsEvery == 0 {
		l.counts = append(l.counts, l.cur)
	}
	l.changes = append(l.changes, c)
	l.cur[prev]--
	l.cur[s]++
	switch i := keys[id].bad; {
	case s != fine && i >= 0:
		l.bad[i] = c
	case s != fine:
		keys[id].bad = int32(len(l.bad))
		l.bad = append(l.bad, c)
	case i >= 0:
		last := len(l.bad) - 1
		l.bad[i] = l.bad[last]
		keys[l.bad[i].id].bad = i
		l.bad = l.bad[:last]
		keys[id].bad = -1
	}
	last := 0
	if len(l.snaps) > 0 {
		last = l.snaps[len(l.snaps)-1].next
	}
	if since := len(l.changes) - last; since >= truthEvery && since >= len(l.bad) {
		snap := truthSnap{next: len(l.changes), step: c.step, bad: slices.Clone(l.bad)}
		l.snaps = append(l.snaps, snap)
	}
}

// at rebuilds the truth after step n, naming keys whose texts are text: the snapshot before it, then the
// changes since, the latest change of each key winning. Rather than a map by
// key, it sorts one array of (key id, position) pairs, so a rebuild costs one
// small allocation besides the answer.
func (l *truthLog) at(n int32, text []string) Truth {
	var base []truthChange
	from := 0
	i, _ := slices.BinarySearchFunc(l.snaps, n, func(s truthSnap, n int32) int {
		if s.step <= n {
			return -1
		}
		return 1
	})
	if i > 0 {
		base, from = l.snaps[i-1].bad, l.snaps[i-1].next
	}
	// Changes are in step order: replay those up to step n.
	end, _ := slices.BinarySearchFunc(l.changes[from:], n, func(c truthChange, n int32) int {
		if c.step <= n {
			return -1
		}
		return 1
	})
	replay := l.changes[from : from+end]
	entry := func(pos int) truthChange {
		if pos < len(base) {
			return base[pos]
		}
		return replay[pos-len(base)]
	}
	// Position order is time order (the snapshot first), and sorting by key
	// id keeps it among a key's changes, so the last of each key id is its
	// latest change.
	order := make([]uint64, len(base)+len(replay))
	for pos := range order {
		order[pos] = uint64(entry(pos).id)<<32 | uint64(pos)
	}
	order = sortByID(order)
	tr := Truth{Missing: []string{}, Duplicated: map[string]int{}, Stale: []string{}}
	for k, o := range order {
		if k+1 < len(order) && order[k+1]>>32 == o>>32 {
			continue // a later change of the same key follows
		}
		c := entry(int(uint32(o)))
		key := l.nameOf(c.id, text)
		switch c.status() {
		case missing:
			tr.Missing = append(tr.Missing, key)
		case duplicated:
			tr.Duplicated[key] = int(c.count())
		case stale:
			tr.Stale = append(tr.Stale, key)
		}
	}
	mvcc.SortKeys(tr.Missing)
	mvcc.SortKeys(tr.Stale)
	return tr
}

// changesBy is how many changes were made by step n: they are in step order.
func (l *truthLog) changesBy(n int32) int {
	i, _ := slices.BinarySearchFunc(l.changes, n, func(c truthChange, n int32) int {
		if c.step <= n {
			return -1
		}
		return 1
	})
	return i
}

// countsAt returns the counts after step n: the checkpoint before the last
// change by then, moved by the changes since.
func (l *truthLog) countsAt(n int32) Counts {
	j := l.changesBy(n)
	if j == len(l.changes) {
		return l.cur.Counts()
	}
	k := j / countsEvery
	c := l.counts[k]
	for _, x := range l.changes[k*countsEvery : j] {
		c[x.prev()]--
		c[x.status()]++
	}
	return c.Counts()
}

// sortByID orders (id<<32 | position) pairs by id, keeping the order of
// pairs with equal ids, and returns them (in a at, or in a slice of its
// own). It is a radix sort, a byte of the id at a time and only as many
// bytes as the largest id has: a rebuild of the truth sorts a few thousand
// pairs, which this does in a few passes over them rather than with the
// comparisons of a general sort.
func sortByID(a []uint64) []uint64 {
	var top uint64
	for _, x := range a {
		top = max(top, x>>32)
	}
	tmp := make([]uint64, len(a))
	for shift := 32; shift < 64 && top>>(shift-32) > 0; shift += 8 {
		var count [257]int
		for _, x := range a {
			count[(x>>shift)&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, x := range a {
			b := (x >> shift) & 0xff
			tmp[count[b]] = x
			count[b]++
		}
		a, tmp = tmp, a
	}
	return a
}
