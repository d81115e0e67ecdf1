//go:build !js

package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
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

// presenterScreens are the windows presenter mode is tried in: a
// projector's 1024×768, as it is (where a stream's chart scrolled in its
// box) and zoomed to 150% (683×512 CSS pixels), and short,
// wide windows: a 1024×600 netbook or projector, and a 1280×720 projector
// under a browser's bars, at two widths.
var presenterScreens = []struct {
	name          string
	width, height int64
	scale         float64
}{
	{"1024x768@150%", 683, 512, 1.5},
	{"1024x768", 1024, 768, 1},
	{"1024x600", 1024, 600, 1},
	{"1152x600", 1152, 600, 1},
	{"1280x600", 1280, 600, 1},
	{"1280x720", 1280, 720, 1},
}

// TestPresenterFitsTheScreen opens each world's scenario in presenter mode in
// each of presenterScreens: the narration and every part of the stage are
// on the screen, none scrolled away, and the page does not scroll
// sideways; stepping keeps it so. What the stylesheet cannot fit, the
// widget zooms out, never so far that the room cannot read. On a short,
// wide screen the operators and the targets of a stream were squeezed to
// no width beside its chart, and the whole stage zoomed out to a third.
func TestPresenterFitsTheScreen(t *testing.T) {
	for _, path := range []string{
		"/scenarios/hwm/visibility-gap?step=16&mark=lsn&present",
		"/scenarios/dist/partition-change?step=21&present",
		"/scenarios/stream/late-data?step=120&present",
		"/scenarios/stream/checkpoint-append?step=162&present",
		// A source above a log: in one row the source's chart left the
		// log, the consumers and the target no width, and the stage
		// zoomed out to a third.
		"/scenarios/dist/dual-write?step=11&present",
		// Sixty transactions: forty rows of the source's chart did not fit
		// at any zoom a room reads.
		"/scenarios/hwm/load?step=148&present",
		// A lookup table beside a job: the job's grid had no place for it.
		"/scenarios/stream/nondeterministic-replay?step=20&present",
	} {
		for _, sc := range presenterScreens {
			t.Run(path+"/"+sc.name, func(t *testing.T) {
				ctx, _ := startPlayground(t, path)
				require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(sc.width, sc.height, chromedp.EmulateScale(sc.scale))))
				require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
				// The window changed size: the page fits the stage again.
				_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(`+outsideViewport+`).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
				assert.Empty(t, eval[[]string](t, ctx, outsideViewport))
				assert.LessOrEqual(t, eval[int64](t, ctx, `document.documentElement.scrollWidth`), sc.width)
				// Zoomed out or not, the room can read it: the smallest text (a
				// picture's annotations) at 7.5 CSS pixels or more, 11 of the
				// projector's at 150%; the rows and the narration are much larger.
				seen := eval[float64](t, ctx, `(parseFloat(document.querySelector('.tm-flow').style.zoom) || 1) * `+smallestStageText)
				t.Logf("zoom %q, smallest text %.1f px", eval[string](t, ctx, `document.querySelector('.tm-flow').style.zoom`), seen)
				assert.GreaterOrEqual(t, seen, 7.5, "the stage's smallest text, as drawn")
				// Every station shown has room for its content: none is
				// squeezed narrower than a target's title.
				narrow := eval[[]string](t, ctx, `[...document.querySelectorAll('.tm-flow > .tm-col')].filter((c) => c.checkVisibility() && c.getBoundingClientRect().width < 150).map((c) => c.className + " " + Math.round(c.getBoundingClientRect().width))`)
				assert.Empty(t, narrow, "stations too narrow to read")
				// The controls keep one line (the knobs' button beside Exit
				// pushed Exit to a second at "Step 148 of 222").
				lines := eval[[]string](t, ctx, `(() => { const cs = [...document.querySelectorAll('.tm-controls > *')].filter((e) => e.checkVisibility()); const first = cs[0].getBoundingClientRect(); return cs.filter((e) => e.getBoundingClientRect().top >= first.bottom).map((e) => e.className); })()`)
				assert.Empty(t, lines, "controls on a second line")
				// The widget fits the stage again on a frame after the step.
				forwardTo(t, ctx, step(t, ctx)+1)
				_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(`+outsideViewport+`).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
				assert.Empty(t, eval[[]string](t, ctx, outsideViewport), "a step later")
			})
		}
	}
}

