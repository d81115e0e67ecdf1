//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lesson page whose progress these tests keep, and where it is stored.
const (
	progressLesson = "high-water-mark"
	progressKey    = "tidemark.progress"
	asideKey1      = "tidemark.progress.aside.1"
)

// progressRecord is a stored progress record, as lesson.js writes it.
type progressRecord struct {
	App     string `json:"app"`
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	Lessons map[string]struct {
		Read        []string `json:"read"`
		Predictions map[string]struct {
			Choice  string `json:"choice"`
			Right   bool   `json:"right"`
			Retried bool   `json:"retried"`
		} `json:"predictions"`
	} `json:"lessons"`
}

// TestLessonProgressStorage checks that stored progress is never lost
// without a word: unreadable, newer and partly malformed records are kept
// aside, two tabs keep each other's saves, a full quota is reported and never
// followed by a claim of success, import previews and merges unless asked to
// replace, a file that cannot be read whole is refused, and clearing asks
// first. The cases share one browser; each has a
// browser context of its own, so its storage starts empty.
func TestLessonProgressStorage(t *testing.T) {
	base := startLessonSite(t)
	browser := startBrowser(t)

	t.Run("corrupt record kept aside and offered for export", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		raw := `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"predictions":{"order-3":{"choice":"b","ri`
		seedStorage(t, ctx, base, progressKey, raw)
		openLesson(t, ctx, base)

		waitTrue(t, ctx, "the page says the stored progress is unreadable", `document.querySelector('[data-testid="progress-problem"]').textContent.includes("is not valid JSON")`)
		assert.Contains(t, testText(t, ctx, "progress-problem"), "kept aside")
		assert.Equal(t, raw, stored(t, ctx, asideKey1), "the unreadable record was not kept aside untouched")
		assertKeptAndExported(t, ctx, raw)

		// A save now starts a new record; the one kept aside is left alone.
		answer(t, ctx, "order-3", "b")
		rec := storedRecord(t, ctx)
		assert.Equal(t, "b", rec.Lessons[progressLesson].Predictions["order-3"].Choice)
		assert.Equal(t, raw, stored(t, ctx, asideKey1))

		// After a reload the record is still offered, once.
		openLesson(t, ctx, base)
		waitTrue(t, ctx, "the kept-aside record is listed after a reload", `document.querySelectorAll('[data-testid="progress-aside-list"] li').length === 1`)
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("record from a newer version kept aside", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		raw := `{"app":"tidemark","kind":"progress","version":2,"lessons":{"high-water-mark":{"answers":[{"id":"order-3","choice":"b"}]}},"streak":3}`
		seedStorage(t, ctx, base, progressKey, raw)
		openLesson(t, ctx, base)

		waitTrue(t, ctx, "the page says the record is from a newer version", `document.querySelector('[data-testid="progress-problem"]').textContent.includes("newer version of Tidemark (version 2)")`)
		assertKeptAndExported(t, ctx, raw)
		answer(t, ctx, "gte-fix", "c")
		assert.Equal(t, raw, stored(t, ctx, asideKey1), "a save changed the newer record kept aside")
		assert.Equal(t, 1, storedRecord(t, ctx).Version)
		assert.Contains(t, testText(t, ctx, "progress-problem"), "newer version", "the page stopped saying what it set aside")

		// Once saved to a file, the learner may delete it; it stays deleted.
		jsClick(t, ctx, `[data-testid="progress-aside-delete"]`)
		waitTrue(t, ctx, "deleting asks first", `document.querySelector('[data-testid="progress-confirm"]').open`)
		assert.Equal(t, raw, stored(t, ctx, asideKey1), "deleted before the learner confirmed")
		jsClick(t, ctx, `[data-testid="progress-confirm-yes"]`)
		waitMessage(t, ctx, "Kept-aside record 1 deleted.")
		assert.Empty(t, stored(t, ctx, asideKey1))
		assert.Empty(t, testText(t, ctx, "progress-problem"))
		openLesson(t, ctx, base)
		waitTrue(t, ctx, "the answer is kept", `!!document.querySelector('form[data-prediction="gte-fix"][data-graded]')`)
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="progress-aside"]').hidden`), "a deleted record came back")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("a record deleted before any save stays deleted", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		raw := `not JSON at all`
		seedStorage(t, ctx, base, progressKey, raw)
		// Without IntersectionObserver no section is marked read on its own,
		// so nothing is saved until the learner acts.
		addScript(t, ctx, `delete window.IntersectionObserver`)
		openLesson(t, ctx, base)
		waitTrue(t, ctx, "the page says the stored progress is unreadable", `document.querySelector('[data-testid="progress-problem"]').textContent.includes("is not valid JSON")`)
		assert.Equal(t, raw, stored(t, ctx, progressKey), "reading the record changed it")
		assert.Equal(t, raw, stored(t, ctx, asideKey1))

		jsClick(t, ctx, `[data-testid="progress-aside-delete"]`)
		waitTrue(t, ctx, "deleting asks first", `document.querySelector('[data-testid="progress-confirm"]').open`)
		jsClick(t, ctx, `[data-testid="progress-confirm-yes"]`)
		waitMessage(t, ctx, "deleted")
		assert.Empty(t, stored(t, ctx, asideKey1))
		assert.Equal(t, 1, storedRecord(t, ctx).Version, "the unreadable record is still stored, to be set aside again")
		openLesson(t, ctx, base)
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="progress-aside"]').hidden`), "a deleted record came back")
		assert.Empty(t, testText(t, ctx, "progress-problem"))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("one malformed entry does not drop the valid ones", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		raw := `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["question",42],` +
			`"predictions":{"order-3":{"choice":"b","right":true},"gte-fix":{"choice":"a","right":"yes"}}}}}`
		seedStorage(t, ctx, base, progressKey, raw)
		openLesson(t, ctx, base)

		waitTrue(t, ctx, "the page says which entries it could not read", `document.querySelector('[data-testid="progress-problem"]').textContent.includes("2 entries this page cannot read")`)
		problem := testText(t, ctx, "progress-problem")
		assert.Contains(t, problem, "gte-fix")
		assert.Contains(t, problem, "The rest of it is in use")
		assert.Contains(t, testText(t, ctx, "progress-summary"), "Predictions made: 1 of ", "the valid answer was dropped")
		assert.True(t, eval[bool](t, ctx, `!!document.querySelector('form[data-prediction="order-3"][data-graded="right"]')`), "the valid answer is not shown")
		assert.Equal(t, "(1 of 4 sections read)", eval[string](t, ctx, `document.querySelector('[data-chapter="the-question"] [data-testid="toc-progress"]').textContent`), "the valid section read is not shown")
		assertKeptAndExported(t, ctx, raw)

		// The next save keeps every valid entry beside the new one.
		answer(t, ctx, "gte-fix", "c")
		hwm := storedRecord(t, ctx).Lessons[progressLesson]
		assert.Equal(t, "b", hwm.Predictions["order-3"].Choice)
		assert.Equal(t, "c", hwm.Predictions["gte-fix"].Choice)
		assert.Contains(t, hwm.Read, "question")
		assert.Equal(t, raw, stored(t, ctx, asideKey1))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("no room to keep a record aside: nothing is written over it", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		raw := `{"app":"tidemark","kind":"progress","version":3,"lessons":"elsewhere"}`
		seedStorage(t, ctx, base, progressKey, raw)
		// From here on, every page in this tab finds the storage nearly
		// full: the progress record may be rewritten in place, but nothing
		// else fits.
		addScript(t, ctx, `(() => {
  const set = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (key !== "tidemark.progress") {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    }
    return set.call(this, key, value);
  };
})()`)
		openLesson(t, ctx, base)

		waitTrue(t, ctx, "the page says it will not write over the record", `document.querySelector('[data-testid="progress-problem"]').textContent.includes("no room to keep a copy")`)
		answer(t, ctx, "order-3", "b")
		assert.Contains(t, testText(t, ctx, "progress-message"), "not stored, because the progress already stored could not be read nor kept aside")
		assert.Equal(t, raw, stored(t, ctx, progressKey), "the page wrote over a record it could not keep aside")
		assertKeptAndExported(t, ctx, raw)

		// Deleting it, once confirmed, is the learner's choice; then the
		// answer that waited is stored.
		jsClick(t, ctx, `[data-testid="progress-aside-delete"]`)
		waitTrue(t, ctx, "deleting asks first", `document.querySelector('[data-testid="progress-confirm"]').open`)
		assert.Equal(t, raw, stored(t, ctx, progressKey))
		jsClick(t, ctx, `[data-testid="progress-confirm-yes"]`)
		waitMessage(t, ctx, "deleted")
		assert.Equal(t, "b", storedRecord(t, ctx).Lessons[progressLesson].Predictions["order-3"].Choice)
		assert.Empty(t, testText(t, ctx, "progress-unsaved"))
		assert.Equal(t, 0, eval[int](t, ctx, `document.querySelectorAll('[data-testid="progress-aside-list"] li').length`))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("two tabs each saving keep both", func(t *testing.T) {
		a := newIsolatedTab(t, browser)
		b := newTabBeside(t, a)
		openLesson(t, a, base)
		openLesson(t, b, base)

		answer(t, a, "order-3", "b")
		waitTrue(t, b, "tab B shows tab A's answer without a reload", `!!document.querySelector('form[data-prediction="order-3"][data-graded="right"]')`)
		answer(t, b, "gte-fix", "c")
		waitTrue(t, a, "tab A shows tab B's answer without a reload", `!!document.querySelector('form[data-prediction="gte-fix"][data-graded]')`)

		// Both on the next chapter: a write whose storage event has not
		// reached this tab yet is kept too: every save re-reads what is
		// stored.
		openChapter(t, a, base, "gaps-or-duplicates")
		openChapter(t, b, base, "gaps-or-duplicates")
		eval[bool](t, b, `(() => {
  const r = JSON.parse(localStorage.getItem("tidemark.progress"));
  r.lessons["high-water-mark"].predictions["ties-gte"] = {choice: "c", right: true};
  localStorage.setItem("tidemark.progress", JSON.stringify(r));
  return true;
})()`)
		answer(t, b, "advance-merge", "a")
		// Each tab's browser process keeps its own copy of the storage and
		// hears of another's writes a moment later (docs/security.md: the
		// window is one read-modify-write); tab A answers once it has.
		waitTrue(t, a, "tab A shows tab B's answer without a reload", `!!document.querySelector('form[data-prediction="advance-merge"][data-graded]')`)
		answer(t, a, "race-monotonic", "a")

		preds := storedRecord(t, a).Lessons[progressLesson].Predictions
		for _, id := range []string{"order-3", "ties-gte", "gte-fix", "advance-merge", "race-monotonic"} {
			assert.Contains(t, preds, id, "a tab's save lost %s", id)
		}
		// A prediction is locked in once: a second tab's later answer does
		// not replace it.
		openChapter(t, a, base, "checks")
		openChapter(t, b, base, "checks")
		eval[bool](t, a, `(() => {
  const f = document.querySelector('form[data-prediction="which-check"]');
  f.querySelector('input[type=radio]').checked = true;
  return true;
})()`)
		answer(t, b, "which-check", "b")
		waitTrue(t, a, "tab A shows tab B's locked answer", `!!document.querySelector('form[data-prediction="which-check"][data-graded]')`)
		assert.Empty(t, pageProblems(t, a))
		assert.Empty(t, pageProblems(t, b))
	})

	t.Run("a full quota is reported and never followed by a claim of success", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		openLesson(t, ctx, base)
		answer(t, ctx, "order-3", "a")
		before := stored(t, ctx, progressKey)
		require.Contains(t, before, `"order-3"`)

		eval[bool](t, ctx, `(window.__setItem = Storage.prototype.setItem, true)`)
		eval[bool](t, ctx, storageFull+`; true`)
		answer(t, ctx, "gte-fix", "c")
		assert.Contains(t, testText(t, ctx, "progress-message"), "not stored, because the browser's storage for this site is full")
		assert.Contains(t, testText(t, ctx, "progress-unsaved"), "1 change on this page is not stored")
		assert.Contains(t, testText(t, ctx, "progress-summary"), "Predictions made: 2 of ", "the unsaved answer should still show")

		// An import cannot be stored either, and says so.
		upload(t, ctx, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["who","unit"]}}}`)
		waitTrue(t, ctx, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
		jsClick(t, ctx, `[data-testid="progress-import-confirm"]`)
		msg := waitMessage(t, ctx, "Nothing was imported")
		assert.Contains(t, msg, "Nothing was imported, because the browser's storage for this site is full")
		assert.NotContains(t, msg, "Progress imported")
		assert.Equal(t, before, stored(t, ctx, progressKey))
		assert.Contains(t, testText(t, ctx, "progress-unsaved"), "not stored", "the unsaved notice went away without a save")

		// So does a clear.
		jsClick(t, ctx, `[data-testid="progress-reset"]`)
		waitTrue(t, ctx, "clearing asks first", `document.querySelector('[data-testid="progress-confirm"]').open`)
		jsClick(t, ctx, `[data-testid="progress-confirm-yes"]`)
		msg = waitMessage(t, ctx, "not cleared")
		assert.Contains(t, msg, "Progress was not cleared, because the browser's storage for this site is full")
		assert.NotContains(t, msg, "cleared.")
		assert.Equal(t, before, stored(t, ctx, progressKey))
		assert.Contains(t, testText(t, ctx, "progress-summary"), "Predictions made: 2 of ")

		// With room again, the next save (another prediction answered)
		// stores the change that waited.
		eval[bool](t, ctx, `(Storage.prototype.setItem = window.__setItem, true)`)
		answer(t, ctx, "finer-timestamps", "a")
		preds := storedRecord(t, ctx).Lessons[progressLesson].Predictions
		assert.Contains(t, preds, "gte-fix", "the change kept while storage was full was not stored later")
		assert.Contains(t, preds, "finer-timestamps")
		assert.Equal(t, "a", preds["order-3"].Choice)
		assert.Empty(t, testText(t, ctx, "progress-unsaved"))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("another lesson's grades are checked on its own pages", func(t *testing.T) {
		// An import on lesson one takes lesson two's answers as the file
		// has them; lesson two's pages, which carry its answer key, grade
		// them again: "every order once" is not right for retry-append.
		ctx := newIsolatedTab(t, browser)
		// A later try's mark is kept when the page rewrites the record.
		seedStorage(t, ctx, base, progressKey, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"guarantee-chain":{"read":[],"predictions":{"retry-append":{"choice":"a","right":true},"reordered-customers":{"choice":"b","right":false,"retried":true}}}}}`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/guarantee-chain")))
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="progress"]`))))
		waitTrue(t, ctx, "the grade is checked", `JSON.parse(localStorage.getItem("`+progressKey+`")).lessons["guarantee-chain"].predictions["retry-append"].right === false`)
		assert.Contains(t, testText(t, ctx, "progress-summary"), "0 right")
		p := storedRecord(t, ctx).Lessons["guarantee-chain"].Predictions["reordered-customers"]
		assert.True(t, p.Retried, "the second try's mark is kept")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("another lesson's grades imported elsewhere are checked on its open page", func(t *testing.T) {
		// Lesson two's contents page is open in one tab; in another, a file
		// is imported on lesson one's page with a wrong grade for lesson
		// two. The open page redraws from what is stored, and must not
		// count that answer right until it is reloaded.
		a := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(a, chromedp.Navigate(base+"/lessons/guarantee-chain")))
		require.NoError(t, chromedp.Do(a, chromedp.WaitVisible(chromedp.CSS(`[data-testid="progress"]`))))
		b := newTabBeside(t, a)
		openLesson(t, b, base)
		r := eval[bool](t, b, `window.tidemarkProgress.importText(`+jsQuote(`{"app":"tidemark","kind":"progress","version":1,"lessons":{"guarantee-chain":{"predictions":{"retry-append":{"choice":"a","right":true}}}}}`)+`).ok`)
		require.True(t, r, "import on lesson one")
		waitTrue(t, a, "the open page shows the imported answer", `document.querySelector('[data-testid="progress-summary"]').textContent.includes("Predictions made: 1 of")`)
		assert.Contains(t, testText(t, a, "progress-summary"), "0 right", "the open page took the file's grade")
		assert.False(t, eval[bool](t, a, `window.tidemarkProgress.state().lessons["guarantee-chain"].predictions["retry-append"].right`))
		assert.Empty(t, pageProblems(t, a))
	})

	t.Run("another lesson's answers are named by its question and labels", func(t *testing.T) {
		// The preview on lesson one names lesson two's prediction by its
		// question and its options by their labels, as lesson two's own
		// page would, and not by ids a learner never saw.
		ctx := newIsolatedTab(t, browser)
		seedStorage(t, ctx, base, progressKey, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"guarantee-chain":{"read":[],"predictions":{"retry-append":{"choice":"a","right":false}}}}}`)
		openLesson(t, ctx, base)
		upload(t, ctx, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"guarantee-chain":{"predictions":{"retry-append":{"choice":"b","right":true}}}}}`)
		waitTrue(t, ctx, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
		merge := testText(t, ctx, "progress-import-merge-effect")
		assert.Contains(t, merge, "Keeps your answer to the prediction “Order 2")
		assert.Contains(t, merge, "in the lesson “The guarantees a pipeline inherits” (“Every order once”); the file has “Order 2 twice”.")
		assert.NotContains(t, merge, "retry-append")
		replace := testText(t, ctx, "progress-import-replace-effect")
		assert.Contains(t, replace, "in the lesson “The guarantees a pipeline inherits” from “Every order once” to the file's “Order 2 twice”.")
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)))
		waitMessage(t, ctx, "cancelled")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("an answer the file counts on a later try is a change", func(t *testing.T) {
		// The same choice, right at the first try here and on a later
		// try in the file: replacing changes the summary's counts, so the
		// preview says so instead of "already here".
		ctx := newIsolatedTab(t, browser)
		seedStorage(t, ctx, base, progressKey, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":[],"predictions":{"order-3":{"choice":"b","right":true}}}}}`)
		openLesson(t, ctx, base)
		upload(t, ctx, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":[],"predictions":{"order-3":{"choice":"b","right":true,"retried":true}}}}}`)
		waitTrue(t, ctx, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
		assert.Contains(t, testText(t, ctx, "progress-import-replace-effect"), "as given on a later try, as the file does.")
		assert.Contains(t, testText(t, ctx, "progress-import-merge-effect"), "as given at the first try; the file counts it as given on a later try.", "merge keeps it, and says so")
		jsClick(t, ctx, `[data-testid="progress-import-replace"]`)
		jsClick(t, ctx, `[data-testid="progress-import-confirm"]`)
		waitMessage(t, ctx, "Progress replaced with the file's.")
		assert.True(t, storedRecord(t, ctx).Lessons[progressLesson].Predictions["order-3"].Retried)
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("an id every object inherits is read as any other", func(t *testing.T) {
		// "constructor" is a well-formed id, and {}.constructor exists:
		// a lookup that does not ask for the record's own keys found it and
		// the preview threw.
		ctx := newIsolatedTab(t, browser)
		seedStorage(t, ctx, base, progressKey, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["question"]}}}`)
		openLesson(t, ctx, base)
		before := stored(t, ctx, progressKey)
		// Another lesson's answers are taken as the file has them, so its
		// "constructor" reaches the preview's comparison.
		upload(t, ctx, `{"app":"tidemark","kind":"progress","version":1,"lessons":{`+
			`"guarantee-chain":{"predictions":{"constructor":{"choice":"a","right":true}}},"constructor":{"read":["intro"]}}}`)
		waitTrue(t, ctx, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
		assert.Contains(t, testText(t, ctx, "progress-import-merge-effect"), `Adds 1 answer to the lesson “The guarantees a pipeline inherits”.`)
		assert.Contains(t, testText(t, ctx, "progress-import-skipped"), `lesson “constructor”`)
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)))
		waitMessage(t, ctx, "cancelled")
		assert.Equal(t, before, stored(t, ctx, progressKey))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("import previews, merges by default and replaces on request", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		seedStorage(t, ctx, base, progressKey, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["question"],"predictions":{"order-3":{"choice":"b","right":true}}}}}`)
		openLesson(t, ctx, base)
		before := stored(t, ctx, progressKey)
		file := `{"app":"tidemark","kind":"progress","version":1,"lessons":{` +
			`"high-water-mark":{"read":["question","who"],"predictions":{"order-3":{"choice":"a","right":false},"ties-gte":{"choice":"c","right":true},"no-such-prediction":{"choice":"a","right":true}}},` +
			`"no-such-lesson":{"read":["intro"]}}}`

		// The preview says what each way would change; Escape cancels.
		upload(t, ctx, file)
		waitTrue(t, ctx, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="progress-import-merge"]').checked`), "merge is not the default")
		merge := testText(t, ctx, "progress-import-merge-effect")
		assert.Contains(t, merge, "Adds 1 section read and 1 answer to this lesson.")
		assert.Contains(t, merge, "Keeps your answer to the prediction")
		replace := testText(t, ctx, "progress-import-replace-effect")
		assert.Contains(t, replace, "Changes your answer to the prediction")
		assert.Contains(t, replace, "Adds 1 section read and 1 answer to this lesson.")
		skipped := testText(t, ctx, "progress-import-skipped")
		assert.Contains(t, skipped, "no-such-lesson")
		assert.Contains(t, skipped, "no-such-prediction")
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)))
		waitTrue(t, ctx, "Escape closes the preview", `!document.querySelector('[data-testid="progress-import-dialog"]').open`)
		assert.Equal(t, "Import cancelled; your progress is unchanged.", waitMessage(t, ctx, "cancelled"))
		assert.Equal(t, before, stored(t, ctx, progressKey))
		assert.Equal(t, "progress-import", eval[string](t, ctx, `document.activeElement.id`), "focus did not return to the import control")

		// Import merges: the answer here stays, the new ones arrive.
		upload(t, ctx, file)
		waitTrue(t, ctx, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
		jsClick(t, ctx, `[data-testid="progress-import-confirm"]`)
		waitMessage(t, ctx, "Progress imported: the file's progress was merged with yours.")
		rec := storedRecord(t, ctx)
		hwm := rec.Lessons[progressLesson]
		assert.Equal(t, "b", hwm.Predictions["order-3"].Choice, "a merge replaced an answer")
		assert.Equal(t, "c", hwm.Predictions["ties-gte"].Choice)
		assert.ElementsMatch(t, []string{"question", "who"}, hwm.Read)
		assert.NotContains(t, hwm.Predictions, "no-such-prediction")
		assert.NotContains(t, rec.Lessons, "no-such-lesson")

		// Replace is a choice, made with the keyboard here.
		upload(t, ctx, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"predictions":{"order-3":{"choice":"a","right":true}}}}}`)
		waitTrue(t, ctx, "the import preview opens", `document.querySelector('[data-testid="progress-import-dialog"]').open`)
		assert.Contains(t, testText(t, ctx, "progress-import-replace-effect"), "Forgets 2 sections read and 1 answer in this lesson that the file does not have.")
		require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid="progress-import-replace"]`))))
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(" ")))
		require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid="progress-import-confirm"]`))))
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
		waitTrue(t, ctx, "the preview closes", `!document.querySelector('[data-testid="progress-import-dialog"]').open`)
		assert.Equal(t, "Progress replaced with the file's.", waitMessage(t, ctx, "replaced"))
		hwm = storedRecord(t, ctx).Lessons[progressLesson]
		assert.Empty(t, hwm.Read)
		require.Len(t, hwm.Predictions, 1)
		assert.Equal(t, "a", hwm.Predictions["order-3"].Choice)
		assert.False(t, hwm.Predictions["order-3"].Right, "an imported answer is graded by this page's answer key")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("an import matching nothing says so", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		openLesson(t, ctx, base)
		answer(t, ctx, "order-3", "b")
		before := stored(t, ctx, progressKey)
		for _, file := range []string{
			`{"app":"tidemark","kind":"progress","version":1,"lessons":{"another-lesson":{"read":["intro"],"predictions":{"q1":{"choice":"a","right":true}}}}}`,
			`{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["no-such-section"],"predictions":{"order-3":{"choice":"z","right":true}}}}}`,
		} {
			upload(t, ctx, file)
			waitTrue(t, ctx, "the import is refused", `document.querySelector('[data-testid="progress-message"]').textContent.startsWith("Nothing in that file matches")`)
			msg := testText(t, ctx, "progress-message")
			assert.Contains(t, msg, "Nothing was imported; your progress is unchanged.")
			assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="progress-import-dialog"]').open`), "a preview opened for %s", file)
			assert.Equal(t, before, stored(t, ctx, progressKey))
			eval[bool](t, ctx, `(document.querySelector('[data-testid="progress-message"]').textContent = "", true)`)
		}
		assert.Contains(t, testText(t, ctx, "progress-summary"), "Predictions made: 1 of ")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("an import file that cannot be read whole is refused", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		openLesson(t, ctx, base)
		answer(t, ctx, "order-3", "b")
		before := stored(t, ctx, progressKey)
		for _, tc := range []struct{ file, says string }{
			{`{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["who"`, "That file is not valid JSON."},
			{`{"app":"elsewhere","kind":"notes","lessons":{}}`, "That file is not a Tidemark progress file."},
			{`{"app":"tidemark","kind":"progress","version":2,"lessons":{"high-water-mark":{"read":["who"]}}}`, "comes from a newer version of Tidemark (version 2)."},
			{`{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["who",7],"predictions":{"gte-fix":{"choice":"c","right":true}}}}}`, "That progress file has 1 entry Tidemark cannot read"},
			{`{"app":"tidemark","kind":"progress","version":1,"lessons":{"high-water-mark":{"read":["who"]}},"pad":"` + strings.Repeat("x", 256<<10) + `"}`, "That file is too large to be a Tidemark progress file."},
		} {
			upload(t, ctx, tc.file)
			msg := waitMessage(t, ctx, tc.says)
			assert.Contains(t, msg, "Nothing was imported; your progress is unchanged.", tc.says)
			assert.NotContains(t, msg, "imported:", tc.says)
			assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="progress-import-dialog"]').open`), "a preview opened: %s", tc.says)
			assert.Equal(t, before, stored(t, ctx, progressKey), tc.says)
			eval[bool](t, ctx, `(document.querySelector('[data-testid="progress-message"]').textContent = "", true)`)
		}
		assert.Contains(t, testText(t, ctx, "progress-summary"), "Predictions made: 1 of ", "a refused file changed what the page shows")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("clear asks first", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		openLesson(t, ctx, base)
		answer(t, ctx, "order-3", "b")
		reset := chromedp.CSS(`[data-testid="progress-reset"]`)

		// From the keyboard: the dialog opens on the safe choice, and Escape
		// keeps everything.
		require.NoError(t, chromedp.Do(ctx, chromedp.Focus(reset)))
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
		waitTrue(t, ctx, "clearing asks first", `document.querySelector('[data-testid="progress-confirm"]').open`)
		assert.Equal(t, "progress-confirm-no", eval[string](t, ctx, `document.activeElement.dataset.testid`))
		assert.Contains(t, testText(t, ctx, "progress-confirm-text"), "1 answer")
		assert.Contains(t, testText(t, ctx, "progress-confirm-text"), "“The high-water mark”", "clearing names the lesson, whose every chapter it clears")
		assert.Contains(t, stored(t, ctx, progressKey), `"order-3"`, "progress was cleared before the learner confirmed")
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)))
		waitTrue(t, ctx, "Escape closes the dialog", `!document.querySelector('[data-testid="progress-confirm"]').open`)
		assert.Equal(t, "Nothing was cleared.", waitMessage(t, ctx, "cleared"))
		assert.Contains(t, stored(t, ctx, progressKey), `"order-3"`)
		assert.Equal(t, "progress-reset", eval[string](t, ctx, `document.activeElement.dataset.testid`), "focus did not return to the button")

		// Confirmed, it clears.
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
		waitTrue(t, ctx, "clearing asks again", `document.querySelector('[data-testid="progress-confirm"]').open`)
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(kb.ModifierShift))))
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
		waitTrue(t, ctx, "the dialog closes", `!document.querySelector('[data-testid="progress-confirm"]').open`)
		assert.Equal(t, "Progress for this lesson cleared.", waitMessage(t, ctx, "Progress for this lesson cleared."))
		assert.NotContains(t, storedRecord(t, ctx).Lessons, progressLesson)
		assert.Contains(t, testText(t, ctx, "progress-summary"), "Predictions made: 0 of ")
		assert.Empty(t, pageProblems(t, ctx))
	})
}

