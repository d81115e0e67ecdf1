//go:build !js

package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// call sends one DevTools command to the tab of ctx.
func call[P any](t *testing.T, ctx context.Context, cmd cdp.Command[P, cdp.Empty], p P) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, cmd, p)
		return err
	})))
}

// viewport sets the tab's size (as a window of that size would have).
func viewport(t *testing.T, ctx context.Context, w, h int64) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(w, h)))
}

// key sends one key press to the page, to whatever has the focus.
func key(t *testing.T, ctx context.Context, k string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(k)))
}

// blur leaves the focus on the page's body, as after clicking on its text.
func blur(t *testing.T, ctx context.Context) {
	eval[bool](t, ctx, `(document.activeElement && document.activeElement.blur(), document.activeElement === document.body)`)
}

// stageMatchesADrawing checks that the stage on screen, however it was
// patched, is the stage the engine draws for the step from scratch.
const stageMatchesADrawing = `(() => {
	const host = document.querySelector(".tm-host");
	const v = window.tidemarkEngine.view(host.dataset.id || "tm", true);
	const t = document.createElement("template");
	t.innerHTML = v.html;
	const fresh = t.content.querySelector(".tm-stage");
	const live = host.querySelector(".tm-stage");
	// A full view draws the widget anew: put it on screen, so the page and
	// the engine agree on what is shown from here on.
	const same = fresh.isEqualNode(live);
	host.innerHTML = v.html;
	return same;
})()`

// TestStageUpdatesInPlace steps the opening scenario forward and back:
// each step changes the fragments it changed and keeps the rest (the same
// elements stay on the page), and the stage is always what a full drawing
// of the step gives.
func TestStageUpdatesInPlace(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	// Count how each view comes back from the engine.
	eval[bool](t, ctx, `(() => {
		const e = window.tidemarkEngine, view = e.view;
		window.__views = {ops: 0, stage: 0, full: 0, bytes: 0};
		e.view = (id, full) => {
			const v = view(id, full);
			if (full) window.__views.full++;
			else if (v.ops && v.ops.length) { window.__views.ops++; window.__views.bytes += JSON.stringify(v.ops).length; }
			else if (v.stage) window.__views.stage++;
			return v;
		};
		document.querySelector('[data-testid=legend]').__kept = true;
		return true;
	})()`)
	for range 16 {
		click(t, ctx, `[data-testid="btn-forward"]`)
	}
	require.Equal(t, 16, step(t, ctx))
	click(t, ctx, `[data-testid="btn-back"]`)
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid=legend]').__kept === true`), "a part that never changed is never replaced")
	views := eval[map[string]float64](t, ctx, `window.__views`)
	assert.GreaterOrEqual(t, views["ops"], 12.0, "steps are sent as changes (a step that changes nothing drawn sends none): %v", views)
	assert.Zero(t, views["stage"], "no step sends the whole stage: %v", views)
	assert.Zero(t, views["full"], "no step draws the whole widget: %v", views)
	assert.Less(t, views["bytes"]/views["ops"], 6000.0, "a step sends a few kilobytes at most: %v", views)
	assert.True(t, eval[bool](t, ctx, stageMatchesADrawing), "the patched stage differs from a drawing of the step")
	// Scrub to the end and back to a middle step: still the drawing.
	for _, n := range []string{"24", "9"} {
		eval[bool](t, ctx, `(() => { const s = document.querySelector('[data-act="scrub"]'); s.value = "`+n+`"; s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	}
	assert.Equal(t, 9, step(t, ctx))
	assert.True(t, eval[bool](t, ctx, stageMatchesADrawing))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestStageRowsMove: with an lsn mark, the run at 10:00:07 reads orders 3
// and 4 (they appear in the extractor, moving from their source rows) and
// then writes them (they move on to their slots); a learner who asks for
// less motion sees them arrive without moving.
func TestStageRowsMove(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?mark=lsn&step=15")
	slot := func(k string) string {
		return eval[string](t, ctx, `document.querySelector('[data-testid=slot][data-key="`+k+`"]').dataset.state`)
	}
	assert.Equal(t, "waiting", slot("3"), "committed, not read yet")
	click(t, ctx, `[data-testid="btn-forward"]`) // the read
	assert.Equal(t, 2, count(t, ctx, `[data-testid=inflight]`))
	moving := `[...document.querySelectorAll('[data-testid=inflight]')].filter((el) => el.getAnimations().some((a) => a.playState === "running")).length`
	assert.Equal(t, 2, eval[int](t, ctx, moving), "the rows read move from the source to the extractor")
	click(t, ctx, `[data-testid="btn-forward"]`) // the write
	assert.Equal(t, 0, count(t, ctx, `[data-testid=inflight]`))
	assert.Equal(t, "in", slot("3"))
	assert.Equal(t, 2, eval[int](t, ctx, `[...document.querySelectorAll('[data-testid=slot][data-new]')].filter((el) => el.getAnimations().length > 0).length`),
		"the rows written move on to their slots")

	// The same with reduced motion: the rows arrive, nothing moves.
	call(t, ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
	click(t, ctx, `[data-testid="btn-back"]`)
	click(t, ctx, `[data-testid="btn-back"]`)
	click(t, ctx, `[data-testid="btn-forward"]`)
	assert.Equal(t, 2, count(t, ctx, `[data-testid=inflight]`))
	assert.Zero(t, eval[int](t, ctx, `document.getAnimations().filter((a) => a.playState === "running" && a.currentTime < 400).length`), "nothing moves with reduced motion")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestStageUsesTheWidth: at 1280 px the stage's stations stand side by
// side, left to right, across the width; at 360 px they stack, the page
// does not scroll sideways and no text of the picture shrinks below a
// readable size.
func TestStageUsesTheWidth(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=16&mark=lsn")
	viewport(t, ctx, 1280, 900)
	boxes := func() []map[string]float64 {
		return eval[[]map[string]float64](t, ctx, `["panel-source", "panel-pipe", "panel-target"].map((id) => {
			const r = document.querySelector('[data-testid="' + id + '"]').getBoundingClientRect();
			return {left: r.left, right: r.right, top: r.top, width: r.width};
		})`)
	}
	b := boxes()
	assert.Less(t, b[0]["right"], b[1]["left"], "the source is left of the extractor")
	assert.Less(t, b[1]["right"], b[2]["left"], "the extractor is left of the target")
	assert.InDelta(t, b[0]["top"], b[2]["top"], 2, "one row")
	assert.Greater(t, b[2]["right"]-b[0]["left"], 1150.0, "the stage fills a wide screen")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid=timeline]').open`), "the step list is folded")

	viewport(t, ctx, 360, 740)
	b = boxes()
	assert.Less(t, b[0]["top"], b[1]["top"])
	assert.Less(t, b[1]["top"], b[2]["top"], "stacked at 360 px")
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360, "the page does not scroll sideways")
	smallest := eval[float64](t, ctx, `Math.min(...[...document.querySelectorAll('.tm-flow *')].filter((el) => el.childNodes.length && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && el.getClientRects().length).map((el) => parseFloat(getComputedStyle(el).fontSize)))`)
	assert.GreaterOrEqual(t, smallest, 11.0, "the stage's text stays legible at 360 px")
	assert.Empty(t, pageProblems(t, ctx))

	// The log world at 360 px: its lanes scroll inside their box, drawn at
	// full size, and the page does not scroll sideways.
	ctx, _ = startPlayground(t, "/scenarios/dist/partition-change?step=21")
	viewport(t, ctx, 360, 740)
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360, "the page does not scroll sideways")
	assert.GreaterOrEqual(t, eval[float64](t, ctx, smallestStageText), 11.0, "the log's text stays legible at 360 px")
	assert.Equal(t, eval[float64](t, ctx, `document.querySelector('[data-testid=lane-chart]').viewBox.baseVal.width`),
		eval[float64](t, ctx, `document.querySelector('[data-testid=lane-chart]').getBoundingClientRect().width`), "a lane is drawn at its own size, not shrunk")
	assert.Greater(t, eval[float64](t, ctx, `(() => { const l = document.querySelector('[data-testid=log]'); return l.scrollWidth - l.clientWidth; })()`), 0.0, "the lanes scroll sideways")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPresenterMode: P enters presenter mode with the focus in the widget,
