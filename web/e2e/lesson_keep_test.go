//go:build !js

package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLessonEmbedKeepsItsPlaceInTheTab: an embed the learner stepped and
// set otherwise opens there again when the chapter is reloaded in the same
// tab, and its neighbour, left alone, opens where the text has it. A kept
// value the engine does not take whole is dropped for the embed's own
// settings without a word; an embed the text opens at a step comes back
// at the step the learner chose, 0 included; and a page whose storage
// throws still plays its embeds.
func TestLessonEmbedKeepsItsPlaceInTheTab(t *testing.T) {
	needWasm(t)
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
	waitEmbedsReady(t, ctx)

	// The visibility-gap pair: a timestamp mark, then a log position.
	ids := eval[[]string](t, ctx, `[...document.querySelectorAll('#visibility-gap [data-testid="scenario-embed"][data-scenario="hwm/visibility-gap"]')].map((e) => e.dataset.embedId)`)
	require.Len(t, ids, 2)
	a, b := ids[0], ids[1]
	host := func(id string) string { return `.tm-host[data-id="` + id + `"]` }
	stepOf := func(id string) int {
		return eval[int](t, ctx, `Number(document.querySelector('`+host(id)+` .tm-widget').dataset.step)`)
	}
	checked := func(id string) bool { return eval[bool](t, ctx, `document.getElementById(`+jsQuote(id)+`).checked`) }
	keyOf := func(id string) string { return `"tidemark.embed:" + location.pathname + "#` + id + `"` }
	stored := func(id string) string {
		return eval[string](t, ctx, `sessionStorage.getItem(`+keyOf(id)+`) ?? "(none)"`)
	}
	link := func(id string) string {
		return eval[string](t, ctx, `(() => { const u = new URL(document.querySelector('[data-embed-id="`+id+`"] [data-testid="embed-link"]').href); return u.pathname + u.search; })()`)
	}
	// quiet says the embed shows no problem: its message is hidden or empty.
	quiet := func(id string) bool {
		return eval[bool](t, ctx, `[...document.querySelectorAll('`+host(id)+` .tm-message')].every((m) => m.hidden || !m.textContent.trim())`)
	}
	reload := func() {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
		waitEmbedsReady(t, ctx)
	}
	require.Equal(t, "(none)", stored(a), "an embed nobody moved is kept")

	for range 3 {
		press(t, ctx, host(a)+` [data-testid="btn-forward"]`)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#`+a+`-knob-mark-lsn`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(" ")))
	waitTrue(t, ctx, "the knob's run is drawn at the same step",
		`!document.querySelector('`+host(a)+`').hasAttribute("aria-busy") && document.querySelector('`+host(a)+` .tm-widget').dataset.step === "3" && `+
			`sessionStorage.getItem(`+keyOf(a)+`)?.includes("mark=lsn")`)
	assert.Equal(t, link(a), stored(a), "the kept value is the embed's link to its own page")
	assert.Equal(t, "(none)", stored(b), "the embed left alone is kept")

	// And a fault: a crash while a run writes, a step the learner chose.
	write := eval[int](t, ctx, `Number([...document.querySelectorAll('`+host(a)+` .tm-steps li.tm-kind-write')][0].dataset.step)`)
	for stepOf(a) < write {
		press(t, ctx, host(a)+` [data-testid="btn-forward"]`)
	}
	for stepOf(a) > write {
		press(t, ctx, host(a)+` [data-testid="btn-back"]`)
	}
	press(t, ctx, host(a)+` [data-testid="btn-crash"]`)
	waitTrue(t, ctx, "the crash's run is drawn and kept",
		`!document.querySelector('`+host(a)+`').hasAttribute("aria-busy") && sessionStorage.getItem(`+keyOf(a)+`)?.includes("fault=")`)
	at, faults, kept := stepOf(a), text(t, ctx, host(a)+` [data-testid="faults-on"]`), stored(a)
	require.NotEmpty(t, faults)
	assert.Equal(t, link(a), kept)
	assert.NotContains(t, eval[string](t, ctx, `window.tidemarkProgress.exportText()`), "mark=lsn", "the exported progress carries an embed's place")

	reload()
	assert.Equal(t, at, stepOf(a), "the moved embed opened elsewhere than the learner left it")
	assert.True(t, checked(a+"-knob-mark-lsn"), "the moved embed lost its knob")
	assert.Equal(t, faults, text(t, ctx, host(a)+` [data-testid="faults-on"]`), "the moved embed lost its fault")
	assert.Equal(t, kept, link(a), "the moved embed's link is not where the learner left it")
	assert.Contains(t, text(t, ctx, host(a)+` [data-testid="narration"]`), "Step "+itoa(at)+" of")
	assert.Contains(t, text(t, ctx, `[data-embed-id="`+a+`"] .embed-summary-title`), "mark=lsn and the fault you added", "the summary under it does not say the widget plays other settings")
	assert.True(t, quiet(a))
	assert.Equal(t, 0, stepOf(b), "the other embed moved")
	assert.True(t, checked(b+"-knob-mark-lsn"), "the other embed lost its own knob")

	// A kept value for the right scenario that is no link the engine takes
	// whole: the embed opens as the text has it, saying nothing, and the
	// value is forgotten.
	eval[bool](t, ctx, `(sessionStorage.setItem(`+keyOf(a)+`, "/scenarios/hwm/visibility-gap?step=banana&mark=nope&fault=%zz"), true)`)
	reload()
	assert.Equal(t, 0, stepOf(a), "a corrupt kept value moved the embed")
	assert.True(t, checked(a+"-knob-mark-timestamp"), "a corrupt kept value changed the embed's knob")
	assert.True(t, quiet(a), "a corrupt kept value was reported on the page")
	assert.Equal(t, "(none)", stored(a), "a corrupt kept value was kept")
	// So does one for another scenario, or one longer than any link the
	// widget writes (empty pairs, which the engine would skip).
	eval[bool](t, ctx, `(sessionStorage.setItem(`+keyOf(a)+`, "/scenarios/other?step=3"), `+
		`sessionStorage.setItem(`+keyOf(b)+`, "/scenarios/hwm/visibility-gap?step=3" + "&".repeat(5000)), true)`)
	reload()
	assert.Equal(t, 0, stepOf(a))
	assert.Equal(t, 0, stepOf(b))
	assert.True(t, quiet(a) && quiet(b))
	assert.Empty(t, pageProblems(t, ctx))

	// An embed the text opens at a step, stepped back to 0, opens at 0.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterChecks)))
	waitEmbedsReady(t, ctx)
	given := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="scenario-embed"]')].filter((e) => e.dataset.step !== "0").map((e) => e.dataset.embedId)`)
	require.NotEmpty(t, given)
	c := given[0]
	require.NotZero(t, stepOf(c))
	press(t, ctx, host(c)+` [data-testid="btn-start"]`)
	waitTrue(t, ctx, "stepped to 0 and kept", `sessionStorage.getItem(`+keyOf(c)+`)?.includes("step=0")`)
	reload()
	assert.Equal(t, 0, stepOf(c), "an embed the text opens at a step forgot the learner's step")
	for _, id := range given[1:] {
		assert.Equal(t, eval[string](t, ctx, `document.querySelector('[data-embed-id="`+id+`"]').dataset.step`), itoa(stepOf(id)), "an embed left alone left the text's step")
	}

	// A tab holds at most 100 embeds' places: a new one past that makes
	// room by forgetting other pages'.
	eval[bool](t, ctx, `(() => { for (let i = 0; i < 100; i++) sessionStorage.setItem("tidemark.embed:/lessons/elsewhere#emb" + i, "/scenarios/x?step=1"); return true; })()`)
	d := eval[string](t, ctx, `[...document.querySelectorAll('[data-testid="scenario-embed"]')].find((e) => e.dataset.step === "0").dataset.embedId`)
	press(t, ctx, host(d)+` [data-testid="btn-forward"]`)
	waitTrue(t, ctx, "stepped", `document.querySelector('`+host(d)+` .tm-widget').dataset.step === "1"`)
	waitTrue(t, ctx, "the new place is kept", `sessionStorage.getItem(`+keyOf(d)+`) !== null`)
	assert.ElementsMatch(t, []string{c, d}, eval[[]string](t, ctx, `Object.keys(sessionStorage).filter((k) => k.startsWith("tidemark.embed:")).map((k) => k.slice(k.indexOf("#") + 1))`),
		"the other pages' places were not forgotten, or this page's were")
	assert.Empty(t, pageProblems(t, ctx))

	// A browser that gives the page no session storage at all.
	addScript(t, ctx, `Object.defineProperty(window, "sessionStorage", { get() { throw new DOMException("The operation is insecure.", "SecurityError"); } })`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
	waitEmbedsReady(t, ctx)
	assert.Equal(t, 0, stepOf(a))
	press(t, ctx, host(a)+` [data-testid="btn-forward"]`)
	waitTrue(t, ctx, "stepping without storage", `document.querySelector('`+host(a)+` .tm-widget').dataset.step === "1"`)
	assert.True(t, quiet(a))
	assert.Empty(t, pageProblems(t, ctx))
}
