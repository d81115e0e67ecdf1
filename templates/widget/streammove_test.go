//go:build !tm_hwm && !tm_log

package widget_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/window"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web/htmltest"
)

// chips returns the data-chip of every element of d that has one.
func chips(d htmltest.Doc) map[string]bool {
	out := map[string]bool{}
	for _, n := range htmltest.All(d.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "data-chip") }) {
		out[htmltest.Attr(n, "data-chip")] = true
	}
	return out
}

// moving returns the elements of d drawn at this step that move from a
// chip (data-new and data-from), with the chip each moves from.
func moving(d htmltest.Doc, testid string) map[*html.Node]string {
	out := map[*html.Node]string{}
	for _, n := range d.ByTestID(testid) {
		if htmltest.HasAttr(n, "data-new") {
			out[n] = htmltest.Attr(n, "data-from")
		}
	}
	return out
}

// firstStep returns the first step of tr whose narration contains words.
func firstStep(t *testing.T, tr *engine.Trace, words string) int {
	t.Helper()
	for n := 1; n <= tr.Steps(); n++ {
		if strings.Contains(widget.Narration(tr, n), words) {
			return n
		}
	}
	require.FailNow(t, "no step says "+words)
	return 0
}

// In the stream world records move on the stage: a record a window takes
// moves from its dot on the lane into its window; a window that fires
// sends its row from the window to its slot; a late record dropped does
// not move, and is marked dropped in words and by its shape.
func TestStreamRecordsMove(t *testing.T) {
	tr := run(t, "stream/late-data", nil)
	// A click read on time: a token in its window, from its dot.
	n := firstStep(t, tr, "taps reads user")
	before, at := draw(t, tr, stateAt(n-1)), draw(t, tr, stateAt(n))
	tokens := moving(at, "window-token")
	require.Len(t, tokens, 1, "the click read at step %d moves into its window", n)
	for _, from := range tokens {
		assert.True(t, strings.HasPrefix(from, "rec:"), from)
		assert.True(t, chips(before)[from], "it moves from its dot, drawn the step before")
	}
	assert.Equal(t, "taken", htmltest.Attr(at.One(t, "op-record"), "data-state"))
	tick := firstStep(t, tr, "Tick at")
	require.Greater(t, tick, n)
	assert.Empty(t, moving(draw(t, tr, stateAt(tick)), "window-token"), "at a step that reads nothing, nothing moves")

	// The minute fires: its row moves from the window to its slot.
	n = firstStep(t, tr, "it fires [10:01:00, 10:02:00)")
	before, at = draw(t, tr, stateAt(n-1)), draw(t, tr, widget.State{Step: n, BasePath: "/s", ShowTruth: true})
	var slot *html.Node
	for _, s := range at.ByTestID("slot") {
		if htmltest.Attr(s, "data-key") == "10:01:00" {
			slot = s
		}
	}
	require.NotNil(t, slot)
	assert.Equal(t, "win:0:10:01:00", htmltest.Attr(slot, "data-from"))
	assert.True(t, htmltest.HasAttr(slot, "data-new"))
	assert.True(t, chips(before)["win:0:10:01:00"], "the window is on the stage the step before")

	// A late click is dropped: nothing moves; it stays on its lane as a
	// cross, and its operator says so in words.
	st := stream.Of(tr)
	require.Equal(t, window.Dropped, window.Fate(st.Late[0].Fate))
	n = int(st.Late[0].Step)
	at = draw(t, tr, stateAt(n))
	assert.Empty(t, moving(at, "window-token"), "a dropped record does not move into a window")
	rec := at.One(t, "op-record")
	assert.Equal(t, "dropped", htmltest.Attr(rec, "data-state"))
	assert.Contains(t, htmltest.Text(rec), "✕ dropped: late")
	late := htmltest.All(at.Root, func(n *html.Node) bool { return htmltest.Attr(n, "data-fate") == "dropped" && n.Data == "g" })
	assert.Len(t, late, 1, "the cross stays on the lane")
	later := draw(t, tr, stateAt(tr.Steps()))
	assert.Len(t, later.ByTestID("late-chip"), 4, "the four dropped clicks stay listed")
	for _, c := range later.ByTestID("late-chip") {
		assert.Equal(t, "dropped", htmltest.Attr(c, "data-state"))
		assert.Contains(t, htmltest.Text(c), "✕ dropped")
	}
	assert.Contains(t, htmltest.Text(later.One(t, "late-count")), "4 dropped")

	// Sent to the side output, the late click moves from its dot to its
	// slot in late_clicks.
	tr = run(t, "stream/late-data", map[string]string{"late": "side-output"})
	n = int(stream.Of(tr).Late[0].Step)
	before, at = draw(t, tr, stateAt(n-1)), draw(t, tr, widget.State{Step: n, BasePath: "/s", ShowTruth: true})
	assert.Equal(t, "side", htmltest.Attr(at.One(t, "op-record"), "data-state"))
	assert.Contains(t, htmltest.Text(at.One(t, "op-record")), "◇ late: to late_clicks")
	found := false
	for s, from := range moving(at, "slot") {
		if htmltest.Attr(s, "data-key") == "phone-9" {
			found = true
			assert.True(t, chips(before)[from], "phone-9 moves from its dot, %s", from)
		}
	}
	assert.True(t, found, "phone-9 arrives in late_clicks")

	// With side=none, the operator says nothing reads the side output.
	tr = run(t, "stream/late-data", map[string]string{"late": "side-output", "side": "none"})
	n = int(stream.Of(tr).Late[0].Step)
	at = draw(t, tr, widget.State{Step: n, BasePath: "/s", ShowTruth: true})
	assert.Contains(t, htmltest.Text(at.One(t, "op-record")), "◇ late: to a side output nobody reads")
}

