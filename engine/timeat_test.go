package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine/vtime"
)

// TestTimeAt: a step's time is its event's; before the first step it is
// 0, past the end the last step's, and a run of no step (a topic and
// nothing else) has 0 everywhere.
func TestTimeAt(t *testing.T) {
	tr := runStream(t, "scenario t/time \"Time\"\ntopic t\nproducer p to=t key=id\ntraffic p records=3 from=10:00:00 every=1s keys=unique\n", 1)
	n := tr.Steps()
	assert.Positive(t, n)
	assert.Equal(t, vtime.Time(0), tr.TimeAt(0))
	for i := 1; i <= n; i++ {
		assert.Equal(t, tr.Events[i-1].At, tr.TimeAt(i), "step %d", i)
	}
	assert.Equal(t, tr.Events[n-1].At, tr.TimeAt(n+5))
	assert.Equal(t, vtime.Time(0), tr.TimeAt(-1))

	empty := runStream(t, "scenario t/empty \"Empty\"\ntopic t\n", 1)
	assert.Equal(t, 0, empty.Steps())
	assert.Equal(t, vtime.Time(0), empty.TimeAt(empty.Steps()))
	assert.Equal(t, vtime.Time(0), empty.TimeAt(3))
}
