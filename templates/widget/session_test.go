package widget

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web/htmltest"
)

// Session tests are internal: they compare the session's trace with a run of
// the engine, which the page never sees directly.

func source(t testing.TB, id string) (src, name string) {
	t.Helper()
	sc, ok := lessons.Lookup(id)
	require.True(t, ok, id)
	return string(sc.Source), sc.File.Name
}

func reportOf(t testing.TB, tr *engine.Trace) string {
	t.Helper()
	require.NotNil(t, tr)
	b, err := json.Marshal(report.Build(tr))
	require.NoError(t, err)
	return string(b)
}

// finish advances s in chunks of budget until its run is complete, and
// returns how many calls it took.
func finish(t testing.TB, s *Session, budget int) int {
	t.Helper()
	for calls := 1; calls < 1<<20; calls++ {
		done, err := s.Advance(budget)
		require.NoError(t, err)
		if done {
			return calls
		}
	}
	t.Fatal("the run never completes")
	return 0
}

// open opens a bundled scenario and runs it to the end.
func open(t testing.TB, id, query string) *Session {
	t.Helper()
	src, name := source(t, id)
	q, err := url.ParseQuery(query)
	require.NoError(t, err)
	s, err := Open("tm", src, name, "/scenarios/"+id, q, false, worlds.All())
	require.NoError(t, err)
	finish(t, s, 1000)
	return s
}

// lostSlots returns the keys of the target's slots marked lost.
func lostSlots(d htmltest.Doc) []string {
	var out []string
	for _, n := range d.ByTestID("slot") {
		if htmltest.Attr(n, "data-state") == "lost" {
			out = append(out, htmltest.Attr(n, "data-key"))
		}
	}
	return out
}

// stageOf views the session's step and returns the stage it drew, whether
// the view sent it whole or as changes to the stage before.
func stageOf(t testing.TB, s *Session) string {
	t.Helper()
	v := s.View(false)
	require.Empty(t, v.HTML)
	require.NotNil(t, s.shown)
	if v.Stage != "" {
		assert.Equal(t, s.shown.html, v.Stage)
	}
	return s.shown.html
}

func view(t testing.TB, s *Session) (ViewResult, htmltest.Doc) {
	t.Helper()
	v := s.View(true)
	return v, htmltest.Parse(t, v.HTML)
}

func TestSessionAdvanceInChunksEqualsRun(t *testing.T) {
	for _, tc := range []struct {
		id    string
		knobs map[string]string
	}{
		{"hwm/visibility-gap", nil},
		{"hwm/visibility-gap", map[string]string{"mark": "lsn", "predicate": "gte"}},
		{"hwm/advance-order", map[string]string{"advance": "after", "sink": "append", "crash": "between"}},
		{"hwm/racing-workers", nil},
	} {
		src, name := source(t, tc.id)
		sc, _ := lessons.Lookup(tc.id)
		want, err := engine.Run(sc.File, tc.knobs, 1, worlds.All())
		require.NoError(t, err)
		q := url.Values{}
		for k, v := range tc.knobs {
			q.Set(k, v)
		}
		for _, budget := range []int{1, 2, 7, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%v/budget=%d", tc.id, tc.knobs, budget), func(t *testing.T) {
				s, err := Open("tm", src, name, "/scenarios/"+tc.id, q, false, worlds.All())
				require.NoError(t, err)
				assert.Equal(t, "the scenario is still running", s.View(false).Message)
				_, err = s.Act("seek", "1")
				assert.Error(t, err, "acting before the run is complete")
				calls := finish(t, s, budget)
				if budget < want.Steps() {
					assert.GreaterOrEqual(t, calls, want.Steps()/budget, "the run was not chunked")
				}
				assert.Equal(t, reportOf(t, want), reportOf(t, s.trace))
				// Advancing a finished session is a no-op.
				done, err := s.Advance(budget)
				assert.True(t, done)
				assert.NoError(t, err)
			})
		}
	}
}

func TestSessionOpen(t *testing.T) {
	src, name := source(t, "hwm/visibility-gap")
	_, err := Open("tm", "scenario x/y \"Broken\"\nsource\n", "play.tdm", "/play", url.Values{}, false, worlds.All())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "play.tdm:2:")

	q, _ := url.ParseQuery("mark=bogus&step=12&seed=1")
	s, err := Open("tm", src, name, "/scenarios/hwm/visibility-gap", q, false, worlds.All())
	require.NoError(t, err)
	finish(t, s, 5)
	v, d := view(t, s)
	assert.Equal(t, 12, v.Step)
	assert.Equal(t, 24, v.Steps)
	assert.Contains(t, v.Message, `knob mark cannot be "bogus"`)
	assert.Contains(t, htmltest.Text(d.One(t, "message")), "bogus")
	assert.True(t, htmltest.HasAttr(d.One(t, "knob-mark-timestamp"), "checked"))
	// In the browser the controls that need it are shown.
	assert.False(t, htmltest.HasAttr(d.One(t, "btn-play"), "hidden"))
	assert.False(t, htmltest.HasAttr(d.One(t, "faults"), "hidden"))
	assert.True(t, htmltest.HasAttr(d.One(t, "btn-undo"), "disabled"))
	assert.Equal(t, "?step=12", v.Query)
	assert.Equal(t, "/scenarios/hwm/visibility-gap?step=11", v.Back)
	assert.Equal(t, "/scenarios/hwm/visibility-gap?step=13", v.Forward)
	assert.Equal(t, "/scenarios/hwm/visibility-gap?step=0", v.Start)
	assert.Equal(t, "/scenarios/hwm/visibility-gap?step=24", v.End)

	// A step past the end is clamped once the run is known.
	q, _ = url.ParseQuery("step=400")
	s, err = Open("tm", src, name, "/x", q, true, worlds.All())
	require.NoError(t, err)
	finish(t, s, 3)
	assert.Equal(t, 24, s.View(false).Step)
}