// storageFull makes every write to the page's storage fail as a full
// quota does.
const storageFull = `Storage.prototype.setItem = function () { throw new DOMException("The quota has been exceeded.", "QuotaExceededError"); }`

// addScript runs script in every document the tab of ctx opens from now on,
// before the page's own scripts.
func addScript(t *testing.T, ctx context.Context, script string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	})))
}

// seedStorage stores value under key for the site at base before a lesson
// page runs: it is written from the home page, which keeps no progress.
func seedStorage(t *testing.T, ctx context.Context, base, key, value string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
	eval[bool](t, ctx, `(localStorage.setItem(`+jsQuote(key)+`, `+jsQuote(value)+`), true)`)
}

// openLesson opens the chapter of lesson one with the order-3 and gte-fix
// predictions and waits until its progress panel is shown.
func openLesson(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	openChapter(t, ctx, base, "position-or-timestamp")
}

// openChapter opens a chapter of lesson one and waits until its progress
// panel is shown.
func openChapter(t *testing.T, ctx context.Context, base, chapter string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/"+progressLesson+"/"+chapter)))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="progress"]`))), "progress panel shown")
	eval[string](t, ctx, `document.documentElement.style.scrollBehavior = "auto"`)
}

// waitTrue waits up to five seconds for expr to be true in the page, and
// fails the test with what when it is not.
func waitTrue(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, what)
}

