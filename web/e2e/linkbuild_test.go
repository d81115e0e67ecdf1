//go:build !js

package e2e

import (
	"path"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web/pages"
)

// TestLinkedEmbedLoadsTheBuildItsTextNeeds: a scenario carried in a link
// (/embed/#tdm=…, as the sandbox's Embed and embed.js write) downloads the
// smallest build of the engine that runs it, as its page would if it were
// bundled: an author's embed of the high-water mark is a third lighter than
// the build of every world. One build is fetched, never two; a text with a
// line the builds do not know takes the build of every world, whose refusal
// weighs every world's commands, and a text a smaller build refuses is
// opened again with it, for its suggestions; a link whose text cannot be
// read fetches none.
func TestLinkedEmbedLoadsTheBuildItsTextNeeds(t *testing.T) {
	base := startSandbox(t)
	browser := startBrowser(t)
	bundled := func(id string) string {
		sc, ok := lessons.Lookup(id)
		require.True(t, ok, id)
		return string(sc.Source)
	}
	wasmFetched := `performance.getEntriesByType("resource").filter((e) => /\.wasm(\?|$)/.test(e.name)).map((e) => e.name)`
	for name, c := range map[string]struct{ text, module string }{
		"high-water mark":            {bundled("hwm/visibility-gap"), pages.ModuleHWM},
		"log":                        {bundled("dist/partition-change"), pages.ModuleLog},
		"stream":                     {bundled("stream/late-data"), pages.ModuleStream},
		"stream over a source table": {bundled("stream/nondeterministic-replay"), pages.ModuleAll},
		// Comments, indentation and Windows line ends start no command.
		"commented": {"# a log, written on Windows\r\n\r\nscenario x/y \"Y\"\r\n  topic orders partitions=1\r\n\tproducer shop to=orders # the app\r\nproduce shop at=10:00:01 key=1\r\n", pages.ModuleLog},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := newIsolatedTab(t, browser)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#"+mustFragment(t, c.text))))
			waitFor(t, ctx, "the widget", `document.querySelector('.tm-host[data-ready="true"]') !== null`)
			assert.Equal(t, c.module, eval[string](t, ctx, `window.tidemarkEngine.module`))
			fetched := eval[[]string](t, ctx, wasmFetched)
			require.Len(t, fetched, 1, "one build, fetched once")
			want, ok := pages.ModuleURL(c.module)
			require.True(t, ok)
			assert.Equal(t, path.Base(want), path.Base(fetched[0]))
			assert.Empty(t, pageProblems(t, ctx))
		})
	}

	t.Run("a typo", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#"+mustFragment(t, "scenario x/y \"Y\"\nsourse orders key=id\n"))))
		waitLoaded(t, ctx, "a message", `document.querySelector('[data-testid="linked"]').dataset.state === "problem"`)
		assert.Equal(t, pages.ModuleAll, eval[string](t, ctx, `window.tidemarkEngine.module`), "the build whose refusal names every world's commands")
		problem := text(t, ctx, `[data-testid="linked-problem"]`)
		assert.Contains(t, problem, "linked.tdm:2:1")
		assert.Contains(t, problem, "did you mean source?")
	})

	t.Run("a misspelt argument", func(t *testing.T) {
		// The build of the source database alone refuses it without a
		// suggestion; the page opens it again with every world's, which
		// says what the word most likely meant, as the sandbox does.
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#"+mustFragment(t, "scenario x/y \"Y\"\nsource orders key=id\ntarget t key=id\npipeline p from=orders to=t mrak=lsn\n"))))
		waitLoaded(t, ctx, "a message", `document.querySelector('[data-testid="linked"]').dataset.state === "problem"`)
		assert.Equal(t, pages.ModuleAll, eval[string](t, ctx, `window.tidemarkEngine.module`))
		assert.Contains(t, text(t, ctx, `[data-testid="linked-problem"]`), "linked.tdm:4:29: unknown argument mrak= for pipeline; did you mean mark=?")
		assert.False(t, eval[bool](t, ctx, `sessionStorage.length > 0`), "the reload's note is taken: a reload of the page starts from the smallest build again")
	})

	t.Run("a damaged link fetches no engine", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#tdm=abc*def")))
		waitLoaded(t, ctx, "a message", `document.querySelector('[data-testid="linked"]').dataset.state === "problem"`)
		assert.Empty(t, eval[[]string](t, ctx, wasmFetched))
	})
}

// TestBuildForAgreesWithTheServer: share.js's buildFor picks, for the text
// of every bundled scenario, the build the server's WorldsOfCommands does
// (and a test in web/pages holds that equal to the build its page loads).
func TestBuildForAgreesWithTheServer(t *testing.T) {
	base := startSandbox(t)
	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/embed/#tdm=abc*def")))
	waitFor(t, ctx, "the page", `document.querySelector('[data-testid="linked"]').dataset.state === "problem"`)
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		want, ok := pages.ModuleURL(pages.WorldsOfCommands(sc.File).Module())
		require.True(t, ok)
		got := eval[string](t, ctx, `window.tidemarkShare.buildFor(`+jsString(string(sc.Source))+`, JSON.parse(document.querySelector("[data-tidemark-builds]").dataset.tidemarkBuilds))`)
		assert.Equal(t, path.Base(want), got, sc.ID)
	}
}
