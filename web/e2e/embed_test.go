//go:build !js

package e2e

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// authorPage stands for a documentation author's page: two embed script
// tags, one for a scenario at a step with a knob and one that forgot its
// scenario. It is served by the same test server as the site, so the
// embed script comes from the site's own origin, as it would on a real page.
const authorPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Our pipeline docs</title></head>
<body>
<h1>Why our extract loses rows</h1>
<p>Step through it:</p>
<script src="/static/embed.js" data-scenario="hwm/visibility-gap" data-step="14" data-knobs="mark=lsn" async></script>
<p id="after">More prose after the embed.</p>
<div id="broken"><script src="/static/embed.js" async></script></div>
</body></html>`

// TestEmbedScript loads a page with the embed script tag: the script puts
// an accessible iframe after itself, the iframe runs the widget at the
// step and knob asked for, and the embed page's height message sizes it.
func TestEmbedScript(t *testing.T) {
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		t.Skip("tidemark.wasm not built; run `make wasm`")
	}
	cat, err := pages.Catalog()
	require.NoError(t, err)
	author := web.Page{Pattern: "GET /docs/author", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(authorPage))
	})}
	base := startSite(t, web.Options{Scenarios: cat, Pages: append(pages.Routes(), author)})
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/author")))

	// The iframe appears right after its script tag.
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`iframe.tidemark-embed`))))
	assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll("iframe").length`), "one iframe per scenario; the broken tag makes none")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('script[data-scenario]').nextElementSibling.tagName === "IFRAME"`))
	assert.Equal(t, base+"/embed/hwm/visibility-gap?mark=lsn&step=14", eval[string](t, ctx, `document.querySelector("iframe").src`))
	assert.Equal(t, "lazy", eval[string](t, ctx, `document.querySelector("iframe").getAttribute("loading")`))
	assert.NotEmpty(t, eval[string](t, ctx, `document.querySelector("iframe").title`), "the iframe has an accessible name from the start")

	// The missing scenario is said politely where the iframe would be.
	msg := eval[string](t, ctx, `(document.querySelector("#broken .tidemark-embed-missing")||{}).textContent||""`)
	assert.Contains(t, msg, "names no scenario")
	assert.Contains(t, msg, "data-scenario")

	// The iframe's widget is taken over by the engine at the requested step
	// and knob (same origin here, so the test can look inside).
	const inner = `document.querySelector("iframe").contentDocument`
	require.NoError(t, chromedp.Do(ctx, chromedp.Poll[chromedp.Void](inner+`.querySelector('.tm-host[data-ready="true"] [data-testid="btn-play"]') !== null`, chromedp.WithPollingTimeout(20*time.Second))),
		"the widget in the iframe never became ready")
	assert.Equal(t, "14", eval[string](t, ctx, inner+`.querySelector(".tm-widget").dataset.step`))
	// In someone else's page the title is a caption, not a second page title.
	assert.LessOrEqual(t, eval[float64](t, ctx, `parseFloat(getComputedStyle(`+inner+`.querySelector(".embed-title")).fontSize) / parseFloat(getComputedStyle(`+inner+`.documentElement).fontSize)`), 1.35,
		"the embed's title, in rem")
	assert.True(t, eval[bool](t, ctx, inner+`.querySelector('[data-testid="knob-mark-lsn"]').checked`))
	// Its "open in Tidemark" link opens the scenario where the reader is,
	// and follows the reader's steps.
	require.NoError(t, chromedp.Do(ctx, chromedp.Poll[chromedp.Void](inner+`.querySelector('[data-testid="embed-open"]').getAttribute("href") === "/scenarios/hwm/visibility-gap?mark=lsn&step=14"`, chromedp.WithPollingTimeout(10*time.Second))),
		"the open link carries the step and knobs: %s", eval[string](t, ctx, inner+`.querySelector('[data-testid="embed-open"]').getAttribute("href")`))
	eval[bool](t, ctx, `(`+inner+`.querySelector('[data-testid="btn-forward"]').click(), true)`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Poll[chromedp.Void](inner+`.querySelector('[data-testid="embed-open"]').getAttribute("href").endsWith("step=15")`, chromedp.WithPollingTimeout(10*time.Second))),
		"the open link follows a step: %s", eval[string](t, ctx, inner+`.querySelector('[data-testid="embed-open"]').getAttribute("href")`))

	// The height message sized the iframe to its content (it started at
	// 640 px; the widget is taller), and the title now names the scenario.
	require.NoError(t, chromedp.Do(ctx, chromedp.Poll[chromedp.Void](
		`(() => { const f = document.querySelector("iframe");
		  const want = Math.ceil(f.contentDocument.documentElement.getBoundingClientRect().height);
		  return f.style.height === want + "px" && f.getBoundingClientRect().height === want; })()`,
		chromedp.WithPollingTimeout(10*time.Second))), "the iframe's height was not set from the embed page's message")
	h := eval[float64](t, ctx, `document.querySelector("iframe").getBoundingClientRect().height`)
	assert.Greater(t, h, 640.0, "the iframe grew to the widget")
	assert.Contains(t, eval[string](t, ctx, `document.querySelector("iframe").title`), "A timestamp mark skips rows that commit late")

	// A message with another id, or from elsewhere, changes nothing.
	eval[bool](t, ctx, `window.postMessage({tidemark: "height", id: document.querySelector("iframe").name, height: 50}, "*"), true`)
	time.Sleep(200 * time.Millisecond)
	assert.Equal(t, h, eval[float64](t, ctx, `document.querySelector("iframe").getBoundingClientRect().height`), "a message not from the iframe was obeyed")

	// The widget in the frame grows (its timeline opens): the frame follows.
	eval[bool](t, ctx, `(() => { const d = `+inner+`.querySelector('[data-testid="timeline"]'); d.open = !d.open; return true; })()`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Poll[chromedp.Void](
		`(() => { const f = document.querySelector("iframe");
		  const got = f.getBoundingClientRect().height;
		  return got === Math.ceil(f.contentDocument.documentElement.getBoundingClientRect().height) && got !== `+strconv.FormatFloat(h, 'f', -1, 64)+`; })()`,
		chromedp.WithPollingTimeout(10*time.Second))), "the iframe did not follow its content's height")

	assert.Empty(t, pageProblems(t, ctx))
}

// TestEmbedSnippetsAt360 checks the long snippets on a scenario page wrap
// on a phone rather than push the page sideways.
func TestEmbedSnippetsAt360(t *testing.T) {
	ctx, _ := startPlayground(t, "/scenarios/hwm/visibility-gap?step=14&mark=lsn")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)))
	assert.LessOrEqual(t, eval[int](t, ctx, `document.querySelector('[data-testid="embed-snippets"]').scrollWidth`), 360, "a snippet is wider than the phone")
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 360, "the page scrolls sideways at 360px")
	assert.Contains(t, text(t, ctx, `[data-testid="snippet-script"]`), `data-scenario="hwm/visibility-gap"`)
}

// themedPages stand for documentation pages, each with three embed tags:
// by default, data-theme="auto" and data-theme="dark"; SCHEME is the
// page's own color-scheme ("" for none).
const themedPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Docs</title>SCHEME</head><body>
<div id="default"><script src="/static/embed.js" data-scenario="hwm/visibility-gap" async></script></div>
<div id="auto"><script src="/static/embed.js" data-scenario="hwm/visibility-gap" data-theme="auto" async></script></div>
<div id="dark"><script src="/static/embed.js" data-scenario="hwm/visibility-gap" data-theme="dark" async></script></div>
<div id="snippet">SNIPPET</div>
</body></html>`

