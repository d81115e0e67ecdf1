//go:build !js

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/pages"
	"github.com/tidemark/tidemark/web/share"
)

// TestFragmentRoundTrip: a text Go put in a link opens in the sandbox's
// editor as it was; the browser then writes the text, edited, back into
// the address, and Go reads exactly that text from it.
func TestFragmentRoundTrip(t *testing.T) {
	base := startSandbox(t)
	ctx := newBrowser(t)
	text := strings.Replace(sandboxScenario, "A late commit falls behind the mark", "Ünïcode survives ✓ — “quotes”", 1)
	frag, err := share.Fragment(text)
	require.NoError(t, err)
	openPlay(t, ctx, base+"/play#"+frag)
	assert.Equal(t, text, playText(t, ctx))
	waitFor(t, ctx, "the widget plays the linked text", `document.querySelector('#play-output .tm-widget') !== null`)

	time.Sleep(500 * time.Millisecond)
	assert.Equal(t, "#"+frag, eval[string](t, ctx, `location.hash`), "the address keeps the link it was opened with")

	edited := text + "# edited in the browser\n"
	setText(t, ctx, edited)
	// The address follows the text. It may first be written again from the
	// run that was playing when the text changed (the same text, encoded by
	// the browser rather than by Go), so wait for the edit rather than for
	// any change; and it must stay with the edit once there: the widget
	// writes its step into the same address a moment later, and once put
	// back the fragment it had read when the step was drawn, which undid
	// an edit made just after the page became ready.
	var got, hash string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		hash = eval[string](t, ctx, `location.hash`)
		if hash == "#"+frag {
			continue
		}
		got, err = share.ParseFragment(hash)
		require.NoError(t, err, hash)
		if got == edited {
			break
		}
	}
	require.Equal(t, edited, got, "the address never followed the edit: %s", hash)
	time.Sleep(time.Second)
	got, err = share.ParseFragment(eval[string](t, ctx, `location.hash`))
	require.NoError(t, err)
	assert.Equal(t, edited, got, "the address went back from the edit")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestFileOfAgreesWithTheServer: the page and the server name a link's
// scenario file alike (share.js's fileOf, share.FileOf), so an error says
// the same file whichever of them reports it. share.js took the first
// plain name among several file= where the server takes the first file=.
func TestFileOfAgreesWithTheServer(t *testing.T) {
	base := startSandbox(t)
	ctx := newBrowser(t)
	openPlay(t, ctx, base+"/play")
	for _, frag := range []string{
		"#file=late-commit.tdm&tdm=abc", "tdm=abc&file=docs%2Fretry-dup.tdm", "#tdm=abc", "#file=&tdm=abc",
		"#file=.hidden&tdm=abc", "#file=a%20b.tdm&tdm=abc", "#file=%ZZ&tdm=abc", "#file=<b>.tdm&tdm=abc",
		"#file=" + strings.Repeat("a", 101), "#file=" + strings.Repeat("a", 100),
		"#file=.hidden&file=ok.tdm&tdm=abc", "#file=ok.tdm&file=other.tdm", "#file=%E2%9C%93.tdm", "#file=a+b.tdm",
	} {
		assert.Equal(t, share.FileOf(frag), eval[string](t, ctx, `window.tidemarkShare.fileOf(`+jsString(frag)+`)`), frag)
	}
}