func TestSessionSeekTruthExplain(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "")
	trace := s.trace

	rerun, err := s.Act("seek", "15")
	require.NoError(t, err)
	assert.False(t, rerun)
	v := s.View(false)
	assert.Equal(t, 15, v.Step)
	assert.Empty(t, v.HTML, "a step draws only the stage")
	assert.Equal(t, Narration(trace, 15), v.Narration)
	stage := htmltest.Parse(t, stageOf(t, s))
	assert.Equal(t, []string{"3", "4"}, lostSlots(stage))
	assert.Empty(t, stage.ByTestID("row-missing"), "the folded tables are not drawn live")
	assert.Same(t, trace, s.trace, "a seek does not re-run")

	for _, c := range []struct {
		arg  string
		want int
	}{{"-3", 0}, {"999", 24}, {"24", 24}, {"0", 0}} {
		_, err := s.Act("seek", c.arg)
		require.NoError(t, err)
		assert.Equal(t, c.want, s.View(false).Step, "seek %s", c.arg)
	}
	_, err = s.Act("seek", "ten")
	assert.ErrorContains(t, err, `step "ten" is not a number`)
	assert.Equal(t, 0, s.View(false).Step, "a bad seek keeps the step")

	_, _ = s.Act("seek", "15")
	rerun, err = s.Act("truth", "off")
	require.NoError(t, err)
	assert.False(t, rerun)
	v, d := view(t, s)
	assert.Empty(t, lostSlots(d))
	assert.Contains(t, v.Query, "truth=off")
	_, err = s.Act("truth", "on")
	require.NoError(t, err)
	_, d = view(t, s)
	assert.Len(t, lostSlots(d), 2)

	// Opening the tables draws them, with the stage's ghosts; folding them
	// again leaves them out.
	_, err = s.Act("text", "on")
	require.NoError(t, err)
	stage = htmltest.Parse(t, stageOf(t, s))
	assert.True(t, htmltest.HasAttr(stage.One(t, "text-equivalent"), "open"))
	assert.Equal(t, []string{"3", "4"}, keysOf(stage.ByTestID("row-missing")))
	_, err = s.Act("text", "off")
	require.NoError(t, err)
	stage = htmltest.Parse(t, stageOf(t, s))
	assert.Empty(t, stage.ByTestID("target-table"))

	rerun, err = s.Act("explain", "3")
	require.NoError(t, err)
	assert.False(t, rerun)
	stage = htmltest.Parse(t, stageOf(t, s))
	assert.Contains(t, htmltest.Text(stage.One(t, "explain")), "Why key 3?")
	_, err = s.Act("explain", "")
	require.NoError(t, err)
	stage = htmltest.Parse(t, stageOf(t, s))
	assert.Empty(t, stage.ByTestID("explain"))

	_, err = s.Act("dance", "")
	assert.ErrorIs(t, err, ErrUnknownAction)
	assert.Same(t, trace, s.trace)
}

func TestSessionKnobKeepsStepAndUndo(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=14")
	before := reportOf(t, s.trace)

	rerun, err := s.Act("knob", "mark=lsn")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 4)
	v, d := view(t, s)
	assert.Equal(t, 14, v.Step, "a knob change keeps the step")
	assert.True(t, v.CanUndo)
	assert.True(t, htmltest.HasAttr(d.One(t, "knob-mark-lsn"), "checked"))
	assert.False(t, htmltest.HasAttr(d.One(t, "knob-mark-timestamp"), "checked"))
	assert.Contains(t, v.Query, "mark=lsn")
	assert.Empty(t, d.ByTestID("panel-compare"), "a knob change is a new run, not a fork")
	sc, _ := lessons.Lookup("hwm/visibility-gap")
	want, err := engine.Run(sc.File, map[string]string{"mark": "lsn"}, 1, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, reportOf(t, want), reportOf(t, s.trace))

	// A bad value is refused and changes nothing.
	rerun, err = s.Act("knob", "mark=bogus")
	require.Error(t, err)
	assert.False(t, rerun)
	v = s.View(false)
	assert.Contains(t, v.Message, "bogus")
	assert.Equal(t, reportOf(t, want), reportOf(t, s.trace))
	_, err = s.Act("knob", "colour=red")
	assert.Error(t, err)

	// Undo restores the earlier knobs and step.
	_, _ = s.Act("seek", "20")
	rerun, err = s.Act("undo", "")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 4)
	v, d = view(t, s)
	assert.Equal(t, before, reportOf(t, s.trace))
	assert.Equal(t, 14, v.Step, "undo returns to the step of the change")
	assert.False(t, v.CanUndo)
	assert.True(t, htmltest.HasAttr(d.One(t, "knob-mark-timestamp"), "checked"))
	assert.NotContains(t, v.Query, "mark=")

	_, err = s.Act("undo", "")
	assert.ErrorContains(t, err, "nothing to undo")
}

func TestSessionCrash(t *testing.T) {
	s := open(t, "hwm/advance-order", "advance=after&sink=append&crash=none")
	orig := reportOf(t, s.trace)
	origTrace := s.trace

	// At step 0 no run is in flight: the crash is refused and nothing changes.
	before := s.View(true)
	rerun, err := s.Act("crash", "")
	require.ErrorIs(t, err, hwm.ErrIdle)
	assert.False(t, rerun)
	assert.Same(t, origTrace, s.trace)
	assert.Empty(t, s.faults)
	assert.Nil(t, s.world, "an idle crash starts no run")
	after := s.View(true)
	assert.Equal(t, "No extractor run is in flight at this step, so a crash would change nothing; step to a run's read or write first.", after.Message, "the error, written as a sentence")
	assert.False(t, after.CanUndo)
	assert.Equal(t, before.Step, after.Step)
	assert.Equal(t, before.Query, after.Query)
	assert.Equal(t, orig, reportOf(t, s.trace))

	// Inside the second run (after its write, before its mark): the crash forks the timeline.
	at := hwm.Of(s.trace).Runs[1].WriteStep
	require.Positive(t, at)
	_, err = s.Act("seek", fmt.Sprint(at))
	require.NoError(t, err)
	rerun, err = s.Act("crash", "")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 3)
	v, d := view(t, s)
	assert.Equal(t, at, v.Step)
	assert.True(t, v.CanUndo)
	assert.False(t, htmltest.HasAttr(d.One(t, "btn-undo"), "disabled"))
	d.One(t, "panel-compare")
	assert.Same(t, origTrace, s.original, "the original is kept for the comparison")
	assert.Equal(t, []engine.Fault{{AfterStep: at, Kind: hwm.FaultCrash}}, s.trace.Faults)
	sc, _ := lessons.Lookup("hwm/advance-order")
	want, err := engine.RunWithFaults(sc.File, s.knobs, 1, worlds.All(), []engine.Fault{{AfterStep: at, Kind: hwm.FaultCrash}})
	require.NoError(t, err)
	assert.Equal(t, reportOf(t, want), reportOf(t, s.trace))
	assert.NotEqual(t, orig, reportOf(t, s.trace))
	assert.Contains(t, reportOf(t, s.trace), "crashes at")

	_, err = s.Act("seek", "999")
	require.NoError(t, err)
	stage := htmltest.Parse(t, stageOf(t, s))
	assert.NotEmpty(t, stage.ByTestID("row-differs"), "the fork's end differs from the original's")

	// A fault before an earlier one is refused.
	_, err = s.Act("seek", fmt.Sprint(at-1))
	require.NoError(t, err)
	_, err = s.Act("jump", "-5s")
	assert.ErrorContains(t, err, "step order")
	assert.Len(t, s.faults, 1)

	// Undo restores the original run.
	rerun, err = s.Act("undo", "")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 3)
	v, d = view(t, s)
	assert.Equal(t, orig, reportOf(t, s.trace))
	assert.Empty(t, d.ByTestID("panel-compare"))
	assert.False(t, v.CanUndo)
	assert.Equal(t, at, v.Step)
}

