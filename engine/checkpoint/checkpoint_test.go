package checkpoint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/vtime"
)

func TestGridNext(t *testing.T) {
	g := checkpoint.Grid{From: vtime.Time(36_010_000), Every: 10 * vtime.Second} // 10:00:10 every 10 s
	for _, tc := range []struct{ at, want vtime.Time }{
		{0, 36_010_000},
		{36_009_999, 36_010_000},
		{36_010_000, 36_020_000}, // strictly after
		{36_015_000, 36_020_000},
		{36_020_001, 36_030_000},
	} {
		assert.Equal(t, tc.want, g.Next(tc.at), "after %s", tc.at)
	}
}

// Resume, by hand: a position inside the log is read from; one that
// retention deleted is reset as auto.offset.reset says, or fails.
func TestResume(t *testing.T) {
	for _, tc := range []struct {
		name            string
		pos, start, end int64
		reset           checkpoint.Reset
		want            checkpoint.Resumed
	}{
		{"inside", 40, 0, 60, checkpoint.None, checkpoint.Resumed{Next: 40}},
		{"at the start", 30, 30, 60, checkpoint.None, checkpoint.Resumed{Next: 30}},
		{"at the end", 60, 30, 60, checkpoint.None, checkpoint.Resumed{Next: 60}},
		{"deleted, earliest", 60, 180, 420, checkpoint.Earliest, checkpoint.Resumed{Next: 180, Skipped: 120, Gone: true}},
		{"deleted, latest", 60, 180, 420, checkpoint.Latest, checkpoint.Resumed{Next: 420, Skipped: 360, Gone: true}},
		{"deleted, none", 60, 180, 420, checkpoint.None, checkpoint.Resumed{Next: 60, Gone: true, Failed: true}},
		{"past the end, earliest", 500, 0, 420, checkpoint.Earliest, checkpoint.Resumed{Next: 0, Gone: true}},
	} {
		assert.Equal(t, tc.want, checkpoint.Resume(tc.pos, tc.start, tc.end, tc.reset), tc.name)
	}
}

// Recover: a restore commits the pre-committed transactions of the
// checkpoint it restores and of earlier ones, and aborts every other.
func TestRecover(t *testing.T) {
	for _, tc := range []struct {
		name     string
		txn      checkpoint.Txn
		restored int32
		want     checkpoint.Verdict
	}{
		{"prepared for the restored checkpoint", checkpoint.Txn{ID: 4, State: checkpoint.PreCommitted}, 4, checkpoint.Commit},
		{"prepared for an earlier one", checkpoint.Txn{ID: 3, State: checkpoint.PreCommitted}, 4, checkpoint.Commit},
		{"prepared for one that never completed", checkpoint.Txn{ID: 5, State: checkpoint.PreCommitted}, 4, checkpoint.Abort},
		{"prepared, no checkpoint to restore", checkpoint.Txn{ID: 1, State: checkpoint.PreCommitted}, 0, checkpoint.Abort},
		{"open", checkpoint.Txn{ID: 5, State: checkpoint.Open}, 4, checkpoint.Abort},
		{"committed already", checkpoint.Txn{ID: 2, State: checkpoint.Committed}, 4, checkpoint.Keep},
		{"aborted already", checkpoint.Txn{ID: 5, State: checkpoint.Aborted}, 4, checkpoint.Keep},
	} {
		assert.Equal(t, tc.want, checkpoint.Recover(tc.txn, tc.restored), tc.name)
	}
}

func TestParseReset(t *testing.T) {
	for _, s := range []string{"earliest", "latest", "none"} {
		r, ok := checkpoint.ParseReset(s)
		assert.True(t, ok)
		assert.Equal(t, s, r.String())
	}
	_, ok := checkpoint.ParseReset("oldest")
	assert.False(t, ok)
}
