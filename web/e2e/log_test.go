//go:build !js

package e2e

import (
	"context"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// count returns how many elements match a CSS selector.
func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	return eval[int](t, ctx, `document.querySelectorAll(`+jsString(sel)+`).length`)
}

// TestAddPartitionForks steps partition-change to its middle, adds a
// partition there, and compares the fork with the original at the end.
func TestAddPartitionForks(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/partition-change")
	steps := eval[int](t, ctx, `Number(document.querySelector('.tm-widget').dataset.steps)`)
	for step(t, ctx) < steps/2 {
		jsClick(t, ctx, `[data-testid="btn-forward"]`)
	}
	assert.Equal(t, 6, count(t, ctx, `[data-testid=lane]`), "by the middle the topic has grown to 6 partitions")
	jsClick(t, ctx, `[data-testid="btn-add-partition"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	assert.Equal(t, steps/2, step(t, ctx), "the fork opens at the step it was made at")
	assert.True(t, eval[bool](t, ctx, `!document.querySelector('[data-testid=btn-undo]').disabled`))

	jsClick(t, ctx, `[data-testid="btn-end"]`)
	assert.Equal(t, 7, count(t, ctx, `[data-testid=lane]`), "the fork's log has the added partition")
	assert.Positive(t, count(t, ctx, `[data-testid=row-differs]`), "the fork leaves some keys other than the original")
	assert.Contains(t, text(t, ctx, "[data-testid=compare-table]"), "another version")
	assert.Contains(t, text(t, ctx, ".tm-steps"), "raises customers from 6 to 7 partitions")

	jsClick(t, ctx, `[data-testid="btn-undo"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="panel-compare"]`))))
	assert.Equal(t, 6, count(t, ctx, `[data-testid=lane]`))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestRetentionMovesTheLogStart steps retention-lag and watches retention
// delete cells and the log start move past the group's position, at 360 px.
func TestRetentionMovesTheLogStart(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/retention-lag")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile)))
	deleted := func() int {
		return count(t, ctx, `[data-testid=lane] [data-testid=cell][data-state=deleted]`)
	}
	start := func() int {
		n, err := strconv.Atoi(eval[string](t, ctx, `document.querySelector('[data-testid=lane]').dataset.start`))
		require.NoError(t, err)
		return n
	}
	var seen []int
	for step(t, ctx) < 14 {
		jsClick(t, ctx, `[data-testid="btn-forward"]`)
		seen = append(seen, deleted())
		assert.Equal(t, deleted(), start(), "step %d: every offset left of the log start is drawn removed", step(t, ctx))
	}
	assert.Equal(t, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 4, 5}, seen, "retention deletes at steps 11, 13 and 14")
	eval[bool](t, ctx, `(document.querySelector('[data-testid=text-equivalent] > summary').click(), true)`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=log-table]`))))
	assert.Contains(t, text(t, ctx, "[data-testid=group-offset]"), "below the log start")
	assert.Contains(t, text(t, ctx, "[data-testid=log-table]"), "✕ deleted by retention at this step")

	// Stepping back brings the cells back.
	jsClick(t, ctx, `[data-testid="btn-back"]`)
	assert.Equal(t, 4, deleted())

	// The lanes scroll inside the panel; the page does not scroll sideways.
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360)
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPauseForAChosenLength pauses commit-order's consumer for the length
// picked beside the button, and the fork's timeline says until when.
func TestPauseForAChosenLength(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/commit-order")
	assert.Equal(t, "30s", eval[string](t, ctx, `document.querySelector('[data-testid=pause-length]').value`), "30 s unless the learner picks another")
	for step(t, ctx) < 12 {
		jsClick(t, ctx, `[data-testid="btn-forward"]`)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(`[data-testid=pause-length]`, "3m")))
	jsClick(t, ctx, `[data-testid="btn-pause"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	assert.Equal(t, 12, step(t, ctx), "the fork opens at the step it was made at")
	steps := text(t, ctx, ".tm-steps")
	assert.Contains(t, steps, "until 10:03:06", "c1 is paused from 10:00:06 for 3 minutes")
	assert.NotContains(t, steps, "until 10:00:36")
	// The scenario ends first: the ending says the rows c1 holds back are
	// missing because the run stops, not because a pause loses them.
	assert.Contains(t, text(t, ctx, `[data-testid="paused-past-end"]`), "/c1 until 10:03:06. What it has not read is missing only because the run stops first")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestConsumersSayWhoHoldsWhat: on dist/rebalance the consumers' station
// says, in words, what each member holds: while the rebalance waits for c1
// it keeps both partitions and c2 reads nothing; a step forward, drawn by
// the module, generation 2 gives c1 orders-0 and c2 orders-1. In presenter
// mode on a 1280×720 projector the lines are on the screen.
func TestConsumersSayWhoHoldsWhat(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/rebalance?step=12&present")
	viewport(t, ctx, 1280, 720)
	lines := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid=group-assignment] li')].map((li) => li.textContent)`)
	}
	assert.Equal(t, []string{"c1 · keeps p0 p1 (generation\u00a01)", "c2 · nothing, rebalancing"}, lines())
	jsClick(t, ctx, `[data-testid="btn-forward"]`)
	require.Equal(t, 13, step(t, ctx))
	assert.Equal(t, []string{"c1 · p0 (generation\u00a02)", "c2 · p1 (generation\u00a02)"}, lines(), "after the rebalance")
	assert.Empty(t, eval[[]string](t, ctx, outsideViewport), "the stage fits the projector")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPicturesThatScrollSayThereIsMore: on a phone the log's lanes and a