func TestSessionClockJump(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=9")
	orig := reportOf(t, s.trace)
	for _, bad := range []string{"0s", "soon", ""} {
		rerun, err := s.Act("jump", bad)
		assert.ErrorContains(t, err, "a clock jump needs an amount", bad)
		assert.False(t, rerun)
	}
	// A jump the learner makes is held to the day a link's is, so that
	// reloading or sharing the page keeps it.
	for _, far := range []string{"24h1ms", "-25h", "100000h"} {
		rerun, err := s.Act("jump", far)
		assert.ErrorContains(t, err, "at most a day either way", far)
		assert.False(t, rerun)
		assert.Empty(t, s.faults)
	}
	rerun, err := s.Act("jump", "-5s")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 2)
	v, d := view(t, s)
	assert.Equal(t, 9, v.Step)
	assert.True(t, v.CanUndo)
	d.One(t, "panel-compare")
	require.Len(t, s.trace.Faults, 1)
	assert.Equal(t, engine.FaultClockJump, s.trace.Faults[0].Kind)
	assert.NotEqual(t, orig, reportOf(t, s.trace))

	// A second fault later in the run stacks on the first; undo pops one at a time.
	_, _ = s.Act("seek", "12")
	_, err = s.Act("jump", "+5s")
	require.NoError(t, err)
	finish(t, s, 2)
	assert.Len(t, s.trace.Faults, 2)
	_, err = s.Act("undo", "")
	require.NoError(t, err)
	finish(t, s, 2)
	assert.Len(t, s.trace.Faults, 1)
	v, d = view(t, s)
	d.One(t, "panel-compare")
	assert.Equal(t, 12, v.Step)
	_, err = s.Act("undo", "")
	require.NoError(t, err)
	finish(t, s, 2)
	assert.Equal(t, orig, reportOf(t, s.trace))
}

// TestSessionUndoToForkRecomputesOriginal: a knob change after a fault drops
// the fault; undoing it brings back the fork, which needs its original again.
func TestSessionUndoToForkRecomputesOriginal(t *testing.T) {
	s := open(t, "hwm/advance-order", "advance=after&sink=append&crash=none")
	at := hwm.Of(s.trace).Runs[1].WriteStep
	_, _ = s.Act("seek", fmt.Sprint(at))
	_, err := s.Act("crash", "")
	require.NoError(t, err)
	finish(t, s, 5)
	fork := reportOf(t, s.trace)
	orig := reportOf(t, s.original)

	_, err = s.Act("knob", "sink=merge")
	require.NoError(t, err)
	finish(t, s, 5)
	_, d := view(t, s)
	assert.Empty(t, d.ByTestID("panel-compare"))

	_, err = s.Act("undo", "")
	require.NoError(t, err)
	finish(t, s, 5)
	_, d = view(t, s)
	d.One(t, "panel-compare")
	assert.Equal(t, fork, reportOf(t, s.trace))
	assert.Equal(t, orig, reportOf(t, s.original))
}

func TestSessionRefusedFaultRestoresRun(t *testing.T) {
	// A clock the scenario does not have: the fault is accepted by Act (it
	// cannot know) and refused while running; the previous run comes back.
	s := open(t, "hwm/visibility-gap", "step=3")
	orig := reportOf(t, s.trace)
	s.faults = nil
	s.push()
	s.faults = []engine.Fault{{AfterStep: 3, Kind: engine.FaultClockJump, Clock: "nowhere", By: 5000}}
	require.NoError(t, s.start())
	var err error
	for done := false; !done; {
		done, err = s.Advance(2)
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unknown clock")
	assert.Equal(t, orig, reportOf(t, s.trace))
	assert.Contains(t, s.View(false).Message, "Unknown clock")
	assert.False(t, s.View(false).CanUndo)
}

func keysOf(nodes []*html.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, htmltest.Attr(n, "data-key"))
	}
	return out
}

func TestSortKeysMatchesEngineOrder(t *testing.T) {
	keys := []string{"10", "b", "2", "-3", "a", "007", "1", "A", "9223372036854775807", "99999999999999999999", "x1", "0"}
	sortKeys(keys)
	assert.True(t, slices.IsSortedFunc(keys, mvcc.CompareKeys), "%q", keys)
	assert.Equal(t, "-3", keys[0])
	assert.Equal(t, "x1", keys[len(keys)-1])
}

const largeSource = `scenario gen/large "Generated"
source orders key=order_id clock=source updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
workload orders txns=400 from=10:00:00 every=200ms duration=0s..3s
runs extract every=5s from=10:00:00 until=10:30:00
check gap-scan
check uniqueness
check monotonicity
`

func openLarge(t *testing.T, query string) *Session {
	t.Helper()
	q, err := url.ParseQuery(query)
	require.NoError(t, err)
	s, err := Open("tm", largeSource, "gen.tdm", "/g", q, false, worlds.All())
	require.NoError(t, err)
	finish(t, s, 500)
	require.True(t, s.large)
	return s
}

func checksOf(t *testing.T, stage string) (pending bool, names, statuses []string, text string) {
	t.Helper()
	d := htmltest.Parse(t, stage)
	ul, state := d.One(t, "checks"), d.One(t, "checks-state")
	for _, li := range htmltest.All(ul, func(n *html.Node) bool { return htmltest.HasAttr(n, "data-check") }) {
		names = append(names, htmltest.Attr(li, "data-check"))
		statuses = append(statuses, htmltest.Attr(li, "data-status"))
	}
	return htmltest.Attr(state, "aria-busy") == "true", names, statuses, htmltest.Text(state) + " " + htmltest.Text(ul)
}