// waitMessage waits for the progress message to contain part, and returns
// the whole message.
func waitMessage(t *testing.T, ctx context.Context, part string) string {
	t.Helper()
	waitTrue(t, ctx, "progress message saying "+part, `document.querySelector('[data-testid="progress-message"]').textContent.includes(`+jsQuote(part)+`)`)
	return testText(t, ctx, "progress-message")
}

// answer locks in option as the answer to prediction id, as the learner
// would with the form's button.
func answer(t *testing.T, ctx context.Context, id, option string) {
	t.Helper()
	form := `document.querySelector('form[data-prediction="` + id + `"]')`
	eval[bool](t, ctx, `(() => {
  const f = `+form+`;
  f.querySelector('input[value="`+option+`"]').checked = true;
  f.requestSubmit(f.querySelector('[data-testid="prediction-submit"]'));
  return true;
})()`)
	waitTrue(t, ctx, "prediction "+id+" graded", form+`.hasAttribute("data-graded")`)
}

// jsClick clicks the element sel matches, through the page (the panel sits
// near the top, and a dialog above everything), so a layout that is still
// settling cannot make it miss.
func jsClick(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	eval[bool](t, ctx, `(document.querySelector(`+jsQuote(sel)+`).click(), true)`)
}

// testText returns the text of the element whose data-testid is id.
func testText(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return eval[string](t, ctx, `document.querySelector('[data-testid="`+id+`"]').textContent`)
}