// and is the page's letter elsewhere (WCAG 2.1.4); the
// stage and the narration fill a 1024×768 screen in large type and nothing
// else shows; clicker keys step even with a knob focused; B blanks the
// screen and brings it back; the address keeps the step, the knobs and the
// mode; P leaves it.
func TestPresenterMode(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=13&mark=lsn")
	viewport(t, ctx, 1024, 768)
	blur(t, ctx)
	key(t, ctx, "p")
	time.Sleep(300 * time.Millisecond)
	assert.False(t, eval[bool](t, ctx, `document.querySelector('.tm-widget').hasAttribute('data-present')`), "a letter typed outside the widget is the page's")
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=btn-forward]`))))
	key(t, ctx, "p")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	assert.Equal(t, 13, step(t, ctx), "P did not step")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('.site-header').checkVisibility()`), "the site's header is hidden")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid=scenario-context]').checkVisibility()`), "the lessons' links are hidden")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid=settings]').checkVisibility()`), "the knobs are hidden")
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `parseFloat(getComputedStyle(document.querySelector('.tm-live')).fontSize)`), 24.0, "the narration is large")
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `parseFloat(getComputedStyle(document.querySelector('.tm-chip-key')).fontSize)`), 22.0, "the rows are large")
	// The picture fits the screen: the narration and every station start on it.
	for _, sel := range []string{".tm-live", "[data-testid=panel-source]", "[data-testid=panel-pipe]", "[data-testid=panel-target]"} {
		assert.Less(t, eval[float64](t, ctx, `document.querySelector('`+sel+`').getBoundingClientRect().top`), 700.0, "%s is on screen", sel)
	}
	assert.Contains(t, eval[string](t, ctx, `location.search`), "present=on")

	// A clicker's keys step, even with a control focused.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=btn-forward]`))))
	key(t, ctx, kb.PageDown)
	assert.Equal(t, 14, step(t, ctx))
	key(t, ctx, " ")
	assert.Equal(t, 15, step(t, ctx), "space steps in presenter mode")
	key(t, ctx, kb.PageUp)
	assert.Equal(t, 14, step(t, ctx))
	key(t, ctx, kb.ArrowRight)
	assert.Equal(t, 15, step(t, ctx))
	// Some clickers send the up and down arrows.
	key(t, ctx, kb.ArrowDown)
	assert.Equal(t, 16, step(t, ctx))
	key(t, ctx, kb.ArrowUp)
	assert.Equal(t, 15, step(t, ctx))

	// B blanks the screen; B again brings it back.
	key(t, ctx, "b")
	assert.True(t, eval[bool](t, ctx, `document.documentElement.classList.contains("tm-blank")`))
	assert.False(t, eval[bool](t, ctx, `document.querySelector('.tm-live').checkVisibility({visibilityProperty: true})`), "nothing shows while blank")
	assert.Equal(t, eval[float64](t, ctx, `window.innerWidth`), eval[float64](t, ctx, `document.documentElement.clientWidth`), "not even a scroll bar")
	assert.Equal(t, "The screen is blank; B or a step key shows it again.", text(t, ctx, `[data-testid="announcer"]`), "said to a screen reader")
	key(t, ctx, "b")
	assert.False(t, eval[bool](t, ctx, `document.documentElement.classList.contains("tm-blank")`))
	assert.Equal(t, "The stage again, at step 15.", text(t, ctx, `[data-testid="announcer"]`))
	// J, in a scenario without a stream job, says there is none to show.
	key(t, ctx, "j")
	assert.Contains(t, text(t, ctx, `.tm-message`), "This scenario has no stream job, so J has no checkpoints, sinks or operators to show.")
	assert.Equal(t, 15, step(t, ctx))
	// A step key on a blank screen only shows it again, on the step the
	// room last saw; the next press steps.
	key(t, ctx, "b")
	key(t, ctx, kb.PageDown)
	assert.False(t, eval[bool](t, ctx, `document.documentElement.classList.contains("tm-blank")`))
	assert.Equal(t, 15, step(t, ctx), "the key that shows the screen does not step")

	// The address keeps the step and the knobs: a reload presents the same.
	time.Sleep(300 * time.Millisecond) // the address follows a step within 200 ms
	search := eval[string](t, ctx, `location.search`)
	for _, want := range []string{"step=15", "mark=lsn", "present=on"} {
		assert.Contains(t, search, want)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
	waitReady(t, ctx)
	assert.Equal(t, 15, step(t, ctx))
	assert.Equal(t, "on", eval[string](t, ctx, `document.querySelector('.tm-widget').dataset.present`))

	blur(t, ctx)
	key(t, ctx, "P")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`.tm-widget[data-present]`))))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('.site-header').checkVisibility()`))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestRoomOpenedBareTakesTheNotesWindowsPlace: a presenter prepares the
// notes window first (a knob, a step) and then opens the room's window
// with ?present alone; the room opens where the notes window is, and the
// notes window keeps its step and settings. It was reloaded at step 0
// with the scenario's defaults, without a word.
func TestRoomOpenedBareTakesTheNotesWindowsPlace(t *testing.T) {
	notes, base := startPlayground(t, "/scenarios/hwm/visibility-gap?mark=lsn&step=9&present=notes")
	waitStep(t, notes, 9, "the notes window opens at its step")
	press(t, notes, `[data-testid="btn-forward"]`)
	waitStep(t, notes, 10, "the notes window steps on")
	eval[bool](t, notes, `(window.sameNotes = true)`)

	room := openWindow(t, notes, base+"/scenarios/hwm/visibility-gap?present")
	_, err := chromedp.Run(room, chromedp.Poll[bool](`new URLSearchParams(location.search).get("mark") === "lsn" && Number(document.querySelector('.tm-widget').dataset.step) === 10`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the room takes the notes window's mark and step")
	assert.Equal(t, "on", eval[string](t, room, `document.querySelector('.tm-widget').dataset.present`), "the room is still presenting")
	time.Sleep(500 * time.Millisecond)
	assert.True(t, eval[bool](t, notes, `window.sameNotes === true`), "the notes window was reloaded")
	assert.Equal(t, "lsn", eval[string](t, notes, `new URLSearchParams(location.search).get("mark")`))
	assert.Equal(t, 10, step(t, notes))

	// From then on the room drives as ever: a step taken there moves the notes.
	blur(t, room)
	key(t, room, kb.PageDown)
	waitStep(t, notes, 11, "the notes window follows the room's")

	// A room opened with a step of its own keeps it, and the notes follow
	// (with the same settings, so they step rather than reload).
	other := openWindow(t, notes, base+"/scenarios/hwm/visibility-gap?mark=lsn&step=3&present")
	waitStep(t, notes, 3, "the notes window follows a room opened at a step")
	assert.Equal(t, 3, step(t, other))
	assert.Empty(t, pageProblems(t, room))
	assert.Empty(t, pageProblems(t, notes))
}

// TestPresenterNotesWindow: a second window opened with ?present=notes
// shows the scenario's note for each step and what comes next, and follows
// the room's window as it steps (and the room's follows it).
func TestPresenterNotesWindow(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12&present")
	// Opened with no step, as mid-talk, it asks the room where it is.
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 12, "the notes window opens at the room's step")
	assert.Contains(t, text(t, notes, "[data-testid=notes]"), "No note for this step.")
	assert.Contains(t, text(t, notes, "[data-testid=next]"), "Step 13 of 24")

	blur(t, room)
	key(t, room, kb.PageDown)
	key(t, room, kb.PageDown)
	require.Equal(t, 14, step(t, room))
	waitStep(t, notes, 14, "the notes window follows the room's")
	assert.Contains(t, text(t, notes, "[data-testid=note]"), "T3 has just committed behind the mark")
	assert.Empty(t, eval[[]string](t, room, `[...document.querySelectorAll('[data-testid=notes]')].map((n) => n.textContent)`), "the room never sees the notes")

	// Stepping in the notes window moves the room's.
	blur(t, notes)
	key(t, notes, kb.ArrowRight)
	waitStep(t, room, 15, "the room's window follows the notes")

	// In a wide window the knobs and faults sit beside the notes. In a
	// narrower one (half a laptop's screen) they are under the stage, and
	// a link in the notes leads to them.
	settingsInView := `(() => { const r = document.querySelector('[data-testid=settings]').getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; })()`
	viewport(t, notes, 1280, 800)
	assert.False(t, eval[bool](t, notes, `document.querySelector('[data-testid=to-settings]').checkVisibility()`), "no link to what is beside the notes")
	assert.True(t, eval[bool](t, notes, settingsInView), "the knobs beside the notes")
	viewport(t, notes, 640, 800)
	assert.False(t, eval[bool](t, notes, settingsInView), "the knobs under the stage")
	assert.True(t, eval[bool](t, notes, `document.querySelector('[data-testid=to-settings]').checkVisibility()`), "the link to them")
	press(t, notes, `[data-testid=to-settings]`)
	waitTrue(t, notes, "the link brings the knobs into view", settingsInView)
	assert.Empty(t, pageProblems(t, room))
	assert.Empty(t, pageProblems(t, notes))
}

// TestControlsNeedingScriptsStayHidden: with scripts off, Play, the speed
// and the faults (which need the engine) are hidden, though their class
// displays them; the step links work.
func TestControlsNeedingScriptsStayHidden(t *testing.T) {
	ctx, base := startPlayground(t, "/")
	call(t, ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/scenarios/hwm/visibility-gap?step=3")))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=btn-forward]`))))
	for _, id := range []string{"btn-play", "speed", "faults", "btn-crash"} {
		assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="`+id+`"]').checkVisibility()`), "%s shows without scripts", id)
	}
	click(t, ctx, `[data-testid=btn-forward]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-step="4"]`))), "the link steps without scripts")
	// The copy buttons need scripts too.
	assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="copy-iframe"]').checkVisibility()`))
}

