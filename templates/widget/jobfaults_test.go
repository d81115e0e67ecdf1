//go:build !tm_hwm && !tm_log

package widget

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web/htmltest"
)

// stepAtTime is the last step of tr at or before the true time at.
func stepAtTime(t *testing.T, tr *engine.Trace, at string) int {
	t.Helper()
	want, err := vtime.ParseTime(at)
	require.NoError(t, err)
	n := 0
	for i, e := range tr.Events {
		if e.At > want {
			break
		}
		n = i + 1
	}
	require.Positive(t, n)
	return n
}

// Failing the job from the widget at the current step forks the run: the
// fork is the engine's run with the same fault, the job restores its
// latest checkpoint, and an append sink writes the block since then twice.
func TestSessionFailTheJobNow(t *testing.T) {
	s := open(t, "stream/checkpoint-two-phase", "crash=never&commit=auto")
	require.Empty(t, stream.Of(s.trace).Job.Failures)
	at := stepAtTime(t, s.trace, "10:00:25")
	_, err := s.Act("seek", fmt.Sprint(at))
	require.NoError(t, err)
	rerun, err := s.Act("fail", "load now")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 500)
	want := engine.Fault{AfterStep: at, Kind: stream.FaultFail, Stream: "load", Point: "now", For: failRestart}
	assert.Equal(t, []engine.Fault{want}, s.trace.Faults)
	st := stream.Of(s.trace)
	require.Len(t, st.Job.Failures, 1)
	assert.Equal(t, int32(at+1), st.Job.Failures[0].Step, "the job fails right after the step on screen")
	require.Len(t, st.Job.Restores, 1)
	assert.Equal(t, int32(2), st.Job.Restores[0].From, "it restores the checkpoint of 10:00:20")
	assert.NotEmpty(t, s.trace.Final().Duplicated, "auto-commit writes the block since the checkpoint twice")
	sc, _ := lessons.Lookup("stream/checkpoint-two-phase")
	direct, err := engine.RunWithFaults(sc.File, s.knobs, 1, worlds.All(), []engine.Fault{want})
	require.NoError(t, err)
	assert.Equal(t, reportOf(t, direct), reportOf(t, s.trace))

	// The link carries the fault, and reading it back gives the same fault.
	v, _ := view(t, s)
	assert.Contains(t, v.Query, "fault="+fmt.Sprint(at)+"~fail~load~now~5s")
	f, err := ParseFault(FaultText(want))
	require.NoError(t, err)
	assert.Equal(t, want, f)
}

// A failure at a point of the next checkpoint: at its barrier the
// two-phase sink's open transaction is aborted; during its commit the
// restore commits what was prepared. Either way each row is visible once.
func TestSessionFailAtACheckpointPoint(t *testing.T) {
	for _, tc := range []struct {
		point   string
		aborted int
	}{{"barrier", 1}, {"snapshot", 1}, {"commit", 0}} {
		s := open(t, "stream/checkpoint-two-phase", "crash=never")
		_, err := s.Act("seek", fmt.Sprint(stepAtTime(t, s.trace, "10:00:12")))
		require.NoError(t, err)
		_, err = s.Act("fail", "load "+tc.point)
		require.NoError(t, err, tc.point)
		finish(t, s, 500)
		st := stream.Of(s.trace)
		require.Len(t, st.Job.Failures, 1, tc.point)
		assert.Equal(t, tc.point, st.Job.Failures[0].Point)
		assert.Equal(t, int32(2), st.Job.Failures[0].Ckpt, "%s: the checkpoint after the step", tc.point)
		_, aborted := st.TxnCounts(s.trace.Steps())
		assert.Equal(t, tc.aborted, aborted, tc.point)
		final := s.trace.Final()
		assert.Empty(t, final.Duplicated, tc.point)
		assert.Empty(t, final.Missing, tc.point)
	}
}

