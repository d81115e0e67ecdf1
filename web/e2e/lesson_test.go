//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/web"
)

// The chapters of lesson one these tests use.
const (
	chapterBreaks   = "how-it-breaks"         // the ties question
	chapterGap      = "position-or-timestamp" // order-3 and gte-fix, the visibility-gap pair, and finer-timestamps
	chapterStoring  = "gaps-or-duplicates"    // advance-merge, race-monotonic, the before/after pair
	chapterChecks   = "checks"                // which-check and the checks table: the tallest section
	chapterFirst    = "the-question"
	lessonOnePrefix = "/lessons/high-water-mark"
)

// settleLesson waits for the engine to take over every widget on the page
// (they grow when it does, which moves what follows), and stops the page
// scrolling smoothly, so a click lands where it was aimed.
func settleLesson(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, ok := web.LookupAsset("tidemark.wasm"); ok && eval[int](t, ctx, `document.querySelectorAll('.tm-host[data-source]').length`) > 0 {
		waitEmbedsReady(t, ctx)
	}
	eval[string](t, ctx, `document.documentElement.style.scrollBehavior = "auto"`)
}

// TestLessonPredictAndProgress answers predictions, sees the engine's graded
// reveal, reloads and finds the progress kept, exports it, clears it, imports
// it back, and has a corrupt and a foreign file refused with the progress kept.
func TestLessonPredictAndProgress(t *testing.T) {
	base := startLessonSite(t)
	ctx := newBrowser(t)
	do := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, a), what)
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	order3 := `form[data-prediction="order-3"]`
	gte := `form[data-prediction="gte-fix"]`

	do("open the chapter", chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap))
	do("progress panel shown", chromedp.WaitVisible(css(`[data-testid="progress"]`)))
	settleLesson(t, ctx)
	// The answer key stays out of sight until the learner commits.
	assert.False(t, eval[bool](t, ctx, `document.querySelector('`+order3+` details').checkVisibility()`), "the reveal shows before answering")

	// Will order 3 reach the target? The engine says it is missing (option b).
	click(t, ctx, `#predict-order-3-b`)
	click(t, ctx, order3+` [data-testid="prediction-submit"]`)
	do("graded", chromedp.WaitVisible(css(order3+`[data-graded="right"] [data-testid="prediction-result"]`)))
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('`+order3+` [data-testid="prediction-result"]').textContent`), "Right")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('`+order3+` details').open`), "the reveal opens after answering")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('`+order3+` [data-testid="prediction-retry"]').checkVisibility()`), "a right answer offers another try")

	// A wrong answer is graded wrong and names the engine's answer.
	click(t, ctx, `#predict-gte-fix-a`)
	// Reading on (sections marked read redraw the progress) must not undo a
	// choice the learner has not locked in yet. Read the page from the top
	// a screen at a time, resting on each as a reader would.
	eval[bool](t, ctx, `(window.scrollTo(0, 0), true)`)
	readDown(t, ctx, `document.querySelector('[data-testid="progress-summary"]').textContent.search(/Sections read: [1-9]/) >= 0`)
	assert.True(t, eval[bool](t, ctx, `document.querySelector('#predict-gte-fix-a').checked`), "redrawing progress cleared the learner's choice")
	click(t, ctx, gte+` [data-testid="prediction-submit"]`)
	do("graded", chromedp.WaitVisible(css(gte+`[data-graded="wrong"] [data-testid="prediction-result"]`)))
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('`+gte+` [data-testid="prediction-result"]').textContent`), "Order 3 only")

	summary := func() string {
		return eval[string](t, ctx, `document.querySelector('[data-testid="progress-summary"]').textContent`)
	}
	l, ok := course.Lookup("high-water-mark")
	require.True(t, ok)
	assert.Contains(t, summary(), "Predictions made: 2 of "+itoa(len(l.Predictions()))+", 1 right.", "the count is the whole lesson's")
	assert.Contains(t, summary(), " of "+itoa(len(l.MainSections()))+".")

	// Reload: the answers are still there, locked.
	do("reload", chromedp.Reload())
	settleLesson(t, ctx)
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
	assert.False(t, p["gte-fix"].Right)
	click(t, ctx, `[data-testid="progress-export"]`)
	do("export message", chromedp.WaitVisible(css(`[data-testid="progress-message"]`)))

	// Clear (it asks first), then import the exported file through the file
	// input (it shows what it will change first).
	do("scroll to the panel", chromedp.ScrollIntoView(css(`[data-testid="progress-reset"]`)))
	click(t, ctx, `[data-testid="progress-reset"]`)
	click(t, ctx, `[data-testid="progress-confirm-yes"]`)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid="progress-summary"]').textContent.includes("Predictions made: 0 of ")`))
	require.NoError(t, err, "progress cleared")
	dir := t.TempDir()
	good := filepath.Join(dir, "tidemark-progress.json")
	require.NoError(t, os.WriteFile(good, []byte(exported), 0o644))
	do("import", chromedp.SetUploadFiles(css(`[data-testid="progress-import"]`), []string{good}))
	click(t, ctx, `[data-testid="progress-import-confirm"]`)
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

	// A file the browser cannot read once picked (gone, or changed since)
	// is named in a message, and nothing changes.
	eval[bool](t, ctx, `(Blob.prototype.text = () => Promise.reject(new DOMException("gone", "NotReadableError")), true)`)
	do("import unreadable", chromedp.SetUploadFiles(css(`[data-testid="progress-import"]`), []string{good}))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid="progress-message"]').textContent.includes("could not be read")`))
	require.NoError(t, err, "an unreadable file is reported")
	assert.Equal(t, "The file “tidemark-progress.json” could not be read (NotReadableError). Nothing was imported; your progress is unchanged.",
		eval[string](t, ctx, `document.querySelector('[data-testid="progress-message"]').textContent`))
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