// TestEmbedFollowsThePageTheme: a browser draws a frame by the color
// scheme of its element, which, in a page that declares none, is the
// reader's system's, so a light page on a dark system showed a dark embed
// (seen cross-origin in Chromium: there the frame's prefers-color-scheme
// follows its element's scheme). embed.js gives its frame the page's
// scheme: light for a page that declares none; the page's own when it
// declares one; data-theme chooses otherwise. The iframe snippet a
// scenario page offers, pasted as it is, says light too: an author who
// writes the iframe rather than the script tag got a dark embed in a light
// page on a dark system.
func TestEmbedFollowsThePageTheme(t *testing.T) {
	needWasm(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	site, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	// The docs are served beside the site, without its headers (its CSP
	// would refuse the snippet's style attribute): someone else's pages.
	var snippet string
	mux := http.NewServeMux()
	mux.Handle("/", site)
	page := func(path, scheme string) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(strings.NewReplacer("SCHEME", scheme, "SNIPPET", snippet).Replace(themedPage)))
		})
	}
	page("/docs/plain", "")
	page("/docs/both", `<meta name="color-scheme" content="light dark">`)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL
	ctx := newBrowser(t)
	// The author copies the iframe snippet from the scenario page.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/scenarios/hwm/visibility-gap?step=14")))
	snippet = eval[string](t, ctx, `document.querySelector('[data-testid="snippet-iframe"]').textContent`)
	require.True(t, strings.HasPrefix(snippet, "<iframe "), snippet)
	scheme := func(box string) string {
		frame := `document.querySelector("#` + box + ` iframe")`
		waitFor(t, ctx, box+": its frame", frame+` !== null`)
		return eval[string](t, ctx, `getComputedStyle(`+frame+`).colorScheme`)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/plain")))
	assert.Equal(t, "light", scheme("default"), "a page that declares no scheme is drawn light, and so is its embed")
	assert.Equal(t, "light", scheme("snippet"), "the page's iframe snippet, pasted into a page that declares no scheme: %s", snippet)
	assert.Equal(t, "normal", scheme("auto"), "data-theme=auto leaves the frame to the reader's system")
	assert.Equal(t, "dark", scheme("dark"))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/docs/both")))
	assert.Equal(t, "normal", scheme("default"), "a page that follows the system (by its meta) has an embed that does")
	assert.Equal(t, "dark", scheme("dark"))
	assert.Empty(t, pageProblems(t, ctx))
}
