//go:build !js

package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// TestModuleDownloadStartsWithTheHTML: the scenario page's head preloads the
// engine's module, and the loader's fetch() takes that response: the server
// sees one request for the module, and the browser's only resource entry
// for it was started by the <link>, not by the script.
func TestModuleDownloadStartsWithTheHTML(t *testing.T) {
	wasmURL, ok := web.LookupAsset(pages.ModuleHWM)
	if !ok {
		const msg = "tidemark-hwm.wasm not built; run `make wasm`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip(msg)
	}
	cat, err := pages.Catalog()
	require.NoError(t, err)
	h, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	var moduleRequests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wasmURL {
			moduleRequests.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	ctx := newBrowser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/scenarios/hwm/visibility-gap")))
	waitReady(t, ctx)

	type entry struct {
		InitiatorType string  `json:"initiatorType"`
		StartTime     float64 `json:"startTime"`
	}
	entries := eval[[]entry](t, ctx, `performance.getEntriesByType("resource")
		.filter((e) => new URL(e.name).pathname === `+jsString(wasmURL)+`)
		.map((e) => ({ initiatorType: e.initiatorType, startTime: e.startTime }))`)
	require.Len(t, entries, 1, "the module should be fetched once: %+v", entries)
	assert.Equal(t, "link", entries[0].InitiatorType, "the module's download should be started by the preload")
	assert.EqualValues(t, 1, moduleRequests.Load(), "the server should be asked for the module once")
	appJS := eval[float64](t, ctx, `performance.getEntriesByType("resource").find((e) => e.name.includes("/static/app.")).startTime`)
	assert.LessOrEqual(t, entries[0].StartTime, appJS, "the module's download should start no later than the scripts'")
	assert.Equal(t, pages.ModuleHWM, eval[string](t, ctx, `window.tidemarkEngine.module`), "a page of the high-water-mark world loads that world's build")
	assert.Empty(t, pageProblems(t, ctx))
}

// TestPagesLoadTheModuleOfTheirWorlds opens a page of each set of worlds
// and finds the engine running the build the page asked for, driving its
// widget: a log scenario in the log world's build, a stream scenario in the
// build of the log and stream worlds, a stream that looks up a source table
// in the build of every world, a lesson chapter of the high-water mark in
// that world's build, and a chapter of lesson two whose log scenarios and
// streams all read topics in the build of the log and stream worlds (its
// first widget, a log scenario, stepped there).
func TestPagesLoadTheModuleOfTheirWorlds(t *testing.T) {
	for _, c := range []struct{ path, module string }{
		{"/scenarios/dist/partition-change", pages.ModuleLog},
		{"/scenarios/stream/late-data", pages.ModuleStream},
		{"/scenarios/stream/nondeterministic-replay", pages.ModuleAll},
		{"/lessons/high-water-mark/position-or-timestamp", pages.ModuleHWM},
		{"/lessons/guarantee-chain/how-it-breaks", pages.ModuleStream},
	} {
		var ctx context.Context
		if strings.HasPrefix(c.path, "/lessons/") {
			base := startLessonSite(t)
			ctx = newBrowser(t)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+c.path)))
			waitReady(t, ctx)
		} else {
			ctx, _ = startPlayground(t, c.path)
		}
		assert.Equal(t, c.module, eval[string](t, ctx, `window.tidemarkEngine.module`), c.path)
		const widget = `document.querySelector('.tm-host[data-ready="true"] .tm-widget')`
		before := eval[string](t, ctx, widget+`.dataset.step`)
		press(t, ctx, `.tm-host[data-ready="true"] [data-testid="btn-forward"]`)
		waitFor(t, ctx, c.path+" steps", widget+`.dataset.step === String(Number(`+jsString(before)+`) + 1)`)
		assert.Empty(t, pageProblems(t, ctx), c.path)
	}
}