func itoa(n int) string { return strconv.Itoa(n) }

// follow clicks the link whose data-testid is id and waits for the page it
// leads to.
func follow(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	sel := `[data-testid="` + id + `"]`
	href := eval[string](t, ctx, `document.querySelector('`+sel+`').href`)
	a := aimAt(t, ctx, sel)
	_, err := chromedp.RunResponse(ctx, chromedp.MouseClickXY(a.X, a.Y))
	require.NoError(t, err, "follow %s", id)
	assert.Equal(t, href, eval[string](t, ctx, `location.href`))
	waitTrue(t, ctx, "the page's progress panel", `!!document.querySelector('[data-testid="progress"]') && !document.querySelector('[data-testid="progress"]').hidden`)
}

// readDown reads the page as a learner does, until done (a JavaScript
// expression) is true: it scrolls down three quarters of a screen at a
// time, letting the page take in each screen (it does once the page has
// rested), and at the end takes in the last screen a few more times, as a
// reader who stops there does (the page's widgets draw as they come into
// view and can make it taller after it first seemed to end, and then it
// scrolls on). When done is still false at the end it goes back to the top
// and reads down once more, as a reader who skimmed would: parts of the page
// that are off screen are laid out at a placeholder height until they are
// first drawn, so the text under a screen can move up past its top while
// the page takes its real size, which a continuous scroll never skips but a
// jump of most of a screen can. It fails the test when done is still false
// after three passes, and says when it needed more than one.
func readDown(t *testing.T, ctx context.Context, done string) {
	t.Helper()
	for pass := 1; pass <= 3; pass++ {
		if pass > 1 {
			t.Logf("reading down again from the top (pass %d): %s", pass, done)
			eval[bool](t, ctx, `(window.scrollTo(0, 0), true)`)
		}
		if readDownOnce(t, ctx, done) {
			return
		}
	}
	waitTrue(t, ctx, "reading down the page: "+done, done)
}

// readDownOnce reads from where the page is to its end, and says whether
// done became true on the way.
func readDownOnce(t *testing.T, ctx context.Context, done string) bool {
	t.Helper()
	// look does what a reader does (a scroll, or nothing) and waits until
	// the page has taken in the screen after it.
	look := func(action string) {
		looks := eval[int](t, ctx, `window.tidemarkProgress.looks()`)
		eval[bool](t, ctx, `(`+action+`, window.dispatchEvent(new Event("scroll")), true)`)
		waitTrue(t, ctx, "the page takes in the screen", `window.tidemarkProgress.looks() > `+itoa(looks))
	}
	look(`0`) // first take in the screen the page is on
	atEnd := 0
	for i := 0; i < 600 && atEnd < 10; i++ {
		if eval[bool](t, ctx, done) {
			return true
		}
		if eval[bool](t, ctx, `window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1`) {
			atEnd++
			look(`0`)
		} else {
			look(`window.scrollBy(0, window.innerHeight * 0.75)`)
		}
	}
	return eval[bool](t, ctx, done)
}