// TestLinkedEmbed: /embed/#tdm=… plays the scenario its address carries,
// at the step and knobs of its query; an address with a damaged, oversized
// or missing scenario, or one that does not build, gets a message.
func TestLinkedEmbed(t *testing.T) {
	base := startSandbox(t)
	browser := startBrowser(t)
	frag, err := share.Fragment(sandboxScenario)
	require.NoError(t, err)

	t.Run("plays", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/?step=4&mark=lsn#"+frag)))
		waitFor(t, ctx, "the widget", `document.querySelector('.tm-host[data-ready="true"]') !== null`)
		assert.Equal(t, "4", eval[string](t, ctx, `document.querySelector(".tm-widget").dataset.step`))
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="knob-mark-lsn"]').checked`))
		assert.Equal(t, "A late commit falls behind the mark", text(t, ctx, `[data-testid="page-title"]`))
		assert.Equal(t, "A late commit falls behind the mark — Tidemark", eval[string](t, ctx, `document.title`))
		assert.Equal(t, base+"/play?mark=lsn&step=4#"+frag, eval[string](t, ctx, `document.querySelector('[data-testid="linked-open"]').href`), "the credit opens the same text in the sandbox, at the same step and knobs")
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="linked-open"]').checkVisibility()`), "share.js shows the credit")
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("a knob's value that does not build", func(t *testing.T) {
		// Declared, but the line it lands on refuses it: the scenario
		// opens with its own settings and says why, rather than nothing.
		src := strings.Replace(sandboxScenario, "knob mark = timestamp | lsn", "knob mark = timestamp | lsn | lsm", 1)
		require.NotEqual(t, sandboxScenario, src)
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/?step=4&mark=lsm#"+mustFragment(t, src))))
		waitFor(t, ctx, "the widget", `document.querySelector('.tm-host[data-ready="true"]') !== null`)
		assert.Contains(t, text(t, ctx, `.tm-widget .tm-message`), "With the link's settings the scenario does not build")
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="knob-mark-timestamp"]').checked`))
		assert.Equal(t, "4", eval[string](t, ctx, `document.querySelector(".tm-widget").dataset.step`))

		// Chosen on the page: said beside the knobs, and the choices show
		// the setting still drawn.
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(`[data-testid="knob-mark-lsm"]`)))
		waitFor(t, ctx, "the refusal", `document.querySelector('[data-testid="message-near"]') !== null`)
		assert.Contains(t, text(t, ctx, `[data-testid="message-near"]`), "With mark=lsm the scenario does not build")
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="knob-mark-timestamp"]').checked`))
		assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="knob-mark-lsm"]').checked`))
	})

	t.Run("headed with its title though it does not build", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#"+mustFragment(t, "scenario x/y \"Rows that go missing\"\npipeline extract from=nowhere\n"))))
		waitLoaded(t, ctx, "a message", `document.querySelector('[data-testid="linked"]').dataset.state === "problem"`)
		assert.Equal(t, "Rows that go missing", text(t, ctx, `[data-testid="page-title"]`))
		assert.Equal(t, "Rows that go missing — Tidemark", eval[string](t, ctx, `document.title`))
	})

	long := strings.Repeat("A", share.MaxPayload+1)
	for name, tc := range map[string]struct{ hash, says string }{
		"damaged":       {"#" + frag[:len(frag)/2], "damaged"},
		"not base64url": {"#tdm=abc*def", "is not one a link's scenario is written in"},
		// The server refuses these too (web/share), so a link reads alike on both.
		"bytes after the end": {"#" + frag + "AAAA", "damaged"},
		"too long":            {"#tdm=" + long, "a link carries at most 12288"},
		"none":                {"", "this address carries none"},
		"does not build": {"#" + mustFragment(t, "scenario x/y \"Y\"\npipeline extract from=nowhere\n"),
			"does not build"},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := newIsolatedTab(t, browser)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/"+tc.hash)))
			waitLoaded(t, ctx, "a message", `document.querySelector('[data-testid="linked"]').dataset.state === "problem"`)
			assert.Contains(t, text(t, ctx, `[data-testid="linked-problem"]`), tc.says)
			assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="linked-problem"]').hidden`))
			assert.Equal(t, "alert", eval[string](t, ctx, `document.querySelector('[data-testid="linked-problem"]').getAttribute("role")`))
			assert.Empty(t, pageProblems(t, ctx))
		})
	}
}

// htmltestParse reads a response's body as a page, closing it.
func htmltestParse(t *testing.T, resp *http.Response) htmltest.Doc {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return htmltest.Parse(t, string(b))
}

func attrOf(n *html.Node, key string) string { return htmltest.Attr(n, key) }

func mustFragment(t *testing.T, text string) string {
	t.Helper()
	f, err := share.Fragment(text)
	require.NoError(t, err)
	return f
}