// TestSessionLargeTraceChecksAfterDrawing: a step of a large trace is drawn
// at once and its checks run in a second call, which the page makes.
func TestSessionLargeTraceChecksAfterDrawing(t *testing.T) {
	s := openLarge(t, "step=900")
	assert.False(t, isLarge(open(t, "hwm/visibility-gap", "").trace), "a lesson's trace is not large")

	v := s.View(true)
	require.True(t, v.Pending, "the first view of a large trace waits for its checks")
	pending, names, _, text := checksOf(t, v.HTML)
	assert.True(t, pending)
	assert.Empty(t, names)
	assert.Contains(t, text, "Running the checks at this step")

	// A fill for another step than the one on screen does nothing.
	_, err := s.Act("fill", "899")
	require.NoError(t, err)
	assert.True(t, s.View(false).Pending)

	_, err = s.Act("fill", "900")
	require.NoError(t, err)
	// Only the checks panel changed: the view sends it alone, to replace.
	v = s.View(false)
	assert.False(t, v.Pending)
	require.NotEmpty(t, v.Ops)
	for _, op := range v.Ops {
		assert.True(t, strings.HasPrefix(op[1].(string), "checks-"), "a fill changes the checks panel and nothing else: %v", op[1])
		if h, ok := op[2].(string); ok {
			assert.Contains(t, s.shown.html, h)
		}
	}
	pending, names, statuses, _ := checksOf(t, s.shown.html)
	assert.False(t, pending)
	var wantNames, wantStatuses []string
	for _, c := range s.trace.ChecksAt(900) {
		wantNames, wantStatuses = append(wantNames, c.Name), append(wantStatuses, string(c.Status))
	}
	assert.Equal(t, wantNames, names)
	assert.Equal(t, wantStatuses, statuses)

	// The next step shows the verdicts it has, saying which step they are from.
	_, err = s.Act("seek", "901")
	require.NoError(t, err)
	stage := stageOf(t, s)
	require.True(t, s.View(false).Pending)
	pending, names, _, text = checksOf(t, stage)
	assert.True(t, pending)
	assert.Equal(t, wantNames, names)
	assert.Contains(t, text, "these are the verdicts at step 900")

	// Back at a step already checked: no wait.
	_, _ = s.Act("seek", "900")
	assert.False(t, s.View(false).Pending)

	// A fill keeps the message on screen (here: a refused crash).
	_, _ = s.Act("seek", "0")
	_, err = s.Act("crash", "")
	require.ErrorIs(t, err, hwm.ErrIdle)
	require.True(t, s.View(false).Pending)
	_, err = s.Act("fill", "0")
	require.NoError(t, err)
	v = s.View(false)
	assert.False(t, v.Pending)
	assert.Equal(t, Sentence(hwm.ErrIdle.Error()), v.Message)

	// A knob change starts over: nothing cached for the new run.
	s = openLarge(t, "step=900")
	_, _ = s.Act("fill", "900")
	_, err = s.Act("truth", "off")
	require.NoError(t, err)
	assert.False(t, s.View(false).Pending, "the truth toggle does not change the checks")
	_, err = s.Act("knob", "nonexistent=1")
	require.Error(t, err)
	assert.False(t, s.View(false).Pending)
}

// TestSessionUndoToForkRunsOriginalInChunks: returning to a fork by undo
// needs the run without faults again; it is run in chunks, like the fork.
func TestSessionUndoToForkRunsOriginalInChunks(t *testing.T) {
	s := open(t, "hwm/advance-order", "advance=after&sink=append&crash=none")
	steps := s.trace.Steps()
	_, _ = s.Act("seek", fmt.Sprint(hwm.Of(s.trace).Runs[1].WriteStep))
	_, err := s.Act("crash", "")
	require.NoError(t, err)
	finish(t, s, 1000)
	_, err = s.Act("knob", "sink=merge")
	require.NoError(t, err)
	finish(t, s, 1000)
	_, err = s.Act("undo", "")
	require.NoError(t, err)

	calls := finish(t, s, 1)
	assert.Greater(t, calls, s.trace.Steps()+steps/2, "the original was run in one call")
	_, d := view(t, s)
	d.One(t, "panel-compare")
	sc, _ := lessons.Lookup("hwm/advance-order")
	want, err := engine.Run(sc.File, s.knobs, 1, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, reportOf(t, want), reportOf(t, s.original))
}

// TestSessionAddPartition forks partition-change in its middle with one more
// partition; the comparison shows keys whose version differs.
func TestSessionAddPartition(t *testing.T) {
	s := open(t, "dist/partition-change", "step=13")
	orig := reportOf(t, s.trace)
	origTrace := s.trace

	_, err := s.Act("add-partition", "orders")
	assert.ErrorContains(t, err, `no topic "orders"`)
	assert.Empty(t, s.faults)

	rerun, err := s.Act("add-partition", "customers")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 4)
	v, d := view(t, s)
	assert.Equal(t, 13, v.Step)
	assert.True(t, v.CanUndo)
	d.One(t, "panel-compare")
	assert.Same(t, origTrace, s.original)
	want := engine.Fault{AfterStep: 13, Kind: logs.FaultAddPartition, Topic: "customers"}
	assert.Equal(t, []engine.Fault{want}, s.trace.Faults)
	sc, _ := lessons.Lookup("dist/partition-change")
	ref, err := engine.RunWithFaults(sc.File, s.knobs, 1, worlds.All(), []engine.Fault{want})
	require.NoError(t, err)
	assert.Equal(t, reportOf(t, ref), reportOf(t, s.trace))
	assert.NotEqual(t, orig, reportOf(t, s.trace))
	assert.Contains(t, s.trace.Narration(&s.trace.Events[13]), "raises customers from 6 to 7 partitions")

	_, err = s.Act("seek", "999")
	require.NoError(t, err)
	stage := htmltest.Parse(t, stageOf(t, s))
	assert.Len(t, stage.ByTestID("lane"), 7, "the fork's log has the added partition")
	differs := stage.ByTestID("row-differs")
	require.NotEmpty(t, differs, "the fork leaves other versions than the original")
	assert.Contains(t, htmltest.Text(differs[0]), "another version")

	rerun, err = s.Act("undo", "")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 4)
	_, d = view(t, s)
	assert.Equal(t, orig, reportOf(t, s.trace))
	assert.Empty(t, d.ByTestID("panel-compare"))
}

