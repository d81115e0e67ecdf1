//go:build !js

package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
	"github.com/tidemark/tidemark/web/share"
)

// sandboxScenario is a scenario with three expect lines: one that holds,
// one about another knob value that holds, and one that fails.
const sandboxScenario = `scenario mine/late-commit "A late commit falls behind the mark"
knob mark = timestamp | lsn
source orders key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark advance=after
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:00 commit=10:00:04 insert order_id=2
run extract at=10:00:02
run extract at=10:00:06
expect missing=2
expect missing=none when mark=lsn
expect missing=1
`

// needWasm skips (or, in CI, fails) a test that needs the engine's module.
func needWasm(t *testing.T) {
	t.Helper()
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		const msg = "tidemark.wasm not built; run `make wasm`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip(msg)
	}
}

// startSandbox serves the site's scenario pages and returns its address.
func startSandbox(t *testing.T) string {
	t.Helper()
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	return startSite(t, web.Options{Scenarios: cat, Pages: pages.Routes()})
}

// openPlay opens the sandbox at path (with its fragment) and waits until
// its script has checked the text once.
func openPlay(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	waitFor(t, ctx, "the sandbox is ready", `document.documentElement.dataset.playReady === "true"`)
}

// reloadPlay reloads the sandbox, as the visitor's reload button would, and
// waits until the new document's script has checked the text once.
func reloadPlay(t *testing.T, ctx context.Context) {
	t.Helper()
	reloadUntil(t, ctx, `document.documentElement.dataset.playReady === "true"`)
}