// fitsWhole says whether presenter mode's page fits the window whole: it
// scrolls neither down nor sideways, nothing of the narration or the
// stage is outside the window, and the truth's line is on the screen.
const fitsWhole = `(() => {
	const d = document.documentElement, t = document.querySelector('.tm-aside > .tm-truth').getBoundingClientRect();
	return d.scrollHeight <= d.clientHeight && d.scrollWidth <= d.clientWidth && t.height > 0 && t.bottom <= d.clientHeight && (` + outsideViewport + `).length === 0;
})()`

// checksOnScreen says whether every check's verdict is on the screen.
const checksOnScreen = `(() => { const cs = [...document.querySelectorAll('.tm-checks > .tm-check')]; return cs.length > 0 && cs.every((c) => { const r = c.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= document.documentElement.clientHeight + 0.5; }); })()`

// TestPresenterFitsAStreamWhole: a stream's stage in presenter mode on a
// projector's 1024×768 fits the screen whole, the truth's line and the
// checks' verdicts with it, and three steps later too; zoomed to 150% the
// stage and the truth's line do, and the checks are a C away. An
// operator's list of late records, a chart as wide as the screen and two
// targets one over the other made the page 826 to 927 pixels high (693 of
// 512 at 150%), the truth's line and the checks cut off where a clicker
// cannot scroll. Nothing is zoomed out below what the room reads.
func TestPresenterFitsAStreamWhole(t *testing.T) {
	for _, c := range []struct {
		path          string
		width, height int64
		scale         float64
	}{
		{"/scenarios/stream/late-data?step=120&late=side-output&present", 1024, 768, 1},
		{"/scenarios/stream/state-ttl?step=516&present", 1024, 768, 1},
		{"/scenarios/stream/late-data?step=123&late=side-output&present", 683, 512, 1.5},
		{"/scenarios/stream/state-ttl?step=516&present", 683, 512, 1.5},
	} {
		t.Run(c.path+"/"+strconv.FormatInt(c.width, 10), func(t *testing.T) {
			ctx, _ := startPlayground(t, c.path)
			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(c.width, c.height, chromedp.EmulateScale(c.scale))))
			require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
			for i := 0; i < 4; i++ {
				if i > 0 {
					key(t, ctx, kb.PageDown)
				}
				n := step(t, ctx)
				// The widget fits the stage on a frame after the step.
				_, _ = chromedp.Run(ctx, chromedp.Poll[bool](fitsWhole, chromedp.WithPollingTimeout(3*time.Second)))
				assert.True(t, eval[bool](t, ctx, fitsWhole), "step %d: the page is %d px high, the truth's line at %v, outside: %v", n,
					eval[int64](t, ctx, `document.documentElement.scrollHeight`), eval[float64](t, ctx, `document.querySelector('.tm-aside > .tm-truth').getBoundingClientRect().bottom`), eval[[]string](t, ctx, outsideViewport))
				seen := eval[float64](t, ctx, `(parseFloat(document.querySelector('.tm-flow').style.zoom) || 1) * `+smallestStageText)
				assert.GreaterOrEqual(t, seen, 7.5, "step %d: the stage's smallest text, as drawn", n)
				if c.width == 1024 {
					assert.True(t, eval[bool](t, ctx, checksOnScreen), "step %d: the checks' verdicts are on the screen", n)
					assert.GreaterOrEqual(t, eval[float64](t, ctx, `Math.min(...[...document.querySelectorAll('[data-testid="stream-chart"] text')].map((el) => el.getBoundingClientRect().height).filter((h) => h > 0))`), 12.0,
						"step %d: the chart's text as drawn is large enough for a room", n)
				}
			}
			if c.width < 1024 {
				blur(t, ctx)
				key(t, ctx, "c")
				waitTrue(t, ctx, "C floats the checks over the foot of the screen", `document.querySelector('.tm-panel-checks').matches(':popover-open') && `+checksOnScreen)
			}
		})
	}
}

