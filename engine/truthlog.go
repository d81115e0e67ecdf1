package engine

import (
	"slices"

	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sorted"
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

// truthSnap is every key not fine after the change before next. While the
// run goes on it holds them in no order (bad); when the run ends, finish
// adds the same keys in key order (sorted, see packTruth), so that a
// rebuild merges rather than sorts.
type truthSnap struct {
	next   int   // index of the first change the snapshot does not include
	step   int32 // step of the last change it includes
	bad    []truthChange
	sorted []uint64
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
// counts before changes[k*countsEvery]. Once the run has ended (finish),
// rank and order cover every key and each snapshot is sorted too.
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
	rank   []int32 // each key's place in key order, by id: set by finish
	order  []int32 // the key ids in key order: set by finish
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

// at rebuilds the truth after step n, naming keys whose texts are text,
// every key spelled out (see view for the truth without spelling it).
func (l *truthLog) at(n int32, text []string) Truth {
	return l.view(n, text).truth()
}

// allNames returns every key's name by id: the names, or the texts when
// every name is its text.
func (l *truthLog) allNames(text []string) []string {
	if l.names != nil {
		return l.names
	}
	return text
}

// finish ranks every key once, in key order, and sorts every snapshot by
// it. The world calls it when its run has ended; a log read before then
// ranks its keys for that one read (see ranks).
func (l *truthLog) finish(text []string) {
	names := l.allNames(text)
	if len(l.rank) == len(names) && (len(l.snaps) == 0 || l.snaps[len(l.snaps)-1].sorted != nil) {
		return
	}
	l.rank, l.order = rankKeys(names)
	var tmp []uint64
	for i := range l.snaps {
		s := &l.snaps[i]
		s.sorted, tmp = sortTruth(s.bad, l.rank, tmp)
		s.sorted = slices.Clip(s.sorted)
		s.bad = nil
	}
}

// rankKeys orders key names as mvcc.CompareKeys does, each parsed once.
// A name's rank is its place among the sorted names (equal names, which
// the truth never gives, by id). It returns each id's rank and the ids in
// that order.
func rankKeys(keys []string) (rank, order []int32) {
	if order = numberOrder(keys); order == nil {
		parsed := make([]mvcc.ParsedKey, len(keys))
		for i, k := range keys {
			parsed[i] = mvcc.ParseKey(k)
		}
		order = sorted.Positions(len(keys), func(i, j int32) int { return parsed[i].Compare(parsed[j]) })
	}
	rank = make([]int32, len(keys))
	for r, id := range order {
		rank[id] = int32(r)
	}
	return rank, order
}

// numberOrder orders names that are all whole numbers from 0 to 2³²−1, as
// most scenarios' keys are, by a radix sort of (number, id): by value, as
// mvcc.CompareKeys does, and equal values ("7", "007") by id, as the
// comparison sort does, without its n log n calls of a comparison, which
// in the browser cost a sixth of a large run. It returns nil when a name is
// not such a number.
func numberOrder(keys []string) []int32 {
	packed := make([]uint64, len(keys))
	var most int64
	for i, k := range keys {
		p := mvcc.ParseKey(k)
		if !p.Num || p.N < 0 || p.N >= 1<<32 {
			return nil
		}
		packed[i], most = uint64(p.N)<<32|uint64(i), max(most, p.N)
	}
	packed, _ = radixByHigh(packed, nil, uint32(most))
	order := make([]int32, len(keys))
	for r, x := range packed {
		order[r] = int32(uint32(x))
	}
	return order
}

// ranks returns the key ranks and order: the ones finish made, or, on a
// run still going, ones made now for the caller alone.
func (l *truthLog) ranks(text []string) (rank, order []int32) {
	names := l.allNames(text)
	if len(l.rank) == len(names) {
		return l.rank, l.order
	}
	return rankKeys(names)
}

// A packed truth entry is a key that is not fine, as one number:
// rank<<32 | status<<30 | count. Sorting packed entries sorts them by key.
const (
	packStatusShift = 30
	packCountMask   = 1<<packStatusShift - 1
)

func packTruth(rank int32, s status, count int32) uint64 {
	return uint64(rank)<<32 | uint64(s)<<packStatusShift | uint64(count)&packCountMask
}

func unpackTruth(p uint64) (rank int32, s status, count int32) {
	return int32(p >> 32), status(p >> packStatusShift & 3), int32(p & packCountMask)
}

// sortTruth packs unordered changes (at most one per key) and sorts them by
// key, reusing tmp as scratch. It returns the sorted entries and the scratch.
func sortTruth(bad []truthChange, rank []int32, tmp []uint64) (sorted, scratch []uint64) {
	out := make([]uint64, len(bad))
	for i, c := range bad {
		out[i] = packTruth(rank[c.id], c.status(), c.count())
	}
	return radixByHigh(out, tmp, uint32(len(rank)))
}

// radixByHigh sorts xs by their high 32 bits, keeping equal ones in order
// (a least-significant-digit radix sort, 8 bits a pass, as many passes as
// below bound needs), using tmp as scratch. The result is xs or the
// scratch; the other is returned as the scratch for a later call. A sort of
// the whole number would order equal keys by their low bits instead; a
// radix sort is stable and costs a pass per byte rather than a comparison
// sort's log n comparisons per entry, which is what keeps a rebuild of tens
// of thousands of keys under a millisecond.
func radixByHigh(xs, tmp []uint64, bound uint32) (sorted, scratch []uint64) {
	if cap(tmp) < len(xs) {
		tmp = make([]uint64, len(xs))
	}
	tmp = tmp[:len(xs)]
	for shift := uint(32); shift < 64 && bound>>(shift-32) > 0; shift += 8 {
		var count [256]int
		for _, x := range xs {
			count[x>>shift&255]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, x := range xs {
			d := x >> shift & 255
			tmp[count[d]] = x
			count[d]++
		}
		xs, tmp = tmp, xs
	}
	return xs, tmp
}

// view rebuilds the truth after step n: the snapshot before it, then the
// changes since, the latest change of each key winning, as packed entries
// in key order, no key spelled.
//
// A finished run's snapshot is in key order already (see finish); the
// changes since it are packed as (rank, position) and radix-sorted, so that
// the last of each rank is that key's latest change; the two sorted lists
// are then merged.
func (l *truthLog) view(n int32, text []string) truthView {
	rank, order := l.ranks(text)
	var base []uint64
	from := 0
	i, _ := sorted.Search(len(l.snaps), func(k int) int {
		s := l.snaps[k]
		if s.step <= n {
			return -1
		}
		return 1
	})
	if i > 0 {
		s := &l.snaps[i-1]
		base, from = s.sorted, s.next
		if s.sorted == nil { // a run still going: sort it for this read
			base, _ = sortTruth(s.bad, rank, nil)
		}
	}
	// Changes are in step order: replay those up to step n.
	end, _ := sorted.Search(len(l.changes[from:]), func(k int) int {
		c := l.changes[from:][k]
		if c.step <= n {
			return -1
		}
		return 1
	})
	replay := l.changes[from : from+end]
	latest := make([]uint64, len(replay))
	for j, c := range replay {
		latest[j] = uint64(rank[c.id])<<32 | uint64(j)
	}
	latest, _ = radixByHigh(latest, nil, uint32(len(rank)))

	out := make([]uint64, 0, len(base)+len(latest))
	b := 0
	for j, p := range latest {
		if j+1 < len(latest) && latest[j+1]>>32 == p>>32 {
			continue // a later change of the same key follows
		}
		r := int32(p >> 32)
		for b < len(base) && int32(base[b]>>32) < r {
			out = append(out, base[b])
			b++
		}
		if b < len(base) && int32(base[b]>>32) == r {
			b++ // the replayed change replaces the snapshot's
		}
		if c := replay[uint32(p)]; c.status() != fine {
			out = append(out, packTruth(r, c.status(), c.count()))
		}
	}
	out = append(out, base[b:]...)
	return truthView{bad: out, rank: rank, order: order, keys: l.allNames(text)}
}

// truthView is the truth at one step: the keys not fine, packed, in key order.
type truthView struct {
	bad   []uint64
	rank  []int32
	order []int32
	keys  []string
}

// truth spells out every key of the view.
func (v truthView) truth() Truth {
	tr := Truth{Missing: []string{}, Duplicated: map[string]int{}, Stale: []string{}}
	for _, p := range v.bad {
		r, s, count := unpackTruth(p)
		key := v.keys[v.order[r]]
		switch s {
		case missing:
			tr.Missing = append(tr.Missing, key)
		case duplicated:
			tr.Duplicated[key] = int(count)
		case stale:
			tr.Stale = append(tr.Stale, key)
		}
	}
	return tr
}

// changesBy is how many changes were made by step n: they are in step order.
func (l *truthLog) changesBy(n int32) int {
	i, _ := sorted.Search(len(l.changes), func(k int) int {
		c := l.changes[k]
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