// Slowing an operator from the widget makes its buffer fill; bursting a
// key sends that many more records with the key.
func TestSessionSlowAndBurstAKey(t *testing.T) {
	s := open(t, "stream/backpressure", "overflow=block")
	oi := stream.Of(s.trace).OpNamed("load")
	before := stream.Of(s.trace).Ops[oi].Costs
	_, err := s.Act("seek", "5")
	require.NoError(t, err)
	_, err = s.Act("slow", "load")
	require.NoError(t, err)
	finish(t, s, 500)
	costs := stream.Of(s.trace).Ops[oi].Costs
	require.Greater(t, len(costs), len(before))
	assert.Equal(t, stream.CostPoint{Step: 6, Cost: slowBy}, costs[len(before)], "slowed right after the step on screen")

	s = open(t, "stream/hot-key", "")
	sent := 0
	for _, p := range logs.Of(s.trace).Topics[0].Parts {
		sent += int(p.End())
	}
	_, err = s.Act("seek", "20")
	require.NoError(t, err)
	_, err = s.Act("burst-key", "hot 7")
	require.NoError(t, err)
	finish(t, s, 500)
	after := 0
	for _, p := range logs.Of(s.trace).Topics[0].Parts {
		after += int(p.End())
	}
	assert.Equal(t, sent+burstKeyRecords, after)
	f := s.trace.Faults[0]
	assert.Equal(t, "7", f.Key)
	back, err := ParseFault(FaultText(f))
	require.NoError(t, err)
	assert.Equal(t, f, back)
}

// What a learner can get wrong is refused with a message, and the run is
// left as it was.
func TestSessionJobFaultErrors(t *testing.T) {
	s := open(t, "stream/checkpoint-append", "")
	for _, tc := range []struct{ action, arg, msg string }{
		{"fail", "nobody", `no stream or operator "nobody"`},
		{"fail", "load sideways", `not "sideways"`},
		{"slow", "", "needs a stream or an operator"},
		{"burst-key", "shop", "needs a producer and a key"},
		{"burst-key", "ghost 1", `no producer "ghost"`},
	} {
		rerun, err := s.Act(tc.action, tc.arg)
		assert.ErrorContains(t, err, tc.msg, "%s %s", tc.action, tc.arg)
		assert.False(t, rerun)
		assert.Empty(t, s.faults)
	}
	for _, text := range []string{"3~fail~load~now", "3~slow~load~0s~30s", "3~burst-key~shop~~5"} {
		_, err := ParseFault(text)
		assert.Error(t, err, text)
	}
}

// The job's fault buttons are drawn for a scenario with a job, offer each
// operator and stream and, with checkpoints, each point; none for the other worlds.
func TestJobFaultButtons(t *testing.T) {
	s := open(t, "stream/checkpoint-two-phase", "")
	_, d := view(t, s)
	d.One(t, "btn-fail")
	d.One(t, "btn-slow")
	d.One(t, "btn-burst-key")
	var whos, points []string
	for _, o := range d.ByTag("option") {
		switch {
		case htmltest.Attr(o.Parent, "data-testid") == "job-who":
			whos = append(whos, htmltest.Attr(o, "value"))
		case htmltest.Attr(o.Parent, "data-testid") == "job-point":
			points = append(points, htmltest.Attr(o, "value"))
		}
	}
	assert.Equal(t, []string{"load", "orders_in"}, whos)
	assert.Equal(t, []string{"now", "barrier", "snapshot", "commit"}, points)

	_, d = view(t, open(t, "hwm/visibility-gap", ""))
	assert.Empty(t, d.ByTestID("btn-fail"))
	_, d = view(t, open(t, "stream/late-data", ""))
	assert.Empty(t, d.ByTestID("btn-fail"), "part one's scenarios have no job to fail")
}

// Every id in the widget of a stream scenario is unique: the job's faults
// and the stream's sit side by side, and a label or a script that finds a
// control by its id must find the one beside it.
func TestStreamWidgetIDsAreUnique(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	checked := 0
	for _, sc := range all {
		if !strings.HasPrefix(sc.ID, "stream/") {
			continue
		}
		_, d := view(t, open(t, sc.ID, ""))
		seen := map[string]bool{}
		for _, n := range htmltest.All(d.Root, func(n *html.Node) bool { return htmltest.Attr(n, "id") != "" }) {
			id := htmltest.Attr(n, "id")
			assert.False(t, seen[id], "%s: id %q twice", sc.ID, id)
			seen[id] = true
		}
		checked++
	}
	assert.GreaterOrEqual(t, checked, 15)
}