// authorDocs stands for a documentation site that embeds scenarios of its
// own: inline before a tag, inline after an async tag, from a file of its
// own, from a file on another site that allows it (CORS), and from one that
// does not. SITE and OTHER are replaced by the two servers' addresses.
const authorDocs = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Our docs</title></head><body>
<div id="inline-before">
<script type="text/x-tidemark">
scenario mydocs/late-commit "A late commit falls behind the mark"
knob mark = timestamp | lsn
source orders key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark advance=after
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:00 commit=10:00:04 insert order_id=2
run extract at=10:00:02
run extract at=10:00:06
</script>
<script src="SITE/static/embed.js" data-step="4" data-knobs="mark=lsn" async></script>
</div>
<div id="inline-after">
<script src="SITE/static/embed.js" async></script>
<script type="text/x-tidemark">
scenario mydocs/after "Written after the tag"
source orders key=order_id
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
run extract at=10:00:02
</script>
</div>
<div id="inline-pair">
<script src="SITE/static/embed.js" async></script>
<script type="text/x-tidemark">
scenario mydocs/pair-one "The first of a pair"
source orders key=order_id
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
run extract at=10:00:02
</script>
<script src="SITE/static/embed.js" async></script>
<script type="text/x-tidemark">
scenario mydocs/pair-two "The second of a pair"
source orders key=order_id
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=2
run extract at=10:00:02
</script>
</div>
<div id="own-file"><script src="SITE/static/embed.js" data-source="/docs/late.tdm" data-step="2" async></script></div>
<div id="cors-file"><script src="SITE/static/embed.js" data-source="OTHER/late.tdm" async></script></div>
<div id="no-cors-file"><script src="SITE/static/embed.js" data-source="OTHER/private.tdm" async></script></div>
<div id="missing-file"><script src="SITE/static/embed.js" data-source="/docs/nope.tdm" async></script></div>
<div id="broken-file"><script src="SITE/static/embed.js" data-source="/docs/late-commit.tdm" async></script></div>
<div id="odd-theme"><script src="SITE/static/embed.js" data-scenario="hwm/visibility-gap" data-theme="purple" async></script></div>
</body></html>`

// TestEmbedScriptInlineAndSource: embed.js embeds a scenario written
// inline next to its tag (before it, or after an async tag) or fetched from
// a file (the page's own, or another site's with CORS), each in an iframe
// that plays it at the step and knobs of the tag; a file it may not or
// cannot fetch gets a note where the iframe would be.
func TestEmbedScriptInlineAndSource(t *testing.T) {
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	site, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)

	late := strings.SplitN(strings.SplitN(authorDocs, "<script type=\"text/x-tidemark\">\n", 2)[1], "</script>", 2)[0]
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/late.tdm":
			w.Header().Set("Access-Control-Allow-Origin", "*")
			_, _ = w.Write([]byte(late))
		case "/private.tdm":
			_, _ = w.Write([]byte(late))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(other.Close)

	// The docs are served beside the site, on its origin (so the test can
	// look into the frames), but without the site's headers: a page of
	// someone else's.
	var base string
	mux := http.NewServeMux()
	mux.Handle("/", site)
	mux.HandleFunc("/docs/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(strings.NewReplacer("SITE", base, "OTHER", other.URL).Replace(authorDocs)))
		case "/docs/late.tdm":
			_, _ = w.Write([]byte(late))
		case "/docs/late-commit.tdm":
			_, _ = w.Write([]byte(strings.Replace(late, "sink=merge", "sink=merj", 1)))
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base = srv.URL

	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/page")))
	frame := func(box string) string { return `document.querySelector("#` + box + ` iframe")` }
	inner := func(box string) string { return frame(box) + `.contentDocument` }
	for _, box := range []string{"inline-before", "inline-after", "own-file", "cors-file"} {
		waitFor(t, ctx, box+": a widget in the frame", frame(box)+` && `+inner(box)+` && `+inner(box)+`.querySelector('.tm-host[data-ready="true"]') !== null`)
		src := eval[string](t, ctx, frame(box)+`.src`)
		assert.True(t, strings.HasPrefix(src, base+"/embed/"), "%s: %s", box, src)
		_, fragment, _ := strings.Cut(src, "#")
		got, err := share.ParseFragment(fragment)
		require.NoError(t, err, box)
		assert.Contains(t, got, "scenario mydocs/", box)
		assert.True(t, eval[bool](t, ctx, frame(box)+`.previousElementSibling.tagName === "SCRIPT"`), "%s: the iframe follows its tag", box)
	}
	assert.Equal(t, "4", eval[string](t, ctx, inner("inline-before")+`.querySelector(".tm-widget").dataset.step`))
	assert.True(t, eval[bool](t, ctx, inner("inline-before")+`.querySelector('[data-testid="knob-mark-lsn"]').checked`))
	assert.Equal(t, "2", eval[string](t, ctx, inner("own-file")+`.querySelector(".tm-widget").dataset.step`))
	got, _ := share.ParseFragment(strings.SplitN(eval[string](t, ctx, frame("inline-before")+`.src`), "#", 2)[1])
	assert.Equal(t, late, got, "the inline text, without the line break after its tag")
	// The frame is sized to its content and named after the scenario.
	waitFor(t, ctx, "the frame's title", frame("inline-before")+`.title.startsWith("A late commit falls behind the mark")`)
	waitFor(t, ctx, "the frame's height", frame("inline-before")+`.style.height !== ""`)

	// framesCarry checks that the frames in box carry the scenarios named,
	// in order, once there are as many.
	framesCarry := func(box string, ids ...string) {
		t.Helper()
		frames := `document.querySelectorAll("#` + box + ` iframe")`
		waitFor(t, ctx, box+": "+strconv.Itoa(len(ids))+" frames", frames+`.length === `+strconv.Itoa(len(ids)))
		for i, id := range ids {
			_, fragment, _ := strings.Cut(eval[string](t, ctx, frames+`[`+strconv.Itoa(i)+`].src`), "#")
			got, err := share.ParseFragment(fragment)
			require.NoError(t, err)
			assert.Contains(t, got, "scenario "+id, "frame %d of %s", i, box)
		}
	}
	// Two tags, each followed by its own block: each frame plays its own.
	framesCarry("inline-pair", "mydocs/pair-one", "mydocs/pair-two")

	// The same pair, the second tag running only once the first has put its
	// frame between itself and its block ([tag A][frame A][block A][tag B]
	// [block B]): as on a page whose async tags run in that order, which
	// gave the second frame the first block.
	pairBlock := func(n string) string {
		return jsString("scenario mydocs/late-" + n + " \"Late pair " + n + "\"\nsource orders key=order_id\ntarget fct_orders sink=append key=order_id\n" +
			"pipeline extract from=orders to=fct_orders mark=timestamp\ntxn T1 begin=10:00:00 commit=10:00:00 insert order_id=1\nrun extract at=10:00:02\n")
	}
	addPair := `(box, n) => { const tag = document.createElement("script"); tag.src = ` + jsString(base+"/static/embed.js") + `;
		const block = document.createElement("script"); block.type = "text/x-tidemark"; block.textContent = n === 1 ? ` + pairBlock("one") + ` : ` + pairBlock("two") + `;
		box.append(tag, block); }`
	eval[bool](t, ctx, `(() => { const box = document.createElement("div"); box.id = "late-pair"; document.body.append(box); (`+addPair+`)(box, 1); return true; })()`)
	framesCarry("late-pair", "mydocs/late-one")
	eval[bool](t, ctx, `(() => { (`+addPair+`)(document.getElementById("late-pair"), 2); return true; })()`)
	framesCarry("late-pair", "mydocs/late-one", "mydocs/late-two")

	waitFor(t, ctx, "a note for the file without CORS", `document.querySelector("#no-cors-file .tidemark-embed-problem") !== null`)
	assert.Contains(t, text(t, ctx, "#no-cors-file .tidemark-embed-problem"), "Access-Control-Allow-Origin")
	assert.Empty(t, eval[[]string](t, ctx, `[...document.querySelectorAll("#no-cors-file iframe")].map(f => f.src)`))
	waitFor(t, ctx, "a note for the missing file", `document.querySelector("#missing-file .tidemark-embed-problem") !== null`)
	assert.Contains(t, text(t, ctx, "#missing-file .tidemark-embed-problem"), "answered 404")
	// A theme it does not know: the frame all the same, and a note.
	waitFor(t, ctx, "a note for the unknown theme", `document.querySelector("#odd-theme .tidemark-embed-problem") !== null`)
	assert.Contains(t, text(t, ctx, "#odd-theme .tidemark-embed-problem"), `data-theme="purple" is not a theme`)
	assert.Len(t, eval[[]string](t, ctx, `[...document.querySelectorAll("#odd-theme iframe")].map(f => f.src)`), 1)

	// A file that does not build: the frame's error names the author's
	// file, at its line and column, not the link's.
	problem := inner("broken-file") + `.querySelector('[data-testid="linked-problem"]')`
	waitFor(t, ctx, "the broken file's error in its frame", frame("broken-file")+` && `+inner("broken-file")+` && `+problem+` && !`+problem+`.hidden`)
	line := 1 + strings.Count(strings.SplitN(late, "sink=merge", 2)[0], "\n")
	assert.Contains(t, eval[string](t, ctx, problem+`.textContent`), "late-commit.tdm:"+strconv.Itoa(line)+":")
}

// longScenario returns a scenario of n transactions whose comments hardly
// compress, so that its text is tens of KB and its payload longer than a
// link carries; broken puts a typo in its last line.
func longScenario(n int, broken bool) string {
	var b strings.Builder
	b.WriteString("scenario mydocs/long \"A long scenario\"\nknob mark = timestamp | lsn\n" +
		"source orders key=order_id updated_at=txn-start\ntarget fct_orders sink=merge key=order_id\n" +
		"pipeline extract from=orders to=fct_orders mark=$mark\n")
	x := uint64(0x9e3779b97f4a7c15)
	for i := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		at := func(s int) string {
			two := func(v int) string { return string(rune('0'+v/10)) + string(rune('0'+v%10)) }
			return two(10+s/3600) + ":" + two(s/60%60) + ":" + two(s%60)
		}
		b.WriteString("txn T" + strconv.Itoa(i) + " begin=" + at(3*i) + " commit=" + at(3*i+2) + " insert order_id=" + strconv.Itoa(i+1) +
			" # " + strconv.FormatUint(x, 16) + strconv.FormatUint(x*31, 16) + "\n")
	}
	b.WriteString("runs extract from=10:00:01 until=12:00:00 every=7s\n")
	if broken {
		b.WriteString("run extract at=10:0:02\n")
	}
	return b.String()
}

// TestEmbedScriptLongFile: the docs send an author whose scenario is too
// long for a link to data-source, but embed.js put a file's text in the
// frame's address all the same and refused it ("too long to embed"). A
// text too long for an address is now handed to the frame, which asks for
// it: the widget plays it at the tag's step and knobs, a file that does
// not build names its own line, and only a text past 64 KB is refused.
func TestEmbedScriptLongFile(t *testing.T) {
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	site, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	long, broken, huge := longScenario(600, false), longScenario(600, true), longScenario(1200, false)
	_, err = share.Encode(long)
	require.ErrorIs(t, err, share.ErrTooLong, "the scenario must be too long for a link")
	require.Less(t, len(broken), share.MaxText)
	require.Greater(t, len(huge), share.MaxText)

	const page = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Long</title></head><body>
<div id="long"><script src="/static/embed.js" data-source="/docs/long.tdm" data-step="3" data-knobs="mark=lsn" async></script></div>
<div id="broken"><script src="/static/embed.js" data-source="/docs/long-broken.tdm" async></script></div>
<div id="huge"><script src="/static/embed.js" data-source="/docs/huge.tdm" async></script></div>
</body></html>`
	files := map[string]string{"/docs/long.tdm": long, "/docs/long-broken.tdm": broken, "/docs/huge.tdm": huge}
	mux := http.NewServeMux()
	mux.Handle("/", site)
	mux.HandleFunc("/docs/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/docs/page" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(page))
			return
		}
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(f))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL

	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/page")))
	frame := func(box string) string { return `document.querySelector("#` + box + ` iframe")` }
	inner := func(box string) string { return frame(box) + `.contentDocument` }

	waitFor(t, ctx, "the long file's widget", frame("long")+` && `+inner("long")+` && `+inner("long")+`.querySelector('.tm-host[data-ready="true"]') !== null`)
	assert.Empty(t, eval[string](t, ctx, `(document.querySelector("#long .tidemark-embed-problem") || {}).textContent || ""`))
	assert.Equal(t, base+"/embed/?mark=lsn&step=3#file=long.tdm&posted", eval[string](t, ctx, frame("long")+`.src`), "the text is not in the address")
	assert.Equal(t, "3", eval[string](t, ctx, inner("long")+`.querySelector(".tm-widget").dataset.step`))
	assert.True(t, eval[bool](t, ctx, inner("long")+`.querySelector('[data-testid="knob-mark-lsn"]').checked`))
	assert.Equal(t, long, eval[string](t, ctx, inner("long")+`.querySelector(".tm-host").dataset.source`))
	waitFor(t, ctx, "the frame's title", frame("long")+`.title.startsWith("A long scenario")`)
	assert.False(t, eval[bool](t, ctx, inner("long")+`.querySelector('[data-testid="linked-open"]').checkVisibility()`),
		"no link can carry the text to the sandbox, so the frame offers none")

	problem := inner("broken") + `.querySelector('[data-testid="linked-problem"]')`
	waitFor(t, ctx, "the broken file's error in its frame", frame("broken")+` && `+inner("broken")+` && `+problem+` && !`+problem+`.hidden`)
	assert.Contains(t, eval[string](t, ctx, problem+`.textContent`), "long-broken.tdm:"+strconv.Itoa(strings.Count(broken, "\n"))+":16:")

	waitFor(t, ctx, "a note for the file past 64 KB", `document.querySelector("#huge .tidemark-embed-problem") !== null`)
	assert.Contains(t, text(t, ctx, "#huge .tidemark-embed-problem"), "larger than 64 KB")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll("#huge iframe").length`))
	assert.Empty(t, pageProblems(t, ctx))

	// The same address opened on its own, with no page to hand it a text,
	// says so rather than wait for ever.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#file=long.tdm&posted")))
	waitFor(t, ctx, "the message", `!document.querySelector('[data-testid="linked-problem"]').hidden`)
	assert.Contains(t, text(t, ctx, `[data-testid="linked-problem"]`), "no page did")
}

// TestEmbedOwnScenarioSizedBelowTheFold: an author's own scenario is drawn
// in its frame by a script, after the frame has loaded, and a browser does
// not run a cross-origin frame's rendering (nor its ResizeObserver) while
// the frame is out of sight. So a frame below the fold kept the height of
// "Opening the scenario…" (157 px) until the reader scrolled to it, and
// then jumped to the widget's. Its size is now sent as the scenario opens
// (or fails to), wherever the frame is.
func TestEmbedOwnScenarioSizedBelowTheFold(t *testing.T) {
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	site, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	siteSrv := httptest.NewServer(site)
	t.Cleanup(siteSrv.Close)
	late := strings.SplitN(strings.SplitN(authorDocs, "<script type=\"text/x-tidemark\">\n", 2)[1], "</script>", 2)[0]
	// The docs on an origin of their own, as an author's site is.
	page := `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Docs</title></head><body>