// TestSessionPause pauses the consumer that polls next after the step.
func TestSessionPause(t *testing.T) {
	s := open(t, "dist/partition-change", "step=13")
	orig := reportOf(t, s.trace)

	_, err := s.Act("pause", "billing")
	assert.ErrorContains(t, err, `no consumer group "billing"`)
	_, err = s.Act("pause", "serving 0s")
	assert.ErrorContains(t, err, "a pause needs a positive length")
	_, err = s.Act("pause", "serving 1000000h")
	assert.ErrorContains(t, err, "a pause needs a positive length of at most a day")

	rerun, err := s.Act("pause", "serving")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 4)
	// c2 polls next (at 10:00:08); it is paused for 30s from 10:00:05.
	require.Equal(t, []engine.Fault{{AfterStep: 13, Kind: logs.FaultPause, Group: "serving", Member: "c2", For: 30 * vtime.Second}}, s.trace.Faults)
	assert.Contains(t, s.trace.Narration(&s.trace.Events[13]), "c2 pauses fetching until 10:00:35")
	assert.NotEqual(t, orig, reportOf(t, s.trace))
	assert.Contains(t, reportOf(t, s.trace), "is paused (until 10:00:35) and fetches nothing")
	// The run ends before the pause: the ending says so, since the rows
	// c2 holds back then look lost.
	ended := htmltest.Parse(t, s.View(true).HTML)
	assert.Equal(t, "Still paused when the scenario ends at "+s.trace.TimeAt(s.trace.Steps()).String()+": serving/c2 until 10:00:35. What it has not read is missing only because the run stops first; a shorter pause shows it resume.",
		htmltest.Text(ended.One(t, "paused-past-end")))
	short := open(t, "dist/partition-change", "step=13")
	_, err = short.Act("pause", "serving 1s")
	require.NoError(t, err)
	finish(t, short, 4)
	require.Len(t, short.trace.Faults, 1)
	assert.Empty(t, htmltest.Parse(t, short.View(true).HTML).ByTestID("paused-past-end"), "a pause the run outlasts is not said")
	_, err = s.Act("seek", "999")
	require.NoError(t, err)
	stage := htmltest.Parse(t, stageOf(t, s))
	assert.NotEmpty(t, stage.ByTestID("row-differs"))

	// After the last poll nobody polls again: a pause is refused and changes nothing.
	n := s.trace.Steps()
	_, err = s.Act("seek", fmt.Sprint(n))
	require.NoError(t, err)
	before := reportOf(t, s.trace)
	_, err = s.Act("pause", "serving")
	assert.ErrorContains(t, err, "no consumer of serving polls after this step")
	assert.Equal(t, before, reportOf(t, s.trace))
	assert.Contains(t, s.View(false).Message, "No consumer of serving polls")

	// A member not yet in the group at the step: the engine refuses it and the run comes back.
	s = open(t, "dist/partition-change", "step=0")
	orig = reportOf(t, s.trace)
	rerun, err = s.Act("pause", "serving/c1")
	require.NoError(t, err)
	require.True(t, rerun)
	for done := false; !done; {
		done, err = s.Advance(3)
	}
	assert.ErrorContains(t, err, "c1 is not a member of serving at this step")
	assert.Equal(t, orig, reportOf(t, s.trace))
	assert.False(t, s.View(false).CanUndo)

	// A scenario without a log has no consumer to pause.
	s = open(t, "hwm/visibility-gap", "step=3")
	_, err = s.Act("pause", "serving")
	assert.ErrorIs(t, err, logs.ErrNoLog)
	_, err = s.Act("add-partition", "orders")
	assert.ErrorIs(t, err, logs.ErrNoLog)
}

// rereads is a sandbox scenario whose lines fit the browser's budget but
// whose runs, with an hour's overlap, read and write 2,000 rows each: with
// overlap=1h it passes BrowserBudget while running.
const rereads = `scenario sandbox/rereads "Rereads"
knob overlap = 0s | 1h
source orders key=order_id
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp overlap=$overlap
txn T1 begin=10:00:00 commit=10:00:00 insert count=2000
runs extract from=10:00:01 until=10:10:00 every=1s
`

// TestSessionStopsAtTheBrowserBudget: a visitor's scenario that would pass
// the browser's work budget while running stops there; the session shows
// the error, not a trace whose rows look missing only because it stopped.
func TestSessionStopsAtTheBrowserBudget(t *testing.T) {
	s, err := Open("play", strings.Replace(rereads, "0s | 1h", "1h | 0s", 1), "play.tdm", "/play", Values{}, false, worlds.All())
	require.NoError(t, err, "its lines fit")
	var done bool
	for calls := 0; !done && calls < 1<<20; calls++ {
		done, err = s.Advance(100_000)
		if err != nil {
			break
		}
	}
	var be *engine.BudgetError
	require.ErrorAs(t, err, &be)
	assert.True(t, be.Running)
	assert.Equal(t, BrowserBudget, be.Limit)
	assert.Equal(t, err, s.Stopped())
	v := s.View(true)
	assert.Empty(t, v.HTML)
	assert.Equal(t, err.Error(), v.Message)
	assert.Contains(t, v.Message, "the limit here is 2000000")
}

// TestSessionKnobPastTheBudgetKeepsTheRunBefore: flipping a knob to a
// setting that passes the budget while running keeps the run before the
// flip on screen and says why. (The budget is a tenth of the browser's, to
// keep the test short; the test above uses the browser's own.)
func TestSessionKnobPastTheBudgetKeepsTheRunBefore(t *testing.T) {
	s, err := Open("play", rereads, "play.tdm", "/play", Values{}, false, worlds.All())
	require.NoError(t, err)
	s.budget = BrowserBudget / 10
	require.NoError(t, s.start())
	finish(t, s, 100_000)
	before := s.trace
	rerun, err := s.Act("knob", "overlap=1h")
	require.NoError(t, err)
	require.True(t, rerun)
	for done := false; !done; {
		done, err = s.Advance(100_000)
		if err != nil {
			break
		}
	}
	var be *engine.BudgetError
	require.ErrorAs(t, err, &be)
	assert.Nil(t, s.Stopped(), "the session still has a run to show")
	assert.NotEqual(t, "1h", s.knobs["overlap"], "the knob is back as it was")
	assert.Equal(t, reportOf(t, before), reportOf(t, s.trace))
	v := s.View(true)
	assert.NotEmpty(t, v.HTML)
	assert.Equal(t, err.Error()+".", v.Message, "a file's name keeps its case; the message ends a sentence")
}

// TestCheckSourceRefusesPastTheBrowserBudget: the sandbox's check as the
// visitor types names the line that would pass the browser's budget.
func TestCheckSourceRefusesPastTheBrowserBudget(t *testing.T) {
	_, err := CheckSource(strings.Replace(rereads, "runs extract", "workload txns=10000000 from=10:00:00 every=1ms\nruns extract", 1), "", worlds.All())
	var be *engine.BudgetError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "play.tdm:7:1: this scenario would schedule more than 2000000 events, rows, keys, partitions and runs; the limit here is 2000000", err.Error())
}

// TestSessionKeyRangeAtTheEdgeOfInt64 plays, in the browser's session, the
// key range that used to hang the engine: one key, the largest int64.
func TestSessionKeyRangeAtTheEdgeOfInt64(t *testing.T) {
	src := strings.Replace(rereads, "insert count=2000", "insert order_id=9223372036854775807..9223372036854775807", 1)
	s, err := Open("play", src, "play.tdm", "/play", Values{}, false, worlds.All())
	require.NoError(t, err)
	finish(t, s, 1000)
	assert.Contains(t, s.View(true).HTML, "9223372036854775807")
}