// reloadUntil reloads the page, as the visitor's reload button would, and
// waits until ready is true in the new document.
func reloadUntil(t *testing.T, ctx context.Context, ready string) {
	t.Helper()
	eval[bool](t, ctx, `(window.__beforeReload = true, true)`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
	// The old document may still answer for a moment: poll until a new one
	// is ready, retrying while the old one's context goes away.
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!window.__beforeReload && (`+ready+`)`))
		if err == nil && ok {
			return
		}
		require.True(t, time.Now().Before(deadline), "not ready after a reload: %v", err)
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFor waits up to twenty seconds for expr to be true in the page (the
// engine's module loads in each new document), and fails with what.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, what)
}

// setText replaces the sandbox's text as typing would, with an input event.
func setText(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	eval[bool](t, ctx, `(() => { const s = document.getElementById("play-src"); s.value = `+jsString(text)+`; s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
}

func playText(t *testing.T, ctx context.Context) string {
	return eval[string](t, ctx, `document.getElementById("play-src").value`)
}

// grantParams are the parameters of the DevTools command
// Browser.grantPermissions, which the generated cdproto of this version no
// longer lists (it is deprecated in favour of setPermission) but Chromium
// still answers.
type grantParams struct {
	Permissions      []string             `json:"permissions"`
	Origin           string               `json:"origin,omitempty"`
	BrowserContextID cdp.BrowserContextID `json:"browserContextId,omitempty"`
}

var grantPermissions = cdp.Command[grantParams, cdp.Empty]{Method: "Browser.grantPermissions"}

// grantClipboard lets the pages of base in the tab's browser context read
// and write the clipboard without asking, as a visitor would by accepting
// the prompt.
func grantClipboard(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	_, err := chromedp.CallBrowser(ctx, grantPermissions, grantParams{
		Permissions:      []string{"clipboardReadWrite", "clipboardSanitizedWrite"},
		Origin:           base,
		BrowserContextID: chromedp.FromContext(ctx).BrowserContextID,
	})
	require.NoError(t, err)
}

func clipboard(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	return s
}

// TestSandboxExpectations: each expect line's verdict is listed and marked
// in the gutter beside its line, and follows the text as it changes.
func TestSandboxExpectations(t *testing.T) {
	base := startSandbox(t)
	ctx := newBrowser(t)
	openPlay(t, ctx, base+"/play")
	setText(t, ctx, sandboxScenario)
	waitFor(t, ctx, "three verdicts", `document.querySelectorAll('[data-testid="play-expect-item"]').length === 3 && document.querySelector('[data-testid="play-expect"]').dataset.done === "true"`)

	statuses := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="play-expect-item"]')].map((li) => li.dataset.line + " " + li.dataset.status)`)
	assert.Equal(t, []string{"10 pass", "11 pass", "12 fail"}, statuses)
	assert.Contains(t, text(t, ctx, `[data-testid="play-expect-item"][data-line="12"]`), "✗ fails")
	assert.Equal(t, []string{"✓", "✓", "✗"}, eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="play-expect-item"] .play-verdict [aria-hidden="true"]')].map((g) => g.textContent)`), "the glyphs are not read out, their words are")
	assert.Contains(t, text(t, ctx, `[data-testid="play-expect-item"][data-line="12"]`), "play.tdm:12:8: expected missing=1, got missing=2")
	assert.Contains(t, text(t, ctx, `[data-testid="play-expect-item"][data-line="11"]`), "expect missing=none when mark=lsn")
	assert.Equal(t, "3 expectations: 2 hold, 1 fails.", text(t, ctx, `[data-testid="play-expect-summary"]`))
	// Said from a live region outside the section, which was hidden until now.
	assert.Equal(t, "3 expectations: 2 hold, 1 fails.", text(t, ctx, `[data-testid="play-expect-said"]`))
	assert.Nil(t, eval[any](t, ctx, `document.querySelector('[data-testid="play-expect-said"]').closest("[hidden]")`))
	// The gutter marks the lines themselves, not by colour alone.
	gutter := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="play-gutter"] div')].map((d) => d.textContent)`)
	require.Len(t, gutter, 13)
	assert.Equal(t, " 1  ", gutter[0])
	assert.Equal(t, "10 ✓", gutter[9])
	assert.Equal(t, "12 ✗", gutter[11])
	// The widget plays the scenario beside them.
	waitFor(t, ctx, "the widget", `document.querySelector('#play-output .tm-host[data-ready="true"]') !== null`)

	// Fixing the claim turns it to a pass; a line that does not read is
	// said at its place, and the verdicts wait for the text to build.
	setText(t, ctx, strings.Replace(sandboxScenario, "expect missing=1\n", "expect missing=2\n", 1))
	waitFor(t, ctx, "all hold", `document.querySelector('[data-testid="play-expect-summary"]').textContent === "3 expectations: 3 hold."`)
	// On a phone the page does not scroll sideways: the text box scrolls
	// within itself, the gutter beside it.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)))
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360, "the sandbox scrolls sideways at 360px")
	// An error far along a long line: its caret, under the line, is in
	// sight, not past the edge of a box that scrolls sideways.
	setText(t, ctx, strings.Replace(sandboxScenario, "sink=merge key=order_id", "sink=merge key=order_id                                        colour=blue", 1))
	waitFor(t, ctx, "the error", `document.querySelector('[data-testid="play-error"] pre.play-caret') !== null`)
	caretPre := `document.querySelector('[data-testid="play-error"] pre.play-caret')`
	assert.Greater(t, eval[int](t, ctx, caretPre+`.scrollWidth`), eval[int](t, ctx, caretPre+`.clientWidth`), "the line is wider than a phone")
	assert.True(t, eval[bool](t, ctx, `(() => { const pre = `+caretPre+`, t = pre.lastChild, r = document.createRange();
		r.setStart(t, t.length - 1); r.setEnd(t, t.length);
		const c = r.getBoundingClientRect(), p = pre.getBoundingClientRect();
		return c.left >= p.left && c.right <= p.right; })()`), "the caret is out of sight")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)))

	// A line that does not read is an error at its place, and the others
	// are checked all the same.
	setText(t, ctx, sandboxScenario+"expect missing=2 when colour=blue\n")
	waitFor(t, ctx, "a bad expect line", `document.querySelector('[data-testid="play-expect-summary"]').textContent === "4 expectations: 2 hold, 1 fails, 1 could not be checked."`)
	assert.Equal(t, "error", eval[string](t, ctx, `document.querySelector('[data-testid="play-expect-item"][data-line="13"]').dataset.status`))
	assert.Contains(t, text(t, ctx, `[data-testid="play-expect-item"][data-line="13"]`), `play.tdm:13:23: unknown knob "colour" after when`)
	assert.Equal(t, "pass", eval[string](t, ctx, `document.querySelector('[data-testid="play-expect-item"][data-line="10"]').dataset.status`))

	// A long file scrolls within the box, the gutter with it, and the error
	// is said just under the box: the gutter's rows made the box as tall as
	// the file, and the error a screen or two below the line marked !.
	setText(t, ctx, strings.Repeat("# a comment\n", 60)+"source orders key=order_id bogus=1\n")
	waitFor(t, ctx, "the error", `document.querySelector('[data-testid="play-error"]').textContent.includes("play.tdm:61:")`)
	box := `document.getElementById("play-src")`
	assert.Less(t, eval[float64](t, ctx, box+`.getBoundingClientRect().height`), 600.0, "the box grew with the file")
	assert.Less(t, eval[float64](t, ctx, `document.querySelector('[data-testid="play-error"]').getBoundingClientRect().top - `+box+`.getBoundingClientRect().bottom`), 150.0, "the error is far below the box")
	eval[bool](t, ctx, `(`+box+`.scrollTop = 400, `+box+`.dispatchEvent(new Event("scroll")), true)`)
	assert.Equal(t, eval[float64](t, ctx, box+`.scrollTop`), eval[float64](t, ctx, `document.querySelector('[data-testid="play-gutter"]').scrollTop`), "the gutter scrolls with the text")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestSandboxDraftSurvivesReload: what was typed comes back after a
