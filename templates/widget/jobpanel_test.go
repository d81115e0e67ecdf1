//go:build !tm_hwm && !tm_log

package widget_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web/htmltest"
)

// stepAt is the last step at or before the true time at ("10:00:05").
func stepAt(t *testing.T, tr *engine.Trace, at string) int {
	t.Helper()
	n := 0
	for i, e := range tr.Events {
		if e.At.String() > at {
			break
		}
		n = i + 1
	}
	require.Positive(t, n, "no step by %s", at)
	return n
}

// stateAt is the widget's state at step n, with the truth hidden.
func stateAt(n int) widget.State { return widget.State{Step: n, BasePath: "/scenarios/x"} }

// cell is the text of the cell with test id of the row for operator op.
func cell(t *testing.T, d htmltest.Doc, op, id string) string {
	t.Helper()
	for _, c := range d.ByTestID(id) {
		if htmltest.Attr(c.Parent, "data-op") == op {
			return htmltest.Text(c)
		}
	}
	t.Fatalf("no %s cell for operator %s", id, op)
	return ""
}

// A two-phase-commit sink's rows are pending until the checkpoint
// completes, then visible; the panel shows both counts, and the same
// scenario with auto-commit shows every row visible at once.
func TestJobPanelPendingAndVisible(t *testing.T) {
	tr := run(t, "stream/checkpoint-two-phase", nil)
	n := stepAt(t, tr, "10:00:05")
	d := draw(t, tr, stateAt(n))
	d.One(t, "panel-job")
	assert.Contains(t, htmltest.Text(d.One(t, "job-sinks")), "two-phase")
	pending := cell(t, d, "load", "sink-pending")
	assert.NotEqual(t, "0", pending, "orders written before the first checkpoint wait in its transaction")
	assert.Equal(t, "0", cell(t, d, "load", "sink-visible"), "a read-committed reader sees none of them")

	// The first checkpoint completes at 10:00:10: its rows become visible.
	d = draw(t, tr, stateAt(stepAt(t, tr, "10:00:11")))
	assert.NotEqual(t, "0", cell(t, d, "load", "sink-visible"))

	auto := run(t, "stream/checkpoint-two-phase", map[string]string{"commit": "auto"})
	d = draw(t, auto, stateAt(stepAt(t, auto, "10:00:05")))
	assert.Equal(t, "0", cell(t, d, "load", "sink-pending"), "auto-commit keeps nothing pending")
	assert.NotEqual(t, "0", cell(t, d, "load", "sink-visible"))
}

// The checkpoint strip and its list show the checkpoints begun by the
// step, the failure and the restore, and nothing after the step.
func TestJobPanelCheckpoints(t *testing.T) {
	tr := run(t, "stream/checkpoint-two-phase", nil)
	st := stream.Of(tr)
	require.Len(t, st.Job.Restores, 1)
	before := draw(t, tr, stateAt(int(st.Job.Failures[0].Step)-1))
	assert.Empty(t, before.ByTestID("job-failure"), "no failure yet")
	strip := htmltest.Attr(before.One(t, "checkpoint-strip"), "aria-label")
	assert.Contains(t, strip, "3 completed", "three checkpoints completed before checkpoint 4 began")
	assert.Contains(t, strip, "0 failures")

	end := draw(t, tr, stateAt(tr.Steps()))
	strip = htmltest.Attr(end.One(t, "checkpoint-strip"), "aria-label")
	assert.Contains(t, strip, "1 failure,")
	assert.Contains(t, strip, "1 restore")
	fail := htmltest.Text(end.One(t, "job-failure"))
	assert.Contains(t, fail, "load failed at 10:00:")
	assert.Contains(t, fail, "at checkpoint 4's barrier")
	assert.Contains(t, htmltest.Text(end.One(t, "job-restore")), "restored checkpoint 3")
	list := htmltest.Text(end.One(t, "checkpoint-list"))
	assert.Contains(t, list, "abandoned", "checkpoint 4 never completed")
	assert.Contains(t, list, "completed")
	var abandoned, completed int
	for _, g := range htmltest.All(end.One(t, "checkpoint-strip"), func(n *html.Node) bool { return htmltest.Attr(n, "data-ckpt") != "" }) {
		switch {
		case strings.Contains(htmltest.Attr(g, "class"), "tm-ck-abandoned"):
			abandoned++
		case strings.Contains(htmltest.Attr(g, "class"), "tm-ck-completed"):
			completed++
		}
	}
	assert.Equal(t, 1, abandoned)
	assert.Equal(t, 6, completed, "the scenario's expect line says six complete")
}