// TestLockInHiddenOnceAnswered: a lesson's "Lock in my answer" goes away
// once the learner has answered, though it is a .tm-btn.
func TestLockInHiddenOnceAnswered(t *testing.T) {
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
	order3 := `form[data-prediction="order-3"]`
	settleLesson(t, ctx)
	eval[bool](t, ctx, `(document.querySelector('#predict-order-3-b').click(), true)`)
	// Locked in from the keyboard: the button goes, and the focus moves on
	// to the result (or to trying again), not back to the page's start.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(order3+` [data-testid="prediction-submit"]`))))
	key(t, ctx, kb.Enter)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(order3+`[data-graded] [data-testid="prediction-result"]`))))
	assert.True(t, eval[bool](t, ctx, `document.activeElement.closest('`+order3+`') !== null && !document.activeElement.hidden`), "the focus stays in the prediction")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('`+order3+` [data-testid="prediction-submit"]').hidden`))
	assert.Equal(t, "none", eval[string](t, ctx, `getComputedStyle(document.querySelector('`+order3+` [data-testid="prediction-submit"]')).display`), "a hidden button is not displayed")
}

// TestStepLinksKeepTheirColourOnceVisited: the step buttons are links, and
// the stylesheet gives a visited one the colour of an unvisited one (a
// page cannot read a visited link's computed colour, so the rule is read).
func TestStepLinksKeepTheirColourOnceVisited(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	colour := eval[string](t, ctx, `(() => {
		for (const sheet of document.styleSheets) for (const r of sheet.cssRules) {
			if (r.selectorText && r.selectorText.split(",").map((s) => s.trim()).includes(".tm-btn:visited")) return r.style.color;
		}
		return "";
	})()`)
	assert.Equal(t, "var(--accent)", colour, "a visited step link keeps the button's colour")
	assert.Equal(t, eval[string](t, ctx, `getComputedStyle(document.querySelector('[data-testid=btn-forward]')).color`),
		eval[string](t, ctx, `getComputedStyle(document.querySelector('[data-testid=btn-play]')).color`), "links and buttons look alike")
}

// TestEndingAndSnippetsFollowTheWidget: "How it ends" follows the knobs,
// the embed snippets follow the step, the knobs and the faults, and each
// copies with one click.
func TestEndingAndSnippetsFollowTheWidget(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	// Let the page read the clipboard back, to see what the button copied.
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := cdp.Call(ctx, chromedp.FromContext(ctx).Browser, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted}); err != nil {
				return err
			}
		}
		return nil
	})))
	assert.Contains(t, text(t, ctx, "[data-testid=verdict]"), "2 rows missing")
	eval[bool](t, ctx, `(document.querySelector('[data-testid=knob-mark-lsn]').click(), true)`)
	// The knob re-runs the scenario, then draws the widget anew.
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid=verdict]').textContent === "In the end: the target matches the source."`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "the ending follows the knob: %s", text(t, ctx, "[data-testid=verdict]"))
	for range 3 {
		click(t, ctx, `[data-testid="btn-forward"]`)
	}
	snippet := func(kind string) string {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid="snippet-`+kind+`"]').textContent.includes("step=3")`, chromedp.WithPollingTimeout(15*time.Second)))
		require.NoError(t, err, "the %s snippet never reached step 3: %s", kind, text(t, ctx, `[data-testid="snippet-`+kind+`"]`))
		return text(t, ctx, `[data-testid="snippet-`+kind+`"]`)
	}
	for _, kind := range []string{"iframe", "markdown", "image"} {
		s := snippet(kind)
		assert.Contains(t, s, "mark=lsn", kind)
	}
	assert.Contains(t, text(t, ctx, `[data-testid="snippet-script"]`), `data-step="3" data-knobs="mark=lsn"`)

	// One click copies.
	click(t, ctx, `[data-testid="copy-iframe"]`)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-copied="iframe"]').textContent === "Copied."`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err)
	copied, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, text(t, ctx, `[data-testid="snippet-iframe"]`), copied)

	// A fault joins the snippets (and the address).
	ctx2, _ := startPlayground(t, "/scenarios/hwm/advance-order?step=17")
	click(t, ctx2, `[data-testid="btn-crash"]`)
	require.NoError(t, chromedp.Do(ctx2, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	_, err = chromedp.Run(ctx2, chromedp.Poll[bool](`document.querySelector('[data-testid="snippet-iframe"]').textContent.includes("fault=17~crash")`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the snippet carries the fault: %s", text(t, ctx2, `[data-testid="snippet-iframe"]`))
	assert.Contains(t, eval[string](t, ctx2, `location.search`), "fault=17~crash")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestKeysWorkWithoutFocus: on a scenario page the side arrows step the
// widget with nothing focused, while the keys that scroll a page (PageDown,
// End, Home, space) and letters stay the page's out of presenter mode;
// inside the widget every key steps, but for a control's own: the
// scrubber, the speed list and a knob's radio buttons keep their arrows,
// and a clicker's PageDown steps forward even on the scrubber.
func TestKeysWorkWithoutFocus(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	blur(t, ctx)
	key(t, ctx, kb.ArrowRight)
	key(t, ctx, kb.ArrowRight)
	assert.Equal(t, 2, step(t, ctx))
	// Whether a key's default action (scrolling) was left to the browser.
	eval[bool](t, ctx, `(window.addEventListener("keydown", (e) => { window.__prevented = e.defaultPrevented; }), true)`)
	for _, k := range []string{kb.End, kb.PageDown, kb.Home, " ", "b"} {
		key(t, ctx, k)
		assert.Equal(t, 2, step(t, ctx), "%q is the page's", k)
		assert.False(t, eval[bool](t, ctx, `window.__prevented`), "%q scrolls the page as ever", k)
	}
	assert.False(t, eval[bool](t, ctx, `document.documentElement.classList.contains("tm-blank")`))
	blur(t, ctx)
	key(t, ctx, kb.ArrowRight)
	assert.True(t, eval[bool](t, ctx, `window.__prevented`), "the side arrows step")
	key(t, ctx, kb.ArrowLeft)
	assert.Equal(t, 2, step(t, ctx))

	// Inside the widget.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=btn-forward]`))))
	key(t, ctx, kb.End)
	assert.Equal(t, 24, step(t, ctx))
	key(t, ctx, kb.Home)
	assert.Equal(t, 0, step(t, ctx))
	// The speed control keeps its arrow keys.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=speed]`))))
	key(t, ctx, kb.ArrowDown)
	assert.Equal(t, 0, step(t, ctx))
	// The scrubber: a clicker's PageDown steps forward (the range input
	// alone would go back a page).
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=scrubber]`))))
	key(t, ctx, kb.PageDown)
	assert.Equal(t, 1, step(t, ctx))
	key(t, ctx, kb.PageDown)
	assert.Equal(t, 2, step(t, ctx))
	// A knob's radio buttons: the side arrows choose the next value.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=knob-mark-timestamp]`))))
	key(t, ctx, kb.ArrowRight)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`location.search.includes("mark=lsn") && document.querySelector('[data-testid=knob-mark-lsn]').checked`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "ArrowRight chose lsn, and the widget ran it")
	waitReady(t, ctx)
	assert.Equal(t, 2, step(t, ctx), "and did not step")
	// The re-run redrew the widget; what it shows now is said once, in the
	// live region that stayed on the page.
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid=announcer]').textContent`), "Step 2 of")
	assert.Equal(t, "polite", eval[string](t, ctx, `document.querySelector('[data-testid=announcer]').getAttribute('aria-live')`))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestSpeedControlLooksLikeTheOthers: the speed select is as large and as