// TestPresenterFitsTheJob: the stream job's panel, J's in presenter mode,
// fits a projector's 1024×768 with the truth's line and the checks, and
// nothing in it scrolls in a box of its own: it had a scroll bar inside a
// page that scrolled too, and a clicker can scroll neither.
func TestPresenterFitsTheJob(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/stream/checkpoint-append?step=150&sink=merge&present")
	viewport(t, ctx, 1024, 768)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	blur(t, ctx)
	key(t, ctx, "j")
	waitTrue(t, ctx, "J shows the job's panel", `document.querySelector('[data-testid=panel-job]').checkVisibility()`)
	scrolls := `[...document.querySelectorAll('.tm-panel-job, .tm-panel-job *:not(.tm-visually-hidden, .tm-visually-hidden *)')].filter((el) => {
		const s = getComputedStyle(el);
		return (el.scrollHeight > el.clientHeight + 1 && s.overflowY !== "visible") || (el.scrollWidth > el.clientWidth + 1 && s.overflowX !== "visible");
	}).map((el) => el.tagName + "." + el.getAttribute("class"))`
	for _, n := range []int{150, 151} {
		if n > step(t, ctx) {
			key(t, ctx, kb.PageDown)
			waitStep(t, ctx, n, "a step later")
		}
		_, _ = chromedp.Run(ctx, chromedp.Poll[bool](fitsWhole+` && `+checksOnScreen, chromedp.WithPollingTimeout(3*time.Second)))
		assert.True(t, eval[bool](t, ctx, fitsWhole), "step %d: the page is %d px high", n, eval[int64](t, ctx, `document.documentElement.scrollHeight`))
		assert.True(t, eval[bool](t, ctx, checksOnScreen), "step %d: the checks' verdicts are on the screen", n)
		assert.Empty(t, eval[[]string](t, ctx, scrolls), "step %d: boxes that scroll in the job's panel", n)
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid=panel-job]').checkVisibility()`), "step %d: the job's panel is shown", n)
		assert.GreaterOrEqual(t, eval[float64](t, ctx, `document.querySelector('[data-testid=panel-job]').currentCSSZoom`), 0.75, "step %d: at a zoom the room reads", n)
	}
}

// TestPresenterShowsTheTruthsLine: on a projector's 1024×768 the truth's
// line under the stations was cut off at the bottom, where a clicker
// cannot scroll; the widget now fits the stations and that line together
// (zooming the stations out a little), unless that would take them below
// a zoom the room can read.
func TestPresenterShowsTheTruthsLine(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=15&present")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1024, 768)))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	onScreen := `(() => { const r = document.querySelector('.tm-aside > .tm-truth').getBoundingClientRect(); return r.height > 0 && r.bottom <= document.documentElement.clientHeight + 0.5; })()`
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](onScreen, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the truth's line is on the screen")
	assert.Empty(t, eval[[]string](t, ctx, outsideViewport))
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `parseFloat(document.querySelector('.tm-flow').style.zoom) || 1`), 0.75, "at a zoom the room reads")
	key(t, ctx, kb.PageDown)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](onScreen, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "a step later")
}

// TestPresenterShowsTheChecks: on a 1280×720 projector the checks'
// verdicts sat under the truth's line in a column two fifths of the width,
// below the screen, where a clicker cannot scroll. Now they are one run of
// text after a short heading, each a verdict and a name (what each saw is
// still said to a screen reader), and the stage makes room for them when
// that costs it 15% of its size at most and keeps it at a zoom the
// room reads, steps before and after too; where it would take the stage
// below that zoom, the narration keeps its large type and the checks stay
// under the stage.
func TestPresenterShowsTheChecks(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/schema-change?step=34&present")
	// Opened at the screen's size: the checks, below the screen, were
	// not laid out (content-visibility), and the first fit measured them
	// wrong until a step or a resize.
	viewport(t, ctx, 1280, 720)
	_, err := chromedp.Run(ctx, chromedp.Reload())
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-host[data-ready="true"] .tm-widget[data-present="on"]`))))
	onScreen := `(() => { const cs = [...document.querySelectorAll('.tm-checks > .tm-check')]; return cs.length === 3 && cs.every((c) => { const r = c.getBoundingClientRect(); return r.height > 0 && r.bottom <= document.documentElement.clientHeight + 0.5; }); })()`
	for _, n := range []int{34, 33, 34, 35} {
		switch {
		case n < step(t, ctx):
			key(t, ctx, kb.PageUp)
		case n > step(t, ctx):
			forwardTo(t, ctx, n)
		}
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.tm-widget').dataset.step === "`+strconv.Itoa(n)+`" && `+onScreen, chromedp.WithPollingTimeout(5*time.Second)))
		require.NoError(t, err, "step %d: every check's verdict is on the screen", n)
		assert.Empty(t, eval[[]string](t, ctx, outsideViewport), "step %d", n)
		assert.GreaterOrEqual(t, eval[float64](t, ctx, `parseFloat(document.querySelector('.tm-flow').style.zoom) || 1`), 0.75, "step %d: at a zoom the room reads", n)
	}
	assert.Equal(t, int64(1), eval[int64](t, ctx, `new Set([...document.querySelectorAll('.tm-checks > .tm-check')].map((c) => Math.round(c.getBoundingClientRect().top))).size`), "the three in one row")
	assert.Contains(t, eval[string](t, ctx, `[...document.querySelectorAll('.tm-check .tm-detail')].map((d) => d.getBoundingClientRect().width + " " + d.textContent).join("; ")`), "1 : every group is within 2", "what the check saw is still in the page for a screen reader, though not drawn")

	// Sixty transactions: fitting the checks would take the stage below a
	// zoom the room reads, which shortened the narration's type for
	// nothing; the narration keeps its large type.
	ctx, _ = startPlayground(t, "/scenarios/hwm/load?step=148&present")
	viewport(t, ctx, 1280, 720)
	forwardTo(t, ctx, 149)
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(`+outsideViewport+`).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
	assert.False(t, eval[bool](t, ctx, `document.querySelector('.tm-live').classList.contains('tm-live-long')`), "the narration keeps the room's type")
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `parseFloat(document.querySelector('.tm-flow').style.zoom) || 1`), 0.75)
}

