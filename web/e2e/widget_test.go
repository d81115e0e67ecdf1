//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// startPlayground serves the real site with the scenario pages and opens
// a browser on path, waiting until the engine has taken the widget over.
func startPlayground(t *testing.T, path string) (context.Context, string) {
	t.Helper()
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	base := startSite(t, web.Options{Scenarios: cat, Pages: pages.Routes()})
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+path)))
	if strings.HasPrefix(path, "/scenarios/") {
		waitReady(t, ctx)
	}
	return ctx, base
}

// waitReady waits until the page's first widget is driven by the engine.
func waitReady(t *testing.T, ctx context.Context) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-host[data-ready="true"] [data-testid="btn-play"]`))))
}

// openWindow opens url in another window of from's browser (a presenter's
// notes window, another tab of the scenario) and waits until its widget is
// ready, with the page probe (pageProblems) in every document it loads;
// the window closes with the test.
func openWindow(t *testing.T, from context.Context, url string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(from)
	t.Cleanup(cancel)
	require.NoError(t, installProbe(ctx))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	waitReady(t, ctx)
	return ctx
}

// step reads the widget's current step from the page.
func step(t *testing.T, ctx context.Context) int {
	return eval[int](t, ctx, `Number(document.querySelector('.tm-widget').dataset.step)`)
}

func text(t *testing.T, ctx context.Context, sel string) string {
	return eval[string](t, ctx, `(document.querySelector(`+jsString(sel)+`)||{}).textContent||""`)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestVisibilityGapMarkFlip steps until order 3 is committed below the mark
// and goes missing, then flips the mark to a log position and sees it arrive.
func TestVisibilityGapMarkFlip(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")

	// Step forward until the narration says T3 committed below the mark.
	for i := 0; i < 40 && !strings.Contains(text(t, ctx, "[data-testid=narration]"), "T3 commits at"); i++ {
		click(t, ctx, `[data-testid="btn-forward"]`)
	}
	narration := text(t, ctx, "[data-testid=narration]")
	require.Contains(t, narration, "T3 commits at")
	assert.Contains(t, narration, "no later run will read it")
	at := step(t, ctx)
	assert.Contains(t, text(t, ctx, "[data-testid=truth]"), "not in the target: 3")
	assert.Equal(t, "lost", eval[string](t, ctx, `document.querySelector('[data-testid=slot][data-key="3"]').dataset.state`), "order 3's slot holds a ghost, lost")
	// The same step as tables, drawn when opened.
	assert.Zero(t, count(t, ctx, `[data-testid=target-table]`), "the folded tables are not drawn")
	eval[bool](t, ctx, `(document.querySelector('[data-testid=text-equivalent] > summary').click(), true)`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=target-table]`))))
	assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('[data-testid=row-missing][data-key="3"]').length`), "order 3 drawn as a ghost row")
	click(t, ctx, `[data-testid="btn-forward"]`)
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid=text-equivalent]').open`), "the tables stay open as the learner steps")
	click(t, ctx, `[data-testid="btn-back"]`)

	// The end of the default run: order 3 never arrives.
	click(t, ctx, `[data-testid="btn-end"]`)
	assert.Contains(t, text(t, ctx, "[data-testid=truth]"), "3, 4")

	// Flip the mark to lsn: the scenario re-runs and keeps the step.
	click(t, ctx, `[data-testid="btn-start"]`)
	for step(t, ctx) < at {
		click(t, ctx, `[data-testid="btn-forward"]`)
	}
	click(t, ctx, `label[for="tm-knob-mark-lsn"]`)
	// The knob re-runs the scenario and draws the widget anew, with the
	// knob's checked attribute (a click sets only the property).
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="knob-mark-lsn"][checked]`))))
	assert.Equal(t, at, step(t, ctx), "a knob change keeps the step")
	click(t, ctx, `[data-testid="btn-end"]`)
	assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('[data-testid=target-table] tr[data-testid=row][data-key="3"]').length`), "order 3 arrives with an lsn mark")
	assert.Contains(t, text(t, ctx, "[data-testid=truth]"), "holds every row it should, once, in its latest version")
	assert.Contains(t, eval[string](t, ctx, `location.search`), "mark=lsn", "the address keeps the knob")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestCrashForks injects a crash in the middle of a run and compares the fork
