//go:build !js

package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outsideViewport lists the elements of the stage and the narration that
// are drawn, in part or whole, outside the window (or hidden in a box that
// scrolls), each by its tag, class and box.
const outsideViewport = `(() => {
	const W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
	const out = [];
	for (const el of [document.querySelector('.tm-live'), ...document.querySelectorAll('.tm-live *, .tm-flow, .tm-flow *')]) {
		if (!el.checkVisibility({visibilityProperty: true, opacityProperty: false})) continue;
		for (const r of el.getClientRects()) {
			if (r.width === 0 && r.height === 0) continue;
			if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
				out.push(el.tagName + "." + (el.getAttribute("class") || "") + " " + [r.left, r.top, r.right, r.bottom].map(Math.round).join(","));
				break;
			}
		}
	}
	// A box that scrolls hides what it scrolls away.
	for (const el of document.querySelectorAll('.tm-flow, .tm-flow *:not(.tm-visually-hidden)')) {
		if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible") out.push("scrolls sideways: " + el.tagName + "." + el.getAttribute("class"));
		if (el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== "visible") out.push("scrolls: " + el.tagName + "." + el.getAttribute("class"));
	}
	return out;
})()`

// TestPresenterFitsAt150 opens each world's scenario in presenter mode in
// a 1024×768 window zoomed to 150% (683×512 CSS pixels): the narration and
// every part of the stage are on the screen, none scrolled away, and the
// page does not scroll sideways; stepping keeps it so. What the stylesheet
// cannot fit, the widget zooms out, never so far that the room cannot read.
func TestPresenterFitsAt150(t *testing.T) {
	for _, path := range []string{
		"/scenarios/hwm/visibility-gap?step=16&mark=lsn&present",
		"/scenarios/dist/partition-change?step=21&present",
		"/scenarios/stream/late-data?step=120&present",
		"/scenarios/stream/checkpoint-append?step=162&present",
	} {
		t.Run(path, func(t *testing.T) {
			ctx, _ := startPlayground(t, path)
			zoom150(t, ctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
			// The window changed size: the page fits the stage again.
			_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(`+outsideViewport+`).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
			assert.Empty(t, eval[[]string](t, ctx, outsideViewport))
			assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 683)
			// Zoomed out or not, the room can read it: the smallest text (a
			// picture's annotations) at 7.5 CSS pixels or more, 11 of the
			// projector's; the rows and the narration are much larger.
			seen := eval[float64](t, ctx, `(parseFloat(document.querySelector('.tm-flow').style.zoom) || 1) * `+smallestStageText)
			t.Logf("zoom %q, smallest text %.1f px", eval[string](t, ctx, `document.querySelector('.tm-flow').style.zoom`), seen)
			assert.GreaterOrEqual(t, seen, 7.5, "the stage's smallest text, as drawn")
			forwardTo(t, ctx, step(t, ctx)+1)
			assert.Empty(t, eval[[]string](t, ctx, outsideViewport), "a step later")
		})
	}
}