// A replay after a restore sends the block again: with an append sink each
// record read again moves from its dot to its slot, which stacks a second
// copy, and the sink says it read it again.
func TestStreamReplayMoves(t *testing.T) {
	tr := run(t, "stream/checkpoint-append", nil)
	st := stream.Of(tr)
	require.NotEmpty(t, st.Replays)
	n := int(st.Arrivals[st.Replays[0]].Step)
	before, at := draw(t, tr, stateAt(n-1)), draw(t, tr, widget.State{Step: n, BasePath: "/s", ShowTruth: true})
	assert.Equal(t, "replay", htmltest.Attr(at.One(t, "op-record"), "data-state"))
	assert.Contains(t, htmltest.Text(at.One(t, "op-record")), "↻ read again")
	var dup *html.Node
	for s, from := range moving(at, "slot") {
		dup = s
		assert.True(t, chips(before)[from], "the row moves from its record's dot, %s", from)
	}
	require.NotNil(t, dup)
	assert.Equal(t, "41", htmltest.Attr(dup, "data-key"))
	assert.Equal(t, "dup", htmltest.Attr(dup, "data-state"), "the second copy stacks")
	assert.Contains(t, htmltest.Text(at.One(t, "op-replay")), "shop-41")

	// With a merge, the same record moves, and the slot stays one row.
	tr = run(t, "stream/checkpoint-append", map[string]string{"sink": "merge"})
	at = draw(t, tr, widget.State{Step: n, BasePath: "/s", ShowTruth: true})
	for s := range moving(at, "slot") {
		assert.Equal(t, "in", htmltest.Attr(s, "data-state"))
	}
}

// The stage has one legend, and in the stream world it says what the
// stream chart's marks mean, each by its own glyph and in words; the
// chart on the stage has no legend of its own.
func TestStreamLegendIsTheStages(t *testing.T) {
	tr := run(t, "stream/checkpoint-append", nil)
	d := draw(t, tr, widget.State{Step: tr.Steps(), BasePath: "/s", ShowTruth: true})
	require.Len(t, d.ByTestID("legend"), 1, "one legend per stage")
	legend := htmltest.Text(d.One(t, "legend"))
	for _, words := range []string{"● record read", "○ record still to arrive", "┆ watermark", "✕ late record, dropped",
		"◇ late record, sent to the side output", "⊕ late record, accepted", "↻ read again after a restore", "▭ window"} {
		assert.Contains(t, legend, words)
	}
	assert.NotContains(t, htmltest.Text(d.One(t, "stream-chart")), "still to arrive", "the chart has no legend of its own")
}

// An operator with a buffer says which records went into its buffer at
// the step and which it took off it.
func TestStreamOperatorBuffer(t *testing.T) {
	tr := run(t, "stream/backpressure", nil)
	n := firstStep(t, tr, "load takes app-20 off its buffer")
	d := draw(t, tr, stateAt(n))
	var states []string
	for _, c := range d.ByTestID("op-record") {
		states = append(states, htmltest.Attr(c, "data-state")+" "+htmltest.Text(c))
	}
	assert.Contains(t, states, "taken app-20 → fct_clicks", "what it took off its buffer, and where it went")
	n = firstStep(t, tr, "taps reads")
	d = draw(t, tr, stateAt(n))
	assert.Equal(t, "queued", htmltest.Attr(d.One(t, "op-record"), "data-state"), "a record read goes into the buffer")
}

// The picture draws with the same code: the record a window took at the
// step is in its window there too, without anything to move.
func TestStreamPictureShowsTheRecordTaken(t *testing.T) {
	tr := run(t, "stream/late-data", nil)
	n := firstStep(t, tr, "taps reads user")
	svg, _, _ := widget.StreamChart(tr, n, widget.ChartOptions{Standalone: true})
	assert.Equal(t, 1, strings.Count(svg, `class="tm-token"`), "the record taken, in its window")
	assert.NotContains(t, svg, "data-from", "a picture does not move")
	assert.Contains(t, svg, "◉ taken by a window at this step", "its legend says so")
}

