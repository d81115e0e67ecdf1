//go:build !js

package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStreamStage draws a stream scenario's chart on the stage: a late
// record opens why it was late, and stalling a partition from the widget
// forks the run and lands in the address.
func TestStreamStage(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/stream/late-data")
	click(t, ctx, `[data-testid="btn-end"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="stream-chart"]`))))
	assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('[data-testid="stream-chart"] [data-partition]').length`), "a lane per partition")
	late := eval[int](t, ctx, `document.querySelectorAll('[data-testid="late-record"]').length`)
	require.Positive(t, late, "late records are drawn as links")
	// By keyboard, as a learner without a pointer would: focus and Enter.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid="late-record"]`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="explain"]`))))
	why := text(t, ctx, `[data-testid="explain"]`)
	assert.Contains(t, why, "arrived at")
	assert.Contains(t, why, "fired at watermark")
	waitFor(t, ctx, "the explanation in the address", `location.search.includes("explain=late")`)

	// Stall partition 1 for three minutes from step 10.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`.tm-steps li[data-step="10"] a`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
	require.Equal(t, 10, step(t, ctx))
	length := eval[string](t, ctx, `(() => { const s = document.querySelector("[data-testid=stream-length]"); s.selectedIndex = s.options.length - 1; return s.value })()`)
	require.Equal(t, "3m", length)
	press(t, ctx, `[data-testid="btn-stall"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	waitFor(t, ctx, "the stall in the address", `location.search.includes("~stall~")`)

	// A burst from the producer chosen in the list, after the stall.
	press(t, ctx, `[data-testid="btn-forward"]`)
	require.Equal(t, 11, step(t, ctx))
	producer := eval[string](t, ctx, `(() => { const s = document.querySelector("[data-testid=burst-producer]"); s.selectedIndex = s.options.length - 1; return s.value })()`)
	press(t, ctx, `[data-testid="btn-burst"]`)
	waitFor(t, ctx, "the burst in the address", `location.search.includes("11~burst~`+producer+`~12~")`)
	assert.Empty(t, pageProblems(t, ctx))
}

// press activates the control sel by keyboard, focus and Enter: unlike a
// click at its coordinates, it cannot miss while the page lays out again.
func press(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(sel))), "focus %s", sel)
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)), "press %s", sel)
}
