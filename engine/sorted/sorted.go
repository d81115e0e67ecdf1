// Package sorted sorts slices of any element type through one instance of
// the standard library's sort.
//
// Go compiles a generic function once for every shape of element it is
// used with, and each use of slices.Sort or slices.SortFunc brings a whole
// pattern-defeating quicksort (a dozen functions): the browser module
// carried a copy for int, int64, uint64, string and five structs, 166 KB
// of its code. Here every sort orders int32 positions with a comparison of
// the elements at them, and then moves the elements into that order: one
// copy of the quicksort, and a few small functions per element type. The
// positions cost four bytes an element and the move one copy of the slice,
// which the engine's sorts, none of them in a simulation's inner loop, can
// afford.
package sorted

import (
	"cmp"
	"slices"
)

// Positions returns the positions 0 to n-1 ordered by cmp, which compares
// the elements at two positions; positions of equal elements keep their
// order. n is at most math.MaxInt32.
func Positions(n int, cmp func(i, j int32) int) []int32 {
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortFunc(pos, func(i, j int32) int {
		if c := cmp(i, j); c != 0 {
			return c
		}
		return int(i - j)
	})
	return pos
}

// Func sorts s by cmp, as slices.SortStableFunc does: equal elements keep
// their order.
func Func[S ~[]E, E any](s S, cmp func(a, b E) int) {
	if len(s) < 2 {
		return
	}
	pos := Positions(len(s), func(i, j int32) int { return cmp(s[i], s[j]) })
	moved := make(S, len(s))
	for k, i := range pos {
		moved[k] = s[i]
	}
	copy(s, moved)
}

// Sort sorts s in increasing order, as slices.Sort does.
func Sort[S ~[]E, E cmp.Ordered](s S) { Func(s, cmp.Compare[E]) }

// Keys returns the keys of m in increasing order, as
// slices.Sorted(maps.Keys(m)) does.
func Keys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	Sort(keys)
	return keys
}

// KeysFunc returns the keys of m ordered by cmp.
func KeysFunc[M ~map[K]V, K comparable, V any](m M, cmp func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	Func(keys, cmp)
	return keys
}

// Search is slices.BinarySearchFunc over the positions 0 to n-1 of a
// sorted slice, cmp comparing the element at a position with the target:
// it returns the first position whose element is not less than the target,
// and whether that element equals it. Not generic, so that the browser
// module carries one binary search rather than one for each element type
// searched, each of them larger than a caller's closure.
func Search(n int, cmp func(i int) int) (int, bool) {
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1) // cannot overflow when computing h
		if cmp(h) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && cmp(i) == 0
}
