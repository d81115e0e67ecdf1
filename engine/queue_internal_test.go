package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
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

// TestKeyIDByNumberAgreesWithByText numbers keys that spell whole numbers
// by number and the rest by text, and gives a key the same id whichever way
// it is found: a number first met far past the others (so by text) keeps
// its id once the numbers reach it.
func TestKeyIDByNumberAgreesWithByText(t *testing.T) {
	w := &World{keyIDs: map[string]int32{}, trace: &Trace{}, budget: budget{limit: 1 << 30}}
	far := w.keyID(nil, "9000")
	require.Empty(t, w.numIDs, "9000 is far past any key numbered yet")
	ids := map[string]int32{"9000": far}
	for n := range 9001 {
		k := strconv.Itoa(n)
		id := w.keyID(nil, k)
		if want, ok := ids[k]; ok {
			require.Equal(t, want, id, "key %s", k)
		}
		ids[k] = id
	}
	require.Len(t, w.keys, 9001, "one id per key")
	require.Equal(t, far, w.keyID(nil, "9000"))
	for _, k := range []string{"007", "-7", "+7", "7.0", "1234567890", ""} {
		id := w.keyID(nil, k)
		require.NotEqual(t, ids["7"], id, "%q is a key of its own", k)
		require.Equal(t, id, w.keyID(nil, k), "%q keeps its id", k)
		require.Equal(t, k, w.trace.keyText[id])
	}
	require.Equal(t, 0, keyNumber("0"))
	require.Equal(t, 123456789, keyNumber("123456789"))
	require.Equal(t, -1, keyNumber("01"))
}
