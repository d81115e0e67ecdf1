package logs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCommitWhenWordsEachCause: a commit's cause, not a phrase matched
// afterwards, says when it runs, in the group's own verb for its work.
func TestCommitWhenWordsEachCause(t *testing.T) {
	for _, c := range []struct {
		why        noteKind
		untargeted bool
		want       string
	}{
		{noteCommitAfter, false, "after writing the batch"},
		{noteCommitAfter, true, "after processing the batch"},
		{noteCommitBefore, false, "before writing the batch"},
		{noteCommitBefore, true, "before processing the batch"},
		{noteCommitReset, false, "where the reset left it"},
		{noteCommitReset, true, "where the reset left it"},
	} {
		ing, _ := work(c.untargeted)
		assert.Equal(t, c.want, commitWhen(c.why, ing))
	}
}
