package engine

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

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

// TestSortByIDIsAStableSortByID sorts random (id, position) pairs, with ids
// of one to four bytes and many repeats, as a stable sort by id would.
func TestSortByIDIsAStableSortByID(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, top := range []int64{1, 200, 70_000, 1 << 31} {
		for n := range 300 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = uint64(r.Int64N(top))<<32 | uint64(i)
			}
			want := slices.Clone(a)
			slices.SortStableFunc(want, func(x, y uint64) int { return cmp.Compare(x>>32, y>>32) })
			require.Equal(t, want, sortByID(a), "top %d, n %d", top, n)
		}
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
