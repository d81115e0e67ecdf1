//go:build !tm_stream

package check

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunningMedianIsTheSortedMiddle: after every add, the running median
// is the element at index n/2 of everything added so far, sorted, as the
// rate-of-change check has always defined its "usual advance".
func TestRunningMedianIsTheSortedMiddle(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 200 {
		var m runningMedian
		var all []int64
		span := int64(1 + trial%50) // small spans repeat values
		for range 1 + r.IntN(300) {
			x := r.Int64N(span) - span/3
			m.add(x)
			all = append(all, x)
			sorted := slices.Clone(all)
			slices.Sort(sorted)
			require.Equal(t, sorted[len(sorted)/2], m.median(), "trial %d after %v", trial, all)
			require.Equal(t, len(all), m.len())
		}
	}
}
