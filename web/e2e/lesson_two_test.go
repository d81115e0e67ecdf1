//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons/course"
)

// TestLessonTwoAcrossTheSite follows a learner from the home page into
// lesson two: the home page lists both lessons, lesson one's last chapter
// leads on to lesson two, lesson two's contents list its chapters, an
// answer in one of its chapters is graded by the engine's key and kept
// under lesson two beside lesson one's, both show in the export, and an
// import into a fresh browser brings lesson two's answer back.
func TestLessonTwoAcrossTheSite(t *testing.T) {
	base := startLessonSite(t)
	browser := startBrowser(t)
	ctx := newIsolatedTab(t, browser)
	two, ok := course.Lookup("guarantee-chain")
	require.True(t, ok)
	one, ok := course.Lookup("high-water-mark")
	require.True(t, ok)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
	items := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="lesson-list"] [data-testid="lesson-item"] a')].map((a) => a.getAttribute("href"))`)
	assert.Equal(t, []string{"/lessons/high-water-mark", "/lessons/guarantee-chain"}, items)

	// Lesson one's last chapter points on to lesson two.
	last := one.Chapters[len(one.Chapters)-1].ID
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/high-water-mark/"+last)))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	assert.Equal(t, "/lessons/guarantee-chain", eval[string](t, ctx, `document.querySelector('[data-testid="chapter-next"]').getAttribute("href")`))
	// An answer in lesson one, to keep beside lesson two's.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	answer(t, ctx, firstPrediction(t, one, chapterGap), "b")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/high-water-mark/"+last)))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)

	// Lesson two's contents.
	follow(t, ctx, "chapter-next")
	waitTrue(t, ctx, "the contents page shows progress", `!document.querySelector('[data-testid="progress"]').hidden`)
	assert.Equal(t, two.Title, testText(t, ctx, "page-title"))
	assert.Equal(t, len(two.Chapters), eval[int](t, ctx, `document.querySelectorAll('[data-testid="toc-chapter"]').length`))
	assert.Equal(t, 10, len(two.Chapters))

	// An answer in the chapter on the chain, graded by the engine: the dual
	// write loses order 2.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/guarantee-chain/the-chain")))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	answer(t, ctx, "dual-write", "a")
	rec := storedRecord(t, ctx)
	require.Contains(t, rec.Lessons, "guarantee-chain")
	assert.True(t, rec.Lessons["guarantee-chain"].Predictions["dual-write"].Right, "the engine's key grades option a right")
	assert.Contains(t, rec.Lessons, "high-water-mark", "lesson one's answer was lost")
	// The chain builder is linked from the chapter.
	assert.True(t, eval[bool](t, ctx, `!!document.querySelector('a[href="/chain"]')`), "the chapter links to the chain builder")

	// The contents of lesson two count the answer.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/guarantee-chain")))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid="toc-chapter"][data-chapter="the-chain"] [data-testid="toc-progress"]').textContent`), "1 of ")

	// Export holds both lessons.
	eval[bool](t, ctx, `(() => {
  window.__blobs = [];
  const make = URL.createObjectURL;
  URL.createObjectURL = (b) => { window.__blobs.push(b); return make.call(URL, b); };
  return true;
})()`)
	jsClick(t, ctx, `[data-testid="progress-export"]`)
	saved, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__blobs.length === 1 ? window.__blobs[0].text() : "no file saved"`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	var exported progressRecord
	require.NoError(t, json.Unmarshal([]byte(saved), &exported), saved)
	assert.Contains(t, exported.Lessons, "high-water-mark")
	assert.Equal(t, "a", exported.Lessons["guarantee-chain"].Predictions["dual-write"].Choice)

	// Imported into a fresh browser, on lesson two's page, it comes back.
	fresh := newIsolatedTab(t, browser)
	require.NoError(t, chromedp.Do(fresh, chromedp.Navigate(base+"/lessons/guarantee-chain/the-chain")))
	waitTrue(t, fresh, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	upload(t, fresh, saved)
	waitTrue(t, fresh, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
	jsClick(t, fresh, `[data-testid="progress-import-confirm"]`)
	waitMessage(t, fresh, "Progress imported")
	waitTrue(t, fresh, "the imported answer is shown graded", `!!document.querySelector('form[data-prediction="dual-write"][data-graded]')`)
	got := storedRecord(t, fresh)
	assert.Equal(t, "a", got.Lessons["guarantee-chain"].Predictions["dual-write"].Choice)
	assert.Contains(t, got.Lessons, "high-water-mark", "the import dropped lesson one")
	assert.Empty(t, pageProblems(t, ctx))
	assert.Empty(t, pageProblems(t, fresh))
}

// firstPrediction returns the id of the first prediction of a chapter.
func firstPrediction(t *testing.T, l *course.Lesson, chapter string) string {
	t.Helper()
	for _, c := range l.Chapters {
		if c.ID != chapter {
			continue
		}
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				if p, ok := b.(course.Predict); ok {
					return p.ID
				}
			}
		}
	}
	t.Fatalf("chapter %s asks no prediction", chapter)
	return ""
}

// TestEveryChapterRunsItsWidgets opens every chapter of each lesson and
// finds the engine running the build the page preloads, and every widget
// on it taken over by that build and stepping on its own: a chapter loads
// one build for all its widgets, chosen from the worlds of all of their
// scenarios (web/pages.WorldsOf), so a scenario whose world that build
// lacked would fail here rather than in a learner's browser.
func TestEveryChapterRunsItsWidgets(t *testing.T) {
	base := startLessonSite(t)
	all, err := course.Lessons()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(startBrowser(t), 6*time.Minute)
	defer cancel()
	modules := map[string]int{}
	for _, l := range all {
		for _, c := range l.Chapters {
			path := "/lessons/" + l.Slug + "/" + c.ID
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+path)))
			if eval[int](t, ctx, `document.querySelectorAll('.tm-host[data-source]').length`) == 0 {
				continue
			}
			waitEmbedsReady(t, ctx)
			preloaded := eval[string](t, ctx, `(document.querySelector('link[rel="preload"][href$=".wasm"]') || {}).href || ""`)
			module := eval[string](t, ctx, `window.tidemarkEngine.module`)
			assert.Contains(t, preloaded, strings.TrimSuffix(module, ".wasm")+".", "%s runs another build than it preloads", path)
			modules[module]++
			ids := eval[[]string](t, ctx, `[...document.querySelectorAll('.tm-host[data-ready="true"]')].map((h) => h.dataset.id)`)
			for _, id := range ids {
				// Forward, or back from an embed the text opens at its last step.
				host := `.tm-host[data-id="` + id + `"]`
				widget := `document.querySelector('` + host + ` .tm-widget')`
				before := eval[int](t, ctx, `Number(`+widget+`.dataset.step)`)
				button, want := "btn-forward", before+1
				if before == eval[int](t, ctx, `Number(`+widget+`.dataset.steps)`) {
					button, want = "btn-back", before-1
				}
				press(t, ctx, host+` [data-testid="`+button+`"]`)
				waitFor(t, ctx, path+" "+id+" steps", `Number(`+widget+`.dataset.step) === `+itoa(want))
			}
			assert.Empty(t, pageProblems(t, ctx), path)
		}
	}
	t.Logf("chapters by the build they run: %v", modules)
	assert.Len(t, modules, 4, "the chapters use each build: the high-water mark's, the log's, the stream's and every world's")
}
