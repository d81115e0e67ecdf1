//go:build !js

package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rowLabels is a function of the page that lists, for each box of the
// stage (a log's lanes, a stream's chart), what is wrong with its row
// labels (a lane's partition, a chart's rows and heading), as sentences; it
// takes whether the box's labels are to be at their places in the
// picture as drawn, for a box that does not scroll. In a box that
// scrolls, each label lies within the box's visible part and is painted
// over whatever passes beneath it (the element at its middle is the
// label), a heading wider than the box with its start at the box's left
// edge; and a log draws every partition's label. Where a box does not
// scroll, each label is where the picture draws it, 4 units from its left.
const rowLabels = `((drawn) => {
  const out = [];
  for (const b of document.querySelectorAll('[data-testid="log"], [data-testid="stream-wrap"]')) {
    if (!b.getClientRects().length) continue; // not shown (presenter mode shows a stream's log in its chart)
    const scrolls = b.scrollWidth > b.clientWidth + 1;
    const labels = [...b.querySelectorAll(".tm-lane-label, .tm-lanelabel")];
    const name = b.dataset.testid + (b.dataset.topic ? " " + b.dataset.topic : "") + " at scrollLeft " + Math.round(b.scrollLeft) + "/" + (b.scrollWidth - b.clientWidth);
    if (!labels.length) out.push(name + ": no labels");
    if (b.dataset.partitions) {
      const want = Array.from({ length: Math.min(Number(b.dataset.partitions), 16) }, (_, i) => "p" + i).join(" ");
      const got = labels.map((t) => t.textContent).join(" ");
      if (got !== want) out.push(name + ": partition labels " + got + ", want " + want);
    }
    for (const t of labels) {
      const heading = t.getAttribute("font-weight") === "700";
      const what = name + ": " + (heading ? "heading" : "label " + t.textContent);
      if (drawn || !scrolls) {
        const svg = t.ownerSVGElement, s = svg.getBoundingClientRect();
        const at = (t.getBoundingClientRect().left - s.left) / (s.width / svg.viewBox.baseVal.width);
        if (Math.abs(at - 4) > 1) out.push(what + " drawn at " + at.toFixed(1) + ", not 4");
        continue;
      }
      let r = t.getBoundingClientRect();
      // On the screen, for elementFromPoint; scrolling the page leaves the box's scroll as it is.
      window.scrollBy({ top: r.top + r.height / 2 - innerHeight / 2, behavior: "instant" });
      r = t.getBoundingClientRect();
      const br = b.getBoundingClientRect();
      const left = br.left + b.clientLeft, right = left + b.clientWidth;
      if (r.left < left - 0.5) out.push(what + " starts " + (left - r.left).toFixed(1) + " px left of the box's visible part");
      if (heading ? r.left > left + 12 : r.right > right + 0.5) out.push(what + (heading ? " starts " + (r.left - left).toFixed(1) + " px from the box's left edge" : " ends " + (r.right - right).toFixed(1) + " px right of the box's visible part"));
      const x = heading ? r.left + 24 : r.left + r.width / 2;
      const top = document.elementFromPoint(x, r.top + r.height / 2);
      if (top !== t && !t.contains(top)) out.push(what + " is under " + (top ? top.tagName + "." + (top.getAttribute("class") || "") : "nothing"));
    }
  }
  return out;
})`

// TestRowLabelsStayInView: on a phone the log's lanes and a stream's chart
// scroll sideways in their boxes, and the lanes' labels (p0, p1) scrolled
// away with them: scrolled to the newest offsets, as a late step leaves
// them, a reader could not tell which lane was which partition. A stream
// chart's heading, scrolled, showed its end and not its start. Each label
// now stays at the box's left edge, over what passes beneath it, whatever
// the box's scroll; where a box does not scroll (a wide screen, presenter
// mode) the labels stay where the picture draws them.
func TestRowLabelsStayInView(t *testing.T) {
	for _, path := range []string{"/scenarios/dist/partition-change?step=60", "/scenarios/stream/watermark-quiet-partition?step=120"} {
		ctx, _ := startPlayground(t, path)
		viewport(t, ctx, 390, 844)
		boxes := `[...document.querySelectorAll('[data-testid="log"], [data-testid="stream-wrap"]')].filter((b) => b.scrollWidth > b.clientWidth + 1)`
		n := eval[int](t, ctx, boxes+`.length`)
		require.Positive(t, n, "%s: boxes wider than a phone", path)
		if path == "/scenarios/stream/watermark-quiet-partition?step=120" {
			require.Equal(t, 2, n, "%s: the log's lanes and the stream's chart scroll", path)
		}
		for _, at := range []float64{1, 0.5, 0} {
			eval[bool](t, ctx, boxes+`.forEach((b) => { b.scrollLeft = `+strconv.FormatFloat(at, 'f', -1, 64)+` * (b.scrollWidth - b.clientWidth); }), true`)
			// The labels follow at the scroll's event.
			_, _ = chromedp.Run(ctx, chromedp.Poll[bool](rowLabels+`(false).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
			assert.Empty(t, eval[[]string](t, ctx, rowLabels+`(false)`), "%s, scrolled %v of the way", path, at)
		}
		// A step draws the labels anew, and keeps them at the edge.
		eval[bool](t, ctx, boxes+`.forEach((b) => { b.scrollLeft = (b.scrollWidth - b.clientWidth) / 2; }), true`)
		was := step(t, ctx)
		jsClick(t, ctx, `[data-testid="btn-back"]`)
		waitTrue(t, ctx, path+": the step is drawn", `Number(document.querySelector('.tm-widget').dataset.step) === `+strconv.Itoa(was-1))
		assert.Empty(t, eval[[]string](t, ctx, rowLabels+`(false)`), "%s, after a step", path)

		// Presenter mode zooms the stage instead of scrolling it: the
		// labels, moved while the boxes scrolled, are where they are drawn.
		viewport(t, ctx, 1024, 768)
		require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=btn-forward]`))))
		key(t, ctx, "p")
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
		_, _ = chromedp.Run(ctx, chromedp.Poll[bool](rowLabels+`(true).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
		assert.Empty(t, eval[[]string](t, ctx, rowLabels+`(true)`), "%s, presenter mode", path)

		// A wider screen: a box that does not scroll keeps its labels where
		// the picture draws them; one still too narrow for its picture (the
		// log's column beside the chart) keeps them at its edge.
		key(t, ctx, "p")
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`.tm-widget[data-present="on"]`))))
		viewport(t, ctx, 1600, 1000)
		all := `document.querySelectorAll('[data-testid="log"], [data-testid="stream-wrap"]').length`
		_, _ = chromedp.Run(ctx, chromedp.Poll[bool](boxes+`.length < `+all, chromedp.WithPollingTimeout(3*time.Second)))
		require.Less(t, eval[int](t, ctx, boxes+`.length`), eval[int](t, ctx, all), "%s: at 1600 px a box fits its picture", path)
		eval[bool](t, ctx, boxes+`.forEach((b) => { b.scrollLeft = (b.scrollWidth - b.clientWidth) / 2; }), true`)
		_, _ = chromedp.Run(ctx, chromedp.Poll[bool](rowLabels+`(false).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
		assert.Empty(t, eval[[]string](t, ctx, rowLabels+`(false)`), "%s, 1600 px wide", path)
		assert.Empty(t, pageProblems(t, ctx))
	}
}