// legible as the buttons beside it.
func TestSpeedControlLooksLikeTheOthers(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	font := eval[float64](t, ctx, `parseFloat(getComputedStyle(document.querySelector('[data-testid=speed]')).fontSize)`)
	button := eval[float64](t, ctx, `parseFloat(getComputedStyle(document.querySelector('[data-testid=btn-play]')).fontSize)`)
	assert.Equal(t, button, font)
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `document.querySelector('[data-testid=speed]').getBoundingClientRect().height`), 44.0, "a touch target")
}

// TestLinksSayWhatIsWrong: a link past the end says so once the engine
// has the widget, as the server's page did.
func TestLinksSayWhatIsWrong(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=999")
	assert.Equal(t, 24, step(t, ctx))
	assert.Contains(t, text(t, ctx, "[data-testid=message]"), "Step 999 is past the end; this scenario has 24 steps")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid=message]').hidden`))
}

// TestWordsCountRight: one key is a key; a check at step 0 names no time.
func TestWordsCountRight(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	detail := text(t, ctx, `[data-check="reconciliation-closed-interval"] .tm-detail`)
	assert.Contains(t, detail, "nothing has happened yet")
	assert.NotContains(t, detail, "00:00:00")

	ctx2, _ := startPlayground(t, "/scenarios/hwm/advance-order?step=17&fault=17~crash")
	click(t, ctx2, `[data-testid="btn-end"]`)
	summary := text(t, ctx2, "[data-testid=compare-summary]")
	assert.True(t, strings.HasPrefix(summary, "1 key differs."), summary)
	assert.Empty(t, pageProblems(t, ctx2))
}

// TestLaneLabelsClearOfLines: in the retention scenario, at every step,
// no log start or end line runs through a label of the lane.
func TestLaneLabelsClearOfLines(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/retention-lag")
	steps := eval[int](t, ctx, `Number(document.querySelector('.tm-widget').dataset.steps)`)
	for n := 0; n <= steps; n++ {
		crossing := eval[int](t, ctx, `(() => {
			let bad = 0;
			for (const svg of document.querySelectorAll('[data-testid=lane-chart]')) {
				const labels = [...svg.querySelectorAll('.tm-log-label')].map((t) => t.getBoundingClientRect());
				for (const l of svg.querySelectorAll('.tm-log-start, .tm-log-end')) {
					const r = l.getBoundingClientRect();
					for (const b of labels) if (r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top) bad++;
				}
			}
			return bad;
		})()`)
		assert.Zero(t, crossing, "step %d: a line crosses a label", n)
		click(t, ctx, `[data-testid="btn-forward"]`)
	}
}

// TestSandboxIsLinked: the navigation's Sandbox opens /play, and a
// scenario page's button opens a copy of its file there.
func TestSandboxIsLinked(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	click(t, ctx, `[data-testid=to-sandbox] button`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-src`))))
	assert.Contains(t, eval[string](t, ctx, `document.getElementById('play-src').value`), "scenario hwm/visibility-gap")
	assert.Equal(t, "Sandbox", text(t, ctx, `nav a[aria-current="page"]`))
	assert.Equal(t, "/play", eval[string](t, ctx, `new URL(document.querySelector('nav a[aria-current="page"]').href).pathname`))
}

// zoom150 makes the tab a 1024×768 window at 150% zoom: 683×512 CSS
// pixels, each drawn with 1.5 device pixels.
func zoom150(t *testing.T, ctx context.Context) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(683, 512, chromedp.EmulateScale(1.5))))
}

// smallestStageText is the smallest font size, in CSS pixels, of any text
// the stage shows.
const smallestStageText = `Math.min(...[...document.querySelectorAll('.tm-flow *')].filter((el) => el.childNodes.length && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && el.getClientRects().length).map((el) => parseFloat(getComputedStyle(el).fontSize)))`

// TestStageAtZoom150: in a 1024×768 window zoomed to 150%, the page does
// not scroll sideways, the controls take less than a screen before the
// picture starts, no text of the picture shrinks, and the keys step the
// widget with nothing focused.
func TestStageAtZoom150(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=15")
	zoom150(t, ctx)
	assert.Equal(t, 1.5, eval[float64](t, ctx, `window.devicePixelRatio`))
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 683, "the page does not scroll sideways")
	controls := eval[float64](t, ctx, `document.querySelector('[data-testid=panel-source]').getBoundingClientRect().top - document.querySelector('.tm-widget').getBoundingClientRect().top`)
	assert.Less(t, controls, 512.0, "the picture starts within a screen of the widget's top")
	assert.GreaterOrEqual(t, eval[float64](t, ctx, smallestStageText), 11.0, "the stage's text stays legible")
	// Each station is as wide as the widget allows, one under the other.
	for _, id := range []string{"panel-source", "panel-pipe", "panel-target"} {
		assert.Greater(t, eval[float64](t, ctx, `document.querySelector('[data-testid=`+id+`]').getBoundingClientRect().width`), 560.0, id)
	}
	blur(t, ctx)
	key(t, ctx, kb.ArrowRight)
	assert.Equal(t, 16, step(t, ctx))
	key(t, ctx, kb.ArrowLeft)
	assert.Equal(t, 15, step(t, ctx))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPresenterAtZoom150: presenter mode in a 1024×768 window zoomed to
// 150% (512 px high) keeps the buttons to a line of glyphs, so that the
// narration and the source, whole, are on the first screen in large type;
// the clicker keys step it.
func TestPresenterAtZoom150(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=16&mark=lsn")
	zoom150(t, ctx)
	press(t, ctx, `[data-testid=btn-present]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 683, "nothing scrolls sideways")
	assert.Less(t, eval[float64](t, ctx, `document.querySelector('.tm-live').getBoundingClientRect().bottom`), 512.0, "the narration is on the first screen")
	assert.LessOrEqual(t, eval[float64](t, ctx, `document.querySelector('[data-testid=panel-source]').getBoundingClientRect().bottom`), 512.0, "the source, whole, is on it too")
	assert.Less(t, eval[float64](t, ctx, `document.querySelector('.tm-stepper').getBoundingClientRect().height`), 60.0, "the step buttons take one line")
	assert.Equal(t, "Forward", eval[string](t, ctx, `document.querySelector('[data-testid=btn-forward] .tm-word').textContent`), "each button keeps its name")
	// 16 CSS pixels are 24 of the projector's: larger, and a long sentence
	// would leave the stage too little of a 512-pixel-high screen.
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `parseFloat(getComputedStyle(document.querySelector('.tm-live')).fontSize)`), 16.0, "the narration is large")
	key(t, ctx, kb.PageDown)
	assert.Equal(t, 17, step(t, ctx))
	key(t, ctx, kb.PageUp)
	assert.Equal(t, 16, step(t, ctx))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestLogRecordsMove: in the log world, the records a consumer polls move
