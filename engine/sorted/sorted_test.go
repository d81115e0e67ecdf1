package sorted_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/sorted"
)

// TestSortAgreesWithTheStandardLibrary sorts random slices of numbers and
// strings, with many repeats, and compares with slices.Sort.
func TestSortAgreesWithTheStandardLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		ints := make([]int64, n)
		strs := make([]string, n)
		for i := range ints {
			ints[i] = r.Int64N(int64(n/3 + 1))
			strs[i] = strconv.Itoa(r.IntN(n/2 + 1))
		}
		wantInts, wantStrs := slices.Clone(ints), slices.Clone(strs)
		slices.Sort(wantInts)
		slices.Sort(wantStrs)
		sorted.Sort(ints)
		sorted.Sort(strs)
		require.Equal(t, wantInts, ints, "n=%d", n)
		require.Equal(t, wantStrs, strs, "n=%d", n)
	}
}

// TestStableAgreesWithTheStandardLibrary sorts random records by one
// field with many ties, and by two, and finds them in the order
// slices.SortStableFunc gives, through Stable and through Func.
func TestStableAgreesWithTheStandardLibrary(t *testing.T) {
	type rec struct {
		k    int
		name string
		i    int
	}
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		rs := make([]rec, n)
		for i := range rs {
			rs[i] = rec{r.IntN(5), strconv.Itoa(r.IntN(n/4 + 1)), i}
		}
		byK := func(a, b rec) int { return cmp.Compare(a.k, b.k) }
		byNameK := func(a, b rec) int { return cmp.Or(cmp.Compare(a.name, b.name), byK(a, b)) }
		for _, by := range []func(a, b rec) int{byK, byNameK} {
			want, got := slices.Clone(rs), slices.Clone(rs)
			slices.SortStableFunc(want, by)
			sorted.Stable(got, func(i, j int32) int { return by(got[i], got[j]) })
			require.Equal(t, want, got, "n=%d", n)
			got = slices.Clone(rs)
			sorted.Func(got, by)
			require.Equal(t, want, got, "Func, n=%d", n)
		}
	}
}

// TestKeysOfAMap lists a map's keys in order, by the natural order and by
// a comparison of the caller's.
func TestKeysOfAMap(t *testing.T) {
	m := map[string]int{"b": 1, "a": 2, "c": 3}
	require.Equal(t, []string{"a", "b", "c"}, sorted.Keys(m))
	require.Equal(t, []string{"c", "b", "a"}, sorted.KeysFunc(m, func(a, b string) int { return cmp.Compare(b, a) }))
	require.Empty(t, sorted.Keys(map[int]bool{}))
	require.Equal(t, []int32{2, 0, 1}, sorted.Positions(3, func(i, j int32) int { return cmp.Compare([]int{5, 9, 1}[i], []int{5, 9, 1}[j]) }))
}

// TestSearchAgreesWithTheStandardLibrary searches random sorted slices,
// with repeats, for values below, among and above them, and finds the
// position and the answer slices.BinarySearch gives.
func TestSearchAgreesWithTheStandardLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 200 {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = r.IntN(n/2 + 1)
		}
		slices.Sort(xs)
		for x := -1; x <= n/2+2; x++ {
			wantI, wantOK := slices.BinarySearch(xs, x)
			i, ok := sorted.Search(len(xs), func(i int) int { return cmp.Compare(xs[i], x) })
			require.Equal(t, wantI, i, "n=%d x=%d", n, x)
			require.Equal(t, wantOK, ok, "n=%d x=%d", n, x)
		}
	}
}