<div style="height: 1500px">An introduction a screen and more long.</div>
<div id="good"><script type="text/x-tidemark">
` + late + `</script><script src="` + siteSrv.URL + `/static/embed.js" async></script></div>
<div id="broken"><script type="text/x-tidemark">
` + strings.Replace(late, "sink=merge", "sink=merj", 1) + `</script><script src="` + siteSrv.URL + `/static/embed.js" async></script></div>
</body></html>`
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(docs.Close)

	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(docs.URL+"/")))
	frame := func(box string) string { return `document.querySelector("#` + box + ` iframe")` }
	waitFor(t, ctx, "the frame named after its scenario", frame("good")+` && `+frame("good")+`.title.startsWith("A late commit falls behind the mark")`)
	waitFor(t, ctx, "the frame as tall as the widget", frame("good")+`.getBoundingClientRect().height > 1000`)
	waitFor(t, ctx, "the broken frame as tall as its error", frame("broken")+` && `+frame("broken")+`.getBoundingClientRect().height > 200 && `+frame("broken")+`.getBoundingClientRect().height < 640`)
	assert.Greater(t, eval[float64](t, ctx, frame("good")+`.getBoundingClientRect().top`), 800.0, "the frame is below the fold")
	assert.Zero(t, eval[float64](t, ctx, `scrollY`), "nobody scrolled")
}

// TestEmbedErrorCaretInSightOnAPhone: the line under an error scrolls
// sideways rather than wrap, so that its caret stands under the column
// named; at 360 px a long line put the caret past the box's edge, and the
// reader saw the line's start and no caret. The box now opens scrolled to
// the caret.
func TestEmbedErrorCaretInSightOnAPhone(t *testing.T) {
	needWasm(t)
	base := startSandbox(t)
	src := "scenario mydocs/typo \"A typo\"\nsource orders key=order_id updated_at=txn-start\ntarget fct_orders sink=merge key=order_id\n" +
		"pipeline extract from=orders to=fct_orders mark=timestamp advance=after overlap=0s predicate=gt mark-clock=source\n"
	frag, err := share.Fragment(strings.Replace(src, "mark-clock=source", "mark-clock=sorce", 1))
	require.NoError(t, err)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#file=typo.tdm&"+frag)))
	problem := `document.querySelector('[data-testid="linked-problem"]')`
	waitLoaded(t, ctx, "the error", `!`+problem+`.hidden`)
	assert.Contains(t, text(t, ctx, `[data-testid="linked-problem"] p`), "typo.tdm:4:")
	pre := problem + `.querySelector("pre.play-caret")`
	assert.Greater(t, eval[int](t, ctx, pre+`.scrollWidth`), eval[int](t, ctx, pre+`.clientWidth`), "the line is wider than a phone")
	inSight := `(() => { const pre = ` + pre + `, t = pre.lastChild, r = document.createRange();
		r.setStart(t, t.length - 1); r.setEnd(t, t.length);
		const c = r.getBoundingClientRect(), p = pre.getBoundingClientRect();
		return c.left >= p.left && c.right <= p.right; })()`
	assert.True(t, eval[bool](t, ctx, inSight), "the caret is out of sight (scrolled %v of %v)", eval[float64](t, ctx, pre+`.scrollLeft`), eval[int](t, ctx, pre+`.scrollWidth`))
	assert.Equal(t, "true", eval[string](t, ctx, pre+`.getAttribute("aria-hidden")`), "the message says the line and column; the copy of the line is for the eye")
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360, "the page does not scroll sideways")
}

// oembedConsumer stands for a tool that unfurls a pasted link with oEmbed,
// as a documentation platform or a chat would: it reads the discovery link
// the test found in the page, asks for the answer and puts its html in.
const oembedConsumer = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Consumer</title></head><body>
<div id="unfurled"></div>
<script>
fetch(ENDPOINT).then((r) => r.json()).then((a) => {
  document.getElementById("unfurled").innerHTML = a.html;
  document.body.dataset.type = a.type;
  document.body.dataset.title = a.title;
});
</script>
</body></html>`

