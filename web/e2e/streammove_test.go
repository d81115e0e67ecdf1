//go:build !js

package e2e

import (
	"context"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordMoves makes the page keep a note of every element the widget moves
// (its test id, key and where it moves from), however long the move takes:
// a loaded machine may read the page after a move has ended.
func recordMoves(t *testing.T, ctx context.Context) {
	t.Helper()
	eval[bool](t, ctx, `(() => {
		window.__moves = [];
		const animate = Element.prototype.animate;
		Element.prototype.animate = function (...args) {
			window.__moves.push({testid: this.dataset.testid || "", key: this.dataset.key || "", from: this.dataset.from || "",
				svg: this instanceof SVGElement});
			return animate.apply(this, args);
		};
		return true;
	})()`)
}

// moves returns the moves noted since the last call, and forgets them.
func moves(t *testing.T, ctx context.Context) []map[string]any {
	t.Helper()
	return eval[[]map[string]any](t, ctx, `window.__moves.splice(0)`)
}

// forwardTo presses Forward until the widget shows step n.
func forwardTo(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	press(t, ctx, `[data-testid="btn-forward"]`)
	waitFor(t, ctx, "step "+strconv.Itoa(n), `Number(document.querySelector('.tm-widget').dataset.step) === `+strconv.Itoa(n))
}

// movedTo counts the moves of elements with test id.
func movedTo(ms []map[string]any, testid string) (n int, keys []string) {
	for _, m := range ms {
		if m["testid"] == testid {
			n++
			keys = append(keys, m["key"].(string))
		}
	}
	return n, keys
}

// TestStreamRecordsMove: in the stream world a click read on time moves
// from its lane into its window; a minute that fires sends its row to its
// slot; a late click that is dropped moves nowhere and stays, marked
// dropped in words and by shape; with less motion nothing moves.
func TestStreamRecordsMove(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/stream/late-data?step=2")
	recordMoves(t, ctx)
	forwardTo(t, ctx, 3) // taps reads app-1
	n, _ := movedTo(moves(t, ctx), "window-token")
	assert.Equal(t, 1, n, "the record read moves into its window")
	assert.Equal(t, 1, count(t, ctx, `[data-testid=window-token]`))

	// The minute 10:01 fires at step 97: its row moves to its slot.
	ctx, _ = startPlayground(t, "/scenarios/stream/late-data?step=96")
	recordMoves(t, ctx)
	forwardTo(t, ctx, 97)
	_, keys := movedTo(moves(t, ctx), "slot")
	assert.Contains(t, keys, "10:01:00", "the window's result moves to its slot")
	assert.Equal(t, "win:0:10:01:00", eval[string](t, ctx, `document.querySelector('[data-testid=slot][data-key="10:01:00"]').dataset.from`))

	// The first late click, at step 120, is dropped: it stays on its lane.
	forwardToStep := func(n int) {
		for step(t, ctx) < n {
			forwardTo(t, ctx, step(t, ctx)+1)
		}
	}
	ctx, _ = startPlayground(t, "/scenarios/stream/late-data?step=119")
	recordMoves(t, ctx)
	forwardToStep(120)
	ms := moves(t, ctx)
	n, _ = movedTo(ms, "window-token")
	assert.Zero(t, n, "a dropped record moves into no window")
	assert.Equal(t, "dropped", eval[string](t, ctx, `document.querySelector('[data-testid=op-record]').dataset.state`))
	assert.Contains(t, text(t, ctx, `[data-testid=op-record]`), "dropped")
	assert.Equal(t, "line-through", eval[string](t, ctx, `getComputedStyle(document.querySelector('[data-testid=op-record] .tm-chip-key')).textDecorationLine`), "not by colour alone")
	assert.Equal(t, "dashed", eval[string](t, ctx, `getComputedStyle(document.querySelector('[data-testid=op-record]')).borderTopStyle`))
	assert.Equal(t, 1, count(t, ctx, `[data-testid=stream-chart] g[data-fate=dropped]`), "its cross stays on the lane")
	forwardToStep(124)
	assert.Equal(t, 4, count(t, ctx, `[data-testid=late-chip][data-state=dropped]`), "the dropped clicks stay listed")

	// With less motion, the next read arrives without moving.
	call(t, ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
	moves(t, ctx)
	forwardToStep(step(t, ctx) + 3)
	assert.Empty(t, moves(t, ctx), "nothing moves with reduced motion")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestStreamSideOutputAndReplayMove: a late click sent to the side output
// moves from its lane to its slot in late_clicks; after a restore, each
// record read again moves to the append table, where its slot stacks a
// second copy.
func TestStreamSideOutputAndReplayMove(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/stream/late-data?late=side-output&step=119")
	recordMoves(t, ctx)
	forwardTo(t, ctx, 120)
	_, keys := movedTo(moves(t, ctx), "slot")
	assert.Contains(t, keys, "phone-9", "the late click moves to the side output's table")
	assert.Equal(t, "side", eval[string](t, ctx, `document.querySelector('[data-testid=op-record]').dataset.state`))

	ctx, _ = startPlayground(t, "/scenarios/stream/checkpoint-append?step=161")
	recordMoves(t, ctx)
	forwardTo(t, ctx, 162)
	_, keys = movedTo(moves(t, ctx), "slot")
	assert.Equal(t, []string{"41"}, keys, "order 41, read again, moves to the table")
	assert.Equal(t, "dup", eval[string](t, ctx, `document.querySelector('[data-testid=slot][data-key="41"]').dataset.state`), "and stacks a second copy")
	assert.Equal(t, "replay", eval[string](t, ctx, `document.querySelector('[data-testid=op-record]').dataset.state`))
	assert.Contains(t, text(t, ctx, `[data-testid=op-replay]`), "shop-41")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestStreamLegendAndPlots: the stage of a stream scenario has one legend,
// which says what the stream chart's marks are by glyph and word, and the
// chart has none of its own; the job's small plots (throughput among them)
// have axes a reader can read, a table for a screen reader, and a line
// that follows the step.
func TestStreamLegendAndPlots(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/stream/backpressure?step=60")
	assert.Equal(t, 1, count(t, ctx, `.tm-stage [data-testid=legend]`), "one legend per stage")
	legend := text(t, ctx, `[data-testid=legend]`)
	for _, words := range []string{"●record read", "○record still to arrive", "✕late record, dropped", "◇late record, sent to the side output", "▨idle partition"} {
		assert.Contains(t, legend, words)
	}
	assert.NotContains(t, text(t, ctx, `[data-testid=stream-chart]`), "still to arrive", "the chart has no legend of its own")

	plot := `[...document.querySelectorAll('[data-testid=job-plot]')].find((p) => p.querySelector('figcaption').textContent.startsWith("throughput of load"))`
	assert.True(t, eval[bool](t, ctx, `Boolean(`+plot+`)`), "the sink's throughput is plotted over time")
	ticks := eval[[]string](t, ctx, `[...`+plot+`.querySelectorAll('.tm-plot-tick')].map((t) => t.textContent)`)
	require.Len(t, ticks, 5, "its largest value and 0, and three times")
	assert.Equal(t, "0", ticks[1])
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `Math.min(...[...`+plot+`.querySelectorAll('.tm-plot-tick')].map((t) => t.getBoundingClientRect().height))`), 9.0, "its ticks are readable as drawn")
	assert.Equal(t, 7, eval[int](t, ctx, plot+`.querySelectorAll('[data-testid=plot-values] tr').length`), "a table of six times for a screen reader")
	assert.Equal(t, "Throughput of load (records/s, last 10s) over time", eval[string](t, ctx, `(() => { const c = `+plot+`.querySelector('[data-testid=plot-values] caption').textContent; return c[0].toUpperCase() + c.slice(1); })()`))
	// A line marks the step's time on the run's time axis, step after step.
	stepTime := `document.querySelector('[data-testid=narration]').textContent.match(/^Step \d+ of \d+, ([0-9:.]+):/)[1]`
	nowAt := plot + `.querySelector('[data-testid=plot-now]').dataset.at`
	assert.Equal(t, eval[string](t, ctx, stepTime), eval[string](t, ctx, nowAt))
	forwardTo(t, ctx, 61)
	assert.Equal(t, eval[string](t, ctx, stepTime), eval[string](t, ctx, nowAt))
	assert.Empty(t, pageProblems(t, ctx))
}