// reload; a link opened in the same tab becomes a draft of its own and the
// typed one stays listed; a failed save is said and never called saved.
func TestSandboxDraftSurvivesReload(t *testing.T) {
	base := startSandbox(t)
	browserCtx := startBrowser(t)

	t.Run("a broken link stays in the address", func(t *testing.T) {
		ctx := newIsolatedTab(t, browserCtx)
		openPlay(t, ctx, base+"/play")
		setText(t, ctx, sandboxScenario)
		waitFor(t, ctx, "kept as a draft", `document.querySelector('[data-testid="play-saved"]').textContent.startsWith("Kept in this browser")`)
		// The same tab goes to a damaged link (from another page, so that
		// the sandbox loads anew rather than follow a change of its
		// fragment): the draft is shown, and the address keeps the link,
		// for the learner to copy and report.
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/healthz")))
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/play#tdm=AAAA")))
		// waitLoaded polls through a document that is still being replaced
		// (a poll in it fails at once with "Cannot find context").
		waitLoaded(t, ctx, "the sandbox is ready", `document.documentElement.dataset.playReady === "true"`)
		waitFor(t, ctx, "the link is named", `document.querySelector('[data-testid="play-problem"]').textContent.includes("could not be opened")`)
		assert.Equal(t, sandboxScenario, playText(t, ctx))
		time.Sleep(500 * time.Millisecond) // the address follows the text a moment behind
		assert.Equal(t, "#tdm=AAAA", eval[string](t, ctx, `location.hash`))
		// Typing makes the address the text's own link again.
		setText(t, ctx, sandboxScenario+"# more\n")
		waitFor(t, ctx, "the address carries the text", `location.hash.startsWith("#tdm=") && location.hash !== "#tdm=AAAA"`)
	})

	t.Run("reload", func(t *testing.T) {
		ctx := newIsolatedTab(t, browserCtx)
		openPlay(t, ctx, base+"/play")
		setText(t, ctx, sandboxScenario)
		waitFor(t, ctx, "kept as a draft", `document.querySelector('[data-testid="play-saved"]').textContent.startsWith("Kept in this browser")`)
		reloadPlay(t, ctx)
		assert.Equal(t, sandboxScenario, playText(t, ctx))

		// Typing again and reloading at once keeps the change too: a
		// pending save is made as the page goes.
		setText(t, ctx, sandboxScenario+"# one more line\n")
		reloadPlay(t, ctx)
		assert.Equal(t, sandboxScenario+"# one more line\n", playText(t, ctx))

		// A link to another text, opened in this tab: the link's text is
		// shown, and the draft typed here is still there, listed.
		other := "scenario mine/other \"Another\"\nsource orders key=order_id\n"
		frag, err := share.Fragment(other)
		require.NoError(t, err)
		openPlay(t, ctx, base+"/play#"+frag)
		assert.Equal(t, other, playText(t, ctx))
		waitFor(t, ctx, "the earlier draft listed", `[...document.querySelectorAll('[data-testid="play-draft"]')].some((li) => li.textContent.includes("A late commit falls behind the mark"))`)
		eval[bool](t, ctx, `([...document.querySelectorAll('[data-testid="play-draft"]')].find((li) => li.textContent.includes("A late commit")).querySelector('[data-testid="play-draft-open"]').click(), true)`)
		assert.Equal(t, sandboxScenario+"# one more line\n", playText(t, ctx))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("storage full", func(t *testing.T) {
		ctx := newIsolatedTab(t, browserCtx)
		addScript(t, ctx, storageFull)
		openPlay(t, ctx, base+"/play")
		setText(t, ctx, sandboxScenario)
		waitFor(t, ctx, "the failed save is said", `document.querySelector('[data-testid="play-problem"]').textContent.includes("not saved in this browser")`)
		assert.Contains(t, testText(t, ctx, "play-problem"), "storage for this site is full")
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="play-saved"]').hidden`), "a failed save is never called saved")
		assert.Equal(t, sandboxScenario, playText(t, ctx), "the text stays on the page")

		// A link pasted into the address asks before it replaces a text
		// the browser could not store, and keeps it when told no.
		other := "scenario mine/other \"Another\"\nsource orders key=order_id\n"
		frag, err := share.Fragment(other)
		require.NoError(t, err)
		eval[bool](t, ctx, `(window.__asked = 0, window.confirm = () => (window.__asked++, false), location.hash = `+jsString(frag)+`, true)`)
		waitFor(t, ctx, "the link is refused", `document.querySelector('[data-testid="play-problem"]').textContent.includes("The linked scenario was not opened")`)
		assert.Equal(t, 1, eval[int](t, ctx, `window.__asked`))
		assert.Equal(t, sandboxScenario, playText(t, ctx), "the text the browser could not store stays")
		frag2, err := share.Fragment(other + "# and one line more\n")
		require.NoError(t, err)
		eval[bool](t, ctx, `(window.confirm = () => true, location.hash = `+jsString(frag2)+`, true)`)
		waitFor(t, ctx, "the link opens when the learner agrees", `document.getElementById("play-src").value.startsWith("scenario mine/other")`)
	})

	t.Run("deleting a draft leaves the focus in the list", func(t *testing.T) {
		// A keyboard learner deletes drafts one after another: the focus
		// goes to the next draft's Delete, and to the text once none is
		// left, never back to the page's start.
		ctx := newIsolatedTab(t, browserCtx)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
		eval[bool](t, ctx, `(["d1", "d2"].forEach((id, i) => localStorage.setItem("tidemark.play.draft." + id,
  JSON.stringify({app: "tidemark", kind: "play-draft", version: 1, text: "scenario mine/" + id + "\n", savedAt: "2026-01-0" + (i + 1) + "T00:00:00Z"}))), true)`)
		openPlay(t, ctx, base+"/play")
		waitFor(t, ctx, "two drafts listed", `document.querySelectorAll('[data-testid="play-draft-delete"]').length === 2`)
		eval[bool](t, ctx, `(window.confirm = () => true, true)`)
		del := `document.querySelector('[data-draft="d2"] [data-testid="play-draft-delete"]')`
		eval[bool](t, ctx, `(`+del+`.focus(), true)`)
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
		waitFor(t, ctx, "d2 deleted", `!document.querySelector('[data-draft="d2"]')`)
		assert.Equal(t, "d1 play-draft-delete", eval[string](t, ctx, `(document.activeElement.closest("li") || {dataset: {}}).dataset.draft + " " + document.activeElement.dataset.testid`))
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
		waitFor(t, ctx, "d1 deleted", `!document.querySelector('[data-draft="d1"]')`)
		assert.Equal(t, "play-src", eval[string](t, ctx, `document.activeElement.id`), "with no draft left, the focus goes to the text")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("an entry it cannot read is never written over", func(t *testing.T) {
		ctx := newIsolatedTab(t, browserCtx)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
		eval[bool](t, ctx, `(sessionStorage.setItem("tidemark.play.tab", "x1"), localStorage.setItem("tidemark.play.draft.x1", "{not json"), true)`)
		openPlay(t, ctx, base+"/play")
		setText(t, ctx, sandboxScenario)
		waitFor(t, ctx, "kept as a draft", `document.querySelector('[data-testid="play-saved"]').textContent.startsWith("Kept in this browser")`)
		assert.Equal(t, "{not json", stored(t, ctx, "tidemark.play.draft.x1"))
		assert.Contains(t, text(t, ctx, `[data-draft="x1"]`), "cannot read")
	})
}

// sandboxBesidePage serves the site and, beside it on its origin, a page
// of someone else's (/docs/pasted) into which a test pastes what it
// copied: paste sets the page's body.
func sandboxBesidePage(t *testing.T) (base string, paste func(body string)) {
	t.Helper()
	cat, err := pages.Catalog()
	require.NoError(t, err)
	site, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	var mu sync.Mutex
	var pasted string
	mux := http.NewServeMux()
	mux.Handle("/", site)
	mux.HandleFunc("/docs/pasted", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body := pasted
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Pasted</title></head><body>" + body + "</body></html>"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, func(body string) {
		mu.Lock()
		pasted = body
		mu.Unlock()
	}
}

// TestSandboxEmbedsATextTooLongForALink: a text too long for a link got no
// snippet at all, only "save it as a file", though a script tag carries
// such a text inline (embed.js hands it to its frame). Embed now offers
// that tag alone and says why the link, the iframe and the picture are
// missing; pasted into a page, the tag plays the text at the widget's
// step and knobs. A text a link can carry has them all again.
func TestSandboxEmbedsATextTooLongForALink(t *testing.T) {
	needWasm(t)
	base, paste := sandboxBesidePage(t)
	long := longScenario(600, false)
	_, err := share.Encode(long)
	require.ErrorIs(t, err, share.ErrTooLong, "the scenario must be too long for a link")

	ctx := newBrowser(t)
	grantClipboard(t, ctx, base)
	openPlay(t, ctx, base+"/play")
	setText(t, ctx, long)
	waitFor(t, ctx, "the widget", `document.querySelector('#play-output .tm-widget[data-scenario="mydocs/long"]') !== null && document.querySelector('#play-output .tm-host[data-ready="true"]') !== null`)
	for i := 1; i <= 3; i++ {
		jsClick(t, ctx, `#play-output [data-testid="btn-forward"]`)
		waitFor(t, ctx, "the next step", `document.querySelector("#play-output .tm-widget").dataset.step === "`+strconv.Itoa(i)+`"`)
	}
	jsClick(t, ctx, `#play-output label[for="tm-knob-mark-lsn"]`)
	waitFor(t, ctx, "the knob", `location.search.includes("mark=lsn")`)

	click(t, ctx, `[data-testid="play-embed"]`)
	waitFor(t, ctx, "copied", `document.querySelector('[data-testid="play-copied"]').textContent === "Script tag copied to the clipboard."`)
	script := clipboard(t, ctx)
	assert.Equal(t, script, eval[string](t, ctx, `document.querySelector('[data-testid="play-snippet-script"]').value`))
	assert.True(t, strings.HasPrefix(script, "<script type=\"text/x-tidemark\">\n"+long+"</script>\n"), "the tag holds the whole text")
	assert.Contains(t, script, `<script src="`+base+`/static/embed.js" data-step="3" data-knobs="mark=lsn" async></script>`)
	visible := func(sel string) bool {
		return eval[bool](t, ctx, `document.querySelector('`+sel+`').checkVisibility()`)
	}
	for _, sel := range []string{`[data-testid="play-link"]`, `label[for="play-link"]`, `[data-testid="play-snippet-iframe"]`, `[data-testid="play-snippet-picture"]`, `[data-testid="play-share-linked"]`} {
		assert.False(t, visible(sel), "no link carries the text, so no %s is offered", sel)
	}
	assert.True(t, visible(`[data-testid="play-snippet-script"]`))
	assert.True(t, visible(`[data-testid="play-share-unlinked"]`), "the panel says why only the script tag is left")
	said := text(t, ctx, `[data-testid="play-problem"]`)
	assert.Contains(t, said, "too long for a link")
	assert.Contains(t, said, "the script tag")
	assert.NotContains(t, said, "Save it as a file instead", "the tag is the way, not a file")

	other := newTabBeside(t, ctx)
	paste(`<div id="by-script">` + script + `</div>`)
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(base+"/docs/pasted")))
	frame := `document.querySelector("#by-script iframe")`
	doc := frame + `.contentDocument`
	waitFor(t, other, "the tag plays", frame+` && `+doc+` && `+doc+`.querySelector('.tm-host[data-ready="true"]') !== null`)
	assert.True(t, strings.HasSuffix(eval[string](t, other, frame+`.src`), "#file=inline.tdm&posted"), "the text is handed to the frame, not put in its address")
	assert.Equal(t, "3", eval[string](t, other, doc+`.querySelector(".tm-widget").dataset.step`))
	assert.True(t, eval[bool](t, other, doc+`.querySelector('[data-testid="knob-mark-lsn"]').checked`))

	// A text a link can carry: the link, the iframe and the picture again.
	setText(t, ctx, sandboxScenario)
	waitFor(t, ctx, "the short text's widget", `document.querySelector('#play-output .tm-widget[data-scenario="mine/late-commit"]') !== null && document.querySelector('#play-output .tm-host[data-ready="true"]') !== null`)
	click(t, ctx, `[data-testid="play-embed"]`)
	waitFor(t, ctx, "copied", `document.querySelector('[data-testid="play-copied"]').textContent === "Iframe snippet copied to the clipboard."`)
	for _, sel := range []string{`[data-testid="play-link"]`, `[data-testid="play-snippet-iframe"]`, `[data-testid="play-snippet-picture"]`, `[data-testid="play-share-linked"]`} {
		assert.True(t, visible(sel), sel)
	}
	assert.False(t, visible(`[data-testid="play-share-unlinked"]`))
	assert.False(t, visible(`[data-testid="play-problem"]`), "nothing is wrong with a short text")
	assert.Empty(t, pageProblems(t, ctx))
	assert.Empty(t, pageProblems(t, other))
}

// TestInlineScenarioErrorNamesTheBlock: an inline scenario that does not
// build shows its error in the frame as inline.tdm, at the line counted
// from the block's first line. It said linked.tdm, a name for a link
// that sent the page's author looking for one.
func TestInlineScenarioErrorNamesTheBlock(t *testing.T) {
	needWasm(t)
	base, paste := sandboxBesidePage(t)
	broken := strings.Replace(sandboxScenario, "run extract at=10:00:06", "run extract at=10:0:06", 1)
	require.NotEqual(t, sandboxScenario, broken)
	line := strings.Count(broken[:strings.Index(broken, "at=10:0:06")], "\n") + 1
	paste("<script type=\"text/x-tidemark\">\n" + broken + "</script>\n<script src=\"/static/embed.js\" async></script>")
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/pasted")))
	doc := `document.querySelector("iframe").contentDocument`
	problem := doc + `.querySelector('[data-testid="linked-problem"]')`
	waitFor(t, ctx, "the error in the frame", `document.querySelector("iframe") && `+doc+` && `+problem+` && !`+problem+`.hidden`)
	assert.True(t, strings.HasPrefix(eval[string](t, ctx, problem+`.textContent`), "The scenario does not build: inline.tdm:"+strconv.Itoa(line)+":16:"),
		"the error names the block, and no link: %s", eval[string](t, ctx, problem+`.textContent`))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestSandboxShareAndEmbed: Share copies a link that opens the text in the
// sandbox at the widget's step and knobs; Embed copies an iframe snippet,
// and the panel holds a script-tag snippet too; pasted into another page,
// both play the text at that step and knobs.
func TestSandboxShareAndEmbed(t *testing.T) {
	needWasm(t)
	base, paste := sandboxBesidePage(t)

	ctx := newBrowser(t)
	grantClipboard(t, ctx, base)
	openPlay(t, ctx, base+"/play")
	setText(t, ctx, sandboxScenario)
	waitFor(t, ctx, "the widget", `document.querySelector('#play-output .tm-widget[data-scenario="mine/late-commit"]') !== null && document.querySelector('#play-output .tm-host[data-ready="true"]') !== null`)
	for i := 1; i <= 4; i++ {
		jsClick(t, ctx, `#play-output [data-testid="btn-forward"]`)
		waitFor(t, ctx, "the next step", `document.querySelector("#play-output .tm-widget").dataset.step === "`+strconv.Itoa(i)+`"`)
	}
	jsClick(t, ctx, `#play-output label[for="tm-knob-mark-lsn"]`)
	waitFor(t, ctx, "the knob", `location.search.includes("mark=lsn")`)
	assert.Contains(t, eval[string](t, ctx, `location.search`), "step=4")

	// A real click: the clipboard takes text only in answer to a gesture.
	click(t, ctx, `[data-testid="play-share"]`)
	waitFor(t, ctx, "copied", `document.querySelector('[data-testid="play-copied"]').textContent === "Link copied to the clipboard."`)
	link := clipboard(t, ctx)
	assert.Equal(t, link, eval[string](t, ctx, `document.querySelector('[data-testid="play-link"]').value`))
	require.True(t, strings.HasPrefix(link, base+"/play?"), link)
	u, frag, _ := strings.Cut(link, "#")
	assert.Contains(t, u, "mark=lsn")
	assert.Contains(t, u, "step=4")
	got, err := share.ParseFragment(frag)
	require.NoError(t, err)
	assert.Equal(t, sandboxScenario, got)

	// The link opens the same text, at the same step and knobs, in a tab
	// of its own.
	other := newTabBeside(t, ctx)
	openPlay(t, other, link)
	assert.Equal(t, sandboxScenario, playText(t, other))
	waitFor(t, other, "the widget at step 4", `(document.querySelector('#play-output .tm-widget') || {dataset: {}}).dataset.step === "4"`)
	assert.True(t, eval[bool](t, other, `document.querySelector('#play-output [data-testid="knob-mark-lsn"]').checked`))

	click(t, ctx, `[data-testid="play-embed"]`)
	waitFor(t, ctx, "copied", `document.querySelector('[data-testid="play-copied"]').textContent === "Iframe snippet copied to the clipboard."`)
	iframe := clipboard(t, ctx)
	assert.True(t, strings.HasPrefix(iframe, `<iframe src="`+base+`/embed/?mark=lsn&amp;step=4#tdm=`), iframe)
	script := eval[string](t, ctx, `document.querySelector('[data-testid="play-snippet-script"]').value`)
	assert.True(t, strings.HasPrefix(script, "<script type=\"text/x-tidemark\">\n"+sandboxScenario+"</script>\n"), script)
	assert.Contains(t, script, `<script src="`+base+`/static/embed.js" data-step="4" data-knobs="mark=lsn" async></script>`)
	picture := eval[string](t, ctx, `document.querySelector('[data-testid="play-snippet-picture"]').value`)
	assert.True(t, strings.HasPrefix(picture, "[![A late commit falls behind the mark, at step 4: not in the target yet: 1]("+base+"/picture.svg?"), picture)
	payload, _, _ := strings.Cut(strings.SplitN(picture, "src=", 2)[1], ")")
	assert.True(t, strings.HasSuffix(picture, ")]("+base+"/play?mark=lsn&step=4#tdm="+payload+")"), "the picture links to the sandbox: %s", picture)

	paste(`<div id="by-iframe">` + iframe + `</div><div id="by-script">` + script + `</div>`)
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(base+"/docs/pasted")))
	for _, box := range []string{"by-iframe", "by-script"} {
		doc := `document.querySelector("#` + box + ` iframe").contentDocument`
		waitFor(t, other, box+" plays", `document.querySelector("#`+box+` iframe") && `+doc+` && `+doc+`.querySelector('.tm-host[data-ready="true"]') !== null`)
		assert.Equal(t, "4", eval[string](t, other, doc+`.querySelector(".tm-widget").dataset.step`), box)
		assert.True(t, eval[bool](t, other, doc+`.querySelector('[data-testid="knob-mark-lsn"]').checked`), box)
		// A page that declares no color-scheme is drawn light, on a dark
		// system too; its embed is, whichever snippet made it.
		assert.Equal(t, "light", eval[string](t, other, `getComputedStyle(document.querySelector("#`+box+` iframe")).colorScheme`), box)
	}
	assert.Empty(t, pageProblems(t, ctx))
}