// A buffer that drops shows itself full and counts what it shed; one that
// blocks is full and drops nothing; the plots include its queue.
func TestJobPanelBuffers(t *testing.T) {
	for _, tc := range []struct {
		overflow string
		dropped  bool
	}{{"drop", true}, {"block", false}} {
		tr := run(t, "stream/backpressure", map[string]string{"overflow": tc.overflow})
		st := stream.Of(tr)
		oi := st.OpNamed("load")
		require.GreaterOrEqual(t, oi, 0)
		full := 0
		for _, q := range st.Ops[oi].Queue {
			if int(q.N) >= st.Ops[oi].Buffer {
				full = int(q.Step)
				break
			}
		}
		require.Positive(t, full, "overflow=%s: the buffer fills", tc.overflow)
		d := draw(t, tr, stateAt(full))
		assert.Equal(t, "50 / 50 ("+tc.overflow+"), full", cell(t, d, "load", "op-queue"))
		// Ten seconds later (and before the failure at 10:00:25), the
		// sink has been busy for a whole window.
		busy := full
		for busy < tr.Steps() && tr.Events[busy].At <= tr.Events[full-1].At.Add(10*vtime.Second) {
			busy++
		}
		rate, err := strconv.ParseFloat(cell(t, draw(t, tr, stateAt(busy)), "load", "op-rate"), 64)
		require.NoError(t, err)
		assert.InDelta(t, 5.0, rate, 0.15, "overflow=%s: the sink writes five a second, whatever arrives", tc.overflow)
		end := draw(t, tr, stateAt(tr.Steps()))
		if tc.dropped {
			assert.NotEqual(t, "0", cell(t, end, "load", "op-dropped"))
		} else {
			assert.Equal(t, "0", cell(t, end, "load", "op-dropped"))
		}
		var names []string
		for _, p := range end.ByTestID("job-plot") {
			names = append(names, plotCaption(p))
		}
		joined := strings.Join(names, "\n")
		assert.Contains(t, joined, "queue of load (records): ", "overflow=%s", tc.overflow)
		assert.Contains(t, joined, "at most 50", "overflow=%s: the queue's plot peaks at the buffer's size", tc.overflow)
		assert.Contains(t, joined, "lag of taps, partition 0 (records)")
	}
}

// Keyed state without a time to live only grows; the plot of state says
// so, and with a TTL its latest value is below its peak.
func TestJobPanelStatePlot(t *testing.T) {
	plot := func(knobs map[string]string) string {
		tr := run(t, "stream/state-ttl", knobs)
		d := draw(t, tr, stateAt(tr.Steps()))
		for _, p := range d.ByTestID("job-plot") {
			if txt := plotCaption(p); strings.HasPrefix(txt, "state of ") {
				return txt
			}
		}
		t.Fatal("no plot of state")
		return ""
	}
	grow := plot(nil)
	now, peak, ok := strings.Cut(strings.SplitN(grow, ": ", 2)[1], " now, at most ")
	require.True(t, ok, grow)
	assert.Equal(t, peak, now, "without a TTL the state is at its largest at the end: %s", grow)
	ttl := plot(map[string]string{"ttl": "1m"})
	now, peak, _ = strings.Cut(strings.SplitN(ttl, ": ", 2)[1], " now, at most ")
	assert.NotEqual(t, peak, now, "with a TTL the state shrinks from its peak: %s", ttl)
}

// A scenario without a job of its own (no checkpoints, sinks, aggregates
// or buffers) draws no job panel.
func TestJobPanelOnlyWithAJob(t *testing.T) {
	for _, id := range []string{"hwm/visibility-gap", "stream/late-data"} {
		tr := run(t, id, nil)
		assert.Empty(t, draw(t, tr, stateAt(tr.Steps())).ByTestID("panel-job"), id)
	}
}

