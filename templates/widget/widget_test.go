package widget_test

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web/htmltest"
)

const gapBase = "/scenarios/hwm/visibility-gap"

// bundled returns a bundled scenario's parsed file.
func bundled(t testing.TB, id string) *scenario.File {
	t.Helper()
	sc, ok := lessons.Lookup(id)
	require.True(t, ok, "bundled scenario %s", id)
	return sc.File
}

// run runs a bundled scenario with knobs and seed 1.
func run(t testing.TB, id string, knobs map[string]string) *engine.Trace {
	t.Helper()
	tr, err := engine.Run(bundled(t, id), knobs, 1, worlds.All())
	require.NoError(t, err)
	return tr
}

// draw renders the widget and parses it.
func draw(t testing.TB, tr *engine.Trace, st widget.State) htmltest.Doc {
	t.Helper()
	return htmltest.Parse(t, widget.Render(tr, st))
}

// linkQuery parses the href of the element with data-testid id.
func linkQuery(t testing.TB, d htmltest.Doc, id string) (path string, q url.Values) {
	t.Helper()
	u, err := url.Parse(htmltest.Attr(d.One(t, id), "href"))
	require.NoError(t, err)
	return u.Path, u.Query()
}

func keysOf(nodes []*html.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, htmltest.Attr(n, "data-key"))
	}
	return out
}

// TestControlsGlyphsDiffer: a narrow widget, and presenter mode on a short
// screen, show each timeline button by its glyph alone, so no two may be
// alike (a step forward once had Play's triangle).
func TestControlsGlyphsDiffer(t *testing.T) {
	d := draw(t, run(t, "hwm/visibility-gap", nil), widget.State{Step: 3, Live: true, BasePath: gapBase})
	seen := map[string]string{}
	for _, id := range []string{"btn-start", "btn-back", "btn-play", "btn-forward", "btn-end"} {
		var glyph string
		for _, n := range htmltest.All(d.One(t, id), func(n *html.Node) bool { return htmltest.Attr(n, "aria-hidden") == "true" }) {
			glyph += htmltest.Text(n)
		}
		require.NotEmpty(t, glyph, "%s has no glyph", id)
		if other, ok := seen[glyph]; ok {
			t.Errorf("%s and %s both show %q", other, id, glyph)
		}
		seen[glyph] = id
	}
}

func TestRenderControls(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", nil)
	n := tr.Steps()
	require.Equal(t, 24, n, "the scenario's timeline changed; update the steps below")

	type link struct {
		step     int
		disabled string
	}
	for _, tc := range []struct {
		step                     int
		start, back, fwd, finish link
	}{
		{0, link{0, "true"}, link{0, "true"}, link{1, "false"}, link{n, "false"}},
		{14, link{0, "false"}, link{13, "false"}, link{15, "false"}, link{n, "false"}},
		{n, link{0, "false"}, link{n - 1, "false"}, link{n, "true"}, link{n, "true"}},
	} {
		t.Run("step="+strconv.Itoa(tc.step), func(t *testing.T) {
			d := draw(t, tr, widget.State{Step: tc.step, ShowTruth: true, BasePath: gapBase})
			w := d.One(t, "widget")
			assert.Equal(t, strconv.Itoa(tc.step), htmltest.Attr(w, "data-step"))
			assert.Equal(t, strconv.Itoa(n), htmltest.Attr(w, "data-steps"))
			for id, want := range map[string]link{"btn-start": tc.start, "btn-back": tc.back, "btn-forward": tc.fwd, "btn-end": tc.finish} {
				path, q := linkQuery(t, d, id)
				assert.Equal(t, gapBase, path, id)
				assert.Equal(t, strconv.Itoa(want.step), q.Get("step"), "%s links to the wrong step", id)
				assert.Equal(t, want.disabled, htmltest.Attr(d.One(t, id), "aria-disabled"), id)
				assert.Empty(t, q.Get("mark"), "%s: a default knob stays out of the link", id)
			}
			scrub := d.One(t, "scrubber")
			assert.Equal(t, strconv.Itoa(tc.step), htmltest.Attr(scrub, "value"))
			assert.Equal(t, strconv.Itoa(n), htmltest.Attr(scrub, "max"))
			assert.Equal(t, "Step "+strconv.Itoa(tc.step)+" of "+strconv.Itoa(n), htmltest.Text(d.One(t, "counter")))

			narr := d.One(t, "narration")
			assert.Equal(t, "polite", htmltest.Attr(narr, "aria-live"))
			assert.Equal(t, widget.Narration(tr, tc.step), htmltest.Text(narr))
			assert.Contains(t, htmltest.Text(narr), "Step "+strconv.Itoa(tc.step)+" of 24")

			// The step list marks the current step, and only it.
			var current []string
			for _, li := range d.ByTag("li") {
				if htmltest.Attr(li, "aria-current") == "step" {
					current = append(current, htmltest.Attr(li, "data-step"))
				}
			}
			if tc.step == 0 {
				assert.Empty(t, current)
			} else {
				assert.Equal(t, []string{strconv.Itoa(tc.step)}, current)
			}
			// Without the browser module, the controls that need it are hidden.
			assert.True(t, htmltest.HasAttr(d.One(t, "btn-play"), "hidden"))
			assert.True(t, htmltest.HasAttr(d.One(t, "faults"), "hidden"))
		})
	}
	assert.Contains(t, widget.Narration(tr, 14), "T3 commits at 10:00:04")
}

func TestRenderLinksCarryKnobsAndChoices(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"})
	d := draw(t, tr, widget.State{Step: 5, ShowTruth: false, BasePath: gapBase})
	for _, id := range []string{"btn-start", "btn-back", "btn-forward", "btn-end"} {
		_, q := linkQuery(t, d, id)
		assert.Equal(t, "lsn", q.Get("mark"), id)
		assert.Equal(t, "off", q.Get("truth"), id)
		assert.Empty(t, q.Get("predicate"), "%s: default knob in the link", id)
	}
	// Each step of the timeline links to itself.
	for _, a := range htmltest.All(d.One(t, "timeline"), func(n *html.Node) bool { return htmltest.Attr(n, "data-act") == "seek" }) {
		u, err := url.Parse(htmltest.Attr(a, "href"))
		require.NoError(t, err)
		assert.Equal(t, htmltest.Attr(a, "data-step"), u.Query().Get("step"))
	}
}

