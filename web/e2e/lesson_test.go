//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/lessonpage"
)

// TestLessonPredictAndProgress answers predictions, sees the engine's graded
// reveal, reloads and finds the progress kept, exports it, clears it, imports
// it back, and has a corrupt and a foreign file refused with the progress kept.
func TestLessonPredictAndProgress(t *testing.T) {
	base := startSite(t, web.Options{Lessons: lessonpage.Catalog(), Pages: lessonpage.Routes()})
	ctx := newBrowser(t)
	do := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, a), what)
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	order3 := `form[data-prediction="order-3"]`
	ties := `form[data-prediction="ties-gte"]`

	// The page's widgets grow when the engine takes them over (the live
	// controls appear), which moves what follows; wait for that before
	// clicking, so a click lands where it was aimed.
	// The page also scrolls smoothly, and a click aimed while it is still
	// scrolling misses; jump instead.
	settle := func() {
		if _, ok := web.LookupAsset("tidemark.wasm"); ok {
			waitEmbedsReady(t, ctx)
		}
		eval[string](t, ctx, `document.documentElement.style.scrollBehavior = "auto"`)
	}
	do("open the lesson", chromedp.Navigate(base+"/lessons/high-water-mark"))
	do("progress panel shown", chromedp.WaitVisible(css(`[data-testid="progress"]`)))
	settle()
	// The answer key stays out of sight until the learner commits.
	assert.False(t, eval[bool](t, ctx, `document.querySelector('`+order3+` details').checkVisibility()`), "the reveal shows before answering")

	// Will order 3 reach the target? The engine says it is missing (option b).
	do("choose b", chromedp.Click(css(`#predict-order-3-b`)))
	do("lock in", chromedp.Click(css(order3+` [data-testid="prediction-submit"]`)))
	do("graded", chromedp.WaitVisible(css(order3+`[data-graded="right"] [data-testid="prediction-result"]`)))
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('`+order3+` [data-testid="prediction-result"]').textContent`), "Right")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('`+order3+` details').open`), "the reveal opens after answering")

	// A wrong answer is graded wrong and names the engine's answer.
	do("choose a", chromedp.Click(css(`#predict-ties-gte-a`)))
	// Reading on (sections marked read redraw the progress) must not undo a
	// choice the learner has not locked in yet.
	// Read down the page half a screen at a time, as a reader would: a
	// section counts once its end has been on screen.
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(window.scrollBy(0, window.innerHeight / 2), document.querySelector('[data-testid="progress-summary"]').textContent.search(/Sections read: [1-9]/) >= 0)`))
	require.NoError(t, err, "sections marked read")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('#predict-ties-gte-a').checked`), "redrawing progress cleared the learner's choice")
	do("lock in", chromedp.Click(css(ties+` [data-testid="prediction-submit"]`)))
	do("graded", chromedp.WaitVisible(css(ties+`[data-graded="wrong"] [data-testid="prediction-result"]`)))
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('`+ties+` [data-testid="prediction-result"]').textContent`), "order 2 appears twice")

	summary := func() string {
		return eval[string](t, ctx, `document.querySelector('[data-testid="progress-summary"]').textContent`)
	}
	assert.Contains(t, summary(), "Predictions made: 2 of ")
	assert.Contains(t, summary(), ", 1 right.")

	// Reload: the answers are still there, locked.
	do("reload", chromedp.Reload())
	settle()
	do("graded after reload", chromedp.WaitVisible(css(order3+`[data-graded="right"] [data-testid="prediction-result"]`)))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('#predict-order-3-b').checked && document.querySelector('#predict-order-3-b').disabled`))
	assert.Contains(t, summary(), "Predictions made: 2 of ")

	// Export, as the button would save it.
	exported := eval[string](t, ctx, `window.tidemarkProgress.exportText()`)
	var file struct {
		App     string `json:"app"`
		Kind    string `json:"kind"`
		Version int    `json:"version"`
		Lessons map[string]struct {
			Predictions map[string]struct {
				Choice string `json:"choice"`
				Right  bool   `json:"right"`
			} `json:"predictions"`
		} `json:"lessons"`
	}
	require.NoError(t, json.Unmarshal([]byte(exported), &file))
	assert.Equal(t, "tidemark", file.App)
	assert.Equal(t, "progress", file.Kind)
	assert.Equal(t, 1, file.Version)
	p := file.Lessons["high-water-mark"].Predictions
	assert.Equal(t, "b", p["order-3"].Choice)
	assert.True(t, p["order-3"].Right)
	assert.False(t, p["ties-gte"].Right)
	do("export button", chromedp.Click(css(`[data-testid="progress-export"]`)))
	do("export message", chromedp.WaitVisible(css(`[data-testid="progress-message"]`)))

	// Clear (it asks first), then import the exported file through the file
	// input (it shows what it will change first).
	do("clear", chromedp.Click(css(`[data-testid="progress-reset"]`)))
	do("confirm clear", chromedp.Click(css(`[data-testid="progress-confirm-yes"]`)))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid="progress-summary"]').textContent.includes("Predictions made: 0 of ")`))
	require.NoError(t, err, "progress cleared")
	dir := t.TempDir()
	good := filepath.Join(dir, "tidemark-progress.json")
	require.NoError(t, os.WriteFile(good, []byte(exported), 0o644))
	do("import", chromedp.SetUploadFiles(css(`[data-testid="progress-import"]`), []string{good}))
	do("import preview", chromedp.Click(css(`[data-testid="progress-import-confirm"]`)))
	do("imported", chromedp.WaitVisible(css(order3+`[data-graded="right"]`)))
	assert.Equal(t, "Progress imported: the file's progress was merged with yours.", eval[string](t, ctx, `document.querySelector('[data-testid="progress-message"]').textContent`))
	assert.Contains(t, summary(), "Predictions made: 2 of ")

	// A corrupt file and a foreign one are refused; the progress stays.
	bad := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"app":"tidemark","kind":"progress",`), 0o644))
	do("import corrupt", chromedp.SetUploadFiles(css(`[data-testid="progress-import"]`), []string{bad}))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid="progress-message"]').textContent.includes("not valid JSON")`))
	require.NoError(t, err, "corrupt file refused")
	msg := eval[string](t, ctx, `document.querySelector('[data-testid="progress-message"]').textContent`)
	assert.Contains(t, msg, "your progress is unchanged")
	assert.Contains(t, summary(), "Predictions made: 2 of ")

	for _, foreign := range []string{
		`{"app":"other","kind":"progress","version":1,"lessons":{}}`,
		`{"app":"tidemark","kind":"progress","version":2,"lessons":{}}`,
		`{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"predictions":{"order-3":{"choice":"b","right":"yes"}}}}}`,
		`[]`,
	} {
		ok := eval[bool](t, ctx, `window.tidemarkProgress.importText(`+jsQuote(foreign)+`).ok`)
		assert.False(t, ok, "accepted %s", foreign)
		assert.Contains(t, summary(), "Predictions made: 2 of ", "progress lost after refusing %s", foreign)
	}
	stored := eval[string](t, ctx, `localStorage.getItem("tidemark.progress")`)
	assert.True(t, strings.Contains(stored, `"order-3"`), "stored progress lost: %s", stored)

	assert.Empty(t, pageProblems(t, ctx))
}