// TestOEmbedUnfurls: the oEmbed discovery link of a scenario page, asked by
// a consumer's page, gives an iframe that plays the scenario at the page's
// step and knobs.
func TestOEmbedUnfurls(t *testing.T) {
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	site, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	var endpoint string
	mux := http.NewServeMux()
	mux.Handle("/", site)
	mux.HandleFunc("/consumer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(strings.Replace(oembedConsumer, "ENDPOINT", jsString(endpoint), 1)))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	resp, err := http.Get(srv.URL + "/scenarios/hwm/visibility-gap?step=14&mark=lsn")
	require.NoError(t, err)
	page := htmltestParse(t, resp)
	for _, l := range page.ByTag("link") {
		if attrOf(l, "type") == "application/json+oembed" {
			endpoint = attrOf(l, "href")
		}
	}
	require.True(t, strings.HasPrefix(endpoint, srv.URL+"/oembed?"), endpoint)

	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/consumer")))
	doc := `document.querySelector("#unfurled iframe").contentDocument`
	waitFor(t, ctx, "the unfurled widget plays", `document.querySelector("#unfurled iframe") && `+doc+` && `+doc+`.querySelector('.tm-host[data-ready="true"]') !== null`)
	assert.Equal(t, "rich", eval[string](t, ctx, `document.body.dataset.type`))
	assert.Equal(t, "14", eval[string](t, ctx, doc+`.querySelector(".tm-widget").dataset.step`))
	assert.True(t, eval[bool](t, ctx, doc+`.querySelector('[data-testid="knob-mark-lsn"]').checked`))
	assert.Empty(t, pageProblems(t, ctx))
}

// TestFaultsInTheAddress: a fork is part of the address. A crash or a clock
// jump injected in the browser lands in the address as fault=…, a reload
// opens the same fork with its comparison, and so does a link to it; the key
// being explained stays in the address too; a link's fault that cannot
// apply is dropped with a word.
func TestFaultsInTheAddress(t *testing.T) {
	ctx, base := startPlayground(t, "/scenarios/hwm/advance-order?crash=none&sink=append&advance=after")
	first := eval[int](t, ctx, `Number([...document.querySelectorAll('.tm-steps li.tm-kind-write')][0].dataset.step)`)
	// Clicked through the page, so that a layout still settling on a busy
	// machine cannot make the click miss.
	jsClick(t, ctx, `.tm-steps li[data-step="`+strconv.Itoa(first)+`"] a`)
	waitFor(t, ctx, "the write's step", `document.querySelector(".tm-widget").dataset.step === "`+strconv.Itoa(first)+`"`)
	jsClick(t, ctx, `[data-testid="btn-crash"]`)
	waitFor(t, ctx, "the fork's comparison", `document.querySelector('[data-testid="panel-compare"]') !== null`)
	waitFor(t, ctx, "the fault in the address", `location.search.includes("fault=`+strconv.Itoa(first)+`~crash")`)
	assert.Contains(t, text(t, ctx, `[data-testid="announcer"]`), "In effect: crash after step "+strconv.Itoa(first), "a screen reader hears the fault taken")

	// A reload opens the same fork, at the same step.
	reloadUntil(t, ctx, `document.querySelector('.tm-host[data-ready="true"] [data-testid="panel-compare"]') !== null`)
	assert.Equal(t, first, step(t, ctx))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="message"]').hidden`), text(t, ctx, `[data-testid="message"]`))
	assert.Equal(t, "In effect: crash after step "+strconv.Itoa(first), text(t, ctx, `[data-testid="faults-on"]`), "the link's fault is named beside the faults")

	// A clock jump after it joins it, in step order.
	jsClick(t, ctx, `[data-testid="btn-end"]`)
	waitFor(t, ctx, "the end", `document.querySelector(".tm-widget").dataset.step === document.querySelector(".tm-widget").dataset.steps`)
	jsClick(t, ctx, `[data-testid="btn-jump-back"]`)
	waitFor(t, ctx, "both faults in the address", `new URLSearchParams(location.search).getAll("fault").length === 2`)
	faults := eval[[]string](t, ctx, `new URLSearchParams(location.search).getAll("fault")`)
	assert.Equal(t, strconv.Itoa(first)+"~crash", faults[0])
	assert.Contains(t, faults[1], "~jump~-5s")

	// The key being explained stays in the address, and a link opens it.
	jsClick(t, ctx, `[data-act="explain"][data-key]:not([data-key=""])`)
	waitFor(t, ctx, "the explanation in the address", `location.search.includes("explain=")`)
	link := eval[string](t, ctx, `location.href`)
	other := newTabBeside(t, ctx)
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(link)))
	waitFor(t, other, "the linked fork", `document.querySelector('.tm-host[data-ready="true"] [data-testid="panel-compare"]') !== null`)
	assert.NotEmpty(t, text(t, other, `[data-testid="explain"]`))
	assert.Equal(t, 2, eval[int](t, other, `new URLSearchParams(location.search).getAll("fault").length`))

	// A fault that cannot apply where the link puts it.
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(base+"/scenarios/hwm/advance-order?crash=none&fault=1~crash")))
	waitReady(t, other)
	assert.Contains(t, text(t, other, `[data-testid="message"]`), "The link's fault=1~crash could not be applied")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPostedTextOnlyFromTheFramingPage holds the embed page's #posted path