// TestPresenterShowsTheChecksOnAKey: on a dense stage the checks stay
// under it, where a clicker cannot scroll; C floats them over the foot of
// the screen, each with what it saw, headed by the truth's line they
// cover, keeps them there a step later (the step draws the panel anew), and C or Escape takes them away; the knobs take their
// place, and the notes window's C follows what the room shows.
func TestPresenterShowsTheChecksOnAKey(t *testing.T) {
	ctx, base := startPlayground(t, "/scenarios/hwm/load?step=148&present")
	viewport(t, ctx, 1280, 720)
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(`+outsideViewport+`).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
	const open = `document.querySelector('.tm-panel-checks').matches(':popover-open')`
	const onScreen = `(() => { const cs = [...document.querySelectorAll('.tm-checks > .tm-check')]; return cs.length > 0 && cs.every((c) => { const r = c.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= document.documentElement.clientHeight + 0.5; }); })()`
	require.False(t, eval[bool](t, ctx, onScreen), "the checks start under the stage")
	blur(t, ctx)
	key(t, ctx, "c")
	waitTrue(t, ctx, "the checks float over the foot of the screen", open+` && `+onScreen)
	assert.Positive(t, eval[float64](t, ctx, `document.querySelector('.tm-check .tm-detail').getBoundingClientRect().width`), "each with what it saw")
	// They cover the truth's line, which the room compares them with: it
	// heads them, and follows the step.
	truthCopy := `(() => { const c = document.querySelector('.tm-panel-checks .tm-truth-copy'); return c && c.checkVisibility() && c.textContent === document.querySelector('.tm-aside > .tm-truth').textContent && c.textContent.startsWith('Truth:'); })()`
	assert.True(t, eval[bool](t, ctx, truthCopy), "the truth's line heads the checks")
	// One thing floats at a time: the knobs close the checks.
	press(t, ctx, `[data-act="faults"]`)
	waitTrue(t, ctx, "the knobs close the checks", `!`+open+` && document.querySelector('.tm-settings').matches(':popover-open')`)
	key(t, ctx, kb.Escape)
	blur(t, ctx)
	key(t, ctx, "c")
	waitTrue(t, ctx, "the checks again", open)
	forwardTo(t, ctx, 149)
	waitTrue(t, ctx, "still there a step later", open+` && `+onScreen+` && `+truthCopy)
	key(t, ctx, "c")
	waitTrue(t, ctx, "C takes them away", `!`+open)
	key(t, ctx, "c")
	waitTrue(t, ctx, "C brings them back", open)
	key(t, ctx, kb.Escape)
	waitTrue(t, ctx, "Escape takes them away", `!`+open)
	assert.Empty(t, eval[[]string](t, ctx, outsideViewport))

	// C in the presenter's notes window shows the room the checks, and
	// asks for the other state once the room has changed it itself.
	notes := openWindow(t, ctx, base+"/scenarios/hwm/load?present=notes")
	blur(t, notes)
	key(t, notes, "c")
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](open, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the room shows the checks")
	key(t, ctx, kb.Escape)
	waitTrue(t, ctx, "Escape in the room takes them away", `!`+open)
	time.Sleep(200 * time.Millisecond) // the room's word reaches the notes window
	key(t, notes, "c")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](open, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "one C in the notes window brings them back")
}