// from their cells in the log to its station, and on to their slots in the
// target when it writes them.
func TestLogRecordsMove(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/partition-change?step=20")
	moving := func(sel string) int {
		return eval[int](t, ctx, `[...document.querySelectorAll('`+sel+`')].filter((el) => el.getAnimations().some((a) => a.playState === "running")).length`)
	}
	click(t, ctx, `[data-testid="btn-forward"]`) // c2 polls 1, 6 and 3
	assert.Equal(t, 3, count(t, ctx, `[data-testid=polled]`))
	assert.Equal(t, 3, moving(`[data-testid=polled]`), "the records read move from the log to the consumers")
	click(t, ctx, `[data-testid="btn-forward"]`) // c2 upserts them
	assert.Equal(t, 0, count(t, ctx, `[data-testid=polled]`))
	assert.Equal(t, 3, eval[int](t, ctx, `[...document.querySelectorAll('[data-testid=slot][data-new]')].filter((el) => el.getAnimations().length > 0).length`),
		"the rows written move on to their slots")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPresenterLogWorld: presenter mode at 1024×768 draws a log's
// stations side by side (the log, the consumers, the target), so that the
// whole pipeline is on the screen, the target's slots included.
func TestPresenterLogWorld(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/partition-change?step=21&present")
	viewport(t, ctx, 1024, 768)
	b := eval[[]map[string]float64](t, ctx, `["panel-log", "panel-group", "panel-target"].map((id) => {
		const r = document.querySelector('[data-testid="' + id + '"]').getBoundingClientRect();
		return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
	})`)
	assert.Less(t, b[0]["right"], b[1]["left"], "the log is left of the consumers")
	assert.Less(t, b[1]["right"], b[2]["left"], "the consumers are left of the target")
	assert.InDelta(t, b[0]["top"], b[2]["top"], 2, "one row")
	assert.LessOrEqual(t, b[2]["bottom"], 768.0, "the target, whole, is on the screen")
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 1024, "nothing scrolls sideways")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestHeadingsAndFocusThroughSteps: a scenario page's headings go down one
// level at a time (the widget's panels are h3s under an h2), as do an
// embed's, a lesson chapter's with its widgets and the sandbox's; stepping
// with the focus on one of the stage's links keeps it there though the step
// draws that link anew.
func TestHeadingsAndFocusThroughSteps(t *testing.T) {
	for _, path := range []string{"/scenarios/hwm/visibility-gap?step=12", "/embed/hwm/visibility-gap?step=12",
		"/lessons/high-water-mark/position-or-timestamp", "/lessons/guarantee-chain/the-chain", "/play"} {
		ctx, _ := startPlayground(t, path)
		levels := eval[[]int](t, ctx, `[...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => Number(h.tagName[1]))`)
		require.NotEmpty(t, levels, path)
		assert.Equal(t, 1, levels[0], path)
		for i := 1; i < len(levels); i++ {
			assert.LessOrEqual(t, levels[i], levels[i-1]+1, "%s: heading %d skips a level: %v", path, i, levels)
		}
	}

	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12")
	chip := `.tm-stage a[data-act="explain"][data-key="1"]`
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(chip))))
	key(t, ctx, kb.ArrowRight)
	assert.Equal(t, 13, step(t, ctx))
	assert.True(t, eval[bool](t, ctx, `document.activeElement.matches('`+chip+`')`), "the focus stays on key 1's link")
	// Following the link explains the key, and the explanation is said in
	// the live region that stays on the page.
	key(t, ctx, kb.Enter)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid=announcer]').textContent.includes("key 1")`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the explanation is announced")
	assert.NotContains(t, eval[string](t, ctx, `document.querySelector('[data-testid=announcer]').textContent`), "Close")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestStageLinkCarriesTheStep: the stage's explain links leave the step out
// of their href, but a link about to be taken elsewhere (the context menu's
// new tab or copy, a middle click) has the step the stage shows put back,
// and a plain click still explains in place.
func TestStageLinkCarriesTheStep(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12")
	chip := `.tm-stage a[data-act="explain"][data-key="1"]`
	click(t, ctx, `[data-testid="btn-forward"]`)
	require.Equal(t, 13, step(t, ctx))
	eval[bool](t, ctx, `document.querySelector('`+chip+`').dispatchEvent(new MouseEvent("contextmenu", {bubbles: true, cancelable: true}))`)
	href := eval[string](t, ctx, `document.querySelector('`+chip+`').getAttribute("href")`)
	assert.Contains(t, href, "step=13", "the link opened elsewhere shows the same step")
	assert.Contains(t, href, "explain=1")

	click(t, ctx, `[data-testid="btn-forward"]`)
	require.Equal(t, 14, step(t, ctx))
	eval[bool](t, ctx, `document.querySelector('`+chip+`').dispatchEvent(new MouseEvent("mousedown", {bubbles: true, button: 1}))`)
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('`+chip+`').getAttribute("href")`), "step=14", "a middle click takes the new step")

	click(t, ctx, chip)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid=announcer]').textContent.includes("key 1")`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "a plain click explains the key in place")
	assert.Equal(t, 14, step(t, ctx), "and stays on the step")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestSourceChartOnAPhone: at 360 px each transaction's state (its log
// position and its keys' fate) sits under its bar, in sight, rather than in
// a column the chart has to be scrolled sideways to reach.
func TestSourceChartOnAPhone(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=16")
	viewport(t, ctx, 360, 740)
	chart := eval[map[string]float64](t, ctx, `(() => {
		const c = document.querySelector('.tm-chart'), r = c.getBoundingClientRect();
		return {left: r.left, right: r.right, scroll: c.scrollWidth, client: c.clientWidth};
	})()`)
	assert.LessOrEqual(t, chart["scroll"], chart["client"], "the source chart scrolls sideways")
	fates := eval[[]map[string]any](t, ctx, `[...document.querySelectorAll('[data-testid=fate]')].map((e) => {
		const r = e.getBoundingClientRect();
		return {text: e.textContent, left: r.left, right: r.right};
	})`)
	require.Len(t, fates, 4)
	for _, f := range fates {
		assert.LessOrEqual(t, f["right"].(float64), chart["right"]+0.5, "%v is out of sight", f["text"])
		assert.GreaterOrEqual(t, f["left"].(float64), chart["left"], "%v is out of sight", f["text"])
	}
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360)
	assert.Empty(t, pageProblems(t, ctx))
}

// waitStep waits until ctx's widget shows step n.
func waitStep(t *testing.T, ctx context.Context, n int, what string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`Number(document.querySelector('.tm-widget').dataset.step) === `+strconv.Itoa(n), chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, what)
}