// TestRenderLinksKeepTheSeed: a run with a seed other than 1 keeps it in
// every step link and in the knob form, as its share link does; a link
// that dropped it would open another run.
func TestRenderLinksKeepTheSeed(t *testing.T) {
	tr, err := engine.Run(bundled(t, "hwm/visibility-gap"), nil, 7, worlds.All())
	require.NoError(t, err)
	d := draw(t, tr, widget.State{Step: 5, ShowTruth: true, BasePath: gapBase})
	for _, id := range []string{"btn-start", "btn-back", "btn-forward", "btn-end"} {
		_, q := linkQuery(t, d, id)
		assert.Equal(t, "7", q.Get("seed"), id)
	}
	seeds := htmltest.All(d.One(t, "knobs"), func(n *html.Node) bool { return htmltest.Attr(n, "name") == "seed" })
	require.Len(t, seeds, 1, "the knob form drops the seed")
	assert.Equal(t, "7", htmltest.Attr(seeds[0], "value"))

	// With the default seed, links stay short.
	d = draw(t, run(t, "hwm/visibility-gap", nil), widget.State{Step: 5, ShowTruth: true, BasePath: gapBase})
	_, q := linkQuery(t, d, "btn-forward")
	assert.False(t, q.Has("seed"), "seed 1 is the default")
}

func TestRenderKnobsReflectSettings(t *testing.T) {
	f := bundled(t, "hwm/visibility-gap")
	for _, knobs := range []map[string]string{nil, {"mark": "lsn"}, {"mark": "lsn", "predicate": "gte"}} {
		tr, err := engine.Run(f, knobs, 1, worlds.All())
		require.NoError(t, err)
		d := draw(t, tr, widget.State{Step: 3, ShowTruth: true, BasePath: gapBase})
		for _, k := range f.Knobs {
			want := k.Default
			if v, ok := knobs[k.Name]; ok {
				want = v
			}
			var checked []string
			for _, v := range k.Values {
				radio := d.One(t, "knob-"+k.Name+"-"+v)
				assert.Equal(t, "radio", htmltest.Attr(radio, "type"))
				assert.Equal(t, k.Name, htmltest.Attr(radio, "name"))
				if htmltest.HasAttr(radio, "checked") {
					checked = append(checked, v)
				}
			}
			assert.Equal(t, []string{want}, checked, "knobs %v: radios of %s", knobs, k.Name)
		}
		assert.True(t, htmltest.HasAttr(d.One(t, "truth-toggle"), "checked"))
	}
	tr := run(t, "hwm/visibility-gap", nil)
	d := draw(t, tr, widget.State{Step: 3, ShowTruth: false, BasePath: gapBase})
	assert.False(t, htmltest.HasAttr(d.One(t, "truth-toggle"), "checked"))
}

// slots returns the keys of the target's slots in a given state ("" for all).
func slots(d htmltest.Doc, state string) []string {
	var out []string
	for _, n := range d.ByTestID("slot") {
		if state == "" || htmltest.Attr(n, "data-state") == state {
			out = append(out, htmltest.Attr(n, "data-key"))
		}
	}
	return out
}

