//go:build !js

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
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

	do("open the lesson", chromedp.Navigate(base+"/lessons/high-water-mark"))
	do("progress panel shown", chromedp.WaitVisible(css(`[data-testid="progress"]`)))
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
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(window.scrollTo(0, document.body.scrollHeight), document.querySelector('[data-testid="progress-summary"]').textContent.search(/Sections read: [1-9]/) >= 0)`))
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

	// Clear, then import the exported file through the file input.
	do("clear", chromedp.Click(css(`[data-testid="progress-reset"]`)))
	assert.Contains(t, summary(), "Predictions made: 0 of ")
	dir := t.TempDir()
	good := filepath.Join(dir, "tidemark-progress.json")
	require.NoError(t, os.WriteFile(good, []byte(exported), 0o644))
	do("import", chromedp.SetUploadFiles(css(`[data-testid="progress-import"]`), []string{good}))
	do("imported", chromedp.WaitVisible(css(order3+`[data-graded="right"]`)))
	assert.Equal(t, "Progress imported.", eval[string](t, ctx, `document.querySelector('[data-testid="progress-message"]').textContent`))
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
// narrow phone screen.
func TestLessonAt360(t *testing.T) {
	base := startSite(t, web.Options{Lessons: lessonpage.Catalog(), Pages: lessonpage.Routes()})
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/high-water-mark")))
	w := eval[int](t, ctx, `document.documentElement.scrollWidth`)
	assert.LessOrEqual(t, w, 360, "the page scrolls sideways at 360px")
}

func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