// TestPresenterWindowsLeaveOtherTabsAlone: only the presenter's notes
// window follows the room's. A tab of the same scenario that is not
// presenting keeps its own step and settings; the notes window takes the
// room's settings when they change, even at the same step; and B in the
// notes window blanks the room's screen, not the presenter's.
func TestPresenterWindowsLeaveOtherTabsAlone(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12&present")
	other := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?step=11&mark=lsn&fault=11~crash")
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 12, "the notes window opens at the room's step")

	blur(t, room)
	key(t, room, kb.PageDown)
	waitStep(t, notes, 13, "the notes window follows the room's")
	blur(t, notes)
	key(t, notes, kb.ArrowRight)
	waitStep(t, room, 14, "the room's window follows the notes")
	assert.Equal(t, 11, step(t, other), "a tab that is not presenting keeps its step")
	assert.Equal(t, []string{"lsn", "11~crash"}, eval[[]string](t, other, `(() => { const q = new URLSearchParams(location.search); return [q.get("mark"), q.get("fault")]; })()`), "and its settings")

	// The room opens again with another mark at the same step: the notes
	// window reloads with it.
	require.NoError(t, chromedp.Do(room, chromedp.Navigate(base+"/scenarios/hwm/visibility-gap?step=14&mark=lsn&present")))
	waitReady(t, room)
	// The notes window reloads: waitLoaded polls through the page's change.
	waitLoaded(t, notes, "the notes window takes the room's settings at the same step",
		`new URLSearchParams(location.search).get("mark") === "lsn" && document.querySelector('.tm-widget') !== null && Number(document.querySelector('.tm-widget').dataset.step) === 14`)
	assert.Equal(t, "notes", eval[string](t, notes, `new URLSearchParams(location.search).get("present")`))
	assert.Equal(t, 11, step(t, other))

	waitReady(t, notes)
	blur(t, notes)
	key(t, notes, "b")
	_, err := chromedp.Run(room, chromedp.Poll[bool](`document.documentElement.classList.contains("tm-blank")`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "B in the notes window blanks the room's screen")
	assert.False(t, eval[bool](t, notes, `document.documentElement.classList.contains("tm-blank")`), "the presenter keeps the notes")
	key(t, notes, "b")
	_, err = chromedp.Run(room, chromedp.Poll[bool](`!document.documentElement.classList.contains("tm-blank")`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "B again shows the room's stage")
	assert.False(t, eval[bool](t, other, `document.documentElement.classList.contains("tm-blank")`))
}

// TestPresenterNotesLink: the scenario page links to the presenter's notes
// window (there was no way to open it but typing ?present=notes), at the
// page's step and settings as they change; the window it opens follows
// the page once the page presents.
func TestPresenterNotesLink(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=3&mark=lsn")
	blur(t, room)
	key(t, room, kb.ArrowRight)
	key(t, room, kb.ArrowRight)
	href := eval[string](t, room, `document.querySelector('[data-testid="btn-notes"]').href`)
	assert.Equal(t, base+"/scenarios/hwm/visibility-gap?mark=lsn&step=5&present=notes", href, "the link follows the step")
	assert.Equal(t, "_blank", eval[string](t, room, `document.querySelector('[data-testid="btn-notes"]').target`))

	notes := openWindow(t, room, href)
	assert.Equal(t, "notes", eval[string](t, notes, `document.querySelector('.tm-widget').dataset.present`))
	assert.Contains(t, text(t, notes, "[data-testid=notes]"), "Notes for step 5")

	require.NoError(t, chromedp.Do(room, chromedp.Focus(chromedp.CSS(`[data-testid="btn-forward"]`))))
	key(t, room, "p")
	require.NoError(t, chromedp.Do(room, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	assert.False(t, eval[bool](t, room, `!!document.querySelector('[data-testid="btn-notes"]')`), "the room never sees the notes' link")
	blur(t, room)
	key(t, room, kb.PageDown)
	waitStep(t, notes, 6, "the notes window follows the room once it presents")
}

// TestPresenterNotesWindowSetsTheRoomsKnobsAndFaults: a knob, a fault
// and Undo chosen in the notes window, from the keyboard, are the room's
// at once, in the same page (a reload would take the room out of full
// screen). They used to be undone: the room answered with its own
// settings, and the notes window reloaded with them.
func TestPresenterNotesWindowSetsTheRoomsKnobsAndFaults(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12&present")
	eval[bool](t, room, `(window.sameRoom = true)`)
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	roomHas := func(expr, what string) {
		t.Helper()
		_, err := chromedp.Run(room, chromedp.Poll[bool](`(() => { const q = new URLSearchParams(location.search); const w = document.querySelector('.tm-widget'); return `+expr+`; })()`, chromedp.WithPollingTimeout(15*time.Second)))
		require.NoError(t, err, what)
	}
	waitStep(t, notes, 12, "the notes window opens at the room's step")

	// The mark, with the arrow keys of its radio buttons.
	require.NoError(t, chromedp.Do(notes, chromedp.Focus(chromedp.CSS(`[data-testid="knob-mark-timestamp"]`))))
	key(t, notes, kb.ArrowRight)
	roomHas(`q.get("mark") === "lsn" && q.get("present") === "on" && Number(w.dataset.step) === 12 && document.querySelector('[data-testid="knob-mark-lsn"]').checked`, "the room takes the notes window's mark at its step")
	assert.True(t, eval[bool](t, room, `window.sameRoom === true`), "the room was not reloaded")
	assert.Equal(t, "on", eval[string](t, room, `document.querySelector('.tm-widget').dataset.present`))
	time.Sleep(500 * time.Millisecond)
	assert.Equal(t, "lsn", eval[string](t, notes, `new URLSearchParams(location.search).get("mark")`), "the notes window keeps the mark it chose")

	// A fault at the step, then Undo.
	waitReady(t, notes)
	press(t, notes, `[data-testid="btn-jump-back"]`)
	roomHas(`q.get("fault") === "12~jump~-5s" && q.get("mark") === "lsn"`, "the room takes the notes window's fault")
	assert.Positive(t, eval[int](t, room, `document.querySelectorAll('[data-testid="panel-compare"]').length`), "the room compares the run with its fault to the run without")
	press(t, notes, `[data-testid="btn-undo"]`)
	roomHas(`!q.has("fault") && q.get("mark") === "lsn"`, "Undo in the notes window takes the room's fault off")
	assert.True(t, eval[bool](t, room, `window.sameRoom === true`))

	// A knob clicked with the mouse gives the arrows back to the clicker:
	// the next → steps, and the knob does not turn under it.
	waitReady(t, notes)
	click(t, notes, `label[for="tm-knob-mark-timestamp"]`)
	roomHas(`!q.has("mark") && document.querySelector('[data-testid="knob-mark-timestamp"]').checked`, "the room takes the clicked mark")
	waitReady(t, notes)
	was := step(t, notes)
	key(t, notes, kb.ArrowRight)
	waitStep(t, notes, was+1, "→ steps after a click on a knob")
	assert.True(t, eval[bool](t, notes, `document.querySelector('[data-testid="knob-mark-timestamp"]').checked`), "the knob did not turn")
	assert.Empty(t, pageProblems(t, room))
	assert.Empty(t, pageProblems(t, notes))
}

// TestAKnobClickedThenAnArrowSteps: out of presenter mode too, a knob
// just clicked with the mouse gives the side arrows to stepping, so a
// learner who picks a setting and presses → steps on with it; the knob
// used to turn back under the press, rerunning the scenario each time. A
// knob reached with Tab keeps its arrows.
func TestAKnobClickedThenAnArrowSteps(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12")
	click(t, ctx, `label[for="tm-knob-mark-lsn"]`)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`new URLSearchParams(location.search).get("mark") === "lsn" && !document.querySelector('.tm-host').hasAttribute('aria-busy')`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the click chooses lsn")
	waitReady(t, ctx)
	was := step(t, ctx)
	key(t, ctx, kb.ArrowRight)
	waitStep(t, ctx, was+1, "→ steps after a click on a knob")
	key(t, ctx, kb.ArrowLeft)
	waitStep(t, ctx, was, "← steps back")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="knob-mark-lsn"]').checked`), "the knob did not turn")
	assert.Equal(t, "lsn", eval[string](t, ctx, `new URLSearchParams(location.search).get("mark")`))

	// Reached by the keyboard, the radio buttons keep their arrows.
	key(t, ctx, kb.Tab)
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid="knob-mark-lsn"]`))))
	key(t, ctx, kb.ArrowLeft)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!new URLSearchParams(location.search).has("mark") && document.querySelector('[data-testid="knob-mark-timestamp"]').checked`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "← turns a knob reached with Tab")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestNotesWindowStepsOnWhileTheRoomTakesItsSettings: a knob chosen in the
// notes window and a step taken there before the room has finished its
// run with that knob end with both windows at the new knob and the new
// step, and the notes window is never reloaded. The room used to answer
// the step with its old settings, and the notes window reloaded with
// them, then again with the new ones, at the old step.
func TestNotesWindowStepsOnWhileTheRoomTakesItsSettings(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12&present")
	// The room's runs take a while, an event a task, as a long scenario's
	// would on a slow projector laptop.
	eval[bool](t, room, `(() => { const e = window.tidemarkEngine; const advance = e.advance; e.advance = (id, n) => { const until = performance.now() + 8; while (performance.now() < until) {} return advance(id, 1); }; return true; })()`)
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 12, "the notes window opens at the room's step")
	eval[bool](t, notes, `(window.sameNotes = true)`)

	require.NoError(t, chromedp.Do(notes, chromedp.Focus(chromedp.CSS(`[data-testid="knob-mark-timestamp"]`))))
	key(t, notes, kb.ArrowRight)
	_, err := chromedp.Run(notes, chromedp.Poll[bool](`!document.querySelector('.tm-host').hasAttribute('aria-busy') && new URLSearchParams(location.search).get("mark") === "lsn"`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the notes window runs with the new mark")
	require.True(t, eval[bool](t, room, `document.querySelector('.tm-host').getAttribute('aria-busy') === 'true'`), "the room finished its run before the notes window stepped; the test shows nothing")
	press(t, notes, `[data-testid="btn-forward"]`)

	_, err = chromedp.Run(room, chromedp.Poll[bool](`(() => { const q = new URLSearchParams(location.search); return q.get("mark") === "lsn" && Number(document.querySelector('.tm-widget').dataset.step) === 13; })()`, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "the room takes the notes window's mark and then its step")
	waitStep(t, notes, 13, "the notes window stays at its step")
	time.Sleep(500 * time.Millisecond)
	assert.True(t, eval[bool](t, notes, `window.sameNotes === true`), "the notes window was reloaded")
	assert.Equal(t, "lsn", eval[string](t, notes, `new URLSearchParams(location.search).get("mark")`))
	assert.Equal(t, 13, step(t, notes))
	assert.Equal(t, 13, step(t, room))
	assert.Empty(t, pageProblems(t, room))
	assert.Empty(t, pageProblems(t, notes))
}

// TestNotesWindowIsToldTheRoomRefusedItsSettings: settings the room
// cannot take (here a fault no control makes, sent as the notes window
// sends its own) change nothing in the room, and the notes window, which
// already shows them, says why and goes back to the room's settings. It
// used to keep them in silence, a stage the room did not show.
func TestNotesWindowIsToldTheRoomRefusedItsSettings(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12&present")
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 12, "the notes window opens at the room's step")
	eval[bool](t, notes, `(new BroadcastChannel("tidemark:" + document.querySelector(".tm-widget").dataset.scenario).postMessage({mode: "notes", step: 12, query: "?step=12&fault=12~sideways", set: true}), true)`)
	waitLoaded(t, notes, "the notes window says the room refused", `document.querySelector('[data-testid="message"]') && document.querySelector('[data-testid="message"]').textContent.includes("The room did not take that change")`)
	msg := text(t, notes, `[data-testid="message"]`)
	assert.Contains(t, msg, "fault=12~sideways", "the notes window says what the room refused")
	assert.False(t, eval[bool](t, notes, `new URLSearchParams(location.search).has("fault")`), "and has the room's settings again")
	assert.Equal(t, "notes", eval[string](t, notes, `new URLSearchParams(location.search).get("present")`))
	assert.False(t, eval[bool](t, room, `new URLSearchParams(location.search).has("fault")`), "the room changed nothing")
	assert.Equal(t, 12, step(t, room))
	assert.Empty(t, pageProblems(t, notes))
}

// TestNotesWindowSaysWhatTheRoomsScreenSays: a link that opens the room
// with a fault it cannot take shows the problem on the room's screen; the
// notes window, opened after it, says it too. The presenter, who reads
// the notes window, did not see it.
func TestNotesWindowSaysWhatTheRoomsScreenSays(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12&fault=12~sideways&present")
	roomSays := text(t, room, `[data-testid="message"]`)
	require.Contains(t, roomSays, "sideways", "the room's screen says what it could not take")
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 12, "the notes window opens at the room's step")
	waitLoaded(t, notes, "the notes window says what the room's screen says", `document.querySelector('[data-testid="message"]') && document.querySelector('[data-testid="message"]').textContent.includes("The room's screen says")`)
	assert.Equal(t, "The room's screen says: "+roomSays, text(t, notes, `[data-testid="message"]`))
	assert.Empty(t, pageProblems(t, notes))
}

// TestNotesWindowKnowsTheRoomIsShownAgain: the room's screen, blanked from
// the notes window, is shown again by a key in the room; B in the notes
// window then blanks it at the first press. It took two: the notes window
// still thought the room blank and sent "show". While the room is blank,
// the notes window says so in a line that stays as the presenter steps
// (the message saying it went with the next step).
func TestNotesWindowKnowsTheRoomIsShownAgain(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=12&present")
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 12, "the notes window opens at the room's step")
	roomBlank := func(want bool, what string) {
		t.Helper()
		_, err := chromedp.Run(room, chromedp.Poll[bool](`document.documentElement.classList.contains("tm-blank") === `+strconv.FormatBool(want), chromedp.WithPollingTimeout(15*time.Second)))
		require.NoError(t, err, what)
	}
	blur(t, notes)
	key(t, notes, "b")
	roomBlank(true, "B in the notes window blanks the room")
	lineShown := `(() => { const l = document.querySelector('[data-testid=room-blank]'); return Boolean(l && l.checkVisibility()); })()`
	assert.True(t, eval[bool](t, notes, lineShown), "the notes window says the room is blank")
	key(t, notes, kb.ArrowRight)
	waitStep(t, room, 13, "the room steps, blank")
	roomBlank(true, "a step from the notes window leaves the room blank")
	assert.True(t, eval[bool](t, notes, lineShown), "and the notes window still says so")
	blur(t, room)
	key(t, room, kb.PageDown)
	roomBlank(false, "a step key in the room shows it again")
	assert.Equal(t, 13, step(t, room), "on the step it left: the key only shows the screen again")
	_, err := chromedp.Run(notes, chromedp.Poll[bool](`!`+lineShown, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the notes window no longer says the room is blank")
	key(t, room, kb.PageDown)
	waitStep(t, notes, 14, "the next press steps, and the notes window follows")
	blur(t, notes)
	key(t, notes, "b")
	roomBlank(true, "B in the notes window blanks the room at the first press")
	// P does not turn the notes window into a page that follows nothing.
	key(t, notes, "p")
	key(t, notes, kb.ArrowRight)
	waitStep(t, room, 15, "after P, the notes window still steps the room")
	assert.True(t, eval[bool](t, notes, `document.documentElement.classList.contains("tm-presenter-notes")`), "P leaves the notes window the notes window")
}

// TestBlankOnlyInPresenterMode: out of presenter mode, B does not blank
// the page (it used to, and then B with the focus on the page could not
// undo it); in presenter mode B blanks and B again shows the stage,
// wherever the focus is.
func TestBlankOnlyInPresenterMode(t *testing.T) {
	ctx, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=5")
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=btn-forward]`))))
	key(t, ctx, "b")
	assert.False(t, eval[bool](t, ctx, `document.documentElement.classList.contains("tm-blank")`), "B blanks a page that is not presenting")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/scenarios/hwm/visibility-gap?step=5&present")))
	waitReady(t, ctx)
	blur(t, ctx)
	key(t, ctx, "b")
	assert.True(t, eval[bool](t, ctx, `document.documentElement.classList.contains("tm-blank")`), "B blanks the room")
	blur(t, ctx)
	key(t, ctx, "b")
	assert.False(t, eval[bool](t, ctx, `document.documentElement.classList.contains("tm-blank")`), "B again shows it")
}

// TestUndoKeepsTheFocus: undoing the last fault from the keyboard disables
// Undo; the focus moves to another control of the faults, not to the page.
func TestUndoKeepsTheFocus(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=11")
	press(t, ctx, `[data-testid="btn-crash"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	press(t, ctx, `[data-testid="btn-undo"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="panel-compare"]`))))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid=btn-undo]').disabled`))
	assert.True(t, eval[bool](t, ctx, `document.activeElement !== document.body && document.activeElement.closest('.tm-host') !== null && !document.activeElement.disabled`),
		"the focus fell to %q", eval[string](t, ctx, `document.activeElement.outerHTML.slice(0, 80)`))
}

