package engine

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/vtime"
)

// TestPlanPopsInTimeAndQueueingOrder queues random events before a world
// starts and more while it runs, some at instants already queued, and finds
// that the plan hands them out in (time, order of queueing) order, as one
// heap of all of them would.
func TestPlanPopsInTimeAndQueueingOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for round := range 50 {
		var p plan
		var seq uint64
		push := func(at vtime.Time) {
			seq++
			p.q.push(scheduled{at: at, seq: seq})
		}
		for range r.IntN(200) {
			push(vtime.Time(r.IntN(50)))
		}
		p.start()
		var got []scheduled
		now := vtime.Time(0)
		for p.len() > 0 {
			require.Equal(t, p.first(), func() scheduled { c := p; c.q = slices.Clone(p.q); return c.pop() }(), "round %d: first is what pop returns", round)
			s := p.pop()
			require.GreaterOrEqual(t, s.at, now, "round %d: time never goes back", round)
			now = s.at
			got = append(got, s)
			for range r.IntN(3) {
				if len(got) < 400 {
					push(now + vtime.Time(r.IntN(10)))
				}
			}
		}
		require.True(t, slices.IsSortedFunc(got, func(a, b scheduled) int {
			if a.before(b) {
				return -1
			}
			return 1
		}), "round %d: popped in (at, seq) order", round)
		require.Len(t, got, int(seq), "round %d: every event once", round)
	}
}