// TestPresenterChecksGiveTheFocusBack: Tab reaches the floating checks;
// Escape there puts them back under the stage, gives the focus back to
// the control C was pressed on (it fell to the page) and says so, as C
// does.
func TestPresenterChecksGiveTheFocusBack(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=24&present=on")
	viewport(t, ctx, 1280, 720)
	const open = `document.querySelector('.tm-panel-checks').matches(':popover-open')`
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid="btn-forward"]`))))
	key(t, ctx, "c")
	waitTrue(t, ctx, "C floats the checks", open)
	inChecks := `document.querySelector('.tm-aside > .tm-panel-checks').contains(document.activeElement)`
	for range 60 {
		if eval[bool](t, ctx, inChecks) {
			break
		}
		key(t, ctx, kb.Tab)
	}
	require.True(t, eval[bool](t, ctx, inChecks), "Tab reaches the floating checks")
	key(t, ctx, kb.Escape)
	waitTrue(t, ctx, "Escape takes them away", `!`+open)
	assert.Equal(t, "btn-forward", eval[string](t, ctx, `document.activeElement.dataset.testid || document.activeElement.tagName`), "the focus goes back to where C was pressed")
	assert.Equal(t, "The checks are under the stage again.", text(t, ctx, `[data-testid=announcer]`))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPresenterExplainsOnTheScreen: a key's story asked for in presenter
// mode on a projector's 1024×768 is on the screen, over the foot of the
// stage, and stays there a step later; Close takes it away. It used to
// open under the stage, below the screen, where a clicker cannot scroll.
func TestPresenterExplainsOnTheScreen(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=16&present")
	viewport(t, ctx, 1024, 768)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	jsClick(t, ctx, `.tm-flow a[data-act="explain"][data-key="3"]`)
	onScreen := `(() => { const x = document.querySelector('[data-testid="explain"]'); if (!x) return false; const r = x.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= document.documentElement.clientHeight && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.closest('[data-testid="explain"]') === x; })()`
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](onScreen, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the story is on the screen, on top")
	assert.Contains(t, text(t, ctx, `[data-testid="explain"]`), "Why key 3?")
	key(t, ctx, kb.PageDown)
	waitStep(t, ctx, 17, "a step later")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](onScreen, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "a step later, still on the screen")
	// One thing floats at a time: the checks (C) close the story, and a
	// story asked for closes the checks.
	blur(t, ctx)
	key(t, ctx, "c")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector('[data-testid="explain"]') && document.querySelector('.tm-panel-checks').matches(':popover-open')`, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the checks take the story's place")
	jsClick(t, ctx, `.tm-flow a[data-act="explain"][data-key="3"]`)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](onScreen+` && !document.querySelector('.tm-panel-checks').matches(':popover-open')`, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "a story asked for takes the checks' place")
	jsClick(t, ctx, `[data-testid="explain"] a[data-act="explain"]`)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector('[data-testid="explain"]')`, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "Close takes it away")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestExplanationComesIntoView: out of presenter mode, a key's story opens
// under the truth's line, which on a laptop's screen is below the screen
// from the target's chip clicked; the page brings it into view.
func TestExplanationComesIntoView(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/producer-retry?step=8")
	viewport(t, ctx, 1366, 768)
	eval[bool](t, ctx, `(document.querySelector('[data-testid="panel-target"]').scrollIntoView({block: "end", behavior: "instant"}), true)`)
	require.False(t, eval[bool](t, ctx, `(() => { const r = document.querySelector('.tm-aside > .tm-truth').getBoundingClientRect(); return r.bottom <= innerHeight; })()`), "the truth's line, above the story, is below the screen")
	jsClick(t, ctx, `[data-testid="panel-target"] a[data-act="explain"][data-key="2"]`)
	onScreen := `(() => { const x = document.querySelector('[data-testid="explain"]'); if (!x) return false; const r = x.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight + 1; })()`
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](onScreen, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the story is brought into view")
	assert.Contains(t, text(t, ctx, `[data-testid="explain"]`), "a producer's retry", "and says the log held the event twice, not that a run read it again")
}

// TestNotesWindowKeepsTheKnobsInReach: in the notes window on a laptop's
// screen, the notes, the knobs and the faults (which drive the room's) are
// all on the screen as it opens, and the knobs and faults stay there as
// the presenter scrolls down the stage. They were under the stage, two to
// three screens down, below the scenario's title and summary.
func TestNotesWindowKeepsTheKnobsInReach(t *testing.T) {
	onScreen := `((sel) => { const el = document.querySelector(sel); if (!el) return sel + " missing"; const r = el.getBoundingClientRect();
		return r.height > 0 && r.top >= 0 && r.bottom <= document.documentElement.clientHeight ? "" : sel + " at " + Math.round(r.top) + ".." + Math.round(r.bottom); })`
	for _, path := range []string{
		"/scenarios/hwm/visibility-gap?step=14&present=notes",
		"/scenarios/stream/checkpoint-append?step=100&present=notes",
	} {
		t.Run(path, func(t *testing.T) {
			ctx, _ := startPlayground(t, path)
			viewport(t, ctx, 1280, 800)
			require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="notes"]`))))
			for _, sel := range []string{"[data-testid=notes] h3", ".tm-knob input[type=radio]", "[data-testid=faults] button"} {
				assert.Empty(t, eval[string](t, ctx, onScreen+`(`+jsString(sel)+`)`))
			}
			eval[bool](t, ctx, `(window.scrollTo({top: document.documentElement.scrollHeight, behavior: "instant"}), true)`)
			assert.Greater(t, eval[float64](t, ctx, `window.scrollY`), 500.0, "the page scrolled")
			assert.Empty(t, eval[string](t, ctx, onScreen+`(".tm-knob input[type=radio]")`), "scrolled down the stage")
			assert.Empty(t, eval[[]string](t, ctx, `[...document.querySelectorAll('.tm-settings')].filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.className)`), "nothing in the column scrolls sideways")
			// The stage is laid out for its column beside the knobs, not for
			// the window: laid out for the window, it put the stations in one
			// row and squeezed the extractor to a word a line.
			narrow := eval[[]string](t, ctx, `[...document.querySelectorAll('.tm-flow > .tm-col')].filter((c) => c.checkVisibility() && c.getBoundingClientRect().width < 200).map((c) => c.className + " " + Math.round(c.getBoundingClientRect().width))`)
			assert.Empty(t, narrow, "stations too narrow to read")
		})
	}
}