// TestRefusedFaultIsSaidBesideIt: a crash with no run in flight is
// refused, and the refusal is said beside the faults, on the screen with
// the button pressed, not at the top of the widget a screen above it; the
// next step clears it.
func TestRefusedFaultIsSaidBesideIt(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=1")
	press(t, ctx, `[data-testid="btn-crash"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="message-near"]`))))
	assert.Contains(t, text(t, ctx, `[data-testid="message-near"]`), "No extractor run is in flight at this step")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="message"]').hidden`), "said once, not at the top too")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="message-near"]').previousElementSibling.contains(document.querySelector('[data-testid="btn-crash"]'))`),
		"right after the faults")
	assert.Equal(t, "alert", eval[string](t, ctx, `document.querySelector('[data-testid="message-near"]').getAttribute("role")`))
	onScreen := `(() => { const r = document.querySelector('[data-testid="message-near"]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`
	// The page scrolls smoothly, unless motion is reduced.
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](onScreen, chromedp.WithPollingTimeout(5*time.Second)))
	assert.NoError(t, err, "on the screen with the button")
	key(t, ctx, kb.ArrowRight)
	waitStep(t, ctx, 2, "a step later")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-testid="message-near"]').length`), "the next step clears it")
}

// TestFoldsShowTheirMarker: the stage's folded parts ("The same step as
// tables", "Every step") show the disclosure triangle that says they open,
// on a page and in an embed, and stay a target large enough to touch.
func TestFoldsShowTheirMarker(t *testing.T) {
	ctx, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=3")
	for _, path := range []string{"/scenarios/hwm/visibility-gap?step=3", "/embed/hwm/visibility-gap?step=3"} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+path)))
		waitReady(t, ctx)
		for _, sel := range []string{".tm-text > summary", ".tm-timeline > summary"} {
			assert.Equal(t, "list-item", eval[string](t, ctx, `getComputedStyle(document.querySelector('`+sel+`')).display`), "%s %s", path, sel)
			assert.GreaterOrEqual(t, eval[float64](t, ctx, `document.querySelector('`+sel+`').getBoundingClientRect().height`), 44.0, "%s %s", path, sel)
		}
	}
}