// TestLessonChapters walks lesson one as a learner does: from the contents
// to chapter one and on with "next", back with "previous", the table of
// contents showing each chapter's progress as it changes, one address per
// chapter, and an address from before the chapters landing on its chapter.
func TestLessonChapters(t *testing.T) {
	base := startLessonSite(t)
	ctx := newBrowser(t)
	l, ok := course.Lookup("high-water-mark")
	require.True(t, ok)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix)))
	waitTrue(t, ctx, "the contents page shows progress", `!document.querySelector('[data-testid="progress"]').hidden`)
	assert.Equal(t, l.Title, testText(t, ctx, "page-title"))
	assert.Equal(t, len(l.Chapters), eval[int](t, ctx, `document.querySelectorAll('[data-testid="toc-chapter"]').length`))
	assert.Equal(t, "(not started)", eval[string](t, ctx, `document.querySelector('[data-testid="toc-chapter"] [data-testid="toc-progress"]').textContent`))

	// Start, then next and previous, each a page of its own.
	follow(t, ctx, "lesson-start")
	assert.Equal(t, lessonOnePrefix+"/"+chapterFirst, eval[string](t, ctx, `location.pathname`))
	assert.Equal(t, l.Chapters[0].Title, testText(t, ctx, "page-title"))
	follow(t, ctx, "chapter-next")
	assert.Equal(t, lessonOnePrefix+"/"+chapterBreaks, eval[string](t, ctx, `location.pathname`))
	assert.Equal(t, l.Chapters[1].Title, testText(t, ctx, "page-title"))
	assert.Contains(t, testText(t, ctx, "lesson-crumb"), "chapter 2 of ")
	follow(t, ctx, "chapter-prev")
	assert.Equal(t, lessonOnePrefix+"/"+chapterFirst, eval[string](t, ctx, `location.pathname`))

	// Read chapter one's four sections; the contents say so.
	eval[string](t, ctx, `document.documentElement.style.scrollBehavior = "auto"`)
	readDown(t, ctx, `document.querySelectorAll('[data-testid="read-mark"]:not([hidden])').length === 4`)
	toc := func(chapter string) string {
		return eval[string](t, ctx, `document.querySelector('[data-testid="toc-chapter"][data-chapter="`+chapter+`"] [data-testid="toc-progress"]').textContent`)
	}
	assert.Equal(t, "(✓ done)", toc(chapterFirst))
	assert.Equal(t, "✓", eval[string](t, ctx, `document.querySelector('[data-chapter="`+chapterFirst+`"] [data-testid="toc-progress"] [aria-hidden="true"]').textContent`), "the tick is not read out")

	// An answer in chapter three shows in the contents of every page.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	answer(t, ctx, "order-3", "b")
	assert.Contains(t, toc(chapterGap), "1 of 3 predictions answered")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix)))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	assert.Equal(t, "(✓ done)", toc(chapterFirst))
	assert.Contains(t, toc(chapterGap), "1 of 3 predictions answered")
	assert.Equal(t, "true", eval[string](t, ctx, `document.querySelector('[data-chapter="`+chapterFirst+`"]').dataset.done`))
	// The contents page now points on to the first chapter not done.
	assert.Contains(t, testText(t, ctx, "lesson-start"), "Continue with chapter 2: "+l.Chapters[1].Title)

	// The old single-page address of a section lands on its chapter.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"#visibility-gap")))
	// The page goes on to another, so the wait outlives a document or two.
	moved := false
	for i := 0; i < 50 && !moved; i++ {
		moved, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`location.pathname === "`+lessonOnePrefix+"/"+chapterGap+`" && location.hash === "#visibility-gap" && document.readyState === "complete"`))
		time.Sleep(100 * time.Millisecond)
	}
	require.True(t, moved, "the old address did not move on to its chapter")
	assert.Empty(t, pageProblems(t, ctx))

	// So does a chapter's address with a section of another chapter.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterFirst+"#visibility-gap")))
	moved = false
	for i := 0; i < 50 && !moved; i++ {
		moved, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`location.pathname === "`+lessonOnePrefix+"/"+chapterGap+`" && location.hash === "#visibility-gap" && document.readyState === "complete"`))
		time.Sleep(100 * time.Millisecond)
	}
	require.True(t, moved, "a section of another chapter did not move on to its chapter")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestLookMeasuresTheScreenItself: a look right after a jump, before the
// page's IntersectionObserver has reported the section now on screen, still
// takes that section in. (A look used to go by the observer's last report,
// so a reader who moved on at once never had the screen counted; CI's
// reading test failed so once.)
func TestLookMeasuresTheScreenItself(t *testing.T) {
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 700)))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterFirst)))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	settleLesson(t, ctx)
	last := eval[string](t, ctx, `[...document.querySelectorAll("section[data-main]")].at(-1).dataset.section`)
	require.Equal(t, 0.0, eval[float64](t, ctx, `window.tidemarkProgress.seen(`+jsQuote(last)+`)`), "the last section starts unseen")
	// The jump and the look in one task: no observer callback can come between.
	seen := eval[float64](t, ctx, `(() => {
  const el = document.querySelector("section[data-main][data-section=" + CSS.escape(`+jsQuote(last)+`) + "]");
  window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY);
  window.tidemarkProgress.look();
  return window.tidemarkProgress.seen(`+jsQuote(last)+`);
})()`)
	assert.Greater(t, seen, 0.0, "the look took in the section the jump brought on screen")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestTallSectionIsReadByWhatWasSeen opens the chapter whose section is
