//go:build !js

package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// stepAtTime runs a bundled scenario natively and returns its last step at
// or before the true time at, to open the page there.
func stepAtTime(t *testing.T, id string, knobs map[string]string, at string) int {
	t.Helper()
	sc, ok := lessons.Lookup(id)
	require.True(t, ok, id)
	tr, err := engine.Run(sc.File, knobs, 1, worlds.All())
	require.NoError(t, err)
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

// cellText is the text of the job panel's cell with test id for operator op.
func cellText(t *testing.T, ctx context.Context, op, id string) string {
	t.Helper()
	return text(t, ctx, `[data-testid=panel-job] tr[data-op="`+op+`"] [data-testid=`+id+`]`)
}

// TestJobPanelAndFailFromTheWidget opens the two-phase-commit scenario
// without its failure, sees the sink's rows pending and none visible, then
// fails the job from the widget a little later with auto-commit: the fork
// restores the checkpoint, writes the block twice, and the panel shows the
// failure and the restore on the checkpoint strip and in words; at phone
// width the panel does not make the page scroll sideways.
func TestJobPanelAndFailFromTheWidget(t *testing.T) {
	early := stepAtTime(t, "stream/checkpoint-two-phase", map[string]string{"crash": "never"}, "10:00:05")
	ctx, _ := startPlayground(t, "/scenarios/stream/checkpoint-two-phase?crash=never&step="+strconv.Itoa(early))
	require.Equal(t, early, step(t, ctx))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=panel-job]`))))
	assert.NotEqual(t, "0", cellText(t, ctx, "load", "sink-pending"), "the orders wait in the open transaction")
	assert.Equal(t, "0", cellText(t, ctx, "load", "sink-visible"), "a read-committed reader sees none yet")

	// Auto-commit: rows are visible at once.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid="knob-commit-auto"]`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(" ")))
	require.NoError(t, chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=panel-job] tr[data-op="load"] [data-testid=sink-pending]').textContent === "0"`, chromedp.WithPollingTimeout(20*time.Second))))
	assert.NotEqual(t, "0", cellText(t, ctx, "load", "sink-visible"))

	// Fail the job at 10:00:25, between checkpoints 2 and 3.
	at := stepAtTime(t, "stream/checkpoint-two-phase", map[string]string{"crash": "never", "commit": "auto"}, "10:00:25")
	for step(t, ctx) < at {
		press(t, ctx, `[data-testid="btn-forward"]`)
	}
	assert.Equal(t, "load", eval[string](t, ctx, `document.querySelector('[data-testid=job-who]').value`), "the sink is offered first")
	press(t, ctx, `[data-testid="btn-fail"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	assert.Equal(t, at, step(t, ctx), "the fork opens at the step it was made at")
	assert.Contains(t, eval[string](t, ctx, `location.search`), "~fail~load~now~5s", "the address carries the fault")

	press(t, ctx, `[data-testid="btn-end"]`)
	assert.Contains(t, text(t, ctx, "[data-testid=job-failure]"), "load failed at 10:00:25")
	assert.Contains(t, text(t, ctx, "[data-testid=job-restore]"), "restored checkpoint 2")
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid=checkpoint-strip]').getAttribute('aria-label')`), "1 failure, 1 restore")
	assert.Positive(t, count(t, ctx, `[data-testid=row-differs]`), "the fork writes rows the original does not")
	assert.Positive(t, count(t, ctx, `[data-testid=job-plot]`), "small plots of state, lag and checkpoint size")

	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile)))
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360)
	// Targets a finger can hit (WCAG 2.5.8): the fault lists, and a row's
	// chip, whose whole area is its key's link.
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `document.querySelector('[data-testid=job-who]').getBoundingClientRect().height`), 43.0)
	assert.True(t, eval[bool](t, ctx, `(() => {
		const chip = document.querySelector('[data-testid=slot]');
		chip.scrollIntoView({block: "center", behavior: "instant"});
		const r = chip.getBoundingClientRect();
		const hit = document.elementFromPoint(r.right - 3, r.bottom - 3);
		return !!hit && hit === chip.querySelector('a.tm-chip-key');
	})()`), "a chip's corner is its key link")

	press(t, ctx, `[data-testid="btn-undo"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="panel-compare"]`))))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestFailAtACheckpointsCommitFromTheWidget picks "during the sink's
// commit" for the failure and presses the button by keyboard: the restore
// commits the prepared transaction, and no row is duplicated.
func TestFailAtACheckpointsCommitFromTheWidget(t *testing.T) {
	at := stepAtTime(t, "stream/checkpoint-two-phase", map[string]string{"crash": "never"}, "10:00:12")
	ctx, _ := startPlayground(t, "/scenarios/stream/checkpoint-two-phase?crash=never&truth=on&step="+strconv.Itoa(at))
	// By keyboard: the point is chosen in its list, the button pressed with Enter.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(`[data-testid=job-point]`, "commit")))
	press(t, ctx, `[data-testid="btn-fail"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	press(t, ctx, `[data-testid="btn-end"]`)
	assert.Contains(t, text(t, ctx, "[data-testid=job-failure]"), "at checkpoint 2's commit")
	assert.Contains(t, text(t, ctx, "[data-testid=truth]"), "the target holds every row it should, once, in its latest version")
	assert.Empty(t, pageProblems(t, ctx))
}