// A report that read a table mid-replay saw a mix of rows the table never
// held; with atomic publish every read matches a state. The panel says so
// beside each read.
func TestJobPanelReads(t *testing.T) {
	reads := func(knobs map[string]string) map[string]string {
		tr := run(t, "stream/serving-publish", knobs)
		d := draw(t, tr, stateAt(tr.Steps()))
		out := map[string]string{}
		for li := range d.One(t, "job-reads").ChildNodes() {
			out[htmltest.Attr(li, "data-read")] = htmltest.Text(li)
		}
		return out
	}
	row := reads(nil)
	require.Len(t, row, 3)
	assert.Contains(t, row["report"], "never held this mix")
	assert.Contains(t, row["before"], "the table held exactly this")
	for name, text := range reads(map[string]string{"commit": "two-phase"}) {
		assert.Contains(t, text, "the table held exactly this", name)
	}
}

// A replay that reads a lookup table which changed writes other amounts
// than the first time; the panel names them, and a replay of the record's
// own amount changes nothing.
func TestJobPanelReplays(t *testing.T) {
	tr := run(t, "stream/nondeterministic-replay", nil)
	d := draw(t, tr, stateAt(tr.Steps()))
	assert.Equal(t, "5 records were written differently by the replay than the first time:", htmltest.Text(d.One(t, "job-replays")))
	tr = run(t, "stream/nondeterministic-replay", map[string]string{"value": "amount"})
	assert.Empty(t, draw(t, tr, stateAt(tr.Steps())).ByTestID("job-replays"))
}

// plotCaption is the caption of a small plot: its name, its latest value
// and its largest.
func plotCaption(p *html.Node) string {
	for _, c := range htmltest.All(p, func(n *html.Node) bool { return n.Data == "figcaption" }) {
		return htmltest.Text(c)
	}
	return ""
}

// Each small plot has readable axes (its largest value and 0, and the
// times of the run it spans) and a text equivalent: its values at six
// times in a table for a screen reader; every operator's throughput is
// plotted over time.
func TestJobPanelPlotsHaveAxes(t *testing.T) {
	tr := run(t, "stream/backpressure", nil)
	n := tr.Steps()
	d := draw(t, tr, stateAt(n))
	var rate *html.Node
	for _, p := range d.ByTestID("job-plot") {
		if strings.HasPrefix(plotCaption(p), "throughput of load (records/s, last 10s): ") {
			rate = p
		}
	}
	require.NotNil(t, rate, "the sink's throughput is plotted")
	ticks := htmltest.All(rate, func(n *html.Node) bool { return htmltest.Attr(n, "class") == "tm-plot-tick" })
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, htmltest.Text(tk))
	}
	require.Len(t, labels, 5, "two values and three times: %v", labels)
	assert.Equal(t, "0", labels[1])
	_, peak, _ := strings.Cut(plotCaption(rate), " now, at most ")
	assert.Equal(t, peak, labels[0], "the value axis reaches the largest value")
	assert.Equal(t, tr.Events[0].At.String(), labels[2], "the time axis starts at the run's start")
	assert.Equal(t, tr.Events[tr.Steps()-1].At.String(), labels[4], "and ends at its end")
	values := htmltest.All(rate, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "plot-values" })
	require.Len(t, values, 1)
	rows := htmltest.All(values[0], func(n *html.Node) bool { return n.Data == "tr" })
	assert.Len(t, rows, 7, "a header and six times")
	assert.Contains(t, htmltest.Text(values[0]), tr.Events[0].At.String(), "from the run's start")
	assert.Contains(t, htmltest.Attr(values[0], "class"), "tm-visually-hidden", "the table is for a screen reader")

	// At an earlier step, a line marks the step's time, and the plot's line
	// stops there.
	mid := draw(t, tr, stateAt(n/2))
	for _, p := range mid.ByTestID("job-plot") {
		if strings.HasPrefix(plotCaption(p), "throughput of load") {
			now := htmltest.All(p, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "plot-now" })
			require.Len(t, now, 1)
			assert.Equal(t, tr.Events[n/2-1].At.String(), htmltest.Attr(now[0], "data-at"))
			line := htmltest.All(p, func(n *html.Node) bool { return htmltest.Attr(n, "class") == "tm-sparkline" })
			pts := strings.Fields(htmltest.Attr(line[0], "points"))
			last, _, _ := strings.Cut(pts[len(pts)-1], ",")
			x, _, _ := strings.Cut(htmltest.Attr(now[0], "x1"), ",")
			lx, err1 := strconv.ParseFloat(last, 64)
			nx, err2 := strconv.ParseFloat(x, 64)
			require.NoError(t, err1)
			require.NoError(t, err2)
			assert.LessOrEqual(t, lx, nx, "the line stops at the step")
		}
	}
}