// many screens tall: jumping to its end does not mark it read, reading
// down through it does.
func TestTallSectionIsReadByWhatWasSeen(t *testing.T) {
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterChecks)))
	waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	settleLesson(t, ctx)
	tall := eval[float64](t, ctx, `document.getElementById("checks").getBoundingClientRect().height / window.innerHeight`)
	require.Greater(t, tall, 5.0, "the checks section should be many screens tall")
	unread := `document.querySelector('#checks [data-testid="read-mark"]').hidden`

	// Jump straight to the section's end and rest there: its end has been
	// on screen, but not its middle.
	eval[bool](t, ctx, `(document.getElementById("checks").scrollIntoView({block: "end"}), true)`)
	time.Sleep(800 * time.Millisecond)
	assert.True(t, eval[bool](t, ctx, unread), "a section flown past is marked read")
	seen := eval[float64](t, ctx, `window.tidemarkProgress.seen("checks")`)
	assert.Greater(t, seen, 0.0)
	assert.Less(t, seen, 0.5)

	// Read it from the top, a screen at a time.
	eval[bool](t, ctx, `(window.scrollTo(0, 0), true)`)
	readDown(t, ctx, `!`+unread)
	assert.Equal(t, 1.0, eval[float64](t, ctx, `window.tidemarkProgress.seen("checks")`))
	assert.Contains(t, storedRecordRead(t, ctx), "checks")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestEverySectionCanBeRead reads every chapter of each lesson to its end
// in a tall window and finds the counter at all of its sections.
func TestEverySectionCanBeRead(t *testing.T) {
	base := startLessonSite(t)
	all, err := course.Lessons()
	require.NoError(t, err)
	require.Len(t, all, 2)
	for _, l := range all {
		t.Run(l.Slug, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(startBrowser(t), 4*time.Minute)
			defer cancel()
			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 2400)))
			for _, c := range l.Chapters {
				require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/"+l.Slug+"/"+c.ID)))
				waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
				eval[string](t, ctx, `document.documentElement.style.scrollBehavior = "auto"`)
				var ids []string
				for _, s := range c.MainSections() {
					ids = append(ids, `!document.querySelector('#`+s+` [data-testid="read-mark"]').hidden`)
				}
				readDown(t, ctx, strings.Join(ids, " && "))
			}
			n := len(l.MainSections())
			assert.Contains(t, testText(t, ctx, "progress-summary"), "Sections read: "+itoa(n)+" of "+itoa(n)+".")
		})
	}
}

// storedRecordRead returns the sections read stored for lesson one.
func storedRecordRead(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return storedRecord(t, ctx).Lessons[progressLesson].Read
}