// TestRenderSlotsWaitingAndLost: with the truth shown, every missing key
// has a slot in the target, marked waiting when a later step writes it and
// lost when none does; its source row says the same; without the truth,
// only what the target holds is drawn.
func TestRenderSlotsWaitingAndLost(t *testing.T) {
	for _, knobs := range []map[string]string{nil, {"mark": "lsn"}} {
		tr := run(t, "hwm/visibility-gap", knobs)
		final := tr.Final()
		sawWaiting, sawLost := false, false
		for step := 0; step <= tr.Steps(); step++ {
			missing := tr.TruthAt(step).Missing
			d := draw(t, tr, widget.State{Step: step, ShowTruth: true, BasePath: gapBase})
			var waiting, lost []string
			for _, k := range missing {
				if slices.Contains(final.Missing, k) {
					lost = append(lost, k)
				} else {
					waiting = append(waiting, k)
				}
			}
			sawWaiting, sawLost = sawWaiting || len(waiting) > 0, sawLost || len(lost) > 0
			assert.Equal(t, waiting, nilIfEmpty(slots(d, "waiting")), "%v step %d: waiting slots", knobs, step)
			assert.Equal(t, lost, nilIfEmpty(slots(d, "lost")), "%v step %d: lost slots", knobs, step)
			assert.Equal(t, nilIfEmpty(missing), nilIfEmpty(keysOf(d.ByTestID("row-missing"))), "%v step %d: the table's ghost rows", knobs, step)
			inFlight := keysOf(d.ByTestID("inflight"))
			for _, n := range d.ByTestID("slot") {
				switch htmltest.Attr(n, "data-state") {
				case "waiting":
					// A run holding the key has read it: the slot does not
					// say otherwise beside the extractor's chip.
					words := "◌ not read yet"
					if slices.Contains(inFlight, htmltest.Attr(n, "data-key")) {
						words = "◌ read, not written yet"
					}
					assert.Contains(t, htmltest.Text(n), words, "step %d: a waiting slot says so in words", step)
				case "lost":
					assert.Contains(t, htmltest.Text(n), "✕ lost", "a lost slot says so in words")
				}
			}
			// A slot is never both held and missing.
			held := slots(d, "in")
			for _, k := range missing {
				assert.NotContains(t, held, k, "step %d", step)
			}
			// The truth line says which missing keys are lost and which a
			// later step writes, as the slots do.
			truth := htmltest.Text(d.One(t, "truth"))
			if len(lost) > 0 {
				assert.Contains(t, truth, "not in the target: "+strings.Join(lost, ", "))
			}
			if len(waiting) > 0 {
				assert.Contains(t, truth, "not in the target yet: "+strings.Join(waiting, ", "))
			}
			// Each missing key's source row says what became of it.
			for _, f := range d.ByTestID("fate") {
				k := htmltest.Attr(f, "data-key")
				switch htmltest.Attr(f, "data-fate") {
				case "lost":
					assert.Contains(t, lost, k, "step %d", step)
				case "waiting":
					assert.Contains(t, waiting, k, "step %d", step)
				}
			}

			hidden := draw(t, tr, widget.State{Step: step, ShowTruth: false, BasePath: gapBase})
			assert.Empty(t, append(slots(hidden, "waiting"), slots(hidden, "lost")...), "step %d: no ghosts without the truth", step)
			assert.Empty(t, hidden.ByTestID("row-missing"), "step %d", step)
			assert.Empty(t, hidden.ByTestID("truth"), "step %d: truth summary without the truth", step)
			assert.Empty(t, hidden.ByTestID("fate"), "step %d: no fates without the truth", step)
			assert.Equal(t, held, slots(hidden, "in"), "step %d: what the target holds does not depend on the truth toggle", step)
		}
		if knobs == nil {
			assert.True(t, sawLost, "the timestamp mark loses rows; the test checks nothing")
		} else {
			assert.True(t, sawWaiting, "the lsn mark leaves rows waiting; the test checks nothing")
		}
	}
	// The lesson's moment: after T4 commits, orders 3 and 4 are lost with a
	// timestamp mark, and only waiting with an lsn mark.
	d := draw(t, run(t, "hwm/visibility-gap", nil), widget.State{Step: 15, ShowTruth: true, BasePath: gapBase})
	assert.Equal(t, []string{"3", "4"}, slots(d, "lost"))
	d = draw(t, run(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"}), widget.State{Step: 15, ShowTruth: true, BasePath: gapBase})
	assert.Equal(t, []string{"3", "4"}, slots(d, "waiting"))
	assert.Contains(t, htmltest.Text(d.One(t, "target-table")), "not read yet: committed in the source; written at step 17")
	// A step on, the run has read them and holds them until it writes.
	d = draw(t, run(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"}), widget.State{Step: 16, ShowTruth: true, BasePath: gapBase})
	assert.Equal(t, []string{"3", "4"}, keysOf(d.ByTestID("inflight")))
	assert.Equal(t, []string{"3", "4"}, slots(d, "waiting"))
	for _, n := range d.ByTestID("slot") {
		if htmltest.Attr(n, "data-state") == "waiting" {
			assert.Contains(t, htmltest.Text(n), "◌ read, not written yet")
		}
	}
}

func nilIfEmpty(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

// TestRenderDuplicatesStack: a key the target holds twice is one slot,
// stacked, saying ×2; the table lists each copy.
func TestRenderDuplicatesStack(t *testing.T) {
	tr := run(t, "hwm/advance-order", map[string]string{"advance": "after", "sink": "append", "crash": "between"})
	n := tr.Steps()
	require.Equal(t, map[string]int{"3": 2, "4": 2}, tr.Final().Duplicated)
	d := draw(t, tr, widget.State{Step: n, ShowTruth: true, BasePath: "/scenarios/hwm/advance-order"})
	assert.Equal(t, []string{"3", "4"}, slots(d, "dup"))
	for _, n := range d.ByTestID("slot") {
		if htmltest.Attr(n, "data-state") == "dup" {
			assert.Equal(t, "2", htmltest.Attr(n, "data-copies"))
			assert.Contains(t, htmltest.Text(n), "×2")
		}
	}
	assert.Equal(t, []string{"1", "2", "3", "3", "4", "4", "5"}, keysOf(d.ByTestID("row")))
	assert.Contains(t, htmltest.Text(d.One(t, "truth")), "duplicated: 3 ×2, 4 ×2")
	// Copies are what the target holds: a team sees them too.
	hidden := draw(t, tr, widget.State{Step: n, ShowTruth: false, BasePath: "/scenarios/hwm/advance-order"})
	assert.Equal(t, []string{"3", "4"}, slots(hidden, "dup"))
	// Before the restart's write there is nothing duplicated.
	first := draw(t, tr, widget.State{Step: 3, ShowTruth: true, BasePath: "/scenarios/hwm/advance-order"})
	assert.Empty(t, slots(first, "dup"))
}

// TestRenderRowsInFlight: between a run's read and its write, the rows it
// read are chips in the extractor, each moving from its source row; the
// write moves them on to their slots.
func TestRenderRowsInFlight(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"})
	r := hwm.Of(tr).Runs[1]
	require.Equal(t, []string{"3", "4"}, r.Keys)
	d := draw(t, tr, widget.State{Step: r.ReadStep, ShowTruth: true, BasePath: gapBase})
	chips := d.ByTestID("inflight")
	assert.Equal(t, []string{"3", "4"}, keysOf(chips))
	for _, c := range chips {
		k := htmltest.Attr(c, "data-key")
		assert.Equal(t, "src:fct_orders:"+k, htmltest.Attr(c, "data-from"), "a read row moves from its source row")
		assert.Equal(t, "run:fct_orders:"+k, htmltest.Attr(c, "data-chip"))
		// The chip it moves from is on the page.
		from := htmltest.All(d.Root, func(n *html.Node) bool { return htmltest.Attr(n, "data-chip") == "src:fct_orders:"+k })
		assert.Len(t, from, 1, "key %s: the source row's chip", k)
	}
	assert.Contains(t, htmltest.Text(d.One(t, "run")), "holds them; writing next")
	w := draw(t, tr, widget.State{Step: r.WriteStep, ShowTruth: true, BasePath: gapBase})
	assert.Empty(t, w.ByTestID("inflight"), "written rows leave the extractor")
	for _, n := range w.ByTestID("slot") {
		k := htmltest.Attr(n, "data-key")
		if k == "3" || k == "4" {
			assert.Equal(t, "run:fct_orders:"+k, htmltest.Attr(n, "data-from"), "a written row moves from the extractor")
			assert.True(t, htmltest.HasAttr(n, "data-new"))
		} else {
			assert.False(t, htmltest.HasAttr(n, "data-new"), "key %s was not written at this step", k)
		}
	}
}

// TestRenderRowsDroppedOnlyOnceCrashed: a crash between a run's read and
// its write drops the rows it holds at the crash's step, not before: at the
// read's step the chips are held, not marked dropped.
func TestRenderRowsDroppedOnlyOnceCrashed(t *testing.T) {
	orig := run(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"})
	read := hwm.Of(orig).Runs[1].ReadStep
	tr, err := engine.RunWithFaults(bundled(t, "hwm/visibility-gap"), orig.Settings, 1, worlds.All(), []engine.Fault{{AfterStep: read, Kind: hwm.FaultCrash}})
	require.NoError(t, err)
	r := hwm.Of(tr).Runs[1]
	require.True(t, r.Crashed)
	require.Greater(t, r.EndStep, read)

	held := draw(t, tr, widget.State{Step: read, ShowTruth: true, BasePath: gapBase})
	chips := held.ByTestID("inflight")
	require.Equal(t, []string{"3", "4"}, keysOf(chips))
	for _, c := range chips {
		assert.False(t, htmltest.HasAttr(c, "data-state"), "step %d is before the crash: the run still holds the row", read)
	}
	assert.Contains(t, htmltest.Text(held.One(t, "run")), "holds them; writing next")

	crashed := draw(t, tr, widget.State{Step: r.EndStep, ShowTruth: true, BasePath: gapBase})
	for _, c := range crashed.ByTestID("inflight") {
		assert.Equal(t, "dropped", htmltest.Attr(c, "data-state"))
	}
	assert.Contains(t, htmltest.Text(crashed.One(t, "run")), "crashed before writing")

	// A crash after the write, before the mark is stored: the rows are in
	// the target, not dropped.
	sc := bundled(t, "hwm/advance-order")
	orig = run(t, "hwm/advance-order", map[string]string{"advance": "after"})
	var w *hwm.RunRecord
	for i := range hwm.Of(orig).Runs {
		if r := &hwm.Of(orig).Runs[i]; r.WriteStep > 0 && r.MarkStep > r.WriteStep && len(r.Keys) > 0 {
			w = r
			break
		}
	}
	require.NotNil(t, w, "a run that stores its mark a step after its write")
	tr, err = engine.RunWithFaults(sc, orig.Settings, 1, worlds.All(), []engine.Fault{{AfterStep: int(w.WriteStep), Kind: hwm.FaultCrash}})
	require.NoError(t, err)
	var c *hwm.RunRecord
	for i := range hwm.Of(tr).Runs {
		if r := &hwm.Of(tr).Runs[i]; r.Crashed {
			c = r
		}
	}
	require.NotNil(t, c)
	require.Positive(t, c.WriteStep)
	written := draw(t, tr, widget.State{Step: int(c.EndStep), ShowTruth: true, BasePath: "/scenarios/hwm/advance-order"})
	assert.Empty(t, written.ByTestID("inflight"), "rows written are not drawn as dropped")
	assert.Contains(t, htmltest.Text(written.One(t, "run")), "then crashed before storing its mark")
}

// TestRenderMarksOfEveryKind: a timestamp mark and an lsn mark are both
// drawn on the source chart, and said in words under it.
func TestRenderMarksOfEveryKind(t *testing.T) {
	for _, tc := range []struct {
		knobs map[string]string
		kind  string
		label string
	}{
		{nil, "timestamp", "extract's mark 10:00:02"},
		{map[string]string{"mark": "lsn"}, "lsn", "extract's mark lsn 1002"},
	} {
		tr := run(t, "hwm/visibility-gap", tc.knobs)
		d := draw(t, tr, widget.State{Step: 14, ShowTruth: true, BasePath: gapBase})
		lines := htmltest.All(d.One(t, "source-chart"), func(n *html.Node) bool { return htmltest.Attr(n, "data-mark") == "extract" })
		require.Len(t, lines, 1, "%s: the mark's line", tc.kind)
		assert.Contains(t, htmltest.Attr(lines[0], "class"), "tm-mark-"+tc.kind)
		m := d.One(t, "chart-mark")
		assert.Equal(t, tc.kind, htmltest.Attr(m, "data-kind"))
		assert.Contains(t, htmltest.Text(m), tc.label)
		// Before the first run stores it, no mark is drawn.
		early := draw(t, tr, widget.State{Step: 3, ShowTruth: true, BasePath: gapBase})
		assert.Empty(t, early.ByTestID("chart-mark"))
	}
	// An lsn mark's line falls after the last commit it covers (T2, lsn
	// 1002, at 10:00:01) and before the next (T3, at 10:00:04).
	tr := run(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"})
	d := draw(t, tr, widget.State{Step: 14, ShowTruth: true, BasePath: gapBase})
	x := func(n *html.Node, attr string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(htmltest.Attr(n, attr), "%"), 64)
		require.NoError(t, err)
		return v
	}
	line := htmltest.All(d.One(t, "source-chart"), func(n *html.Node) bool { return htmltest.Attr(n, "data-mark") == "extract" })[0]
	bars := map[string]float64{} // each transaction's commit, as the x of its bar's end
	for _, row := range d.ByTestID("txn") {
		rect := htmltest.All(row, func(n *html.Node) bool { return n.Data == "rect" })[0]
		if strings.HasSuffix(htmltest.Attr(rect, "width"), "%") {
			bars[htmltest.Attr(row, "data-txn")] = x(rect, "x") + x(rect, "width")
		}
	}
	assert.Greater(t, x(line, "x1"), 0.0)
	assert.Less(t, x(line, "x1"), bars["T3"], "the lsn mark lies before T3's commit")
}

// TestRenderAxisTicks: the source chart's axis has a tick at every round
// time between its ends, not only at the ends.
func TestRenderAxisTicks(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", nil)
	d := draw(t, tr, widget.State{Step: 10, BasePath: gapBase})
	var ticks []string
	for _, n := range htmltest.All(d.One(t, "source-chart"), func(n *html.Node) bool { return htmltest.Attr(n, "class") == "tm-tick" }) {
		ticks = append(ticks, htmltest.Text(n))
	}
	assert.Equal(t, []string{":00", ":02", ":04", ":06", ":08"}, ticks, "ticks every two seconds over 10:00:00–10:00:09")
	assert.Contains(t, htmltest.Text(d.One(t, "source-chart")), "10:00", "the hour and minute once, beside the ticks")
}

func TestRenderComparePanel(t *testing.T) {
	f := bundled(t, "hwm/advance-order")
	knobs := map[string]string{"advance": "after", "sink": "append", "crash": "none"}
	orig, err := engine.Run(f, knobs, 1, worlds.All())
	require.NoError(t, err)
	// Crash the second run between its write and its mark, as the learner's button does.
	at := hwm.Of(orig).Runs[1].WriteStep
	require.Positive(t, at)
	fork, err := engine.RunWithFaults(f, knobs, 1, worlds.All(), []engine.Fault{{AfterStep: at, Kind: hwm.FaultCrash}})
	require.NoError(t, err)

	plain := draw(t, fork, widget.State{Step: fork.Steps(), ShowTruth: true})
	assert.Empty(t, plain.ByTestID("panel-compare"), "no compare panel without an original")
	assert.Empty(t, plain.ByTestID("row-differs"))

	d := draw(t, fork, widget.State{Step: fork.Steps(), ShowTruth: true, Original: orig, Live: true})
	d.One(t, "panel-compare")
	differs := keysOf(d.ByTestID("row-differs"))
	var want []string
	final := fork.Final()
	for _, k := range []string{"1", "2", "3", "4", "5"} {
		if final.Duplicated[k] > 0 || slices.Contains(final.Missing, k) {
			want = append(want, k)
		}
	}
	require.NotEmpty(t, want, "the crash changed nothing; the test checks nothing")
	assert.Equal(t, want, differs)
	for _, row := range d.ByTestID("row-differs") {
		assert.Contains(t, htmltest.Text(row), "differs")
	}
	assert.Contains(t, htmltest.Text(d.One(t, "compare-summary")), strconv.Itoa(len(want))+" keys differ")
	// One key is a key, not keys.
	one := draw(t, fork, widget.State{Step: at + 1, ShowTruth: true, Original: orig})
	if n := len(one.ByTestID("row-differs")); n == 1 {
		assert.Contains(t, htmltest.Text(one.One(t, "compare-summary")), "1 key differs.")
	}

	// At the crash itself the two timelines still agree.
	early := draw(t, fork, widget.State{Step: at, ShowTruth: true, Original: orig})
	d2 := early.One(t, "panel-compare")
	assert.Empty(t, early.ByTestID("row-differs"))
	assert.Contains(t, htmltest.Text(d2), "0 keys differ")
}

// TestRenderAccessibleAndCSPSafe checks every step of two scenarios: every
// picture has a text equivalent and nothing the site's CSP would block.
func TestRenderAccessibleAndCSPSafe(t *testing.T) {
	gap := run(t, "hwm/visibility-gap", nil)
	dup := run(t, "hwm/advance-order", map[string]string{"advance": "after", "sink": "append", "crash": "between"})
	orig := run(t, "hwm/advance-order", map[string]string{"advance": "after", "sink": "append", "crash": "none"})
	for _, tc := range []struct {
		name string
		tr   *engine.Trace
		st   widget.State
	}{
		{"visibility-gap", gap, widget.State{ShowTruth: true, Explain: "3"}},
		{"advance-order", dup, widget.State{ShowTruth: true, Original: orig, Live: true, Message: `<script>alert("x")</script>`}},
		{"retention-lag", run(t, "dist/retention-lag", nil), widget.State{ShowTruth: true, Live: true}},
	} {
		svgs := 0
		for step := 0; step <= tc.tr.Steps(); step++ {
			st := tc.st
			st.Step = step
			d := draw(t, tc.tr, st)
			for _, svg := range d.ByTag("svg") {
				if svg.Parent != nil && svg.Parent.Data == "svg" {
					continue // a part of a picture
				}
				svgs++
				if htmltest.Attr(svg, "aria-hidden") == "true" {
					continue // lines whose meaning the text under the chart says
				}
				assert.Equal(t, "img", htmltest.Attr(svg, "role"), "%s step %d: <svg> without role=img", tc.name, step)
				assert.NotEmpty(t, strings.TrimSpace(htmltest.Attr(svg, "aria-label")), "%s step %d: <svg> without aria-label", tc.name, step)
			}
			assert.Empty(t, d.CSPViolations(), "%s step %d", tc.name, step)
			assert.Empty(t, d.ByTag("script"), "%s step %d: a script element in the widget", tc.name, step)
			for _, n := range htmltest.All(d.Root, func(*html.Node) bool { return true }) {
				assert.False(t, htmltest.HasAttr(n, "style"), "%s step %d: style attribute on <%s>", tc.name, step, n.Data)
			}
		}
		assert.Positive(t, svgs, "%s draws no pictures; the test checks nothing", tc.name)
	}
}

func TestRenderExplainAndMessage(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", nil)
	d := draw(t, tr, widget.State{Step: 15, ShowTruth: true, Explain: "3", BasePath: gapBase, Message: "step=x is not a step number"})
	ex := d.One(t, "explain")
	assert.Contains(t, htmltest.Text(ex), "Why key 3?")
	// The page's announcer says the story once (widget.js); a second live
	// region around it said it twice.
	assert.False(t, htmltest.HasAttr(ex, "role"))
	msg := d.One(t, "message")
	assert.Equal(t, "alert", htmltest.Attr(msg, "role"))
	assert.False(t, htmltest.HasAttr(msg, "hidden"))
	assert.Equal(t, "step=x is not a step number", htmltest.Text(msg))

	quiet := draw(t, tr, widget.State{Step: 15, BasePath: gapBase})
	assert.True(t, htmltest.HasAttr(quiet.One(t, "message"), "hidden"))
	assert.Empty(t, quiet.ByTestID("explain"))
}

// A knob whose value a link gave was refused: its group points at the
// message that says why, so that a screen reader reaching the knob hears
// it, and no other knob does.
func TestRenderRefusedKnobIsDescribedByTheMessage(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", nil)
	d := draw(t, tr, widget.State{Step: 2, BasePath: gapBase,
		Message: `The knob mark cannot be "nope"; expected timestamp | lsn, so it stays timestamp.`})
	id := htmltest.Attr(d.One(t, "message"), "id")
	require.NotEmpty(t, id)
	groups := 0
	for _, fs := range d.ByTag("fieldset") {
		if htmltest.Attr(fs, "data-knob") == "mark" {
			groups++
			assert.Equal(t, id, htmltest.Attr(fs, "aria-describedby"))
		} else {
			assert.False(t, htmltest.HasAttr(fs, "aria-describedby"), "fieldset %s", htmltest.Attr(fs, "data-knob"))
		}
	}
	assert.Equal(t, 1, groups)
	quiet := draw(t, tr, widget.State{Step: 2, BasePath: gapBase})
	for _, fs := range quiet.ByTag("fieldset") {
		assert.False(t, htmltest.HasAttr(fs, "aria-describedby"), "without a message")
	}
}

// A target's slot link is named with the slot's state, which Tab alone
// would not say: a lost key sounded like a key that is there.
func TestRenderSlotLinksSayTheirState(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", nil)
	d := draw(t, tr, widget.State{Step: 24, ShowTruth: true, BasePath: gapBase})
	names := map[string]string{}
	for _, n := range d.ByTestID("slot") {
		a := htmltest.All(n, func(x *html.Node) bool { return x.Data == "a" })
		require.Len(t, a, 1)
		names[htmltest.Attr(n, "data-key")] = htmltest.Attr(a[0], "aria-label")
	}
	assert.Equal(t, "explain key 3 (lost)", names["3"])
	assert.Equal(t, "explain key 1 (v1)", names["1"])
}

func TestRenderClampsStep(t *testing.T) {
	tr := run(t, "hwm/visibility-gap", nil)
	d := draw(t, tr, widget.State{Step: 999})
	assert.Equal(t, "24", htmltest.Attr(d.One(t, "widget"), "data-step"))
	d = draw(t, tr, widget.State{Step: -3})
	assert.Equal(t, "0", htmltest.Attr(d.One(t, "widget"), "data-step"))
	assert.Equal(t, widget.Narration(tr, 24), widget.Narration(tr, 999))
}

func TestFromQuery(t *testing.T) {
	f := bundled(t, "hwm/visibility-gap")
	for _, tc := range []struct {
		query    string
		knobs    map[string]string
		step     int
		truth    bool
		explain  string
		problems []string // substrings, one problem each
	}{
		{query: "", knobs: map[string]string{}, truth: true},
		{query: "mark=lsn&step=14&truth=off&explain=3", knobs: map[string]string{"mark": "lsn"}, step: 14, explain: "3"},
		{query: "mark=bogus&step=2", knobs: map[string]string{}, step: 2, truth: true,
			problems: []string{`the knob mark cannot be "bogus"; expected timestamp | lsn, so it stays timestamp`}},
		{query: "colour=red", knobs: map[string]string{}, truth: true,
			problems: []string{"this scenario has no knob \"colour\"; ignoring it"}},
		{query: "step=abc", knobs: map[string]string{}, truth: true,
			problems: []string{"the link's step=abc is not a step number; starting at step 0"}},
		{query: "step=-4", knobs: map[string]string{}, truth: true, problems: []string{"the link's step=-4 is not a step number"}},
		// A step past any number opens at the run's end (Step clamps it);
		// one with anything but digits after it is not a step.
		{query: "step=99999999999999999999", knobs: map[string]string{}, step: math.MaxInt, truth: true},
		{query: "step=-99999999999999999999", knobs: map[string]string{}, truth: true, problems: []string{"the link's step=-99999999999999999999 is not a step number"}},
		{query: "step=99999999999999999999x", knobs: map[string]string{}, truth: true, problems: []string{"the link's step=99999999999999999999x is not a step number"}},
		{query: "step=1&step=7", knobs: map[string]string{}, step: 7, truth: true, // the last value wins, and says so
			problems: []string{"the link sets step 2 times; the last, 7, counts"}},
		{query: "explain=" + strings.Repeat("k", widget.MaxExplain), knobs: map[string]string{}, truth: true, explain: strings.Repeat("k", widget.MaxExplain)},
		{query: "explain=" + strings.Repeat("k", widget.MaxExplain+1), knobs: map[string]string{}, truth: true,
			problems: []string{"the link's explain=kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk… is longer than a key this site explains (200 bytes at most); ignoring it"}},
		// A mistyped notes window would silently be a second room.
		{query: "present=Notes", knobs: map[string]string{}, truth: true,
			problems: []string{"the link's present=Notes is none of on, notes and off; presenting to the room"}},
		{query: "present", knobs: map[string]string{}, truth: true},
		{query: "present=on", knobs: map[string]string{}, truth: true},
		{query: "present=notes", knobs: map[string]string{}, truth: true},
		{query: "predicate=gte&mark=nope&colour=red&step=x&seed=9", knobs: map[string]string{"predicate": "gte"}, truth: true,
			problems: []string{`knob mark cannot be "nope"`, "step=x is not", `no knob "colour"`}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			knobs, st, problems := widget.FromQuery(f, q)
			assert.Equal(t, tc.knobs, knobs)
			assert.Equal(t, tc.step, st.Step)
			assert.Equal(t, tc.truth, st.ShowTruth)
			assert.Equal(t, tc.explain, st.Explain)
			require.Len(t, problems, len(tc.problems), "problems: %q", problems)
			all := strings.Join(problems, "\n")
			for _, p := range tc.problems {
				assert.Contains(t, all, p)
			}
			assert.True(t, slices.IsSorted(problems), "problems are sorted, so messages are stable")
			// The knobs it returns always build.
			_, err = engine.Build(f, knobs, 1, worlds.All())
			assert.NoError(t, err)
		})
	}
}

// generated returns a scenario of n generated transactions with a
// timestamp mark, which loses some of them, and runs every 5 s.
func generated(t testing.TB, n int) *scenario.File {
	t.Helper()
	src := `scenario gen/large "Generated"
source orders key=order_id clock=source updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
workload orders txns=` + strconv.Itoa(n) + ` from=10:00:00 every=200ms duration=0s..3s
runs extract every=5s from=10:00:00 until=10:30:00
check gap-scan
check uniqueness
`
	f, err := scenario.Parse("gen.tdm", []byte(src))
	require.NoError(t, err)
	return f
}

func TestRenderLargeTargetIsWindowed(t *testing.T) {
	tr, err := engine.Run(generated(t, 400), nil, 1, worlds.All())
	require.NoError(t, err)
	n := tr.Steps()
	rows := tr.TargetAt("fct_orders", n)
	missing := tr.TruthAt(n).Missing
	require.Greater(t, len(rows)+len(missing), 150, "the target is not large enough to be windowed")
	require.NotEmpty(t, missing)

	d := draw(t, tr, widget.State{Step: n, ShowTruth: true})
	table := d.One(t, "target-table")
	drawn := htmltest.All(table, func(n *html.Node) bool {
		id := htmltest.Attr(n, "data-testid")
		return n.Data == "tr" && (id == "row" || id == "row-missing")
	})
	assert.Len(t, drawn, 40, "a large target is drawn as a window of keys")
	caption := htmltest.Text(htmltest.All(table, func(n *html.Node) bool { return n.Data == "caption" })[0])
	assert.Contains(t, caption, strconv.Itoa(len(rows))+" rows at this step; showing 40 keys around the latest write, ")
	assert.Equal(t, keysOf(drawn), slots(d, ""), "the station's slots are the table's keys")
	// The window holds the row written last, and ghosts for exactly the
	// missing keys within it.
	latest := rows[len(rows)-1]
	for _, r := range rows {
		if r.AddedStep > latest.AddedStep {
			latest = r
		}
	}
	keys := keysOf(drawn)
	assert.Contains(t, keys, tr.RowKey(&latest))
	assert.True(t, slices.IsSortedFunc(keys, func(a, b string) int { return cmpKeys(t, a, b) }), "keys in order: %v", keys)
	var want []string
	for _, k := range missing {
		if cmpKeys(t, k, keys[0]) >= 0 && cmpKeys(t, k, keys[len(keys)-1]) <= 0 {
			want = append(want, k)
		}
	}
	assert.Equal(t, want, keysOf(d.ByTestID("row-missing")))
	// The truth names the first keys and counts the rest.
	require.Greater(t, len(missing), 20)
	assert.Contains(t, htmltest.Text(d.One(t, "truth")), strings.Join(missing[:20], ", ")+" and "+strconv.Itoa(len(missing)-20)+" more.")

	// Explaining a key brings it into the window.
	far := missing[0]
	d = draw(t, tr, widget.State{Step: n, ShowTruth: true, Explain: far})
	assert.Contains(t, keysOf(d.ByTestID("row-missing")), far)
	assert.Contains(t, htmltest.Text(d.One(t, "target-table")), "around key "+far)
}

func TestRenderLongTimelineIsWindowed(t *testing.T) {
	tr, err := engine.Run(generated(t, 400), nil, 1, worlds.All())
	require.NoError(t, err)
	n := tr.Steps()
	require.Greater(t, n, 500)
	for _, step := range []int{0, 1, 700, n} {
		d := draw(t, tr, widget.State{Step: step, ShowTruth: true})
		tl := d.One(t, "timeline")
		// The window is drawn with the stage, so each step redraws it.
		inStage := htmltest.All(d.One(t, "stage"), func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "timeline" })
		require.Len(t, inStage, 1, "step %d", step)
		items := htmltest.All(tl, func(n *html.Node) bool { return n.Data == "li" })
		require.Len(t, items, 31, "step %d", step)
		first, _ := strconv.Atoi(htmltest.Attr(items[0], "data-step"))
		last, _ := strconv.Atoi(htmltest.Attr(items[len(items)-1], "data-step"))
		for _, li := range items {
			assert.Equal(t, htmltest.Attr(li, "data-step"), htmltest.Attr(li, "value"), "the list numbers its items by step")
		}
		assert.LessOrEqual(t, first, max(step, 1))
		assert.GreaterOrEqual(t, last, step)
		assert.Contains(t, htmltest.Text(tl), "Steps "+strconv.Itoa(first)+" to "+strconv.Itoa(last)+" of "+strconv.Itoa(n))
		var current []string
		for _, li := range items {
			if htmltest.Attr(li, "aria-current") == "step" {
				current = append(current, htmltest.Attr(li, "data-step"))
			}
		}
		if step > 0 {
			assert.Equal(t, []string{strconv.Itoa(step)}, current)
		}
		stage := htmltest.Parse(t, widget.Stage(tr, widget.State{Step: step, ShowTruth: true}))
		stage.One(t, "timeline")
	}
	// A short scenario keeps its full list outside the stage.
	gap := run(t, "hwm/visibility-gap", nil)
	d := draw(t, gap, widget.State{Step: 3})
	assert.Empty(t, htmltest.All(d.One(t, "stage"), func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "timeline" }))
	assert.Len(t, htmltest.All(d.One(t, "timeline"), func(n *html.Node) bool { return n.Data == "li" }), gap.Steps())
}

// cmpKeys orders business keys as the engine does (numbers first, by value).
func cmpKeys(t testing.TB, a, b string) int {
	ai, aerr := strconv.Atoi(a)
	bi, berr := strconv.Atoi(b)
	require.NoError(t, aerr)
	require.NoError(t, berr)
	return ai - bi
}

// TestRenderTwoTargets: with several targets the truth names keys
// "target:key"; each target's table draws the ghosts of its own keys.
func TestRenderTwoTargets(t *testing.T) {
	f, err := scenario.Parse("two.tdm", []byte(`scenario gen/two "Two targets"
source orders key=order_id clock=source updated_at=txn-start
source refunds key=refund_id clock=source updated_at=txn-start
target fct_orders sink=merge key=order_id
target fct_refunds sink=merge key=refund_id
pipeline po from=orders to=fct_orders mark=timestamp advance=after
pipeline pr from=refunds to=fct_refunds mark=timestamp advance=after
txn T1 begin=10:00:00 commit=10:00:04 insert orders order_id=1
txn T2 begin=10:00:01 commit=10:00:01 insert refunds refund_id=7
run po at=10:00:02
run pr at=10:00:02
run po at=10:00:05
`))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	require.Equal(t, []string{"fct_orders:1"}, tr.Final().Missing)
	d := draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true})
	tables := d.ByTestID("target-table")
	require.Len(t, tables, 2)
	ghosts := func(n *html.Node) []string {
		return keysOf(htmltest.All(n, func(n *html.Node) bool { return htmltest.Attr(n, "data-testid") == "row-missing" }))
	}
	assert.Equal(t, []string{"1"}, ghosts(tables[0]))
	assert.Empty(t, ghosts(tables[1]))
}

// TestTruthBoxSubmitsOff: where scripts cannot run, the knob form is
// submitted as it stands, and an unchecked box sends nothing; a hidden off
// before the box makes an unchecked box hide the truth, and a checked one,
// read last, show it.
func TestTruthBoxSubmitsOff(t *testing.T) {
	d := draw(t, run(t, "hwm/visibility-gap", nil), widget.State{Step: 5, ShowTruth: true, BasePath: gapBase})
	var values []string
	for _, in := range d.ByTag("input") {
		if htmltest.Attr(in, "name") == "truth" {
			values = append(values, htmltest.Attr(in, "type")+"="+htmltest.Attr(in, "value"))
		}
	}
	assert.Equal(t, []string{"hidden=off", "checkbox=on"}, values, "the hidden off comes first")

	f := bundled(t, "hwm/visibility-gap")
	for query, want := range map[string]bool{"truth=off&step=5": false, "truth=off&truth=on&step=5": true, "step=5": true} {
		q, err := widget.ParseQuery(query)
		require.NoError(t, err)
		_, st, problems := widget.FromQuery(f, q)
		assert.Empty(t, problems)
		assert.Equal(t, want, st.ShowTruth, query)
	}
}

// TestRenderUnwrittenTargetSaysSo: a target no line writes as the knobs
// are set (here the side output's table, with nobody reading the side
// output) says so under its name, where another target says only its rows.
func TestRenderUnwrittenTargetSaysSo(t *testing.T) {
	captions := func(knobs map[string]string) map[string]string {
		tr := run(t, "stream/late-data", knobs)
		d := draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true})
		got := map[string]string{}
		for _, st := range d.ByTestID("panel-target") {
			c := htmltest.All(st, func(n *html.Node) bool { return strings.Contains(htmltest.Attr(n, "class"), "tm-target-caption") })
			require.Len(t, c, 1)
			got[htmltest.Attr(st, "aria-label")] = htmltest.Text(c[0])
		}
		return got
	}
	off := captions(map[string]string{"late": "side-output", "side": "none"})
	assert.Equal(t, "0 rows at this step; nothing writes it with these settings", off["Target: late_clicks (append)"])
	assert.NotContains(t, off["Target: clicks_per_minute (merge)"], "nothing")
	on := captions(map[string]string{"late": "side-output", "side": "late_clicks"})
	assert.NotContains(t, on["Target: late_clicks (append)"], "nothing", "a side output read into the table writes it")
}