// TestSessionSendsChangesForAStepAndTheStageForAJump: a step to a
// neighbour is sent as changes to the stage on screen (so its rows can
// move); a jump across a large trace, which changes most of the stage, is
// sent whole.
func TestSessionSendsChangesForAStepAndTheStageForAJump(t *testing.T) {
	s := openLarge(t, "step=900")
	s.View(true)
	_, err := s.Act("seek", "901")
	require.NoError(t, err)
	v := s.View(false)
	assert.NotEmpty(t, v.Ops)
	assert.Empty(t, v.Stage)
	_, err = s.Act("seek", "60")
	require.NoError(t, err)
	v = s.View(false)
	assert.Empty(t, v.Ops)
	assert.NotEmpty(t, v.Stage, "a jump far back sends the stage whole")
	_, err = s.Act("seek", "59")
	require.NoError(t, err)
	assert.NotEmpty(t, s.View(false).Ops, "and the next step is changes to it again")
}

// TestSessionStreamFaults stalls and delays a stream's partition and bursts a
// producer from the widget; each forks the run with the fault a link carries.
func TestSessionStreamFaults(t *testing.T) {
	s := open(t, "stream/watermark-quiet-partition", "step=20")
	orig := reportOf(t, s.trace)
	_, d := view(t, s)
	assert.Len(t, d.ByTestID("btn-stall"), 1)
	assert.Len(t, d.ByTestID("btn-burst"), 1)
	assert.Contains(t, htmltest.Text(d.One(t, "burst-producer")), "till3")
	assert.Contains(t, htmltest.Text(d.One(t, "stream-part")), "tills / partition 2")

	_, err := s.Act("stall", "tills 9 30s")
	require.NoError(t, err, "the widget forks; the engine refuses the partition")
	for done := false; !done; {
		done, err = s.Advance(4)
	}
	assert.ErrorContains(t, err, "reads partitions 0 to 2 of sales, not 9")
	assert.Equal(t, orig, reportOf(t, s.trace))
	_, err = s.Act("stall", "tills 1")
	assert.ErrorContains(t, err, "needs a stream, a partition and a length")
	_, err = s.Act("delay", "tills 1 0s")
	assert.ErrorContains(t, err, "positive length")
	_, err = s.Act("burst", "till9")
	assert.ErrorContains(t, err, `no producer "till9"`)
	_, err = s.Act("producer-clock", "till9")
	assert.ErrorContains(t, err, `no producer "till9" whose clock to step`)
	clocks := d.ByTestID("btn-producer-clock")
	require.Len(t, clocks, 3, "a partition's clock for each till, pinned to its partition")
	assert.Equal(t, "till3", htmltest.Attr(clocks[2], "data-arg"))
	assert.Contains(t, htmltest.Text(clocks[2]), "till3's clock (partition 2) +1m")
	assert.Empty(t, d.ByTestID("btn-jump-clock"), "the tills read the shared clock: none has a clock of its own to jump")

	for _, c := range []struct {
		action, arg string
		want        engine.Fault
	}{
		{"stall", "tills 1 3m0s", engine.Fault{AfterStep: 20, Kind: stream.FaultStall, Stream: "tills", Partition: 1, For: 3 * vtime.Minute}},
		{"delay", "tills 0 1m0s", engine.Fault{AfterStep: 20, Kind: stream.FaultDelay, Stream: "tills", Partition: 0, For: vtime.Minute, By: delayBy}},
		{"burst", "till2", engine.Fault{AfterStep: 20, Kind: logs.FaultBurst, Producer: "till2", Records: burstRecords, For: burstSpan}},
		{"producer-clock", "till1", engine.Fault{AfterStep: 20, Kind: logs.FaultProducerClock, Producer: "till1", By: producerClockBy}},
	} {
		s := open(t, "stream/watermark-quiet-partition", "step=20")
		rerun, err := s.Act(c.action, c.arg)
		require.NoError(t, err, c.action)
		require.True(t, rerun)
		finish(t, s, 4)
		require.Equal(t, []engine.Fault{c.want}, s.trace.Faults, c.action)
		assert.NotEqual(t, orig, reportOf(t, s.trace), "%s changes the run", c.action)
		back, err := ParseFault(FaultText(c.want))
		require.NoError(t, err)
		assert.Equal(t, c.want, back, "the fault travels in a link")
		_, d := view(t, s)
		d.One(t, "panel-compare")
	}
}

// TestSessionStreamPanel draws the stream chart on the stage; a late record
// is a link, and following it says why the record was late.
func TestSessionStreamPanel(t *testing.T) {
	s := open(t, "stream/late-data", "step=999")
	st := stream.Of(s.trace)
	require.NotEmpty(t, st.Late)
	_, d := view(t, s)
	d.One(t, "panel-stream")
	d.One(t, "stream-chart")
	links := d.ByTestID("late-record")
	require.Len(t, links, 4, "each late click drawn is a link")
	assert.Contains(t, htmltest.Attr(links[0], "href"), "explain=late%3A")
	// The chart is a station of the stage, in the flow between the log and
	// the operators, not a section of its own; in words it is part of the
	// text equivalent.
	flow := htmltest.Doc{Root: d.One(t, "flow")}
	var stations []string
	for _, id := range []string{"panel-log", "panel-stream", "panel-target"} {
		require.NotEmpty(t, flow.ByTestID(id), "%s is in the flow", id)
	}
	for _, n := range flow.ByTag("section") {
		stations = append(stations, htmltest.Attr(n, "data-testid"))
	}
	assert.Equal(t, []string{"panel-log", "panel-stream", "panel-ops", "panel-target", "panel-target"}, stations, "left to right: the operators between the streams and the targets")
	assert.Empty(t, d.ByTestID("stream-text"), "folded tables are not drawn")
	_, err := s.Act("text", "on")
	require.NoError(t, err)
	_, d = view(t, s)
	words := htmltest.Text(d.One(t, "stream-text"))
	assert.Contains(t, words, "Stream taps reads clicks")
	assert.Contains(t, htmltest.Text(d.One(t, "text-equivalent")), words, "the chart in words is in the text equivalent")

	_, err = s.Act("explain", "late:0")
	require.NoError(t, err)
	_, d = view(t, s)
	why := htmltest.Text(d.One(t, "explain"))
	assert.Contains(t, why, st.WhyLate(0))
	assert.Contains(t, why, "arrived at")
	assert.Contains(t, why, "Why was this record late?")

	_, err = s.Act("explain", "late:99")
	require.NoError(t, err)
	_, d = view(t, s)
	assert.Contains(t, htmltest.Text(d.One(t, "explain")), "No late record has that number")

	_, err = s.Act("seek", "1")
	require.NoError(t, err)
	_, err = s.Act("explain", "late:0")
	require.NoError(t, err)
	_, d = view(t, s)
	assert.Contains(t, htmltest.Text(d.One(t, "explain")), "not late yet at this step")

	// A window's row explains itself through the stream world.
	n := s.trace.Steps()
	_, err = s.Act("seek", fmt.Sprint(n))
	require.NoError(t, err)
	rows := s.trace.TargetAt(s.trace.Targets[0].Name, n)
	require.NotEmpty(t, rows)
	key := s.trace.RowKey(&rows[0])
	_, err = s.Act("explain", key)
	require.NoError(t, err)
	_, d = view(t, s)
	assert.Contains(t, htmltest.Text(d.One(t, "explain")), "Window [")
	assert.Equal(t, stream.Explain(s.trace, key, n), strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(htmltest.Text(d.One(t, "explain")), "Close"), "Why key "+key+"? ")))

	hw := open(t, "hwm/visibility-gap", "step=3")
	_, d = view(t, hw)
	assert.Empty(t, d.ByTestID("panel-stream"), "no stream, no panel")
}

