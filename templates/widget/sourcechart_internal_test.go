//go:build !tm_stream

package widget

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestTicksStayFewOverAnySpan: the timeline's tick interval grows with its
// span, so a span of any length draws a handful of ticks. A clock jump of
// a million hours once drew half a million of them, 70 MB of HTML for one
// request.
func TestTicksStayFewOverAnySpan(t *testing.T) {
	for _, span := range []vtime.Time{1, 999, vtime.Time(vtime.Minute), vtime.Time(7 * vtime.Hour), vtime.Time(1_000_000 * vtime.Hour), vtime.Time(1e9 * vtime.Hour)} {
		every := tickEvery(span)
		assert.LessOrEqual(t, int64(span)/int64(every), int64(6), "span %d", span)
	}
	// A clock's readings stay within the day (a thousand jumps of 12h,
	// which once drew twelve thousand hours, now stop the run: see
	// engine.TestTimesStayWithinTheDay), so the longest span is the day's.
	head := `scenario test/jump "A clock that jumps twelve hours"
source orders key=order_id updated_at=commit
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
txn T1 begin=00:00:01 commit=00:00:01 insert order_id=1
`
	tail := `txn T2 begin=10:00:03 commit=10:00:03 insert order_id=2
run extract at=10:00:04
`
	s, err := Open("tm", head+"jump source at=10:00:02 by=12h\n"+tail, "jump.tdm", "/play", nil, false, worlds.All())
	require.NoError(t, err)
	finish(t, s, 1000)
	for _, step := range []int{1, s.trace.Steps()} {
		s.st.Step = step
		v := s.View(true)
		// The timeline's ticks and the other panels' (14 in all here),
		// where a tick every two hours made 50,000.
		assert.LessOrEqual(t, strings.Count(v.HTML, `class="tm-tick`), 30, "step %d", step)
		assert.Less(t, len(v.HTML), 200_000, "step %d", step)
	}
}
