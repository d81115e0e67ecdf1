package scenario

import "slices"

// Near returns the words of known within a few edits of word, the closest
// first and at most three: what a mistyped name most likely meant. A word
// longer than any name is compared with none, which keeps the work small.
func Near(word string, known []string) []string {
	if len(word) > 200 {
		return nil
	}
	type near struct {
		word string
		dist int
	}
	var out []near
	for _, k := range known {
		if d := edits(word, k); d > 0 && d <= max(2, len(k)/6) {
			out = append(out, near{k, d})
		}
	}
	slices.SortStableFunc(out, func(a, b near) int { return a.dist - b.dist })
	words := make([]string, 0, min(len(out), 3))
	for _, n := range out[:min(len(out), 3)] {
		words = append(words, n.word)
	}
	return words
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