// stream's chart are wider than the screen and scroll sideways inside
// their box, which said nothing of what lay beyond its edge. The box now
// draws a shadow inside each edge with more beyond it: shadows fixed to
// the box, under covers that scroll with the picture and hide the shadow
// at an end reached.
func TestPicturesThatScrollSayThereIsMore(t *testing.T) {
	for path, box := range map[string]string{
		"/scenarios/dist/schema-change?step=60": ".tm-lanes",
		"/scenarios/stream/late-data?step=120":  ".tm-streamwrap",
	} {
		ctx, _ := startPlayground(t, path)
		viewport(t, ctx, 390, 844)
		el := `document.querySelector('` + box + `')`
		assert.Greater(t, eval[int](t, ctx, el+`.scrollWidth`), eval[int](t, ctx, el+`.clientWidth`)+10, "%s: wider than a phone", path)
		assert.Equal(t, "local, local, scroll, scroll", eval[string](t, ctx, `getComputedStyle(`+el+`).backgroundAttachment`), "%s: covers that scroll over shadows that stay", path)
		assert.Equal(t, 4, eval[int](t, ctx, `getComputedStyle(`+el+`).backgroundImage.split("gradient(").length - 1`), path)
		assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 390, "%s: the page itself does not scroll sideways", path)
	}
}

// TestLanesFollowTheStep: on a phone the log's lanes are wider than their
// box, and they stayed scrolled to their start while the steps read and
// wrote records far right of it (offset 39 read with offsets 26 to 29 in
// view) or at its edge, under its shadow, where the stream chart under
// them scrolled to its now line. A
// step now scrolls each box to its cells of the step (or to the log's end
// when it has none), without scrolling the page or moving the focus.
func TestLanesFollowTheStep(t *testing.T) {
	for _, path := range []string{"/scenarios/stream/checkpoint-two-phase?step=130", "/scenarios/dist/retention-lag?step=15", "/scenarios/stream/join-skew?step=38"} {
		ctx, _ := startPlayground(t, path)
		viewport(t, ctx, 390, 844)
		eval[bool](t, ctx, `(window.scrollTo({ top: 0, behavior: "instant" }), document.querySelector('[data-testid="btn-play"]').focus({ preventScroll: true }), true)`)
		scrolled := eval[float64](t, ctx, `window.scrollY`)
		for range 2 {
			was := step(t, ctx)
			jsClick(t, ctx, `[data-testid="btn-forward"]`)
			waitTrue(t, ctx, path+": the step is drawn", `Number(document.querySelector('.tm-widget').dataset.step) === `+strconv.Itoa(was+1))
		}
		boxes := `[...document.querySelectorAll('[data-testid="log"]')].filter((b) => b.scrollWidth > b.clientWidth + 1)`
		require.Positive(t, eval[int](t, ctx, boxes+`.length`), "%s: lanes wider than a phone", path)
		// Each box that scrolls shows what the step did there, whole and
		// clear of the shadows at its edges (0.8rem) and of the partitions'
		// labels at its left edge (TestRowLabelsStayInView).
		hidden := eval[[]string](t, ctx, boxes+`.flatMap((b) => {
  const edge = 12;
  let marks = b.querySelectorAll('[data-testid="cell"]:is([data-new], [data-read])');
  if (!marks.length) marks = b.querySelectorAll(".tm-log-end");
  const box = b.getBoundingClientRect();
  const labels = Math.max(...[...b.querySelectorAll(".tm-lane-label")].map((l) => l.getBoundingClientRect().right));
  return [...marks].filter((m) => { const r = m.getBoundingClientRect(); return r.left < Math.max(box.left + edge, labels) || r.right > box.right - edge; })
    .map((m) => b.dataset.topic + " " + (m.dataset.offset ? "offset " + m.dataset.offset : "log end") + " at scrollLeft " + b.scrollLeft);
})`)
		assert.Empty(t, hidden, "%s: the step's cells out of view", path)
		assert.Equal(t, scrolled, eval[float64](t, ctx, `window.scrollY`), "%s: the page did not scroll", path)
		assert.Equal(t, "btn-play", eval[string](t, ctx, `document.activeElement.dataset.testid || ""`), "%s: the focus stays", path)
		assert.Empty(t, pageProblems(t, ctx))
	}
}