// TestPresenterGrowsOnALargeScreen: on a 1920×1080 projector presenter
// mode is drawn as large as on 1280×720, as the browser's zoom would draw
// it, rather than in the top half of the screen at two thirds of the
// size; everything still fits, a step later too. Where a long narration,
// grown, would leave the stage smaller than it was, the widget keeps its
// size.
func TestPresenterGrowsOnALargeScreen(t *testing.T) {
	const drawnSize = `((el) => parseFloat(getComputedStyle(el).fontSize) * el.currentCSSZoom)(document.querySelector('.tm-live'))`
	const stageZoom = `document.querySelector('.tm-flow').currentCSSZoom`
	onScreen := `(() => { const r = document.querySelector('.tm-aside > .tm-truth').getBoundingClientRect(); return r.height > 0 && r.bottom <= document.documentElement.clientHeight + 0.5; })()`
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=15&present")
	viewport(t, ctx, 1280, 720)
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(`+outsideViewport+`).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
	small := eval[float64](t, ctx, drawnSize)
	viewport(t, ctx, 1920, 1080)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](drawnSize+` >= `+strconv.FormatFloat(small*1.4, 'f', 2, 64), chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the narration grows with the screen from %.1f px", small)
	assert.GreaterOrEqual(t, eval[float64](t, ctx, stageZoom), 1.4, "the stage grows too")
	assert.Empty(t, eval[[]string](t, ctx, outsideViewport))
	assert.True(t, eval[bool](t, ctx, onScreen), "the truth's line is on the screen")
	forwardTo(t, ctx, step(t, ctx)+1)
	assert.Empty(t, eval[[]string](t, ctx, outsideViewport), "a step later")
	assert.True(t, eval[bool](t, ctx, onScreen), "a step later")

	ctx, _ = startPlayground(t, "/scenarios/stream/late-data?step=120&present")
	viewport(t, ctx, 1920, 1080)
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(`+outsideViewport+`).length === 0`, chromedp.WithPollingTimeout(3*time.Second)))
	assert.Empty(t, eval[[]string](t, ctx, outsideViewport))
	assert.GreaterOrEqual(t, eval[float64](t, ctx, stageZoom), 0.99, "never smaller than it was without growing")
	assert.True(t, eval[bool](t, ctx, onScreen), "the truth's line is on the screen")
}

// TestPresenterShortensALongNarration: a rebalance's narration, six lines
// in the room's large type on a 1280×720 projector, left the log's lanes
// at two thirds of their size (text of 7 px). The narration takes a
// smaller type instead, and the stage stays at a zoom the room reads; a
// short narration keeps the large type.
func TestPresenterShortensALongNarration(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/dist/partition-change?step=14&present")
	viewport(t, ctx, 1280, 720)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.tm-live').classList.contains('tm-live-long')`, chromedp.WithPollingTimeout(3*time.Second)))
	require.NoError(t, err, "the long narration takes the smaller type")
	// The window changed size: the stage is fitted again on a later frame.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.tm-flow').currentCSSZoom >= 0.75`, chromedp.WithPollingTimeout(3*time.Second)))
	require.NoError(t, err, "the stage at a zoom the room reads: %v", eval[float64](t, ctx, `document.querySelector('.tm-flow').currentCSSZoom`))
	assert.Empty(t, eval[[]string](t, ctx, outsideViewport))
	key(t, ctx, kb.Home)
	waitStep(t, ctx, 0, "back at the start")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector('.tm-live').classList.contains('tm-live-long')`, chromedp.WithPollingTimeout(3*time.Second)))
	require.NoError(t, err, "a short narration keeps the large type")
}

// TestPresenterOpensAtTheTopOfTheStage: presenter mode entered with P from
// a page scrolled down to the faults or the checks (the focus on Crash, on
// a knob, on a check's details) shows the room the stage from its top. It
// kept the page scrolled as far down as presenter mode's page went: the
// room saw the checks, with the narration and the step buttons above the
// screen, and the clicker's keys stepped a stage no one could see.
func TestPresenterOpensAtTheTopOfTheStage(t *testing.T) {
	for _, focus := range []string{`[data-testid="btn-crash"]`, `[data-testid="knob-mark-lsn"]`, `.tm-check summary`} {
		t.Run(focus, func(t *testing.T) {
			ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=11")
			viewport(t, ctx, 1024, 768)
			// Motion reduced, the page scrolls to the focus at once rather
			// than smoothly, so that P comes after the scroll.
			call(t, ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
			require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(focus))))
			waitTrue(t, ctx, "the page is scrolled down to "+focus, `scrollY > 300`)
			key(t, ctx, "p")
			require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
			onScreen := `(() => { const r = document.querySelector('.tm-live').getBoundingClientRect(), c = document.querySelector('[data-testid=btn-forward]').getBoundingClientRect(); return r.top >= 0 && c.top >= 0 && r.bottom <= innerHeight; })()`
			_, err := chromedp.Run(ctx, chromedp.Poll[bool](onScreen, chromedp.WithPollingTimeout(3*time.Second)))
			require.NoError(t, err, "the narration and the step buttons are on the screen (scrolled %v)", eval[float64](t, ctx, `scrollY`))
			assert.Zero(t, eval[float64](t, ctx, `scrollY`))
			key(t, ctx, kb.PageDown)
			waitStep(t, ctx, 12, "the clicker steps")
			assert.Zero(t, eval[float64](t, ctx, `scrollY`), "and the page stays at the top")
		})
	}
}

// TestRoomWindowHasTheKnobsAndFaults: a presenter with the room's window
// alone (a projector that mirrors the laptop) crashes the pipeline at the
// step on screen, flips a knob and undoes, without leaving presenter mode.
// Presenter mode hid the knobs and faults, and only the notes window, on a
// second screen, could reach them: on one screen the presenter had to
// leave presenter mode (and full screen) in front of the room.
func TestRoomWindowHasTheKnobsAndFaults(t *testing.T) {
	ctx, base := startPlayground(t, "/scenarios/hwm/visibility-gap?step=11&present")
	viewport(t, ctx, 1024, 768)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	notes := openWindow(t, ctx, base+"/scenarios/hwm/visibility-gap?present=notes")
	waitStep(t, notes, 11, "the notes window opens at the room's step")
	settingsShown := `document.querySelector('[data-testid=settings]').checkVisibility()`
	assert.False(t, eval[bool](t, ctx, settingsShown), "the room sees no knobs until asked")
	open := func() {
		t.Helper()
		click(t, ctx, `[data-testid=btn-faults]`)
		waitTrue(t, ctx, "the knobs and faults open", settingsShown)
		assert.Equal(t, "true", eval[string](t, ctx, `document.querySelector('[data-testid=btn-faults]').getAttribute('aria-expanded')`))
	}
	closed := func(what string) {
		t.Helper()
		waitTrue(t, ctx, what, `!(`+settingsShown+`) && document.querySelector('[data-testid=btn-faults]').getAttribute('aria-expanded') === 'false'`)
	}
	// On the screen, on top of the stage, with the focus on its first fault.
	open()
	onTop := `((sel) => { const x = document.querySelector(sel); const r = x.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === x; })`
	for _, sel := range []string{`[data-testid=btn-crash]`, `[data-testid=knob-mark-lsn]`} {
		assert.True(t, eval[bool](t, ctx, onTop+`(`+jsString(sel)+`)`), "%s is on the screen, on top", sel)
	}
	assert.Equal(t, "btn-crash", eval[string](t, ctx, `document.activeElement.dataset.testid`))
	assert.Contains(t, text(t, ctx, `[data-testid=announcer]`), "the knobs are before the faults", "a screen reader hears where the knobs are")
	assert.Zero(t, eval[float64](t, ctx, `scrollY`))

	// The crash at the step on screen; the room sees the stage again.
	key(t, ctx, kb.Enter)
	waitTrue(t, ctx, "the room takes the crash at its step", `new URLSearchParams(location.search).get("fault") === "11~crash"`)
	closed("the knobs and faults close once the crash is taken")
	assert.Equal(t, 11, step(t, ctx))
	assert.Equal(t, "on", eval[string](t, ctx, `document.querySelector('.tm-widget').dataset.present`), "still presenting")
	assert.Equal(t, "btn-faults", eval[string](t, ctx, `document.activeElement.dataset.testid`), "the focus goes back to the button that opened them")
	assert.Contains(t, text(t, ctx, `[data-testid=announcer]`), "crash after step 11", "a screen reader hears the fault taken")
	waitLoaded(t, notes, "the notes window takes the room's crash (it reloads with them)", `new URLSearchParams(location.search).get("fault") === "11~crash" && Number(document.querySelector('.tm-widget').dataset.step) === 11`)

	// Undo, from the keyboard.
	open()
	press(t, ctx, `[data-testid=btn-undo]`)
	waitTrue(t, ctx, "Undo takes the crash off", `!new URLSearchParams(location.search).has("fault")`)
	closed("the knobs and faults close after Undo")

	// A knob, clicked.
	open()
	click(t, ctx, `label[for="tm-knob-mark-lsn"]`)
	waitTrue(t, ctx, "the room takes the knob", `new URLSearchParams(location.search).get("mark") === "lsn"`)
	closed("the knobs and faults close once the knob is turned")

	// A fault refused is said there, and they stay open until a step.
	key(t, ctx, kb.Home)
	waitStep(t, ctx, 0, "Home")
	open()
	key(t, ctx, kb.Enter)
	waitTrue(t, ctx, "the refusal is said beside the faults", `(() => { const m = document.querySelector('[data-testid=message-near]'); return Boolean(m && m.checkVisibility() && m.textContent.includes("No extractor run is in flight")); })()`)
	assert.True(t, eval[bool](t, ctx, settingsShown), "still open, with the refusal")
	key(t, ctx, kb.PageDown)
	waitStep(t, ctx, 1, "the clicker steps")
	closed("a step closes them")

	// Escape closes them too (out of full screen, where the browser takes it).
	open()
	key(t, ctx, kb.Escape)
	closed("Escape closes them")
	assert.Equal(t, 1, step(t, ctx))
	assert.Zero(t, eval[float64](t, ctx, `scrollY`), "the room's page never scrolled")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestClickersStartTheShowKeyGoesFullScreen: a clicker's start-the-show
// button sends F5; in presenter mode it makes the page full screen rather
// than reloading it in front of the room, out of full screen.
func TestClickersStartTheShowKeyGoesFullScreen(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=11&present")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	eval[bool](t, ctx, `(window.samePage = true)`)
	require.False(t, eval[bool](t, ctx, `Boolean(document.fullscreenElement)`))
	key(t, ctx, kb.F5)
	waitTrue(t, ctx, "F5 goes full screen", `Boolean(document.fullscreenElement)`)
	assert.True(t, eval[bool](t, ctx, `window.samePage === true`), "the page was not reloaded")
	assert.Equal(t, 11, step(t, ctx))
}