// The checkpoint-size plot holds each completed checkpoint's size until the
// next completes: with a single checkpoint completed it is a line from its
// completion on, not a lone point that draws nothing; after a second it
// steps at the second's completion.
func TestJobPanelCheckpointSizePlotIsALine(t *testing.T) {
	tr := run(t, "stream/checkpoint-two-phase", nil)
	st := stream.Of(tr)
	require.GreaterOrEqual(t, len(st.Job.Checkpoints), 2)
	first, second := st.Job.Checkpoints[0], st.Job.Checkpoints[1]
	require.Equal(t, stream.CheckpointCompleted, first.Status)
	sizePlot := func(n int) []string {
		d := draw(t, tr, stateAt(n))
		for _, p := range d.ByTestID("job-plot") {
			if strings.HasPrefix(plotCaption(p), "checkpoint size (bytes): ") {
				line := htmltest.All(p, func(n *html.Node) bool { return htmltest.Attr(n, "class") == "tm-sparkline" })
				require.Len(t, line, 1)
				return strings.Fields(htmltest.Attr(line[0], "points"))
			}
		}
		t.Fatalf("no checkpoint-size plot at step %d", n)
		return nil
	}
	xs := func(pts []string) map[string]bool {
		m := map[string]bool{}
		for _, p := range pts {
			x, _, _ := strings.Cut(p, ",")
			m[x] = true
		}
		return m
	}
	one := sizePlot(int(second.Begin) - 1)
	assert.Len(t, xs(one), 2, "one checkpoint: a line from its completion to the step, %v", one)
	two := sizePlot(int(second.End) + 1)
	assert.GreaterOrEqual(t, len(two), 4, "two checkpoints: a step at the second's completion, %v", two)
}

// A sink that takes an order a second never plots more than one a second:
// the throughput is measured over the whole window from the run's start,
// so the first half second's one record does not read as two a second.
func TestJobPanelThroughputStartsWithoutALeap(t *testing.T) {
	tr := run(t, "stream/checkpoint-two-phase", map[string]string{"crash": "never"})
	d := draw(t, tr, stateAt(tr.Steps()/4))
	var caption string
	for _, p := range d.ByTestID("job-plot") {
		if c := plotCaption(p); strings.HasPrefix(c, "throughput of load") {
			caption = c
		}
	}
	require.NotEmpty(t, caption)
	_, peak, ok := strings.Cut(caption, " now, at most ")
	require.True(t, ok, caption)
	v, err := strconv.ParseFloat(peak, 64)
	require.NoError(t, err)
	assert.LessOrEqual(t, v, 1.0, "an order a second: %s", caption)
	assert.Positive(t, v)
}

// At 10x the hot key's reader is busy all the time while the others idle:
// its row is marked, its partition's lag is the largest, and the average
// row (lag per partition, readers' utilisation) stays well under both.
func TestJobPanelReadersShowTheHotOne(t *testing.T) {
	tr := run(t, "stream/hot-key", map[string]string{"load": "10x"})
	d := draw(t, tr, stateAt(stepAt(t, tr, "10:00:18")))
	percent := func(s string) int {
		s, _, _ = strings.Cut(s, "%")
		v, err := strconv.Atoi(s)
		require.NoError(t, err, s)
		return v
	}
	busy := map[string]int{}
	hot := ""
	for _, c := range d.ByTestID("reader-busy") {
		r := htmltest.Attr(c.Parent, "data-reader")
		busy[r] = percent(htmltest.Text(c))
		if strings.Contains(htmltest.Attr(c, "class"), "tm-warn") {
			hot = r
		}
	}
	require.Len(t, busy, 4, "one row per reader")
	require.NotEmpty(t, hot, "the saturated reader is marked")
	assert.GreaterOrEqual(t, busy[hot], 95)
	for r, u := range busy {
		if r != hot {
			assert.Less(t, u, 30, "reader %s", r)
		}
	}
	avg := percent(htmltest.Text(d.One(t, "average-busy")))
	assert.Less(t, avg, busy[hot]/2, "the average utilisation hides the saturated reader")
	lag, _, _ := strings.Cut(htmltest.Text(d.One(t, "average-lag")), " ")
	avgLag, err := strconv.ParseFloat(lag, 64)
	require.NoError(t, err)
	st := stream.Of(tr)
	hotLag := 0.0
	for p := range st.Streams[0].Parts {
		hotLag = max(hotLag, float64(st.LagAt(0, p, stepAt(t, tr, "10:00:18"))))
	}
	assert.Less(t, avgLag, hotLag/2, "the average lag hides the hot partition")
}