// TestViewIndexesTheTraceOnce: a run left unindexed by Advance (an original
// that finished in the same call as its fork) is indexed by the first View
// and kept for the next steps, not indexed again at every step.
func TestViewIndexesTheTraceOnce(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=3")
	s.ix = nil
	s.View(false)
	require.NotNil(t, s.ix)
	ix := s.ix
	_, err := s.Act("seek", "4")
	require.NoError(t, err)
	s.View(false)
	assert.Same(t, ix, s.ix, "the next step reads the same index")
}

// TestSessionUndoesALinksFaults: faults a link (or a reload) brought can be
// undone, the latest first, as the learner's own: before, Undo was off, and
// adding an earlier fault told the learner to undo the later one first,
// which the page would not let them do.
func TestSessionUndoesALinksFaults(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=3&fault=11~crash&fault=16~crash")
	finish(t, s, 4)
	clean := open(t, "hwm/visibility-gap", "step=3")
	finish(t, clean, 4)
	v, _ := view(t, s)
	require.True(t, v.CanUndo, "the link's faults can be undone")
	require.Len(t, s.faults, 2)

	rerun, err := s.Act("undo", "")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 4)
	require.Len(t, s.faults, 1)
	assert.Equal(t, 11, s.faults[0].AfterStep, "the latest goes first")
	v, _ = view(t, s)
	assert.Contains(t, v.Query, "fault=11~crash")
	assert.NotContains(t, v.Query, "fault=16")

	_, err = s.Act("undo", "")
	require.NoError(t, err)
	finish(t, s, 4)
	v, _ = view(t, s)
	assert.False(t, v.CanUndo)
	assert.NotContains(t, v.Query, "fault=")
	assert.Equal(t, reportOf(t, clean.trace), reportOf(t, s.trace), "back to the run without faults")
	_, err = s.Act("undo", "")
	assert.ErrorContains(t, err, "nothing to undo")
}

// TestSessionTwoFaultsAtOneStep: a second fault at the step of a clock jump,
// which narrates itself as a step of its own, goes in right after the jump,
// as RunWithFaults and the server put it, rather than never finding its
// step and undoing itself.
func TestSessionTwoFaultsAtOneStep(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=3")
	for range 2 {
		_, err := s.Act("jump", "-5s")
		require.NoError(t, err)
		finish(t, s, 2)
		v, _ := view(t, s)
		assert.Equal(t, 3, v.Step)
		assert.Empty(t, v.Message)
	}
	require.Len(t, s.trace.Faults, 2, "both jumps stand")
	sc, _ := lessons.Lookup("hwm/visibility-gap")
	for _, f := range s.trace.Faults {
		assert.Equal(t, 3, f.AfterStep)
		assert.Equal(t, -5*vtime.Second, f.By)
	}
	want, err := engine.RunWithFaults(sc.File, s.knobs, 1, worlds.All(), s.trace.Faults)
	require.NoError(t, err)
	assert.Equal(t, reportOf(t, want), reportOf(t, s.trace))
}

// TestSessionSkipsOnlyTheLinksFaultsThatCannotApply: of a link's faults,
// one that cannot apply where it is (no run in flight at step 3, a step
// past the run's end) is left out and named; the others still fork the
// run. Before, one such fault dropped them all.
func TestSessionSkipsOnlyTheLinksFaultsThatCannotApply(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=13&fault=3~crash&fault=11~crash&fault=9999~crash")
	finish(t, s, 4)
	require.Len(t, s.faults, 1)
	assert.Equal(t, 11, s.faults[0].AfterStep)
	v, _ := view(t, s)
	assert.Contains(t, v.Query, "fault=11~crash")
	assert.NotContains(t, v.Query, "fault=3~")
	assert.NotContains(t, v.Query, "fault=9999")
	assert.Contains(t, v.Message, "The link's fault=3~crash could not be applied")
	assert.Contains(t, v.Message, "The link's fault=9999~crash could not be applied (the run ended at step")
	assert.NotNil(t, s.state().Original, "the crash at step 11 forks the run")
	assert.True(t, v.CanUndo)

	// A fault the learner adds that cannot apply is still undone at once.
	_, err := s.Act("seek", "1")
	require.NoError(t, err)
	_, err = s.Act("crash", "")
	require.Error(t, err)
	finish(t, s, 4)
	require.Len(t, s.faults, 1, "the learner's fault was undone, the link's kept")
}