// TestRenderListsTheFaultsInEffect: a fork names its faults beside the
// fault buttons, in step order, in the words a link carries them in; a run
// without faults names none. A fork opened from a link said nowhere which
// faults had made it.
func TestRenderListsTheFaultsInEffect(t *testing.T) {
	orig := run(t, "hwm/advance-order", map[string]string{"advance": "after", "sink": "append", "crash": "none"})
	d := draw(t, orig, widget.State{Step: 3, ShowTruth: true, Live: true})
	assert.Empty(t, d.ByTestID("faults-on"))
	at := hwm.Of(orig).Runs[1].WriteStep
	fork, err := engine.RunWithFaults(bundled(t, "hwm/advance-order"), orig.Settings, 1, worlds.All(), []engine.Fault{
		{AfterStep: at, Kind: hwm.FaultCrash},
		{AfterStep: at + 2, Kind: engine.FaultClockJump, Clock: "source", By: -5 * vtime.Second},
	})
	require.NoError(t, err)
	d = draw(t, fork, widget.State{Step: 3, ShowTruth: true, Live: true, Original: orig})
	assert.Equal(t, "In effect: crash after step "+strconv.Itoa(at)+"; jump -5s after step "+strconv.Itoa(at+2),
		htmltest.Text(d.One(t, "faults-on")))
}

