package logs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReadableFollowsTheRegistrysPromise: code reads the records of its own
// version always, and another version's only where the topic's rule
// promises it (versions less one, as Record.Schema holds them).
func TestReadableFollowsTheRegistrysPromise(t *testing.T) {
	for _, c := range []struct {
		compat          string
		reader, written uint8
		want            bool
	}{
		{compatBackward, 0, 0, true},
		{compatBackward, 1, 0, true},  // newer code, older record: promised
		{compatBackward, 0, 1, false}, // older code, newer record: not
		{compatBackward, 0, 5, false},
		{compatForward, 0, 1, true},
		{compatForward, 1, 0, false},
		{compatForward, 3, 3, true},
		{compatFull, 0, 1, true},
		{compatFull, 4, 0, true},
	} {
		assert.Equal(t, c.want, readable(c.compat, c.reader, c.written), "%s: code for %d reading a record of %d", c.compat, c.reader+1, c.written+1)
	}
}
