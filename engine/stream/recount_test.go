package stream_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// The operator fires the windows a watermark passes as the watermark
// reaches it, before anyone can read the table, though the trace tells the
// watermark and each firing in steps of their own at one instant. What a
// recount of the closed windows sees must not show the steps between: a
// window that differs from its recount at a step differs at the end of the
// instant before or at the end of its own. Every bundled stream scenario
// under every knob setting.
func TestRecountNeverSeesAWindowHalfFired(t *testing.T) {
	scs, err := lessons.Scenarios()
	require.NoError(t, err)
	compared := 0
	for _, sc := range scs {
		if !strings.HasPrefix(sc.ID, "stream/") {
			continue
		}
		for _, knobs := range sc.File.KnobSettings() {
			tr, err := engine.Run(sc.File, knobs, 1, worlds.All())
			require.NoError(t, err)
			wrong := func(n int) map[string]bool {
				out := map[string]bool{}
				if o := tr.ObserveAt(n); o.Stream != nil {
					for _, w := range o.Stream.Windows {
						if !w.Counted {
							continue
						}
						compared++
						if len(w.Written) == 0 && w.Recount != 0 || len(w.Written) > 0 && w.Written[len(w.Written)-1] != w.Recount {
							out[w.Operator+" "+w.Key] = true
						}
					}
				}
				return out
			}
			before := map[string]bool{} // the windows that differed at the end of the instant before
			for n := 1; n <= tr.Steps(); n++ {
				if n < tr.Steps() && tr.TimeAt(n+1) == tr.TimeAt(n) {
					continue // judged from the instant's last step, below
				}
				end := wrong(n)
				for k := n - 1; k >= 1 && tr.TimeAt(k) == tr.TimeAt(n); k-- {
					for w := range wrong(k) {
						assert.True(t, before[w] || end[w], "%s %v: window %s differs from its recount at step %d, but neither at the end of the instant before nor at %d, the end of its own", sc.ID, fmt.Sprint(knobs), w, k, n)
					}
				}
				before = end
			}
		}
	}
	require.Positive(t, compared, "no window was recounted")
}