// stored returns what the page's storage holds under key ("" for nothing).
func stored(t *testing.T, ctx context.Context, key string) string {
	t.Helper()
	return eval[string](t, ctx, `localStorage.getItem(`+jsQuote(key)+`) ?? ""`)
}

// storedRecord decodes the stored progress record.
func storedRecord(t *testing.T, ctx context.Context) progressRecord {
	t.Helper()
	var r progressRecord
	raw := stored(t, ctx, progressKey)
	require.NoError(t, json.Unmarshal([]byte(raw), &r), "stored progress: %s", raw)
	assert.Equal(t, "tidemark", r.App)
	return r
}

// upload chooses a file holding content in the progress import control.
func upload(t *testing.T, ctx context.Context, content string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "progress.json")
	require.NoError(t, os.WriteFile(file, []byte(content), 0o644))
	require.NoError(t, chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="progress-import"]`), []string{file})))
}

// assertKeptAndExported checks the page lists one record kept aside and
// that its button saves raw to a file, byte for byte.
func assertKeptAndExported(t *testing.T, ctx context.Context, raw string) {
	t.Helper()
	waitTrue(t, ctx, "the kept-aside record is listed", `!document.querySelector('[data-testid="progress-aside"]').hidden && document.querySelectorAll('[data-testid="progress-aside-export"]').length === 1`)
	eval[bool](t, ctx, `(() => {
  window.__blobs = [];
  const make = URL.createObjectURL;
  URL.createObjectURL = (b) => { window.__blobs.push(b); return make.call(URL, b); };
  return true;
})()`)
	jsClick(t, ctx, `[data-testid="progress-aside-export"]`)
	saved, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__blobs.length === 1 ? window.__blobs[0].text() : "no file saved"`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, raw, saved, "the kept-aside record was not saved as it was stored")
	assert.Contains(t, testText(t, ctx, "progress-message"), "exactly as it was stored")
}