// TestSessionTakesSettings: the settings of another window's link (the
// presenter's notes window) become the session's knobs, faults, truth and
// step as one change that Undo takes back; a link with a bad value changes
// nothing and says what was wrong.
func TestSessionTakesSettings(t *testing.T) {
	s := open(t, "hwm/advance-order", "advance=after&sink=append&crash=none&step=3")
	before := reportOf(t, s.trace)
	at := hwm.Of(s.trace).Runs[1].WriteStep
	require.Positive(t, at)

	// The same settings at another step: a seek, not a run.
	rerun, err := s.Act("settings", "?advance=after&sink=append&crash=none&step=5&present=notes")
	require.NoError(t, err)
	assert.False(t, rerun)
	assert.Equal(t, 5, s.View(false).Step)
	assert.Empty(t, s.history, "nothing to undo")

	// Another knob and a fault: one run with both.
	q := "advance=before&sink=append&crash=none&step=" + fmt.Sprint(at) + "&fault=" + fmt.Sprint(at) + "~crash&truth=off&present=notes"
	rerun, err = s.Act("settings", q)
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 7)
	v, d := view(t, s)
	assert.Equal(t, at, v.Step)
	assert.Equal(t, "before", s.trace.Settings["advance"])
	assert.Equal(t, []engine.Fault{{AfterStep: at, Kind: hwm.FaultCrash}}, s.trace.Faults)
	d.One(t, "panel-compare")
	assert.Empty(t, d.ByTestID("truth"), "the truth is hidden as the link asks")
	assert.Contains(t, v.Query, "fault="+fmt.Sprint(at)+"~crash")
	sc, _ := lessons.Lookup("hwm/advance-order")
	want, err := engine.RunWithFaults(sc.File, map[string]string{"advance": "before", "sink": "append", "crash": "none"}, 1, worlds.All(), []engine.Fault{{AfterStep: at, Kind: hwm.FaultCrash}})
	require.NoError(t, err)
	assert.Equal(t, reportOf(t, want), reportOf(t, s.trace))

	// A bad value changes nothing and is named.
	rerun, err = s.Act("settings", "advance=sideways&step=1")
	require.ErrorContains(t, err, "advance")
	assert.False(t, rerun)
	assert.Contains(t, s.View(false).Message, `The settings sent were not taken. The knob advance cannot be "sideways"`)
	assert.Equal(t, "before", s.trace.Settings["advance"])

	// Undo goes back to the settings before, at their step.
	rerun, err = s.Act("undo", "")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 7)
	assert.Equal(t, before, reportOf(t, s.trace))
	assert.Equal(t, 5, s.View(false).Step)
}

// TestPauseHoldsWhatItHasNotRead: in commit-order, c1 commits orders 3 and
// 4 before writing them and dies, and a pause past the end keeps it from
// polling order 5. The target says 3 and 4 are lost (marked done, never
// written) and 5 is held in the log, not lost; without the pause, 5 is
// written and nothing is held.
func TestPauseHoldsWhatItHasNotRead(t *testing.T) {
	s := open(t, "dist/commit-order", "step=11&fault=11~pause~billing~c1~3m")
	require.Len(t, s.trace.Faults, 1)
	_, err := s.Act("seek", "999")
	require.NoError(t, err)
	_, err = s.Act("text", "on")
	require.NoError(t, err)
	d := htmltest.Parse(t, stageOf(t, s))
	assert.Equal(t, []string{"3", "4"}, lostSlots(d))
	var held []string
	for _, n := range d.ByTestID("slot") {
		if htmltest.Attr(n, "data-state") == "held" {
			held = append(held, htmltest.Attr(n, "data-key"))
			assert.Contains(t, htmltest.Text(n), "⏸ held")
		}
	}
	assert.Equal(t, []string{"5"}, held)
	table := htmltest.Text(d.One(t, "target-table"))
	assert.Contains(t, table, "⏸ in orders-0 at offset 4, unread: billing/c1 is paused until 10:03:05, past the end")
	assert.Contains(t, htmltest.Text(d.One(t, "legend")), "held: in the log, unread, its consumer paused past the end")

	whole := open(t, "dist/commit-order", "step=99")
	_, err = whole.Act("text", "on")
	require.NoError(t, err)
	d = htmltest.Parse(t, stageOf(t, whole))
	assert.Equal(t, []string{"3", "4"}, lostSlots(d))
	assert.NotContains(t, htmltest.Text(d.One(t, "target-table")), "⏸")
	assert.NotContains(t, htmltest.Text(d.One(t, "legend")), "held")
}

// TestAKnobValueThatDoesNotBuildIsSaid: a knob's value that the scenario
// declares but whose line refuses it opens a link with the scenario's own
// settings, saying why, rather than nothing; chosen on the page, it leaves
// the run drawn as it was and says why.
func TestAKnobValueThatDoesNotBuildIsSaid(t *testing.T) {
	src, name := source(t, "hwm/visibility-gap")
	src = strings.Replace(src, "knob mark = timestamp | lsn", "knob mark = timestamp | lsn | lsm", 1)
	q, err := url.ParseQuery("mark=lsm&step=4")
	require.NoError(t, err)
	s, err := Open("tm", src, name, "/p", q, false, worlds.All())
	require.NoError(t, err, "the link opens")
	finish(t, s, 1000)
	assert.Contains(t, s.st.Message, "With the link's settings the scenario does not build (")
	assert.Contains(t, s.st.Message, `expected mark= to be one of`)
	assert.Contains(t, s.st.Message, `found "lsm"`, "the error names the value")
	assert.Empty(t, s.knobs, "its own settings")
	assert.Equal(t, 4, s.st.Step, "at the step the link asks for")

	steps := s.trace.Steps()
	rerun, err := s.Act("knob", "mark=lsm")
	assert.False(t, rerun)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "with mark=lsm the scenario does not build: ")
	assert.Empty(t, s.knobs, "the settings stay those of the run drawn")
	assert.Equal(t, steps, s.trace.Steps())
	assert.Empty(t, s.history, "nothing to undo")
}

// TestAKnobTakesTheFaultsOffAndSaysSo: a fault belongs to a step of the run
// it was added to; another setting takes it off, and the page says so, and
// Undo brings both back.
func TestAKnobTakesTheFaultsOffAndSaysSo(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=3")
	rerun, err := s.Act("jump", "-5s")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 1000)
	require.Len(t, s.faults, 1)
	rerun, err = s.Act("knob", "mark=lsn")
	require.NoError(t, err)
	require.True(t, rerun)
	finish(t, s, 1000)
	assert.Empty(t, s.faults)
	assert.Equal(t, "The fault added is taken off with the new setting: it was placed at a step of the run before. Undo brings it back, with the setting.", s.st.Message)
	_, err = s.Act("undo", "")
	require.NoError(t, err)
	finish(t, s, 1000)
	assert.Len(t, s.faults, 1)
	assert.Empty(t, s.knobs["mark"])
}

// TestTargetSlotsOrderNumbersInKeysByValue: a target keyed by words with
// numbers in them (late-data's side output, phone-9 to phone-12) shows its
// slots as a reader orders them, phone-9 first; by bytes it came last.
func TestTargetSlotsOrderNumbersInKeysByValue(t *testing.T) {
	s := open(t, "stream/late-data", "late=side-output&step=199")
	v, _ := view(t, s)
	at := func(key string) int {
		i := strings.Index(v.HTML, `data-frag="slot-late_clicks:`+key+`"`)
		require.GreaterOrEqual(t, i, 0, "%s has a slot", key)
		return i
	}
	assert.Less(t, at("phone-9"), at("phone-10"))
	assert.Less(t, at("phone-10"), at("phone-11"))
	assert.Less(t, at("phone-11"), at("phone-12"))
}
