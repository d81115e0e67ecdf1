package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/stream"
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
			// Every key a learner can click: the missing ones and every row
			// a target ever held, whichever world wrote it.
			keys := tr.Final().Missing
			for _, h := range tr.Targets {
				for _, r := range h.Rows {
					keys = append(keys, tr.RowKey(&r))
				}
			}
			for _, k := range keys {
				for _, n := range []int{tr.Steps() / 2, tr.Steps()} {
					why := hwm.Explain(tr, k, n)
					assert.NotContains(t, why, "%!", "%s %v explain %s", sc.ID, set, k)
					assert.True(t, strings.HasSuffix(why, "."), "%s %v explain %s at %d does not end a sentence: %q", sc.ID, set, k, n, why)
					if why := stream.Explain(tr, k, n); why != "" {
						assert.NotContains(t, why, "%!", "%s %v explain %s", sc.ID, set, k)
						assert.True(t, strings.HasSuffix(why, "."), "%s %v explain %s at %d does not end a sentence: %q", sc.ID, set, k, n, why)
					}
				}
			}
		}
	}
}
