package web

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPageCacheCountsItsKeys: a key carries a visitor's query, so the
// cache's bound counts it with the page it keeps. Pages of 100 bytes under
// keys of 10,000 bytes fill a cache of 100,000 bytes after nine of them,
// where counting the bodies alone would have kept a thousand keys, ten
// megabytes of them.
func TestPageCacheCountsItsKeys(t *testing.T) {
	c := newPageCache(100_000)
	page := &response{status: 200, identity: newVariant([]byte(strings.Repeat("p", 100)), "", "t")}
	for i := range 1000 {
		key := strings.Repeat("k", 10_000-4) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + "!"
		c.put(key, page)
		require.LessOrEqual(t, c.bytes, c.max, "after %d pages", i+1)
	}
	assert.Equal(t, 9, c.order.Len())
	assert.Equal(t, 9*(10_000+100), c.bytes)

	// Keeping a key again replaces its entry at its own cost.
	last := c.order.Front().Value.(*kept).key
	c.put(last, page)
	assert.Equal(t, 9, c.order.Len())
	assert.Equal(t, 9*(10_000+100), c.bytes)

	// A key too long for a quarter of the cache is not kept at all.
	c.put(strings.Repeat("x", 30_000), page)
	assert.Equal(t, 9, c.order.Len())
}