// TestGoldenStreamStage pins the stream world's stage at the step a late
// click is dropped: the lane with its cross, the window the minute's clicks
// are in, the operators' box with the click listed as dropped, the targets,
// and the one legend. Run
//
//	go test ./templates/widget -run TestGolden -update
//
// after a deliberate drawing change, and review the diff of testdata/.
func TestGoldenStreamStage(t *testing.T) {
	tr := run(t, "stream/late-data", nil)
	n := int(stream.Of(tr).Late[0].Step)
	got := lines(widget.Stage(tr, widget.State{Step: n, ShowTruth: true, Live: true, BasePath: "/scenarios/stream/late-data"}))
	path := filepath.Join("testdata", "late-data-dropped.html")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; run go test ./templates/widget -run TestGolden -update")
	assert.Equal(t, string(want), got, "the stream stage's HTML changed; if on purpose, run go test ./templates/widget -run TestGolden -update and review testdata/")
}

// A join's box takes the records of both its streams, says when one came
// behind the join's watermark and was dropped, lists its late records, and
// says its watermark — the minimum of its streams', an idle one left out —
// which neither stream's lane shows.
func TestJoinBoxSaysItsWatermarkAndItsLateRecords(t *testing.T) {
	tr := run(t, "stream/join-skew", map[string]string{"idleness": "30s"})
	st := stream.Of(tr)
	require.NotEmpty(t, st.Late)
	l := st.Late[0]
	require.True(t, l.Join)
	at := draw(t, tr, stateAt(int(l.Step)))
	rec := at.One(t, "op-record")
	assert.Equal(t, "dropped", htmltest.Attr(rec, "data-state"), "a payment, read from the join's right stream, dropped as late")
	assert.Contains(t, htmltest.Text(rec), "✕ dropped: behind the join's watermark")
	assert.Equal(t, "Watermark 10:03:24.999: the minimum of ordered's 10:03:24.999 and paid's 10:00:44.999 (idle, left out)",
		htmltest.Text(at.One(t, "join-watermark")))
	assert.Contains(t, htmltest.Text(at.One(t, "late-count")), "1 dropped, 0 to the side output; they never join")
	assert.Len(t, at.ByTestID("late-chip"), 1)
	text := strings.Join(widget.StreamText(tr, int(l.Step)), " ")
	assert.Contains(t, text, "its watermark, the minimum of its streams' leaving out an idle one, 10:03:24.999; 1 record behind it")

	// Without idleness the join waits for the payments: it takes them into
	// its buffer, and nothing is late.
	tr = run(t, "stream/join-skew", nil)
	st = stream.Of(tr)
	require.Empty(t, st.Late)
	paid := -1
	for i, sh := range st.Streams {
		if sh.Name == "paid" {
			paid = i
		}
	}
	require.GreaterOrEqual(t, paid, 0)
	step := 0
	for _, a := range st.Arrivals {
		if int(a.Stream) == paid {
			step = int(a.Step)
			break
		}
	}
	require.Positive(t, step)
	at = draw(t, tr, stateAt(step))
	rec = at.One(t, "op-record")
	assert.Equal(t, "taken", htmltest.Attr(rec, "data-state"))
	assert.Contains(t, htmltest.Text(rec), "bank-1")
	assert.Contains(t, htmltest.Text(rec), "→ its buffer")
	assert.Empty(t, at.ByTestID("late-count"))
	assert.NotContains(t, htmltest.Text(at.One(t, "join-watermark")), "idle")
}

// In stream/late-replay the four clicks dropped as late are read again
// after the restore, and taken: the tray still lists them as dropped, which
// they were, and says they were read again; their dots no longer show a
// cross. Before the restore reads them, a chip says only that it was
// dropped.
func TestLateTraySaysWhatARestoreReadAgain(t *testing.T) {
	tr := run(t, "stream/late-replay", nil)
	st := stream.Of(tr)
	require.Len(t, st.Job.Restores, 1)
	chips := func(n int) []string {
		var out []string
		for _, c := range draw(t, tr, stateAt(n)).ByTestID("late-chip") {
			out = append(out, htmltest.Text(c))
		}
		return out
	}
	before := chips(int(st.Job.Restores[0].Step))
	require.Len(t, before, 4)
	for _, c := range before {
		assert.Contains(t, c, "✕ dropped ·")
	}
	after := chips(tr.Steps())
	require.Len(t, after, 4)
	for _, c := range after {
		assert.Contains(t, c, "✕ dropped, read again ·")
	}
	end := draw(t, tr, stateAt(tr.Steps()))
	assert.Empty(t, htmltest.All(end.Root, func(n *html.Node) bool { return htmltest.Attr(n, "data-fate") == "dropped" && n.Data == "g" }), "no cross on a lane")
}
