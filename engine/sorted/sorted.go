// Package sorted sorts slices of any element type through one instance of
// the standard library's sort.
//
// Go compiles a generic function once for every shape of element it is
// used with, and each use of slices.Sort or slices.SortFunc brings a whole
// pattern-defeating quicksort (a dozen functions): the browser module
// carried a copy for int, int64, uint64, string and five structs, 166 KB
// of its code. Here every sort orders int32 positions with a comparison of
// the elements at them, and then moves the elements into that order by
// swaps: one copy of the quicksort, and one small function per element
// type (Stable), the comparison being the caller's closure over the slice.
// The positions cost four bytes an element, which the engine's sorts, none
// of them in a simulation's inner loop, can afford.
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

// Stable sorts s by cmp, which compares the elements at two positions of
// s, as slices.SortStableFunc does: equal elements keep their order. The
// comparison is the caller's closure over s rather than a function of two
// elements, so that each element type costs the browser module this one
// small function and no closure of its own.
func Stable[S ~[]E, E any](s S, cmp func(i, j int32) int) {
	if len(s) < 2 {
		return
	}
	pos := Positions(len(s), cmp)
	// The element that belongs at k is at pos[k]. Following a cycle from
	// its first position i, each swap puts the right element at j and
	// carries the element that was at i on to the cycle's next position,
	// which the cycle's last swap leaves where it belongs.
	for i := range pos {
		j := int32(i)
		for pos[j] != int32(i) {
			next := pos[j]
			s[j], s[next] = s[next], s[j]
			pos[j] = j
			j = next
		}
		pos[j] = j
	}
}

// Func sorts s by cmp, as slices.SortStableFunc does: equal elements keep
// their order. It costs the browser module a closure for each element
// type; where the caller has a closure of its own, Stable saves it.
func Func[S ~[]E, E any](s S, cmp func(a, b E) int) {
	Stable(s, func(i, j int32) int { return cmp(s[i], s[j]) })
}

// Sort sorts s in increasing order, as slices.Sort does.
func Sort[S ~[]E, E cmp.Ordered](s S) {
	Stable(s, func(i, j int32) int { return cmp.Compare(s[i], s[j]) })
}

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