// The times under a small plot never run into each other, drawn at any
// width (the plot scales, its labels with it): the middle one is a round
// time. In hot-key at 100x the run ends at 10:03:22.400, and its middle,
// 10:01:41.200, ran into the end's label on a lesson's narrow column.
func TestJobPanelPlotTimesDoNotCollide(t *testing.T) {
	const charW = 6.6 // an 11-unit monospaced character, in the viewBox's units
	checked := 0
	for _, c := range []struct {
		id    string
		knobs map[string]string
	}{
		{"stream/hot-key", nil},
		{"stream/hot-key", map[string]string{"load": "100x"}},
		{"stream/backpressure", nil},
		{"stream/checkpoint-two-phase", nil},
		{"stream/state-ttl", nil},
	} {
		tr := run(t, c.id, c.knobs)
		d := draw(t, tr, stateAt(tr.Steps()))
		for _, p := range d.ByTestID("job-plot") {
			type span struct {
				label    string
				from, to float64
			}
			var times []span
			for _, tk := range htmltest.All(p, func(n *html.Node) bool { return htmltest.Attr(n, "class") == "tm-plot-tick" }) {
				label := htmltest.Text(tk)
				if !strings.Contains(label, ":") {
					continue // a value, left of the plot
				}
				x, err := strconv.ParseFloat(htmltest.Attr(tk, "x"), 64)
				require.NoError(t, err)
				w := charW * float64(len(label))
				switch htmltest.Attr(tk, "text-anchor") {
				case "middle":
					x -= w / 2
				case "end":
					x -= w
				}
				times = append(times, span{label, x, x + w})
			}
			require.GreaterOrEqual(t, len(times), 2, "%s: %s", c.id, plotCaption(p))
			for i := 1; i < len(times); i++ {
				assert.Less(t, times[i-1].to+4, times[i].from, "%s %v: %q runs into %q", c.id, c.knobs, times[i-1].label, times[i].label)
			}
			if len(times) == 3 {
				assert.NotContains(t, times[1].label, ".", "%s %v: the middle time is round", c.id, c.knobs)
			}
			checked++
		}
	}
	require.Positive(t, checked)
}

// TestStageSaysTheJobIsDown: from the step load fails (154) to the restore
// (160), the operators' station says the job is down and when it restarts;
// the stage looked as on any quiet step, and only the narration said it.
// A job that cannot start (its position deleted, reset=none) stays down.
func TestStageSaysTheJobIsDown(t *testing.T) {
	tr := run(t, "stream/checkpoint-append", nil)
	const base = "/scenarios/stream/checkpoint-append"
	for step, want := range map[int]string{
		153: "",
		154: "✖ The job is down: load failed at 10:00:47; it restarts at 10:00:52",
		159: "✖ The job is down: load failed at 10:00:47; it restarts at 10:00:52",
		160: "",
	} {
		d := draw(t, tr, widget.State{Step: step, ShowTruth: true, BasePath: base})
		got := ""
		for _, n := range d.ByTestID("job-down") {
			got = htmltest.Text(n)
		}
		assert.Equal(t, want, got, "step %d", step)
	}

	tr = run(t, "stream/checkpoint-past-retention", map[string]string{"reset": "none"})
	d := draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true, BasePath: "/scenarios/stream/checkpoint-past-retention"})
	require.Len(t, d.ByTestID("job-down"), 1, "a job that cannot start is down at the end")
	assert.Equal(t, "✖ The job is down: load failed at 10:00:35; it could not restart at 10:02:35: the input its checkpoint needs is gone", htmltest.Text(d.One(t, "job-down")))
}