// with the original.
func TestCrashForks(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/advance-order?crash=none&sink=append&advance=after")
	// Find the first write step: a run is in flight there.
	first := eval[int](t, ctx, `Number([...document.querySelectorAll('.tm-steps li.tm-kind-write')][0].dataset.step)`)
	// The list of every step starts folded: open it.
	assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid=timeline]').open`), "the step list starts folded")
	eval[bool](t, ctx, `(document.querySelector("[data-testid=timeline] > summary").click(), true)`)
	press(t, ctx, `.tm-steps li[data-step="`+strconv.Itoa(first)+`"] a`)
	require.Equal(t, first, step(t, ctx))
	press(t, ctx, `[data-testid="btn-crash"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	press(t, ctx, `[data-testid="btn-end"]`)
	// The comparison is of the step on screen: read it at the end.
	waitFor(t, ctx, "the last step", `(() => { const w = document.querySelector('.tm-widget'); return w.dataset.step === w.dataset.steps })()`)
	summary := text(t, ctx, "[data-testid=compare-summary]")
	assert.NotContains(t, summary, "0 keys differ", summary)
	assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('[data-testid=row-differs]').length`))
	assert.Contains(t, text(t, ctx, ".tm-steps"), "crashes at")

	// Undo brings the original back.
	click(t, ctx, `[data-testid="btn-undo"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="panel-compare"]`))))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestKeyboardOnly drives the widget with the keys a clicker or keyboard sends.
