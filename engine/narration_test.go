package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestNarrationIsWellFormed runs every bundled scenario under every single
// knob change and checks that no sentence, check detail or explanation
// carries a formatting error (the engine formats with package prose, which
// prints %!verb(...) for what it cannot format) and that every sentence ends.
func TestNarrationIsWellFormed(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		sets := []map[string]string{nil}
		for _, k := range sc.File.Knobs {
			for _, v := range k.Values[1:] {
				sets = append(sets, map[string]string{k.Name: v})
			}
		}
		for _, set := range sets {
			tr, err := engine.Run(sc.File, set, 1, worlds.All())
			require.NoError(t, err, "%s %v", sc.ID, set)
			for i, n := range tr.Narrations() {
				assert.NotContains(t, n, "%!", "%s %v step %d", sc.ID, set, i+1)
				assert.True(t, strings.HasSuffix(n, ".") || strings.HasSuffix(n, ")"), "%s %v step %d does not end a sentence: %q", sc.ID, set, i+1, n)
			}
			for _, c := range tr.Checks() {
				assert.NotContains(t, c.Detail, "%!", "%s %v check %s", sc.ID, set, c.Name)
			}
			for _, k := range tr.Final().Missing {
				assert.NotContains(t, hwm.Explain(tr, k, tr.Steps()), "%!", "%s %v explain %s", sc.ID, set, k)
			}
		}
	}
}