// TestPredictionRetry answers wrong, sees why, and tries again for
// practice: the later try is graded on the page, but the answer key was
// shown before it, so it is never stored and progress keeps the first
// answer and its grade, in this tab, in another and after a reload.
func TestPredictionRetry(t *testing.T) {
	base := startLessonSite(t)
	browser := startBrowser(t)
	a := newIsolatedTab(t, browser)
	b := newTabBeside(t, a)
	for _, ctx := range []context.Context{a, b} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
		waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	}
	form := `form[data-prediction="gte-fix"]`
	result := form + ` [data-testid="prediction-result"]`
	answer(t, a, "gte-fix", "a")
	assert.Equal(t, "wrong", eval[string](t, a, `document.querySelector('`+form+`').dataset.graded`))
	assert.True(t, eval[bool](t, a, `document.querySelector('`+form+` details').open`), "the why is not shown")
	assert.Contains(t, text(t, a, result), "You may try again for practice: your progress counts your first answer.")
	retry := form + ` [data-testid="prediction-retry"]`
	require.True(t, eval[bool](t, a, `document.querySelector('`+retry+`').checkVisibility()`), "no second try is offered")

	// Try again: the form opens, the key hides, the stored answer stays.
	click(t, a, retry)
	waitTrue(t, a, "the form opens again", `!document.querySelector('#predict-gte-fix-b').disabled`)
	assert.False(t, eval[bool](t, a, `document.querySelector('`+form+` details').checkVisibility()`), "the answer key stays shown during the second try")
	assert.False(t, eval[bool](t, a, `document.querySelector('`+form+` [data-testid="prediction-submit"]').hidden`))
	assert.Equal(t, "gte-fix", eval[string](t, a, `document.activeElement.name.replace("predict-", "")`), "focus does not go to the options")
	assert.Contains(t, text(t, a, result), "for practice")
	assert.Equal(t, "a", storedRecord(t, a).Lessons[progressLesson].Predictions["gte-fix"].Choice, "trying again dropped the stored answer")
	assert.Contains(t, testText(t, a, "progress-summary"), "Predictions made: 1 of ")

	// With the keyboard: pick b and lock it in. It is graded right, as
	// practice; the first answer, wrong, is what progress keeps.
	require.NoError(t, chromedp.Do(a, chromedp.Focus(chromedp.CSS(`#predict-gte-fix-b`))))
	require.NoError(t, chromedp.Do(a, chromedp.KeyEvent(" ")))
	click(t, a, form+` [data-testid="prediction-submit"]`)
	waitTrue(t, a, "graded right", `document.querySelector('`+form+`').dataset.graded === "right"`)
	assert.Equal(t, "true", eval[string](t, a, `document.querySelector('`+form+`').dataset.practice || ""`))
	assert.True(t, eval[bool](t, a, `document.querySelector('#predict-gte-fix-b').checked`), "the later try's choice is not shown")
	assert.Contains(t, text(t, a, result), "Right this time")
	assert.Contains(t, text(t, a, result), "This try was practice: your progress counts your first answer, “None — >= catches everything”, which was not right.")
	got := storedRecord(t, a).Lessons[progressLesson].Predictions["gte-fix"]
	assert.Equal(t, "a", got.Choice, "the later try replaced the first answer")
	assert.False(t, got.Right, "the later try made the first answer right")
	assert.False(t, got.Retried)
	assert.Contains(t, testText(t, a, "progress-summary"), ", 0 right.")
	assert.False(t, eval[bool](t, a, `document.querySelector('`+retry+`').checkVisibility()`), "a right answer offers another try")

	// Another tab and a reload show the first answer, and offer practice
	// again.
	assert.Equal(t, "wrong", eval[string](t, b, `document.querySelector('`+form+`').dataset.graded`))
	assert.Contains(t, testText(t, b, "progress-summary"), ", 0 right.")
	require.NoError(t, chromedp.Do(a, chromedp.Reload()))
	waitTrue(t, a, "graded again after the reload", `document.querySelector('`+form+`').dataset.graded === "wrong"`)
	assert.True(t, eval[bool](t, a, `document.querySelector('#predict-gte-fix-a').checked`))
	assert.True(t, eval[bool](t, a, `document.querySelector('`+retry+`').checkVisibility()`))

	// A practice try open while the stored answer goes (cleared in another
	// tab) gives way: the prediction is asked afresh, and an answer locked
	// in then is a first answer, stored.
	click(t, a, retry)
	waitTrue(t, a, "tab A tries again", `document.querySelector('`+form+`').dataset.retrying === "true"`)
	eval[bool](t, b, `(() => {
  const r = JSON.parse(localStorage.getItem("`+progressKey+`"));
  delete r.lessons["`+progressLesson+`"].predictions["gte-fix"];
  localStorage.setItem("`+progressKey+`", JSON.stringify(r));
  return true;
})()`)
	waitTrue(t, a, "tab A asks afresh", `!document.querySelector('`+form+`').dataset.retrying && !document.querySelector('#predict-gte-fix-b').disabled`)
	answer(t, a, "gte-fix", "b")
	got = storedRecord(t, a).Lessons[progressLesson].Predictions["gte-fix"]
	assert.Equal(t, "b", got.Choice)
	assert.True(t, got.Right)
	assert.Contains(t, testText(t, a, "progress-summary"), ", 1 right.")
	assert.Empty(t, pageProblems(t, a))
	assert.Empty(t, pageProblems(t, b))
}

// TestLaterTryKeepsTheFirstAnswer follows a review's steps on lesson two:
// a wrong first prediction, the engine's answer revealed, "Try again" and
// the right option. The progress line still counts none right, and the
// exported progress holds the first choice, graded wrong. An answer stored
// by an earlier version as right on a later try (retried) is still read,
// counted apart and kept.
func TestLaterTryKeepsTheFirstAnswer(t *testing.T) {
	base := startLessonSite(t)
	browser := startBrowser(t)
	ctx := newIsolatedTab(t, browser)
	const lesson, pid = "guarantee-chain", "reordered-customers"
	open := func() {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/"+lesson+"/how-it-breaks")))
		waitTrue(t, ctx, "progress shown", `!document.querySelector('[data-testid="progress"]').hidden`)
	}
	open()
	form := `form[data-prediction="` + pid + `"]`
	answer(t, ctx, pid, "b") // "Customer 3 as well"
	assert.Contains(t, text(t, ctx, form+` [data-testid="prediction-result"]`), "Not this time. The engine's answer: Customers 1 and 6.")
	assert.Contains(t, testText(t, ctx, "progress-summary"), "Predictions made: 1 of ")
	assert.Contains(t, testText(t, ctx, "progress-summary"), ", 0 right.")
	click(t, ctx, form+` [data-testid="prediction-retry"]`)
	waitTrue(t, ctx, "the form opens again", `!document.querySelector('#predict-`+pid+`-a').disabled`)
	answer(t, ctx, pid, "a")
	assert.Equal(t, "right", eval[string](t, ctx, `document.querySelector('`+form+`').dataset.graded`))
	assert.Contains(t, text(t, ctx, form+` [data-testid="prediction-result"]`), "your progress counts your first answer, “Customer 3 as well”")
	assert.Contains(t, testText(t, ctx, "progress-summary"), ", 0 right.", "a later try counted as right")
	assert.NotContains(t, testText(t, ctx, "progress-summary"), "later try")

	// The exported file is what the learner predicted first.
	eval[bool](t, ctx, `(() => {
  const B = window.Blob;
  window.Blob = class extends B { constructor(parts, o) { super(parts, o); window.exported = parts.join(""); } };
  return true;
})()`)
	jsClick(t, ctx, `[data-testid="progress-export"]`)
	waitTrue(t, ctx, "progress exported", `typeof window.exported === "string"`)
	var file progressRecord
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, ctx, `window.exported`)), &file))
	got := file.Lessons[lesson].Predictions[pid]
	assert.Equal(t, "b", got.Choice, "the export holds the later try")
	assert.False(t, got.Right)
	assert.False(t, got.Retried)

	// An earlier version stored an answer right on a later try as one:
	// it is read, counted apart from the answers right the first time,
	// and kept as it is.
	seedStorage(t, ctx, base, progressKey, `{"app":"tidemark","kind":"progress","version":1,"lessons":{"`+lesson+`":{"read":[],"predictions":{"`+pid+`":{"choice":"a","right":true,"retried":true}}}}}`)
	open()
	waitTrue(t, ctx, "the stored answer is shown", `document.querySelector('`+form+`').dataset.graded === "right"`)
	assert.Contains(t, text(t, ctx, form+` [data-testid="prediction-result"]`), "Right on a later try")
	assert.Contains(t, testText(t, ctx, "progress-summary"), ", 0 right, 1 more on a later try.")
	assert.True(t, storedRecord(t, ctx).Lessons[lesson].Predictions[pid].Retried, "the later try's mark is lost")
	assert.Empty(t, testText(t, ctx, "progress-problem"), "the record is not read whole")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestLessonAt360 checks lesson pages have no page-wide horizontal scroll