func TestKeyboardOnly(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid="btn-play"]`))))
	send := func(keys string) {
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(keys)))
	}
	send(kb.ArrowRight)
	send(kb.ArrowRight)
	send(kb.ArrowRight)
	assert.Equal(t, 3, step(t, ctx))
	assert.Contains(t, text(t, ctx, "[data-testid=narration]"), "Step 3 of")
	send(kb.ArrowLeft)
	assert.Equal(t, 2, step(t, ctx))
	send(kb.End)
	steps := eval[int](t, ctx, `Number(document.querySelector('.tm-widget').dataset.steps)`)
	assert.Equal(t, steps, step(t, ctx))
	send(kb.Home)
	assert.Equal(t, 0, step(t, ctx))
	// Space on the play button plays (the button's own activation).
	send(" ")
	deadline := time.Now().Add(15 * time.Second)
	for step(t, ctx) < 2 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	assert.GreaterOrEqual(t, step(t, ctx), 2, "playing advances the step")
	assert.Equal(t, "true", eval[string](t, ctx, `document.querySelector('[data-testid=btn-play]').getAttribute('aria-pressed')`))
	assert.Equal(t, "off", eval[string](t, ctx, `document.querySelector('.tm-live').getAttribute('aria-live')`), "quiet while playing")
	send(" ")
	assert.Equal(t, "false", eval[string](t, ctx, `document.querySelector('[data-testid=btn-play]').getAttribute('aria-pressed')`))
	assert.Equal(t, "polite", eval[string](t, ctx, `document.querySelector('.tm-live').getAttribute('aria-live')`))
	assert.True(t, strings.HasPrefix(eval[string](t, ctx, `document.querySelector('[data-testid=announcer]').textContent`), "Paused. Step "), "the pause says where it stopped")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestSpacePressesStepLinks presses space on the step controls, which are
// links (they work without scripts) drawn as buttons: space steps, as it
// presses a button, and the page does not scroll under it. An ordinary
// link in the widget, a key's explanation, keeps the browser's space.
func TestSpacePressesStepLinks(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap")
	steps := eval[int](t, ctx, `Number(document.querySelector('.tm-widget').dataset.steps)`)
	eval[string](t, ctx, `document.documentElement.style.scrollBehavior = "auto"`)
	// press focuses sel, as Tab would, presses space, and says whether the
	// page scrolled.
	press := func(sel string) bool {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(sel))))
		before := eval[float64](t, ctx, `window.scrollY`)
		pressSpace(t, ctx)
		time.Sleep(200 * time.Millisecond) // a scroll, if any, has begun
		return eval[float64](t, ctx, `window.scrollY`) != before
	}
	for _, c := range []struct {
		act  string
		want int
	}{{"forward", 1}, {"forward", 2}, {"back", 1}, {"end", steps}, {"start", 0}} {
		scrolled := press(`[data-testid="btn-` + c.act + `"]`)
		waitTrue(t, ctx, "space on "+c.act+" steps to "+itoa(c.want), `document.querySelector('.tm-widget').dataset.step === "`+itoa(c.want)+`"`)
		assert.False(t, scrolled, "space on %s scrolled the page", c.act)
		assert.Equal(t, "btn-"+c.act, eval[string](t, ctx, `document.activeElement.dataset.testid || ""`), "the focus left %s", c.act)
	}

	// An explanation is a link, not drawn as a button: space is the
	// browser's, and scrolls the page (here from its top).
	press(`[data-testid="btn-end"]`)
	waitTrue(t, ctx, "at the end", `document.querySelector('.tm-widget').dataset.step === "`+itoa(steps)+`"`)
	link := `.tm-host a[data-act="explain"][href]`
	require.True(t, eval[bool](t, ctx, `!!document.querySelector('`+link+`')`), "no explanation link at the end")
	eval[bool](t, ctx, `(document.querySelector('`+link+`').focus({preventScroll: true}), window.scrollTo({top: 0, behavior: "instant"}), true)`)
	pressSpace(t, ctx)
	waitTrue(t, ctx, "space on an explanation link scrolls the page", `window.scrollY > 0`)
	assert.Equal(t, steps, step(t, ctx), "space on an explanation link stepped")
	assert.Empty(t, pageProblems(t, ctx))
}

// pressSpace presses the space bar as a keyboard does: its key-down event
// carries the character, so a key-down the page cancels types nothing and
// does not scroll. chromedp.KeyEvent sends the character as an event of its
// own, which the browser takes whatever the page did with the key-down.
func pressSpace(t *testing.T, ctx context.Context) {
	t.Helper()
	key := input.DispatchKeyEventParams{Key: " ", Code: "Space", WindowsVirtualKeyCode: 32, NativeVirtualKeyCode: 32}
	down, up := key, key
	down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, " ", " "
	up.Type = input.DispatchKeyEventTypeKeyUp
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, k := range []input.DispatchKeyEventParams{down, up} {
			if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, k); err != nil {
				return err
			}
		}
		return nil
	})))
}

// errorRegionRendered is true when the sandbox's error region is in the
// page's layout, and so in its accessibility tree: a live region must be
// there before its words change for a screen reader to read them.
const errorRegionRendered = `(() => { const e = document.getElementById('play-error'); return !e.hidden && getComputedStyle(e).display !== 'none' })()`

// TestSandboxShowsErrorAtLine types a broken scenario into /play and sees the
// error at its line, then fixes it and sees the widget.
func TestSandboxShowsErrorAtLine(t *testing.T) {
	ctx, _ := startPlayground(t, "/play")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-src`))))
	broken := "scenario sandbox/x \"Broken\"\nsource orders key=order_id\ntxn T1 begin=10:00:05 commit=10:00:01 insert order_id=1\n"
	setSource := func(src string) {
		eval[bool](t, ctx, `(() => { const s = document.getElementById('play-src'); s.value = `+jsString(src)+`; s.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)
	}
	// Wait for the engine before typing.
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.tidemark.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	// The error's live region is on the page, empty, before any error: a
	// region shown at the moment its words arrive is often not read out.
	assert.Equal(t, "status", eval[string](t, ctx, `document.getElementById('play-error').getAttribute('role')`))
	assert.True(t, eval[bool](t, ctx, errorRegionRendered), "the error's live region is hidden before the first error")
	setSource(broken)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-error[data-line="3"]`))))
	msg := text(t, ctx, "#play-error")
	assert.Contains(t, msg, "play.tdm:3:")
	assert.Contains(t, msg, "before it begins")
	assert.Equal(t, "true", eval[string](t, ctx, `document.getElementById('play-src').getAttribute('aria-invalid')`))
	// The margin marks the line, and only it.
	assert.Equal(t, []string{"1  ", "2  ", "3 !", "4  "}, eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="play-gutter"] div')].map((d) => d.textContent)`))
	// The error is at column 30, the time after commit=.
	const caret = `document.querySelector('#play-error pre.play-caret').textContent`
	assert.Equal(t, "3 | txn T1 begin=10:00:05 commit=10:00:01 insert order_id=1\n"+strings.Repeat(" ", 4+29)+"^", eval[string](t, ctx, caret))

	// A line written with tabs keeps them before the caret, so it stands
	// under its character however wide the page draws a tab.
	setSource(strings.Replace(broken, "txn T1 begin=10:00:05 commit", "txn\tT1\tbegin=10:00:05\tcommit", 1))
	waitFor(t, ctx, "the tabbed line's caret", `(document.querySelector('#play-error pre.play-caret')?.textContent || '').includes('\t')`)
	assert.Equal(t, "3 | txn\tT1\tbegin=10:00:05\tcommit=10:00:01 insert order_id=1\n    "+
		"   \t  \t"+strings.Repeat(" ", 14)+"\t"+strings.Repeat(" ", 7)+"^", eval[string](t, ctx, caret))

	fixed := strings.Replace(broken, "commit=10:00:01", "commit=10:00:06", 1) + "target fct key=order_id\npipeline extract from=orders to=fct\nrun extract at=10:00:07\n"
	setSource(fixed)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-output [data-testid="widget"][data-scenario="sandbox/x"]`))))
	assert.Empty(t, text(t, ctx, "#play-error"), "the fixed error is still said")
	assert.True(t, eval[bool](t, ctx, errorRegionRendered), "the error's live region went away with the error")
	assert.Equal(t, 0, eval[int](t, ctx, `document.getElementById('play-error').getBoundingClientRect().height`), "an empty error region takes room")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestSandboxStopsAtTheBrowserBudget types scenarios past the browser's
// work budget into /play: one whose line is past it gets the error at that
// line as the visitor types; one whose runs pass it while running (rows
// read again through an hour's overlap) stops and says so in place of a
// widget, and the page stays usable.
func TestSandboxStopsAtTheBrowserBudget(t *testing.T) {
	ctx, _ := startPlayground(t, "/play")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-src`))))
	setSource := func(src string) {
		eval[bool](t, ctx, `(() => { const s = document.getElementById('play-src'); s.value = `+jsString(src)+`; s.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)
	}
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.tidemark.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	head := "scenario sandbox/big \"Big\"\nsource orders key=order_id\ntarget fct key=order_id sink=append\npipeline extract from=orders to=fct mark=timestamp overlap=1h\n"

	setSource(head + "workload txns=10000000 from=10:00:00 every=1ms\n")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-error[data-line="5"]`))))
	assert.Contains(t, text(t, ctx, "#play-error"), "play.tdm:5:1: this scenario would schedule more than 2000000 events, rows, keys, partitions and runs; the limit here is 2000000")

	setSource(head + "txn T1 begin=10:00:00 commit=10:00:00 insert count=4000\nruns extract from=10:00:01 until=10:05:00 every=1s\n")
	stopped := `#play-output [data-testid="widget-stopped"]`
	tctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(tctx, chromedp.WaitVisible(chromedp.CSS(stopped))))
	msg := text(t, ctx, stopped)
	assert.Contains(t, msg, "play.tdm: running stopped at")
	assert.Contains(t, msg, "the limit here is 2000000")
	assert.Empty(t, text(t, ctx, "#play-error"))

	// The page goes on: a small scenario plays.
	setSource(head + "txn T1 begin=10:00:00 commit=10:00:00 insert count=3\nrun extract at=10:00:01\n")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-output [data-testid="widget"][data-scenario="sandbox/big"]`))))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestLargeTraceFillsChecksAndCollectsWhenIdle types a scenario large enough
// that the widget draws a step before its checks run. After a step the checks
// panel alone is filled in (it stops being busy and shows verdicts), and once
// the page is idle the widget hands the engine its idle moment.
func TestLargeTraceFillsChecksAndCollectsWhenIdle(t *testing.T) {
	ctx, _ := startPlayground(t, "/play")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-src`))))
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.tidemark.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	// Count the idle calls the widget makes.
	eval[bool](t, ctx, `(() => {
		const e = window.tidemarkEngine, idle = e.idle;
		window.__idle = 0;
		e.idle = (...a) => { window.__idle++; return idle(...a); };
		return true;
	})()`)
	src := "scenario sandbox/large \"Large enough to check after drawing\"\n" +
		"source orders key=order_id updated_at=txn-start\n" +
		"target fct key=order_id sink=merge\n" +
		"pipeline extract from=orders to=fct mark=timestamp advance=after\n" +
		"workload orders txns=400 from=10:00:00 every=200ms duration=0s..3s\n" +
		"runs extract every=5s from=10:00:00 until=10:01:30\n" +
		"check uniqueness\n"
	eval[bool](t, ctx, `(() => { const s = document.getElementById('play-src'); s.value = `+jsString(src)+`; s.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)
	out := `#play-output [data-testid="widget"][data-scenario="sandbox/large"]`
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(out))))

	click(t, ctx, `#play-output [data-testid="btn-forward"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#play-output [data-testid="checks-state"][aria-busy="false"] ~ [data-testid="checks"] [data-check="uniqueness"]`))))
	assert.Equal(t, 1, count(t, ctx, `#play-output [data-testid="panel-checks"]`), "one checks panel, swapped in place")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.__idle > 0`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the widget never gave the engine an idle moment")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestKnobChosenDuringARunIsTaken: a knob chosen while the run for another
// goes on is taken once that run is drawn. It was dropped: the widget drew
// the first run, and the knob jumped back to that run's value.
func TestKnobChosenDuringARunIsTaken(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=3")
	// Both in one task: the second arrives while the first one's run is on.
	eval[bool](t, ctx, `(() => { for (const v of ["lsn", "timestamp"]) { const r = document.getElementById("tm-knob-mark-" + v); r.checked = true; r.dispatchEvent(new Event("change", { bubbles: true })); } return true; })()`)
	waitFor(t, ctx, "the lsn run, then the timestamp one", `document.querySelector('[data-testid="btn-undo"]') !== null && !document.querySelector('[data-testid="btn-undo"]').disabled && document.getElementById("tm-knob-mark-timestamp").checked && !location.search.includes("mark=lsn")`)
	time.Sleep(500 * time.Millisecond) // nothing more comes
	assert.True(t, eval[bool](t, ctx, `document.getElementById("tm-knob-mark-timestamp").checked`), "the knob went back to lsn")
	assert.NotContains(t, eval[string](t, ctx, `location.search`), "mark=lsn")
}