// TestLessonAt360 checks the lesson has no page-wide horizontal scroll on a
// narrow phone screen, with its widgets taken over by the engine, and that
// the advance before/after pair stacks there.
func TestLessonAt360(t *testing.T) {
	base := startSite(t, web.Options{Lessons: lessonpage.Catalog(), Pages: lessonpage.Routes()})
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/high-water-mark")))
	if _, ok := web.LookupAsset("tidemark.wasm"); ok {
		waitEmbedsReady(t, ctx)
	}
	w := eval[int](t, ctx, `document.documentElement.scrollWidth`)
	assert.LessOrEqual(t, w, 360, "the page scrolls sideways at 360px")
	assert.False(t, eval[bool](t, ctx, sideBySide), "the advance before/after pair should stack at 360px")
}

// sideBySide reports whether the two sides of the lesson's comparison sit
// on one row.
const sideBySide = `(() => {
  const [a, b] = [...document.querySelectorAll('[data-testid="compare-side"]')].map((e) => e.getBoundingClientRect());
  return Math.abs(a.top - b.top) < 1 && b.left >= a.right - 1;
})()`

// waitEmbedsReady waits until the engine has taken over every widget on the
// lesson page.
func waitEmbedsReady(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
  const all = document.querySelectorAll('.tm-host[data-source]').length;
  return all > 0 && document.querySelectorAll('.tm-host[data-ready="true"]').length === all;
})()`))
	require.NoError(t, err, "the lesson's widgets were not all taken over by the engine")
}

// TestLessonEmbedsStepOnTheirOwn plays two embeds of the same scenario on the
// lesson page: each opens with its own knobs, steps with its own buttons and
// keys, leaves the other alone, and never touches the page's address.
func TestLessonEmbedsStepOnTheirOwn(t *testing.T) {
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		const msg = "tidemark.wasm not built; run `make wasm`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip(msg)
	}
	base := startSite(t, web.Options{Lessons: lessonpage.Catalog(), Pages: lessonpage.Routes()})
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/high-water-mark")))
	waitEmbedsReady(t, ctx)
	address := eval[string](t, ctx, `location.href`)

	// The pair in the visibility-gap section: a timestamp mark, then a log
	// position.
	ids := eval[[]string](t, ctx, `[...document.querySelectorAll('#visibility-gap [data-testid="scenario-embed"][data-scenario="hwm/visibility-gap"]')].map((e) => e.dataset.embedId)`)
	require.Len(t, ids, 2)
	a, b := ids[0], ids[1]
	require.NotEqual(t, a, b)
	host := func(id string) string { return `.tm-host[data-id="` + id + `"]` }
	stepOf := func(id string) int {
		return eval[int](t, ctx, `Number(document.querySelector('`+host(id)+` .tm-widget').dataset.step)`)
	}
	// Each widget is live (its play button shows) and opened with its own knobs.
	for _, id := range ids {
		assert.True(t, eval[bool](t, ctx, `document.querySelector('`+host(id)+` [data-testid="btn-play"]').checkVisibility()`), "widget %s is not live", id)
		assert.Equal(t, 0, stepOf(id))
	}
	assert.True(t, eval[bool](t, ctx, `document.getElementById('`+a+`-knob-mark-timestamp').checked`), "the first embed lost its knobs")
	assert.True(t, eval[bool](t, ctx, `document.getElementById('`+b+`-knob-mark-lsn').checked`), "the second embed opened without its knobs")

	// Step the first forward three times with its own button.
	for range 3 {
		click(t, ctx, host(a)+` [data-testid="btn-forward"]`)
	}
	assert.Equal(t, 3, stepOf(a))
	assert.Equal(t, 0, stepOf(b), "stepping one embed moved the other")
	assert.Contains(t, text(t, ctx, host(a)+` [data-testid="narration"]`), "Step 3 of")
	assert.Contains(t, text(t, ctx, host(b)+` [data-testid="narration"]`), "Step 0 of")

	// The second steps on its own, with a button and then a key.
	click(t, ctx, host(b)+` [data-testid="btn-forward"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight)))
	assert.Equal(t, 2, stepOf(b))
	assert.Equal(t, 3, stepOf(a), "stepping the second embed moved the first")

	// Each runs to its own end: the timestamp mark loses orders 3 and 4, the
	// log position loses nothing.
	click(t, ctx, host(a)+` [data-testid="btn-end"]`)
	click(t, ctx, host(b)+` [data-testid="btn-end"]`)
	assert.Contains(t, text(t, ctx, host(a)+` [data-testid="truth"]`), "3, 4")
	assert.Contains(t, text(t, ctx, host(b)+` [data-testid="truth"]`), "matches every committed source row")

	// A knob flipped in one embed stays in that embed.
	click(t, ctx, `label[for="`+a+`-knob-mark-lsn"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#`+a+`-knob-mark-lsn:checked`))))
	assert.True(t, eval[bool](t, ctx, `document.getElementById('`+b+`-knob-mark-lsn').checked`))
	others := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="scenario-embed"][data-scenario="hwm/visibility-gap"][data-knobs~="mark=timestamp"]')].map((e) => e.dataset.embedId)`)
	require.NotEmpty(t, others)
	for _, id := range others {
		if id != a {
			assert.True(t, eval[bool](t, ctx, `document.getElementById('`+id+`-knob-mark-timestamp').checked`), "a knob flip in %s reached %s", a, id)
		}
	}

	// Embedded widgets never rewrite the page's address.
	assert.Equal(t, address, eval[string](t, ctx, `location.href`))

	// On a wide screen the advance before/after pair sits side by side.
	assert.True(t, eval[bool](t, ctx, sideBySide), "the advance before/after pair should be side by side at 1280px")
	assert.Empty(t, pageProblems(t, ctx))
}

func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
