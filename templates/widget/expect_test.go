package widget

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestExpectRunAgreesWithCheck: advanced in small chunks, the sandbox's
// run of the expect lines gives every bundled scenario the verdicts
// `tidemark check` gives it, claim by claim.
func TestExpectRunAgreesWithCheck(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		want, err := engine.CheckExpectations(sc.File, 1, worlds.All())
		require.NoError(t, err, sc.ID)
		r, err := NewExpectRun(string(sc.Source), sc.File.Name, worlds.All())
		require.NoError(t, err, sc.ID)
		for i := 0; !r.Advance(97); i++ {
			require.Less(t, i, 1_000_000, "%s never finished", sc.ID)
		}
		got := r.Results()
		require.Len(t, got, len(want), sc.ID)
		for i, o := range want {
			assert.Equal(t, o.Expectation.Pos.Line, got[i].Line, sc.ID)
			status := "pass"
			if o.Err != nil {
				status = "fail"
			}
			assert.Equal(t, status, got[i].Status, "%s: %s", sc.ID, got[i].Claim)
		}
	}
}

// TestExpectRunReports: a failing claim says what the run showed, a claim
// about other knob values names them, a run past the browser's budget is
// an error on its claims only, and bad expect lines are errors at their
// place.
func TestExpectRunReports(t *testing.T) {
	const src = `scenario sandbox/x "X"
knob mark = timestamp | lsn
source orders key=order_id updated_at=txn-start first-id=100
target fct sink=merge key=order_id
pipeline extract from=orders to=fct mark=$mark advance=after
txn T1 begin=10:00:00 commit=10:00:04 insert order_id=3
run extract at=10:00:02
run extract at=10:00:05
expect missing=3
expect missing=none when mark=lsn
expect missing=none
`
	r, err := NewExpectRun(src, "", worlds.All())
	require.NoError(t, err)
	assert.Equal(t, "", r.Results()[0].Status, "no status before the run")
	for !r.Advance(5) {
	}
	got := r.Results()
	require.Len(t, got, 3)
	assert.Equal(t, ExpectResult{Line: 9, Col: 8, Claim: "missing=3", Status: "pass"}, got[0])
	assert.Equal(t, ExpectResult{Line: 10, Col: 8, Claim: "missing=none when mark=lsn", Status: "pass"}, got[1])
	assert.Equal(t, "fail", got[2].Status)
	assert.Equal(t, "play.tdm:11:8: expected missing=none, got missing=3", got[2].Detail)

	// A knob that makes the run too large for the browser: the claims
	// about that run are errors, the others still have verdicts.
	big := src + "knob size = 10 | 5000000\nworkload orders txns=$size from=10:00:00 every=1ms\nexpect missing=3 when size=5000000\n"
	r, err = NewExpectRun(big, "", worlds.All())
	require.NoError(t, err)
	for !r.Advance(1000) {
	}
	got = r.Results()
	require.Len(t, got, 4)
	assert.Equal(t, "pass", got[1].Status, "%+v", got[1])
	assert.Equal(t, "error", got[3].Status, "%+v", got[3])
	assert.Contains(t, got[3].Detail, "the limit here is 2000000")

	// A line that does not read is an error of its own, and the others are
	// checked all the same.
	r, err = NewExpectRun(src+"expect missing=3 when colour=blue\nexpect mising=2\n", "", worlds.All())
	require.NoError(t, err)
	for !r.Advance(5) {
	}
	got = r.Results()
	require.Len(t, got, 5)
	assert.Equal(t, []string{"pass", "pass", "fail", "error", "error"}, []string{got[0].Status, got[1].Status, got[2].Status, got[3].Status, got[4].Status})
	assert.Equal(t, 12, got[3].Line)
	assert.Equal(t, "missing=3 when colour=blue", got[3].Claim)
	assert.Contains(t, got[3].Detail, `play.tdm:12:23: unknown knob "colour" after when`)
	assert.Equal(t, 13, got[4].Line)
	assert.Contains(t, got[4].Detail, `play.tdm:13:8: unknown claim "mising"`)

	r, err = NewExpectRun("scenario sandbox/y \"Y\"\nsource orders key=order_id\n", "", worlds.All())
	require.NoError(t, err)
	assert.True(t, r.Advance(1), "no expect lines: done at once")
	assert.Empty(t, r.Results())
}
