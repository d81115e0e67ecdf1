//go:build !(tm_hwm || tm_log || tm_stream)

package scenario

// Near returns the words of known within a few edits of word, the closest
// first and at most three: what a mistyped name most likely meant. A word
// longer than any name is compared with none, which keeps the work small.
func Near(word string, known []string) []string {
	if len(word) > 200 {
		return nil
	}
	// The best three so far, closest first, ties in known's order: an
	// insertion into three places, not a sort (which would link a
	// stable sort's code into the browser's module for three names).
	best := make([]string, 0, 3)
	var dist [3]int
	for _, k := range known {
		d := edits(word, k)
		if d == 0 || d > max(2, len(k)/6) {
			continue
		}
		i := len(best)
		for i > 0 && dist[i-1] > d {
			i--
		}
		if i == cap(best) {
			continue
		}
		if len(best) < cap(best) {
			best = append(best, "")
		}
		copy(best[i+1:], best[i:len(best)-1])
		copy(dist[i+1:len(best)], dist[i:len(best)-1])
		best[i], dist[i] = k, d
	}
	return best
}

// DidYouMean is "; did you mean extract?" (or "extract or extracts?") for
// the names of known near word, or "" when none is.
func DidYouMean(word string, known []string) string {
	near := Near(word, known)
	if len(near) == 0 {
		return ""
	}
	s := "; did you mean " + near[0]
	for _, n := range near[1:] {
		s += " or " + n
	}
	return s + "?"
}

// edits is the Levenshtein distance between a and b, in bytes.
func edits(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