// on a narrow phone screen, with their widgets taken over by the engine, and
// that the advance before/after pair stacks there.
func TestLessonAt360(t *testing.T) {
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)))
	for _, path := range []string{lessonOnePrefix, lessonOnePrefix + "/" + chapterStoring, lessonOnePrefix + "/" + chapterChecks} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+path)))
		settleLesson(t, ctx)
		w := eval[int](t, ctx, `document.documentElement.scrollWidth`)
		assert.LessOrEqual(t, w, 360, "%s scrolls sideways at 360px", path)
		if path == lessonOnePrefix+"/"+chapterStoring {
			assert.False(t, eval[bool](t, ctx, sideBySide), "the advance before/after pair should stack at 360px")
			// A comparison takes the column's width: a browser's 40px
			// indent on each side of its figure left each embed 263px of
			// a 390px phone.
			assert.Equal(t, eval[float64](t, ctx, `document.querySelector('.lesson-section').getBoundingClientRect().width`),
				eval[float64](t, ctx, `document.querySelector('figure.compare').getBoundingClientRect().width`), "the comparison is as wide as its section")
		}
	}
	// A table of prose stacks, each cell under its column's name: the
	// five failures' last column, the first move, waited off the screen in
	// a box that scrolled, and its caption was cut mid-word.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/guarantee-chain/five-failures")))
	settleLesson(t, ctx)
	off := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="table"] caption, [data-testid="table"] tbody > tr > *')].filter((c) => c.getBoundingClientRect().right > document.documentElement.clientWidth).map((c) => c.textContent.slice(0, 30))`)
	assert.Empty(t, off, "table cells off the screen at 360px")
	assert.Equal(t, `"First move"`, eval[string](t, ctx, `getComputedStyle(document.querySelector('[data-testid="table"] tbody td:last-child'), '::before').content`), "a cell says its column")
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

