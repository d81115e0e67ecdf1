//go:build !js

package e2e

import (
	"context"
	"html"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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

	// Stall partition 1 for three minutes from step 10, chosen in the list
	// of steps (folded until opened).
	eval[bool](t, ctx, `(document.querySelector("[data-testid=timeline] > summary").click(), true)`)
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

// TestStreamPartitionClock: a learner pushes one partition's clock a
// minute ahead from the widget, and the next step says so; the fork lands
// in the address.
func TestStreamPartitionClock(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/stream/watermark-fastest-partition?step=10")
	require.Equal(t, 10, step(t, ctx))
	sel := `[data-testid="btn-producer-clock"][data-arg="till1"]`
	assert.Contains(t, text(t, ctx, sel), "till1's clock (partition 0) +1m here")
	press(t, ctx, sel)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="panel-compare"]`))))
	waitFor(t, ctx, "the fault in the address", `location.search.includes("10~producer-clock~till1~1m")`)
	press(t, ctx, `[data-testid="btn-forward"]`)
	require.Equal(t, 11, step(t, ctx))
	assert.Contains(t, text(t, ctx, `[data-testid="narration"]`), "till1's own clock (partition 0 of sales) is stepped forward by 1m")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestStreamJoinsTheStage: the stream chart is a station of the stage, not
// a section of the page: at 1600 px the log, the stream and the targets
// stand left to right in one row; at 1280 px (a projector) and 1366 px,
// where the stream's share of that row would be narrower than the chart,
// the log stands above the chart and the chart takes the whole row without
// scrolling; at 360 px they stack, the chart keeps its size and scrolls
// inside its box (its text is not shrunk), and the page does not scroll
// sideways; in presenter mode at 1024×768 the stream and the targets share
// the screen.
func TestStreamJoinsTheStage(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/stream/late-data?step=60")
	viewport(t, ctx, 1600, 900)
	boxes := func() []map[string]float64 {
		return eval[[]map[string]float64](t, ctx, `["panel-log", "panel-stream", "panel-target"].map((id) => {
			const r = document.querySelector('[data-testid="' + id + '"]').getBoundingClientRect();
			return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width};
		})`)
	}
	b := boxes()
	assert.True(t, eval[bool](t, ctx, `!!document.querySelector('.tm-flow [data-testid="stream-chart"]')`), "the chart is in the picture's flow")
	assert.Less(t, b[0]["right"], b[1]["left"], "the log is left of the stream")
	assert.Less(t, b[1]["right"], b[2]["left"], "the stream is left of the targets")
	assert.InDelta(t, b[0]["top"], b[2]["top"], 2, "one row")
	assert.Greater(t, b[1]["width"], b[0]["width"], "the stream takes most of the row")
	chartScale := `(() => { const s = document.querySelector('[data-testid="stream-chart"]'); return s.getBoundingClientRect().width / s.viewBox.baseVal.width; })()`
	chartScrolls := `(() => { const w = document.querySelector('[data-testid="stream-wrap"]'); return w.scrollWidth - w.clientWidth; })()`
	assert.GreaterOrEqual(t, eval[float64](t, ctx, chartScale), 1.0, "the chart is not shrunk")
	assert.Equal(t, 0.0, eval[float64](t, ctx, chartScrolls), "the chart fits its column")

	for _, w := range []int64{1280, 1366} {
		viewport(t, ctx, w, 900)
		b = boxes()
		assert.Less(t, b[0]["bottom"], b[1]["top"], "at %d px the log is above the stream", w)
		assert.Less(t, b[1]["bottom"], b[2]["top"], "at %d px the targets are under the stream", w)
		assert.Greater(t, b[1]["width"], 0.9*float64(w), "at %d px the stream takes the row", w)
		assert.Equal(t, 0.0, eval[float64](t, ctx, chartScrolls), "at %d px the chart does not scroll", w)
		assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), int(w), "at %d px the page does not scroll sideways", w)
		// The arrow from the chart points down at the operators across the
		// row, between them; it stood alone at the start of their row.
		arrow := eval[map[string]float64](t, ctx, `(() => { const a = document.querySelector('.tm-col-stream + .tm-arrow').getBoundingClientRect(), o = document.querySelector('.tm-col-ops').getBoundingClientRect(), f = document.querySelector('.tm-flow').getBoundingClientRect(); return {mid: (a.left + a.right) / 2 - (f.left + f.right) / 2, middle: (a.top + a.bottom) / 2, ops: o.top}; })()`)
		assert.InDelta(t, 0, arrow["mid"], 20, "at %d px the chart's arrow is in the middle of the row", w)
		assert.Greater(t, arrow["middle"], b[1]["bottom"], "at %d px the chart's arrow is under the chart", w)
		assert.Less(t, arrow["middle"], arrow["ops"], "at %d px and over the operators", w)
	}

	viewport(t, ctx, 360, 740)
	b = boxes()
	assert.Less(t, b[0]["top"], b[1]["top"])
	assert.Less(t, b[1]["top"], b[2]["top"], "stacked at 360 px")
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360, "the page does not scroll sideways")
	assert.GreaterOrEqual(t, eval[float64](t, ctx, chartScale), 1.0, "the chart keeps its size")
	assert.Greater(t, eval[float64](t, ctx, chartScrolls), 0.0, "and scrolls in its box")
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `Math.min(...[...document.querySelectorAll('[data-testid="stream-chart"] text')].map((el) => el.getBoundingClientRect().height).filter((h) => h > 0))`), 10.0,
		"its text is drawn at least 10 px high")

	// A step brings the now line into the scrolling box, and the focused
	// box takes the side arrows to scroll, not to step.
	wrap := `document.querySelector('[data-testid="stream-wrap"]')`
	nowShows := `(() => { const w = ` + wrap + `, n = w.querySelector('.tm-nowline'); const x = n.getBoundingClientRect().left - w.getBoundingClientRect().left; return x >= 0 && x <= w.clientWidth; })()`
	press(t, ctx, `[data-testid=btn-end]`)
	eval[float64](t, ctx, wrap+`.scrollLeft = 0`)
	require.False(t, eval[bool](t, ctx, nowShows), "at 360 px the now line of the last step is out of a box scrolled to its start")
	press(t, ctx, `[data-testid=btn-back]`)
	assert.True(t, eval[bool](t, ctx, nowShows), "the step scrolled the box to now")
	at := step(t, ctx)
	left := eval[float64](t, ctx, wrap+`.scrollLeft`)
	require.Positive(t, left)
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=stream-wrap]`))))
	key(t, ctx, kb.ArrowLeft)
	time.Sleep(400 * time.Millisecond) // the browser may scroll smoothly
	assert.Equal(t, at, step(t, ctx), "the arrow did not step")
	assert.Less(t, eval[float64](t, ctx, wrap+`.scrollLeft`), left, "the arrow scrolled the box")

	// Scrolled sideways, the box keeps its rows' names at its left edge,
	// and a heading wider than the box starts there, read from its start
	// as a heading is (TestRowLabelsStayInView).
	eval[float64](t, ctx, wrap+`.scrollLeft = 200`)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const w = `+wrap+`; const l = w.querySelector('.tm-lanelabel:not([font-weight])').getBoundingClientRect().left; return l >= w.getBoundingClientRect().left && l < w.getBoundingClientRect().left + 20; })()`, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the row labels follow the scroll")
	heading := `(() => { const w = ` + wrap + `, h = w.querySelector('.tm-lanelabel[font-weight="700"]').getBoundingClientRect(), b = w.getBoundingClientRect(); return {wider: h.width > w.clientWidth, left: h.left - b.left, right: b.left + w.clientWidth - h.right}; })()`
	hd := eval[map[string]any](t, ctx, heading)
	require.Equal(t, true, hd["wider"], "at 360 px the heading is wider than its box: %v", hd)
	assert.GreaterOrEqual(t, hd["left"], 0.0, "the heading's start is in the box: %v", hd)
	assert.Less(t, hd["left"], 20.0, "the heading starts at the box's left edge: %v", hd)

	viewport(t, ctx, 1024, 768)
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=btn-forward]`))))
	key(t, ctx, "p")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.tm-widget[data-present="on"]`))))
	// On a projector's 1024×768 the chart takes the row, and the targets
	// share the next with the operators: beside the targets the chart had
	// half the row, and a room could not read its text.
	// Presenter mode fits the stage on a later frame.
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const o = document.querySelector('.tm-col-ops').getBoundingClientRect(), t = document.querySelector('[data-testid="panel-target"]').getBoundingClientRect(); return Math.abs(o.top - t.top) <= 2; })()`, chromedp.WithPollingTimeout(3*time.Second)))
	b = boxes()
	assert.Less(t, b[1]["bottom"], b[2]["top"], "the targets are under the stream")
	assert.Greater(t, b[1]["width"], 0.85*1024, "the stream takes the row")
	ops := eval[map[string]float64](t, ctx, `(() => { const r = document.querySelector('.tm-col-ops').getBoundingClientRect(); return {top: r.top, right: r.right}; })()`)
	assert.InDelta(t, ops["top"], b[2]["top"], 2, "the operators and the targets share a row")
	assert.Less(t, ops["right"], b[2]["left"], "the operators left of the targets")
	assert.LessOrEqual(t, b[2]["bottom"], 768.0, "the target is on the screen")
	// A box on the screen counts the stage's zoom in.
	assert.GreaterOrEqual(t, eval[float64](t, ctx, `Math.min(...[...document.querySelectorAll('[data-testid="stream-chart"] text')].map((el) => el.getBoundingClientRect().height).filter((h) => h > 0))`), 12.0,
		"the chart's text as drawn is large enough for a room")
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 1024, "nothing scrolls sideways")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPresenterShowsTheJob: in presenter mode the stream job's panel,
// which a clicker cannot scroll down to, takes the pipeline's place with J
// and fits the screen; stepping keeps it; J again brings the pipeline back.
func TestPresenterShowsTheJob(t *testing.T) {
	ctx, base := startPlayground(t, "/scenarios/stream/checkpoint-append?step=160&present=on")
	viewport(t, ctx, 1280, 800)
	shows := func(sel string) bool {
		return eval[bool](t, ctx, `(() => { const el = document.querySelector('`+sel+`'); return !!el && el.checkVisibility(); })()`)
	}
	require.True(t, shows(`.tm-flow`))
	assert.False(t, shows(`[data-testid=panel-job]`), "no half a panel under the pipeline")
	key(t, ctx, "j")
	assert.False(t, shows(`.tm-flow`))
	require.True(t, shows(`[data-testid=panel-job]`))
	bottom := `document.querySelector('[data-testid=panel-job] .tm-ckstrip').getBoundingClientRect().bottom`
	assert.LessOrEqual(t, eval[float64](t, ctx, bottom), 800.0, "the checkpoints are on the screen")
	key(t, ctx, kb.PageDown)
	assert.Equal(t, 161, step(t, ctx))
	assert.True(t, shows(`[data-testid=panel-job]`), "a step keeps the job in view")
	key(t, ctx, "j")
	assert.True(t, shows(`.tm-flow`))
	assert.False(t, shows(`[data-testid=panel-job]`))

	// J in the presenter's notes window shows the room the job's panel.
	notes := openWindow(t, ctx, base+"/scenarios/stream/checkpoint-append?present=notes")
	blur(t, notes)
	key(t, notes, "j")
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.tm-widget').dataset.view === "job"`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the room shows the job's panel")
	assert.True(t, shows(`[data-testid=panel-job]`))
	// The room goes back to the pipeline itself; one J in the notes window
	// then shows it the job again (the notes window hears what the room
	// shows, where it asked for the state the room already had).
	key(t, ctx, "j")
	assert.True(t, shows(`.tm-flow`))
	time.Sleep(200 * time.Millisecond)
	key(t, notes, "j")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('.tm-widget').dataset.view === "job"`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "one J in the notes window shows the room the job again")
	assert.Empty(t, pageProblems(t, ctx))
}

// press activates the control sel by keyboard, focus and Enter: unlike a
// click at its coordinates, it cannot miss while the page lays out again.
func press(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(sel))), "focus %s", sel)
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)), "press %s", sel)
}

// TestStreamBuildExplainsLikeTheServer: a stream page runs the build of the
// log and stream worlds, which leaves out the high-water-mark world's
// extractors (engine/hwm/explain_nopipes.go answers their part of an
// explanation there). A row it explains in the browser must read as the
// server, which runs every world, writes it: a row not yet written (the
// path that asks which extractor reads the table), a copy written twice,
// and a row that is current.
func TestStreamBuildExplainsLikeTheServer(t *testing.T) {
	ctx, base := startPlayground(t, "/scenarios/stream/checkpoint-append")
	require.True(t, eval[bool](t, ctx, `[...document.querySelectorAll('link[rel=preload]')].some(l => l.href.includes("tidemark-stream."))`),
		"a stream page loads the build of the log and stream worlds")
	tag := regexp.MustCompile(`<[^>]+>`)
	explained := func(n int, key, says string) {
		t.Helper()
		jsClick(t, ctx, `.tm-steps li[data-step="`+strconv.Itoa(n)+`"] a`)
		waitFor(t, ctx, "step "+strconv.Itoa(n), `document.querySelector(".tm-widget").dataset.step === "`+strconv.Itoa(n)+`"`)
		jsClick(t, ctx, `.tm-stage a[data-act="explain"][data-key="`+key+`"]`)
		waitFor(t, ctx, "key "+key+" explained", `(document.querySelector('[data-testid="explain"]')||{}).textContent?.includes("Why key `+key+`?")`)
		inBrowser := text(t, ctx, `[data-testid="explain"]`)

		res, err := http.Get(base + "/scenarios/stream/checkpoint-append?explain=" + key + "&step=" + strconv.Itoa(n))
		require.NoError(t, err)
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		m := regexp.MustCompile(`(?s)data-testid="explain"[^>]*>(.*?)<a `).FindSubmatch(body)
		require.NotNil(t, m, "the server explains key %s at step %d", key, n)
		fromServer := strings.TrimSpace(html.UnescapeString(tag.ReplaceAllString(string(m[1]), "")))
		require.Contains(t, fromServer, says)
		assert.Contains(t, inBrowser, fromServer, "key %s at step %d: the browser's build explains it as the server does", key, n)
	}
	// Step 100: order 31 is sent and not yet written.
	explained(100, "31", "has not reached fct_orders")
	// At the end, order 41 is written twice (the replay after the
	// restore), and the stage's first other key once.
	end := eval[int](t, ctx, `Number(document.querySelector(".tm-widget").dataset.steps)`)
	explained(end, "41", "in the target 2 times")
	other := eval[string](t, ctx, `[...document.querySelectorAll('.tm-stage a[data-act="explain"][data-key]')].map(a => a.dataset.key).find(k => k !== "" && k !== "41") || ""`)
	require.NotEmpty(t, other, "the stage has another key to explain")
	explained(end, other, "it is current")
	assert.Empty(t, pageProblems(t, ctx))
}
