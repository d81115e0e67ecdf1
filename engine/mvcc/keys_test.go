package mvcc_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine/mvcc"
)

// TestSortKeysAgreesWithCompareKeys sorts a mix of numbers and words both
// ways and expects one order.
func TestSortKeysAgreesWithCompareKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		keys := make([]string, 40)
		for i := range keys {
			switch r.IntN(3) {
			case 0:
				keys[i] = strconv.Itoa(r.IntN(1000) - 100)
			case 1:
				keys[i] = "k" + strconv.Itoa(r.IntN(50)) + []string{"", "a", "-0" + strconv.Itoa(r.IntN(12))}[r.IntN(3)]
			default:
				keys[i] = strconv.Itoa(r.IntN(20))
			}
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, mvcc.CompareKeys)
		mvcc.SortKeys(keys)
		assert.Equal(t, want, keys)
	}
	assert.Equal(t, -1, mvcc.ParseKey("9").Compare(mvcc.ParseKey("10")), "numbers by value")
	assert.Equal(t, -1, mvcc.ParseKey("10").Compare(mvcc.ParseKey("a")), "numbers before words")
}