// (a text handed over by the page that frames it, share.js) to what a
// hostile page can do with it: nothing a link cannot. A page that frames
// /embed/#posted decides its own frame's text (as it could with #tdm=),
// but only its first well-formed answer is taken: a sibling frame's, one
// with another id or with no string, a second text after the scenario
// opened, a text past 64 KB (refused before it is encoded, however long),
// a sandbox framed with "posted", and the page opened on its own with a
// name take none, and nothing the page sent reaches the site's storage.
// On the other side, embed.js hands its text only to the site's origin:
// its frame navigated to another origin asks in vain.
func TestPostedTextOnlyFromTheFramingPage(t *testing.T) {
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	site, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	titled := func(n int, name string) string {
		return strings.Replace(longScenario(n, false), `mydocs/long "A long scenario"`, "evil/"+strings.ToLower(name)+` "`+name+`"`, 1)
	}
	texts := map[string]string{
		"sibling": titled(4, "Sibling"), "wrongId": titled(5, "WrongId"), "first": titled(6, "First"),
		"second": titled(7, "Second"), "play": titled(8, "Played"),
	}
	js, err := json.Marshal(texts)
	require.NoError(t, err)
	hostile := `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Hostile</title></head><body>
<iframe id="sib" src="/docs/blank"></iframe>
<iframe id="own" name="own" src="/embed/#posted"></iframe>
<iframe id="big" name="big" src="/embed/#posted"></iframe>
<iframe id="wide" name="wide" src="/embed/#posted"></iframe>
<iframe id="play" name="play" src="/play#posted"></iframe>
<script type="application/json" id="texts">` + string(js) + `</script>
<script>
window.T = JSON.parse(document.getElementById("texts").textContent);
window.asked = [];
window.longestEncoded = 0;
window.addEventListener("message", (e) => {
  const m = e.data;
  if (!m || m.tidemark !== "text?") return;
  asked.push(m.id);
  const w = e.source;
  if (m.id === "own") {
    // The right id from a sibling frame, then the framing page's own
    // answers with another id and with no string; the text last.
    document.getElementById("sib").contentWindow.eval(
      "parent.document.getElementById('own').contentWindow.postMessage({tidemark: 'text', id: 'own', text: parent.T.sibling}, '*')");
    w.postMessage({tidemark: "text", id: "other", text: T.wrongId}, "*");
    w.postMessage({tidemark: "text", id: "own", text: new String(T.wrongId)}, "*");
    w.postMessage({tidemark: "text", id: "own", text: [T.wrongId]}, "*");
    w.postMessage({tidemark: "text", id: "own", text: {length: 1}}, "*");
    setTimeout(() => w.postMessage({tidemark: "text", id: "own", text: T.first}, "*"), 300);
  } else if (m.id === "big") {
    // The test sees how long a string the frame encodes (the frame is on
    // this page's origin here; a real embedder's is not).
    const encode = w.TextEncoder.prototype.encode;
    w.TextEncoder.prototype.encode = function (s) {
      longestEncoded = Math.max(longestEncoded, String(s ?? "").length);
      return encode.call(this, s);
    };
    w.postMessage({tidemark: "text", id: "big", text: "x".repeat(8 << 20)}, "*");
  } else if (m.id === "wide") {
    w.postMessage({tidemark: "text", id: "wide", text: "\u00e9".repeat(40000)}, "*");
  }
});
document.getElementById("play").addEventListener("load", (e) =>
  e.target.contentWindow.postMessage({tidemark: "text", id: "play", text: T.play}, "*"));
</script>
</body></html>`
	long := longScenario(600, false)
	const page = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Long</title></head><body>
<div id="long"><script src="/static/embed.js" data-source="/docs/long.tdm" async></script></div>
</body></html>`
	mux := http.NewServeMux()
	mux.Handle("/", site)
	mux.HandleFunc("/docs/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/docs/hostile":
			_, _ = w.Write([]byte(hostile))
		case "/docs/page":
			_, _ = w.Write([]byte(page))
		case "/docs/long.tdm":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte(long))
		default:
			_, _ = w.Write([]byte(`<!DOCTYPE html><title>blank</title>`))
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL
	// A page of another origin (another port), into which the embedder's
	// frame is sent: it asks for the text with the frame's name, as the
	// embed page would, and reports what it got.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!DOCTYPE html><title>steal</title><script>
const got = [];
addEventListener("message", (e) => got.push(e.data));
parent.postMessage({tidemark: "text?", id: window.name}, "*");
setTimeout(() => parent.postMessage({stealReport: got.length, name: window.name}, "*"), 1500);
</script>`))
	}))
	t.Cleanup(other.Close)

	// Any site may frame the embed page; the sandbox, only the site.
	for path, want := range map[string]string{"/embed/": "frame-ancestors *", "/play": "frame-ancestors 'self'"} {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.True(t, strings.HasSuffix(resp.Header.Get("Content-Security-Policy"), want), "%s: %s", path, resp.Header.Get("Content-Security-Policy"))
		assert.Equal(t, path == "/play", resp.Header.Get("X-Frame-Options") == "SAMEORIGIN", path)
	}

	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/hostile")))
	inner := func(id string) string { return `document.getElementById("` + id + `").contentDocument` }
	problem := func(id string) string { return inner(id) + `.querySelector('[data-testid="linked-problem"]')` }
	host := inner("own") + `.querySelector('.tm-host[data-ready="true"]')`

	waitFor(t, ctx, "the framing page's text", host+` !== null`)
	assert.Equal(t, texts["first"], eval[string](t, ctx, host+`.dataset.source`),
		"only the framing page's first answer with the frame's id and a string is taken")
	assert.Equal(t, "First — Tidemark", eval[string](t, ctx, inner("own")+`.title`))
	// A second text, once the scenario is open, changes nothing.
	eval[bool](t, ctx, `(document.getElementById("own").contentWindow.postMessage({tidemark: "text", id: "own", text: T.second}, "*"), true)`)
	time.Sleep(time.Second)
	assert.Equal(t, texts["first"], eval[string](t, ctx, inner("own")+`.querySelector(".tm-host").dataset.source`))
	assert.Equal(t, "First — Tidemark", eval[string](t, ctx, inner("own")+`.title`))
	assert.Equal(t, "ready", eval[string](t, ctx, inner("own")+`.querySelector("[data-tidemark-linked]").dataset.state`))

	for _, id := range []string{"big", "wide"} {
		waitFor(t, ctx, id+"'s refusal", problem(id)+` && !`+problem(id)+`.hidden`)
		assert.Contains(t, eval[string](t, ctx, problem(id)+`.textContent`), "larger than 64 KB", id)
		assert.Zero(t, eval[int](t, ctx, inner(id)+`.querySelectorAll(".tm-host").length`), id)
	}
	assert.LessOrEqual(t, eval[int](t, ctx, `longestEncoded`), share.MaxText,
		"a string of 8 Mi characters is refused by its length, before it is encoded")

	// The sandbox never asks, and a text sent to it is not taken, nor is
	// anything stored from it.
	waitFor(t, ctx, "the sandbox's widget", inner("play")+` && `+inner("play")+`.querySelector('.tm-host[data-ready="true"]') !== null`)
	time.Sleep(500 * time.Millisecond)
	assert.NotContains(t, eval[string](t, ctx, inner("play")+`.getElementById("play-src").value`), "evil/")
	assert.Equal(t, []string{"big", "own", "wide"}, eval[[]string](t, ctx, `asked.slice().sort()`), "only the embed pages asked")
	assert.Empty(t, eval[[]string](t, ctx, `Object.keys(localStorage).filter((k) => localStorage.getItem(k).includes("evil/"))`),
		"nothing a page sent is stored on the site's origin")
	assert.Nil(t, eval[any](t, ctx, `localStorage.getItem("tidemark.progress")`))

	// Opened on its own, even with a name, the page takes no text and
	// says so at once.
	eval[bool](t, ctx, `(window.name = "own", true)`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#posted")))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector('[data-testid="linked-problem"]').hidden`,
		chromedp.WithPollingTimeout(3*time.Second)))
	require.NoError(t, err, "a page with no frame around it waits for no text")
	assert.Equal(t, "own", eval[string](t, ctx, `window.name`))
	assert.Contains(t, text(t, ctx, `[data-testid="linked-problem"]`), "no page did")

	// embed.js's frame, sent to another origin, is not handed the text.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/page")))
	frame := `document.querySelector("#long iframe")`
	waitFor(t, ctx, "the long file's widget", frame+` && `+frame+`.contentDocument && `+frame+`.contentDocument.querySelector('.tm-host[data-ready="true"]') !== null`)
	id := eval[string](t, ctx, frame+`.name`)
	require.NotEmpty(t, id)
	eval[bool](t, ctx, `(window.reports = [], addEventListener("message", (e) => { if (e.data && "stealReport" in e.data) reports.push(e.data); }), `+
		frame+`.src = `+jsString(other.URL+"/steal")+`, true)`)
	waitFor(t, ctx, "the other origin's report", `reports.length === 1`)
	assert.Equal(t, id, eval[string](t, ctx, `reports[0].name`), "the other origin asked with the frame's id")
	assert.Zero(t, eval[int](t, ctx, `reports[0].stealReport`), "and got nothing")
}