// TestSlotSaysWhereACopyIsFiled: a resend that regenerated its event id is
// a second copy of shop-2 to the truth, but the table files it under
// shop-3, so the uniqueness check sees every key once. The slot counting
// the two copies says so; it read "shop-2 v1 ×2", beside a passing check
// and no shop-3 anywhere on the stage.
func TestSlotSaysWhereACopyIsFiled(t *testing.T) {
	tr := run(t, "dist/dedup-regenerated-id", nil)
	d := draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true, BasePath: "/scenarios/dist/dedup-regenerated-id"})
	var notes []string
	for _, n := range d.ByTestID("slot") {
		notes = append(notes, htmltest.Attr(n, "data-key")+": "+htmltest.Text(n))
	}
	assert.Contains(t, notes, "shop-2: shop-2 v1 ×2 · also as shop-3")
	assert.Contains(t, notes, "shop-1: shop-1 v1", "a row under its own key says nothing more")
}

// TestEndingOfALargeRunSaysHowItEnds: a run too long to check while the
// page is drawn still says how it ends, clean as well as harmed, and where
// the checks' verdicts will be (it said "In the end: ." of a clean one).
func TestEndingOfALargeRunSaysHowItEnds(t *testing.T) {
	verdict := func(tr *engine.Trace) string {
		return htmltest.Text(draw(t, tr, widget.State{}).One(t, "verdict"))
	}
	assert.Equal(t, "In the end: the target matches the source. The checks take a while on a run this long: step to the end, and the checks panel gives their verdicts there.", verdict(run(t, "stream/backpressure", nil)))
	assert.True(t, strings.HasPrefix(verdict(run(t, "stream/backpressure", map[string]string{"overflow": "grow"})), "In the end: 81 rows missing. The checks take a while"))
}