// TestLessonEmbedsStepOnTheirOwn plays two embeds of the same scenario on a
// chapter: each opens with its own knobs, steps with its own buttons and
// keys, leaves the other alone, and never touches the page's address. An
// embed the text opens at a step is taken over at that step.
func TestLessonEmbedsStepOnTheirOwn(t *testing.T) {
	needWasm(t)
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
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
	for _, id := range ids {
		assert.True(t, eval[bool](t, ctx, `document.querySelector('`+host(id)+` [data-testid="btn-play"]').checkVisibility()`), "widget %s is not live", id)
		assert.Equal(t, 0, stepOf(id))
	}
	assert.True(t, eval[bool](t, ctx, `document.getElementById('`+a+`-knob-mark-timestamp').checked`), "the first embed lost its knobs")
	assert.True(t, eval[bool](t, ctx, `document.getElementById('`+b+`-knob-mark-lsn').checked`), "the second embed opened without its knobs")

	for range 3 {
		press(t, ctx, host(a)+` [data-testid="btn-forward"]`)
	}
	assert.Equal(t, 3, stepOf(a))
	assert.Equal(t, 0, stepOf(b), "stepping one embed moved the other")
	assert.Contains(t, text(t, ctx, host(a)+` [data-testid="narration"]`), "Step 3 of")
	assert.Contains(t, text(t, ctx, host(b)+` [data-testid="narration"]`), "Step 0 of")

	press(t, ctx, host(b)+` [data-testid="btn-forward"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight)))
	assert.Equal(t, 2, stepOf(b))
	assert.Equal(t, 3, stepOf(a), "stepping the second embed moved the first")

	// Each runs to its own end: the timestamp mark loses orders 3 and 4, the
	// log position loses nothing.
	press(t, ctx, host(a)+` [data-testid="btn-end"]`)
	press(t, ctx, host(b)+` [data-testid="btn-end"]`)
	assert.Contains(t, text(t, ctx, host(a)+` [data-testid="truth"]`), "3, 4")
	assert.Contains(t, text(t, ctx, host(b)+` [data-testid="truth"]`), "holds every row it should, once, in its latest version")

	// idle waits for embed a to have no run going on (aria-busy gone): a
	// run ends in the widget drawn anew, and a node found before that is
	// gone after it.
	idle := func(what string) {
		t.Helper()
		waitTrue(t, ctx, what, `!document.querySelector('`+host(a)+`').hasAttribute("aria-busy")`)
	}

	// A knob flipped in one embed stays in that embed.
	// By keyboard (focus the radio, Space), which cannot miss while the
	// page lays out again as a click at coordinates can.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#`+a+`-knob-mark-lsn`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(" ")))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#`+a+`-knob-mark-lsn:checked`))))
	assert.True(t, eval[bool](t, ctx, `document.getElementById('`+b+`-knob-mark-lsn').checked`))
	assert.False(t, eval[bool](t, ctx, `document.getElementById('`+b+`-knob-mark-timestamp').checked`))

	// The summary under the flipped embed still says how the run ends with
	// the text's settings (orders 3 and 4 missing): it says so, rather
	// than call them the settings the widget above now plays.
	summaryTitle := func(id string) string {
		return text(t, ctx, `[data-testid="scenario-embed"][data-embed-id="`+id+`"] .embed-summary-title`)
	}
	waitTrue(t, ctx, "the flipped embed's summary names the text's settings",
		`document.querySelector('[data-testid="scenario-embed"][data-embed-id="`+a+`"] .embed-summary-title').textContent.includes("the settings the text uses")`)
	assert.Contains(t, summaryTitle(a), "mark=lsn", "the summary does not say which settings the widget plays now")
	assert.Equal(t, "How it ends with these settings:", summaryTitle(b), "the other embed's summary changed")
	idle("the widget is idle after the run for mark=lsn")
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#`+a+`-knob-mark-timestamp`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(" ")))
	waitTrue(t, ctx, "set back, the summary is the widget's again",
		`document.querySelector('[data-testid="scenario-embed"][data-embed-id="`+a+`"] .embed-summary-title').textContent === "How it ends with these settings:"`)

	// The knob set back while the run for lsn may still go on is taken
	// once that run is drawn, not dropped: the widget plays the text's
	// settings again (its link to its own page carries no mark=lsn).
	embedLink := `document.querySelector('[data-testid="scenario-embed"][data-embed-id="` + a + `"] a[data-testid="embed-link"]')`
	waitTrue(t, ctx, "the widget plays the timestamp mark again",
		`!`+embedLink+`.href.includes("mark=lsn") && document.getElementById('`+a+`-knob-mark-timestamp').checked`)

	// So does a fault the learner adds: a crash while a run writes. Each
	// press waits for the widget to be idle (no run going on, aria-busy
	// gone), since a run ends in the widget drawn anew, and a key pressed
	// on a button it replaces goes nowhere.
	idle("the widget is idle after the knob's runs")
	write := eval[int](t, ctx, `Number([...document.querySelectorAll('`+host(a)+` .tm-steps li.tm-kind-write')][0].dataset.step)`)
	press(t, ctx, host(a)+` [data-testid="btn-start"]`)
	for stepOf(a) < write {
		press(t, ctx, host(a)+` [data-testid="btn-forward"]`)
	}
	require.Equal(t, write, stepOf(a))
	require.False(t, eval[bool](t, ctx, `document.querySelector('`+host(a)+` [data-testid="btn-crash"]').disabled`), "a run writes at step %d, so it can crash", write)
	press(t, ctx, host(a)+` [data-testid="btn-crash"]`)
	waitTrue(t, ctx, "the summary names the fault",
		`document.querySelector('[data-testid="scenario-embed"][data-embed-id="`+a+`"] .embed-summary-title').textContent.endsWith("now plays the fault you added:")`)
	idle("the widget is idle after the crash's run")
	press(t, ctx, host(a)+` [data-testid="btn-undo"]`)
	waitTrue(t, ctx, "undone, the summary is the widget's again",
		`document.querySelector('[data-testid="scenario-embed"][data-embed-id="`+a+`"] .embed-summary-title').textContent === "How it ends with these settings:"`)

	assert.Equal(t, address, eval[string](t, ctx, `location.href`), "an embedded widget rewrote the page's address")

	// On a wide screen the advance before/after pair sits side by side.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterStoring)))
	waitEmbedsReady(t, ctx)
	assert.True(t, eval[bool](t, ctx, sideBySide), "the advance before/after pair should be side by side at 1280px")

	// In the checks chapter, repeats of one run open at the step their
	// caption is about, and stay there when the engine takes over.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterChecks)))
	waitEmbedsReady(t, ctx)
	steps := eval[[][]string](t, ctx, `[...document.querySelectorAll('[data-testid="scenario-embed"]')].filter((e) => e.dataset.step !== "0").map((e) => [e.dataset.step, document.querySelector('.tm-host[data-id="' + e.dataset.embedId + '"] .tm-widget').dataset.step])`)
	require.NotEmpty(t, steps)
	for _, s := range steps {
		assert.Equal(t, s[0], s[1], "an embed meant to open at step %s opened at %s", s[0], s[1])
	}
	assert.Empty(t, pageProblems(t, ctx))
}

