//go:build !js

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clickTimeout bounds how long click waits for its target to settle.
const clickTimeout = 15 * time.Second

// aim is what settleTarget reports: where to click, or why not yet.
type aim struct {
	OK  bool    `json:"ok"`
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
	Why string  `json:"why"`
}

// bringIntoView takes the focus off any other control and scrolls the
// element to the middle of the viewport. The test's window is not the
// focused one: a mouse press focuses it, which gives the focus back to the
// control that last had it and scrolls that into view between the press and
// the release, so the release lands elsewhere.
const bringIntoView = `((sel) => {
	const el = document.querySelector(sel);
	if (!el) return false;
	const focused = document.activeElement;
	if (focused && focused !== document.body && focused !== el && !el.contains(focused)) focused.blur();
	el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
	return true;
})`

// settleTarget reports the element's centre if its box is the one seen
// before (given as x, y: a mouse event sent to coordinates read while the
// layout was still moving lands on whatever took the element's place, which
// made clicks flaky on a loaded machine; a panel drawn when it comes into
// view can grow the page above the element a moment after it scrolled
// there) and the centre hits the element itself (or, for a label and its
// control, the other one). It is synchronous, so it works in a page whose
// scripts are switched off.
const settleTarget = `((sel, x0, y0) => {
	const el = document.querySelector(sel);
	if (!el) return {ok: false, why: "no element matches"};
	const r = el.getBoundingClientRect();
	if (!r.width || !r.height) return {ok: false, why: "it has no size (hidden?)"};
	const x = r.x + r.width / 2, y = r.y + r.height / 2;
	if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) {
		el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
		return {ok: false, x: -1, y: -1, why: "it moved out of view"};
	}
	if (x !== x0 || y !== y0) return {ok: false, x, y, why: "it is still moving"};
	const hit = document.elementFromPoint(x, y);
	const label = hit && hit.closest && hit.closest("label");
	const mine = hit && (hit === el || el.contains(hit) || (el.control && el.control === hit) || (label && label.control === el));
	if (!mine) return {ok: false, x, y, why: "its centre is covered by " + (hit ? hit.outerHTML.slice(0, 120) : "nothing")};
	return {ok: true, x, y};
})`

// click clicks sel with the mouse, as a person would, once the element has
// stopped moving and nothing covers it. Prefer press for buttons and links
// (it is the keyboard path and needs no coordinates); use click where the
// mouse itself is what is tested, or for labels.
func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	a := aimAt(t, ctx, sel)
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(a.X, a.Y)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// aimAt waits until sel has settled where the mouse can reach it and returns
// the point to click.
func aimAt(t *testing.T, ctx context.Context, sel string) aim {
	t.Helper()
	deadline := time.Now().Add(clickTimeout)
	if !eval[bool](t, ctx, bringIntoView+`(`+jsString(sel)+`)`) {
		t.Fatalf("click %s: no element matches", sel)
	}
	last := aim{X: -1, Y: -1}
	for {
		time.Sleep(150 * time.Millisecond)
		expr := fmt.Sprintf("%s(%s, %g, %g)", settleTarget, jsString(sel), last.X, last.Y)
		a, err := chromedp.Run(ctx, chromedp.Evaluate[aim](expr))
		if err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
		if a.OK {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("click %s: after %s %s", sel, clickTimeout, a.Why)
		}
		last = a
	}
}

// coverage is what TestNothingCoversTheControls finds on a page: how many
// controls it looked at, and each point of one that another element covers.
type coverage struct {
	Seen    int      `json:"seen"`
	Covered []string `json:"covered"`
}

// TestNothingCoversTheControls looks at every control of a widget, at a
// wide, a middling and a phone's width, on a page of each world part-way
// through and in presenter mode, and finds each one itself under its
// centre, and the timeline's buttons also a fifth of the way in from each
// side (past rounded corners): nothing drawn or turned over a control (an
// arrow between stations, turned to point down, once stood invisibly
// across the End button) catches a click meant for it.
func TestNothingCoversTheControls(t *testing.T) {
	for _, path := range []string{
		"/scenarios/hwm/visibility-gap?step=14", "/scenarios/dist/partition-change?step=20",
		"/scenarios/stream/late-data?step=120", "/scenarios/stream/late-data?step=120&present",
	} {
		ctx, _ := startPlayground(t, path)
		for _, width := range []int64{1280, 800, 360} {
			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, 800)))
			eval[bool](t, ctx, `(document.documentElement.style.scrollBehavior = "auto", true)`)
			res := eval[coverage](t, ctx, `(() => {
  const res = {seen: 0, covered: []};
  for (const el of document.querySelectorAll('.tm-host[data-ready="true"] :is(a[href], button, select, input, summary, [tabindex="0"])')) {
    if (!el.checkVisibility() || (el.tagName !== "SUMMARY" && el.closest("details:not([open])"))) continue;
    el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    res.seen++;
    const points = el.closest(".tm-controls") ? [[0.5, 0.5], [0.2, 0.5], [0.8, 0.5], [0.5, 0.2], [0.5, 0.8]] : [[0.5, 0.5]];
    for (const [fx, fy] of points) {
      const x = r.x + fx * r.width, y = r.y + fy * r.height;
      const hit = document.elementFromPoint(x, y);
      if (hit && hit !== el && !el.contains(hit)) res.covered.push((el.dataset.testid || el.tagName) + " at " + Math.round(x) + "," + Math.round(y) + " is covered by " + hit.outerHTML.slice(0, 80));
    }
  }
  return res;
})()`)
			assert.Greater(t, res.Seen, 8, "%s at %d px: too few controls looked at", path, width)
			assert.Empty(t, res.Covered, "%s at %d px", path, width)
		}
	}
}
