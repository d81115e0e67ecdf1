package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sorted"
)

// replayTruth is the truth after step n worked out the slow way: every
// change from the first, the latest of each key winning, keys sorted as
// strings. The truth log's snapshots, ranks and merges must agree with it.
func replayTruth(l *truthLog, n int32, text []string) Truth {
	latest := map[int32]truthChange{}
	for _, c := range l.changes {
		if c.step <= n {
			latest[c.id] = c
		}
	}
	tr := Truth{Missing: []string{}, Duplicated: map[string]int{}, Stale: []string{}}
	for id, c := range latest {
		switch c.status() {
		case missing:
			tr.Missing = append(tr.Missing, l.nameOf(id, text))
		case duplicated:
			tr.Duplicated[l.nameOf(id, text)] = int(c.count())
		case stale:
			tr.Stale = append(tr.Stale, l.nameOf(id, text))
		}
	}
	mvcc.SortKeys(tr.Missing)
	mvcc.SortKeys(tr.Stale)
	return tr
}

// TruthLogShape reports, for tests outside the package, how many keys the
// trace's truth log names and ranks, and each snapshot's step and whether
// it is kept in key order (not unsorted).
func TruthLogShape(t *Trace) (keys, ranked int, snapSteps []int32, sorted []bool) {
	l := &t.truth
	for _, s := range l.snaps {
		snapSteps = append(snapSteps, s.step)
		sorted = append(sorted, s.bad == nil && slices.IsSorted(s.sorted))
	}
	return len(l.allNames(t.keyText)), len(l.rank), snapSteps, sorted
}

// ReplayTruth is replayTruth of a trace, for tests outside the package.
func ReplayTruth(t *Trace, n int32) Truth { return replayTruth(&t.truth, n, t.keyText) }

// TestRadixByHighIsStable checks the radix sort orders by the high half and
// keeps equal high halves in their first order.
func TestRadixByHighIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 7, 300, 5000} {
		for _, bound := range []uint32{1, 200, 256, 70000, 1 << 24} {
			xs := make([]uint64, n)
			for i := range xs {
				xs[i] = uint64(r.Uint32N(bound))<<32 | uint64(i)
			}
			want := slices.Clone(xs)
			slices.Sort(want) // low halves are positions: a full sort is the stable one
			got, _ := radixByHigh(xs, nil, bound)
			require.True(t, slices.Equal(want, got), "n=%d bound=%d", n, bound)
		}
	}
}

// TestTruthLogCountsAtEveryStep logs thousands of random changes of a few
// hundred keys, several per step and some steps with none, and compares the
// counts the log rebuilds from its checkpoints at every step with counts
// kept by hand as the changes were made.
func TestTruthLogCountsAtEveryStep(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	const nkeys, steps = 300, 4000
	keys := make([]keyState, nkeys)
	var l truthLog
	for i := range keys {
		keys[i].bad = -1
		l.name(int32(i), "k", nil)
	}
	var want []Counts // want[n]: counts after step n
	var c statusCount
	want = append(want, c.Counts())
	for step := 1; step <= steps; step++ {
		for range r.IntN(4) {
			id := int32(r.IntN(nkeys))
			next := status(r.IntN(4))
			prev := keys[id].status
			count := int32(r.IntN(3))
			l.record(step, id, prev, next, count, keys)
			keys[id].status = next
			c[prev]--
			c[next]++
		}
		want = append(want, c.Counts())
	}
	require.Greater(t, len(l.changes), 10*countsEvery, "the log spans many checkpoints")
	for n := 0; n <= steps; n++ {
		require.Equal(t, want[n], l.countsAt(int32(n)), "step %d", n)
	}
	require.Equal(t, c.Counts(), l.countsAt(steps+5), "after the last change")
}

// TestTruthChangePacksItsFields keeps a change's status, previous status
// and count apart, up to the largest count it holds, and refuses a larger.
func TestTruthChangePacksItsFields(t *testing.T) {
	for _, count := range []int32{0, 1, 2, 1000, maxTruthCount} {
		for prev := fine; prev <= stale; prev++ {
			for s := fine; s <= stale; s++ {
				c := truthChange{word: pack(prev, s, count)}
				require.Equal(t, s, c.status())
				require.Equal(t, prev, c.prev())
				require.Equal(t, count, c.count())
			}
		}
	}
	require.Panics(t, func() { pack(fine, duplicated, maxTruthCount+1) })
}

// TestRankKeys orders names as mvcc.CompareKeys does, numbers first by
// value, and equal names by id.
func TestRankKeys(t *testing.T) {
	keys := []string{"b", "10", "2", "a", "", "2", "-3"}
	rank, order := rankKeys(keys)
	var names []string
	for _, id := range order {
		names = append(names, keys[id])
	}
	assert.Equal(t, []string{"-3", "2", "2", "10", "", "a", "b"}, names)
	assert.Equal(t, []int32{6, 2, 5, 1, 4, 3, 0}, order, "equal names by id")
	for r, id := range order {
		assert.Equal(t, int32(r), rank[id])
	}
}

// TestTruthLogNamesKeysByTheirTextUntilOneDiffers names keys by their text,
// keeping no names of its own, and, from the first key whose name is not its
// text, keeps every name: those before it are their texts.
func TestTruthLogNamesKeysByTheirTextUntilOneDiffers(t *testing.T) {
	var l truthLog
	var text []string
	add := func(key, name string) {
		text = append(text, key)
		l.name(int32(len(text)-1), name, text)
	}
	add("1", "1")
	add("2", "2")
	require.Nil(t, l.names, "every name is its key's text")
	add("3", "fct:3")
	add("4", "4")
	add("3", l.nameOf(2, text))
	require.Len(t, l.names, 5)
	for id, want := range []string{"1", "2", "fct:3", "4", "fct:3"} {
		require.Equal(t, want, l.nameOf(int32(id), text), "key id %d", id)
	}
}

// TestRankKeysOfNumbersAsTheComparisonDoes: names that are all whole
// numbers take the radix sort, and it orders them exactly as the
// comparison does, equal numbers ("7" and "007") by id; one name that is
// not such a number sends every name to the comparison.
func TestRankKeysOfNumbersAsTheComparisonDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 200 {
		keys := make([]string, 1+rng.IntN(300))
		for i := range keys {
			switch rng.IntN(6) {
			case 0:
				keys[i] = strconv.FormatUint(uint64(rng.Uint32()), 10) // up to 2³²−1
			case 1:
				keys[i] = "00" + strconv.Itoa(rng.IntN(50)) // equal in value to another
			default:
				keys[i] = strconv.Itoa(rng.IntN(50))
			}
		}
		if round%10 == 9 {
			keys[rng.IntN(len(keys))] = "4294967296" // 2³²: the comparison's turn
		}
		parsed := make([]mvcc.ParsedKey, len(keys))
		for i, k := range keys {
			parsed[i] = mvcc.ParseKey(k)
		}
		want := sorted.Positions(len(keys), func(i, j int32) int { return parsed[i].Compare(parsed[j]) })
		rank, order := rankKeys(keys)
		require.Equal(t, want, order, "round %d", round)
		for r, id := range order {
			require.Equal(t, int32(r), rank[id])
		}
	}
}
