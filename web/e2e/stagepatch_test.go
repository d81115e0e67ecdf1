//go:build !js

package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// TestLargeStepsPatchSmallParts: in the scenario of ten thousand steps
// that `make perf` times, the step where the extractor reads at 10:00:10
// moves the time axis (every transaction's bar and stamp moves with it)
// and changes the fate of every key shown. The page replaces those bars,
// stamps, labels and states, parsed a group at a time, and keeps the rows
// themselves (they used to be sent and laid out whole, 30–40 KB a step);
// the stage is still what a fresh drawing of the step gives.
func TestLargeStepsPatchSmallParts(t *testing.T) {
	cat, err := pages.Catalog()
	require.NoError(t, err)
	base := startSite(t, web.Options{Scenarios: cat, Pages: append(pages.Routes(), bigPage(t, "ten-k", bigScenario))})
	ctx := newBrowserWithin(t, 3*time.Minute)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/perf/ten-k?step=149")))
	waitReady(t, ctx)
	require.Equal(t, 149, step(t, ctx))
	rows := eval[int](t, ctx, `(() => {
		const e = window.tidemarkEngine, view = e.view;
		window.__ops = [];
		e.view = (id, full) => {
			const v = view(id, full);
			if (!full && v.ops) window.__ops.push(...v.ops);
			return v;
		};
		const rows = document.querySelectorAll(".tm-stage [data-testid=txn]");
		for (const r of rows) r.__kept = true;
		return rows.length;
	})()`)
	require.Greater(t, rows, 30, "the stage shows the transactions of its window")
	press(t, ctx, `[data-testid="btn-forward"]`)
	waitFor(t, ctx, "step 150", `document.querySelector(".tm-widget").dataset.step === "150"`)
	assert.Contains(t, text(t, ctx, "[data-testid=narration]"), "extract reads orders")

	replaced := eval[map[string]float64](t, ctx, `(() => {
		const n = {};
		for (const op of window.__ops) {
			if (op[0] !== "r") continue;
			const kind = op[1].replace(/-.*/, "");
			n[kind] = (n[kind] || 0) + 1;
		}
		return n;
	})()`)
	assert.Greater(t, replaced["bar"], 30.0, "every bar moves with the axis: %v", replaced)
	assert.Greater(t, replaced["stamp"], 30.0, "every stamp moves with the axis: %v", replaced)
	assert.Greater(t, replaced["txs"], 10.0, "the rows read change their fate: %v", replaced)
	assert.Zero(t, replaced["tx"], "no transaction's row is sent whole: %v", replaced)
	kept := eval[int](t, ctx, `[...document.querySelectorAll(".tm-stage [data-testid=txn]")].filter((r) => r.__kept).length`)
	assert.Equal(t, rows, kept, "every row stayed on the page")
	assert.True(t, eval[bool](t, ctx, stageMatchesADrawing), "the patched stage differs from a drawing of the step")
	assert.Empty(t, pageProblems(t, ctx))
}