// TestStepsPressedDuringARunAreTaken: a clicker pressed twice while the
// run a knob started is still going on moves the stage two steps once the
// run is drawn, with the knob's setting. The presses used to be dropped:
// in front of a room the first two clicks did nothing.
func TestStepsPressedDuringARunAreTaken(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=5")
	// The runs take a while, an event a task, as a long scenario's would
	// on a slow projector laptop.
	eval[bool](t, ctx, `(() => { const e = window.tidemarkEngine; const advance = e.advance; e.advance = (id, n) => { const until = performance.now() + 8; while (performance.now() < until) {} return advance(id, 1); }; return true; })()`)
	click(t, ctx, `label[for="tm-knob-mark-lsn"]`)
	require.True(t, eval[bool](t, ctx, `document.querySelector('.tm-host').getAttribute('aria-busy') === 'true'`), "the run ended before the presses; the test shows nothing")
	key(t, ctx, kb.PageDown)
	key(t, ctx, kb.PageDown)
	require.True(t, eval[bool](t, ctx, `document.querySelector('.tm-host').getAttribute('aria-busy') === 'true'`), "the run ended before the second press; the test shows nothing")
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector('.tm-host').hasAttribute('aria-busy') && Number(document.querySelector('.tm-widget').dataset.step) === 7`, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "both presses are taken after the run")
	assert.Equal(t, "lsn", eval[string](t, ctx, `new URLSearchParams(location.search).get("mark")`))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`new URLSearchParams(location.search).get("step") === "7"`, chromedp.WithPollingTimeout(5*time.Second)))
	assert.NoError(t, err, "the address names the step the presses reached")
	assert.True(t, eval[bool](t, ctx, stageMatchesADrawing), "the stage is the step's drawing")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestRoomStepDuringTheNotesWindowsRunIsKept: the presenter turns a knob in
// the notes window and, while that window re-runs, steps the room with
// the clicker. The notes window takes the room's step once its run is
// drawn, and both windows end at that step with the knob turned. It was
// dropped: the notes window, its run drawn, sent the room its old step
// with the knob, and the room went back a step in front of everyone.
func TestRoomStepDuringTheNotesWindowsRunIsKept(t *testing.T) {
	room, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=11&present")
	notes := openWindow(t, room, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 11, "the notes window opens at the room's step")
	// The notes window's runs take a while, an event a task, as a long
	// scenario's would on a slow laptop.
	eval[bool](t, notes, `(() => { const e = window.tidemarkEngine; const advance = e.advance; e.advance = (id, n) => { const until = performance.now() + 30; while (performance.now() < until) {} return advance(id, 1); }; return true; })()`)
	click(t, notes, `label[for="tm-knob-mark-lsn"]`)
	require.True(t, eval[bool](t, notes, `document.querySelector('.tm-host').getAttribute('aria-busy') === 'true'`), "the notes window's run ended before the press; the test shows nothing")
	key(t, room, kb.PageDown)
	waitStep(t, room, 12, "the clicker steps the room")
	require.True(t, eval[bool](t, notes, `document.querySelector('.tm-host').getAttribute('aria-busy') === 'true'`), "the notes window's run ended before the room's step reached it; the test shows nothing")
	settled := func(ctx context.Context) string {
		return `!document.querySelector('.tm-host').hasAttribute('aria-busy') && Number(document.querySelector('.tm-widget').dataset.step) === 12 && new URLSearchParams(location.search).get("mark") === "lsn"`
	}
	waitLoaded(t, notes, "the notes window takes the room's step after its run", settled(notes))
	waitLoaded(t, room, "the room takes the knob and keeps its step", settled(room))
	time.Sleep(time.Second)
	assert.Equal(t, 12, step(t, room), "the room stays at the step it was stepped to")
	assert.Equal(t, 12, step(t, notes))
	assert.Empty(t, pageProblems(t, room))
}

// TestFoldsKeepTheFocusAndTheNarration: opening and closing "The same step
// as tables" from the keyboard keeps the focus on its summary (the stage
// draws the fold anew, and the focus fell to the page), and neither that
// nor showing the truth says the step's narration again: a live region
// written anew is read out anew.
func TestFoldsKeepTheFocusAndTheNarration(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=10")
	eval[bool](t, ctx, `(() => {
		window.liveWrites = 0;
		new MutationObserver(() => { window.liveWrites++; }).observe(document.querySelector('.tm-live'), {childList: true, characterData: true, subtree: true});
		return true;
	})()`)
	summary := `details[data-fold="text"] > summary`
	opened := `document.querySelector('details[data-fold="text"]').open && document.querySelector('[data-testid="text-equivalent"] table') !== null`
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(summary))))
	key(t, ctx, kb.Enter)
	waitTrue(t, ctx, "the tables open", opened)
	time.Sleep(200 * time.Millisecond) // any later redraw
	assert.True(t, eval[bool](t, ctx, `document.activeElement.matches('`+summary+`')`), "the focus stays on the summary")
	key(t, ctx, " ")
	waitTrue(t, ctx, "the tables close", `!document.querySelector('details[data-fold="text"]').open`)
	time.Sleep(200 * time.Millisecond)
	assert.True(t, eval[bool](t, ctx, `document.activeElement.matches('`+summary+`')`), "the focus stays on the summary")
	assert.Zero(t, eval[int](t, ctx, `window.liveWrites`), "the narration was not written again")

	// The truth hidden: a view changed, not the run; nothing new to say
	// of the step (the checkbox says its own state).
	click(t, ctx, `[data-testid="truth-toggle"]`)
	waitTrue(t, ctx, "the truth is hidden", `document.querySelector('[data-testid="truth"]') === null`)
	assert.NotContains(t, text(t, ctx, `[data-testid=announcer]`), "Step 10 of", "the narration is not said again")
	assert.Equal(t, 10, step(t, ctx))
	// A step forward is said, once (in the live region the redraw drew).
	eval[bool](t, ctx, `(() => {
		window.liveWrites = 0;
		new MutationObserver(() => { window.liveWrites++; }).observe(document.querySelector('.tm-live'), {childList: true, characterData: true, subtree: true});
		return true;
	})()`)
	key(t, ctx, kb.ArrowRight)
	waitTrue(t, ctx, "step 11", `document.querySelector('.tm-live').textContent.startsWith('Step 11 of')`)
	assert.Equal(t, 1, eval[int](t, ctx, `window.liveWrites`))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPhoneKeepsValuesReadable: on a phone, what a learner reads stays
// readable where it scrolls sideways. The step's tables keep their summary
// and each row's first cell at the box's left edge (the values lost their
// row's name); the checkpoint strip keeps the size its times read at and
// scrolls with the job's panel (it shrank to half); a stream's watermark is whole,
// first in its heading (the heading's end cut it at 360 px).
func TestPhoneKeepsValuesReadable(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=14")
	viewport(t, ctx, 390, 844)
	click(t, ctx, `details[data-fold="text"] > summary`)
	waitTrue(t, ctx, "the tables open", `document.querySelector('[data-testid="text-equivalent"] table') !== null`)
	stays := eval[map[string]float64](t, ctx, `(() => {
		const d = document.querySelector('details[data-fold="text"]');
		d.scrollLeft = d.scrollWidth;
		const box = d.getBoundingClientRect();
		const firsts = [...d.querySelectorAll('.tm-table tr > :first-child')];
		return {
			scrolls: d.scrollLeft,
			summary: d.querySelector(':scope > summary').getBoundingClientRect().left - box.left,
			worst: Math.max(...firsts.map((c) => Math.abs(c.getBoundingClientRect().left - box.left))),
			cells: firsts.length,
		};
	})()`)
	require.Positive(t, stays["scrolls"], "the tables are wider than a phone")
	require.Positive(t, stays["cells"])
	assert.Less(t, stays["summary"], 2.0, "the summary stays at the left edge")
	assert.Less(t, stays["worst"], 2.0, "each row's first cell stays at the left edge")

	ctx, _ = startPlayground(t, "/scenarios/stream/checkpoint-two-phase?step=40")
	viewport(t, ctx, 390, 844)
	strip := eval[map[string]float64](t, ctx, `(() => {
		const s = document.querySelector('[data-testid="checkpoint-strip"]'), panel = s.closest('[data-testid="panel-job"]');
		return {width: s.getBoundingClientRect().width, scroll: panel.scrollWidth, client: panel.clientWidth, focusable: panel.tabIndex, page: document.documentElement.scrollWidth};
	})()`)
	assert.GreaterOrEqual(t, strip["width"], 640.0, "the strip at its own size")
	assert.Greater(t, strip["scroll"], strip["client"], "scrolling with the job's panel")
	assert.Zero(t, strip["focusable"], "which the keyboard can scroll")
	assert.LessOrEqual(t, strip["page"], 390.0, "not the page")

	ctx, _ = startPlayground(t, "/scenarios/stream/join-skew?step=40")
	viewport(t, ctx, 360, 740)
	cut := eval[[]string](t, ctx, `(() => {
		const box = document.querySelector('[data-testid="stream-wrap"]').getBoundingClientRect();
		const out = [];
		for (const x of document.querySelectorAll('[data-testid="stream-chart"] text.tm-lanelabel')) {
			const m = x.textContent.match(/^watermark [0-9:.]+/);
			if (!m) continue;
			const r = document.createRange();
			r.setStart(x.firstChild, 0);
			r.setEnd(x.firstChild, m[0].length);
			if (r.getBoundingClientRect().right > box.right) out.push(m[0]);
		}
		return out;
	})()`)
	assert.Empty(t, cut, "every watermark's value is whole in the box")
	assert.Equal(t, 2, eval[int](t, ctx, `[...document.querySelectorAll('[data-testid="stream-chart"] text.tm-lanelabel')].filter((x) => x.textContent.startsWith('watermark ')).length`), "join-skew's two streams' headings")
	assert.Empty(t, pageProblems(t, ctx))
}