// While the job is down, the plot of a partition's lag follows the
// offsets the last completed checkpoint committed to Kafka (what the
// partition-lag check and the report count), not where the dead job had
// read to. checkpoint-past-retention: checkpoint 2 committed offset 30,
// the job had read to 35 when it failed at step 112 (35 records in the
// log), and at step 240, the last before the restart, the log ends at 155.
func TestJobPanelLagPlotWhileDownFollowsTheCommittedOffsets(t *testing.T) {
	tr := run(t, "stream/checkpoint-past-retention", nil)
	caption := func(step int) string {
		d := draw(t, tr, stateAt(step))
		for _, p := range d.ByTestID("job-plot") {
			if c := plotCaption(p); strings.HasPrefix(c, "lag of orders_in, partition 0 (records): ") {
				return strings.TrimPrefix(c, "lag of orders_in, partition 0 (records): ")
			}
		}
		t.Fatalf("step %d: no plot of the lag", step)
		return ""
	}
	assert.True(t, strings.HasPrefix(caption(111), "0 now"), "running, it has read everything")
	assert.True(t, strings.HasPrefix(caption(112), "5 now"), "down: offsets 30 to 34 were read but not committed")
	assert.True(t, strings.HasPrefix(caption(240), "125 now"), "155 appended less 30 committed, not less the 35 it had read")
}

// The restore's line counts what the narration counts: a restore past
// retention jumps over offsets, some of them read before the failure, so
// it says how many are skipped, not that they are all never read (which
// it said, 58 where the narration says 53), and one in the singular.
func TestJobPanelRestoreCountsSkippedOffsets(t *testing.T) {
	tr := run(t, "stream/checkpoint-past-retention", nil)
	st := stream.Of(tr)
	require.NotEmpty(t, st.Job.Restores)
	r := st.Job.Restores[0]
	require.Positive(t, r.Skipped, "the scenario's restore jumps over deleted offsets")
	line := htmltest.Text(draw(t, tr, stateAt(tr.Steps())).One(t, "job-restore"))
	assert.Contains(t, line, strconv.FormatInt(r.Skipped, 10)+" offsets are skipped")
	assert.NotContains(t, line, "never read")
	assert.NotRegexp(t, `\b1 (records|offsets|buffered records) are\b`, line)
}

// TestSlotsOfAnOpenTransactionSayWritten: a two-phase-commit sink's rows
// written into the transaction still open are invisible to a
// read-committed reader, and their slots say they are written and where,
// not that nothing has written them; after the commit they are rows, and
// a crash's abort leaves them waiting for the replay.
func TestSlotsOfAnOpenTransactionSayWritten(t *testing.T) {
	slots := func(tr *engine.Trace, step int) map[string]string {
		out := map[string]string{}
		for _, n := range draw(t, tr, widget.State{Step: step, ShowTruth: true}).ByTestID("slot") {
			out[htmltest.Attr(n, "data-key")] = htmltest.Text(n)
		}
		return out
	}
	tr := run(t, "stream/checkpoint-two-phase", nil)
	at := slots(tr, 134)
	for k := 31; k <= 40; k++ {
		assert.Contains(t, at[strconv.Itoa(k)], "◌ written, not committed yet", "order %d", k)
	}
	assert.NotContains(t, at["30"], "not committed", "committed by the checkpoint before")
	pending := 0
	for _, label := range slots(tr, tr.Steps()) {
		if strings.Contains(label, "not committed") {
			pending++
		}
	}
	assert.Zero(t, pending, "nothing is left in a transaction at the end")

	// Restored after a crash, the job writes orders past the last row
	// committed into its new transaction: the target's window follows
	// those writes, not the last row committed.
	crashed := run(t, "stream/checkpoint-two-phase", map[string]string{"crash": "barrier"})
	var written []string
	for key, label := range slots(crashed, 165) {
		if strings.Contains(label, "◌ written, not committed yet") {
			written = append(written, key)
		}
	}
	assert.Contains(t, written, "45", "the new transaction's rows are in the window: %v", written)
}