// TestLessonEmbedLinkOpensWhereTheReaderIs: an embed's link to its
// scenario's own page carries the step, the knobs and the faults the
// reader has reached, as the embed page's does; it used to carry the
// lesson's settings alone, and a teacher who had stepped a chapter's
// widget to the moment to show a class lost it on the way to presenter
// mode.
func TestLessonEmbedLinkOpensWhereTheReaderIs(t *testing.T) {
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		t.Skip("tidemark.wasm not built; run `make wasm`")
	}
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"/"+chapterGap)))
	waitEmbedsReady(t, ctx)
	id := eval[string](t, ctx, `document.querySelector('#visibility-gap [data-testid="scenario-embed"][data-scenario="hwm/visibility-gap"]').dataset.embedId`)
	host := `.tm-host[data-id="` + id + `"]`
	link := `new URL(document.querySelector('[data-embed-id="` + id + `"] [data-testid="embed-link"]').href)`
	for range 3 {
		press(t, ctx, host+` [data-testid="btn-forward"]`)
	}
	assert.Equal(t, "/scenarios/hwm/visibility-gap", eval[string](t, ctx, link+`.pathname`))
	assert.Equal(t, "3", eval[string](t, ctx, link+`.searchParams.get("step")`), "the link follows the step")
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#`+id+`-knob-mark-lsn`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(" ")))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#`+id+`-knob-mark-lsn:checked`))))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](link+`.searchParams.get("mark") === "lsn" && `+link+`.searchParams.get("step") === "3"`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the link follows the knobs, at the same step")
	// So does the link that presents it.
	present := `new URL(document.querySelector('[data-embed-id="` + id + `"] [data-testid="embed-present"]').href)`
	assert.Equal(t, "/scenarios/hwm/visibility-gap", eval[string](t, ctx, present+`.pathname`))
	assert.Equal(t, "lsn 3 on", eval[string](t, ctx, `(() => { const u = `+present+`; return [u.searchParams.get("mark"), u.searchParams.get("step"), u.searchParams.get("present")].join(" "); })()`))

	assert.Empty(t, pageProblems(t, ctx))

	// Followed (on a site with the scenario pages), it opens the scenario there.
	page, _ := startPlayground(t, eval[string](t, ctx, link+`.pathname + `+link+`.search`))
	assert.Equal(t, 3, step(t, page))
	assert.True(t, eval[bool](t, page, `document.querySelector('[data-testid="knob-mark-lsn"]').checked`))
	// And the other opens it in presenter mode, at the same place.
	require.NoError(t, chromedp.Do(page, chromedp.Navigate(eval[string](t, page, `location.origin`)+eval[string](t, ctx, present+`.pathname + `+present+`.search`))))
	waitReady(t, page)
	assert.Equal(t, "on", eval[string](t, page, `document.querySelector('.tm-widget').dataset.present`))
	assert.Equal(t, 3, step(t, page))
	assert.True(t, eval[bool](t, page, `document.querySelector('[data-testid="knob-mark-lsn"]').checked`))
}

func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestContentsPageTakesAMalformedFragment: a fragment that is not valid
// percent-encoding on a lesson's contents page (an address mangled in a
// chat) leaves the page as it is, with the learner's progress shown.
func TestContentsPageTakesAMalformedFragment(t *testing.T) {
	base := startLessonSite(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+lessonOnePrefix+"#%E0%A4%A")))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete" && !document.querySelector('[data-testid="progress"]').hidden`, chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err, "the progress panel shows")
	eval[bool](t, ctx, `(location.hash = "#%E0%A4%B", true)`)
	assert.Equal(t, lessonOnePrefix, eval[string](t, ctx, `location.pathname`), "the page stays")
}
