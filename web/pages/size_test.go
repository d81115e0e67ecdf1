package pages_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// TestWidgetPagesStayWithinTheDownloadBudget adds up what each kind of page
// with a widget makes the browser download to become interactive: its
// scripts and the engine's module, brotli-compressed as the handler serves
// them to a browser. Each must stay within the budget of its kind:
// pages.HWMDownloadBudget for a page of the high-water-mark world alone,
// pages.LogDownloadBudget for one of the log world,
// pages.StreamDownloadBudget for one of a stream over topics,
// pages.DownloadBudget for one that loads every world (see
// docs/performance.md, "Download").
func TestWidgetPagesStayWithinTheDownloadBudget(t *testing.T) {
	needModules(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	h, err := web.NewHandler(web.Options{Scenarios: cat, Pages: append(pages.Routes(), lessonpage.Routes()...)})
	require.NoError(t, err)
	brotli := func(target string) int {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Accept-Encoding", "br, gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, target)
		require.Equal(t, "br", rec.Header().Get("Content-Encoding"), "%s is not served brotli-compressed", target)
		return rec.Body.Len()
	}
	for _, c := range []struct {
		target, module string
		budget         int
	}{
		{"/scenarios/hwm/visibility-gap", pages.ModuleHWM, pages.HWMDownloadBudget},
		{"/embed/hwm/visibility-gap", pages.ModuleHWM, pages.HWMDownloadBudget},
		{"/lessons/high-water-mark/position-or-timestamp", pages.ModuleHWM, pages.HWMDownloadBudget},
		{"/scenarios/dist/partition-change", pages.ModuleLog, pages.LogDownloadBudget},
		{"/scenarios/stream/late-data", pages.ModuleStream, pages.StreamDownloadBudget},
		{"/embed/stream/late-data", pages.ModuleStream, pages.StreamDownloadBudget},
		// A chapter of log scenarios and streams, all over topics.
		{"/lessons/guarantee-chain/how-it-breaks", pages.ModuleStream, pages.StreamDownloadBudget},
		{"/scenarios/stream/nondeterministic-replay", pages.ModuleAll, pages.DownloadBudget},
		{"/lessons/guarantee-chain/the-chain", pages.ModuleAll, pages.DownloadBudget},
		{"/play", pages.ModuleAll, pages.DownloadBudget},
	} {
		code, d := get(t, h, c.target)
		require.Equal(t, http.StatusOK, code, c.target)
		// The module the page's first widget hands the engine loader, which
		// the head preloads too.
		var loaded []string
		for _, n := range htmltest.All(d.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "data-tidemark-wasm") }) {
			loaded = append(loaded, htmltest.Attr(n, "data-tidemark-wasm"))
		}
		require.NotEmpty(t, loaded, "%s hands the engine loader no module", c.target)
		want, ok := pages.ModuleURL(c.module)
		require.True(t, ok)
		for _, u := range loaded {
			assert.Equal(t, want, u, "%s loads the module of its worlds, %s, in every widget", c.target, c.module)
		}
		for _, l := range d.ByTag("link") {
			if htmltest.Attr(l, "rel") == "preload" {
				assert.Equal(t, want, htmltest.Attr(l, "href"), "%s preloads the module it loads", c.target)
			}
		}
		total := brotli(loaded[0])
		for _, s := range d.ByTag("script") {
			n := brotli(htmltest.Attr(s, "src"))
			t.Logf("%s: %s %d bytes brotli", c.target, htmltest.Attr(s, "src"), n)
			total += n
		}
		t.Logf("%s: %s and its scripts, %d bytes brotli (%.1f KB); budget %d", c.target, c.module, total, float64(total)/1000, c.budget)
		assert.LessOrEqual(t, total, c.budget, "%s downloads too much to become interactive", c.target)
	}
	// A scenario carried in a link (/embed/#tdm=…) downloads the build its
	// text needs, which share.js picks in the browser
	// (TestLinkedEmbedLoadsTheBuildItsTextNeeds in web/e2e): with the
	// page's scripts, each within the budget of its kind of page.
	code, d := get(t, h, "/embed/")
	require.Equal(t, http.StatusOK, code)
	scripts := 0
	for _, s := range d.ByTag("script") {
		scripts += brotli(htmltest.Attr(s, "src"))
	}
	for _, c := range []struct {
		module string
		budget int
	}{
		{pages.ModuleHWM, pages.HWMDownloadBudget}, {pages.ModuleLog, pages.LogDownloadBudget},
		{pages.ModuleStream, pages.StreamDownloadBudget}, {pages.ModuleAll, pages.DownloadBudget},
	} {
		u, ok := pages.ModuleURL(c.module)
		require.True(t, ok)
		total := scripts + brotli(u)
		t.Logf("/embed/#tdm=… of a text for %s: %d bytes brotli (%.1f KB); budget %d", c.module, total, float64(total)/1000, c.budget)
		assert.LessOrEqual(t, total, c.budget, "a link's embed that loads %s downloads too much to become interactive", c.module)
	}

	// The module a stream's page loads, alone, within the stream world's
	// target (issues 11 and 12).
	u, ok := pages.ModuleURL(pages.ModuleStream)
	require.True(t, ok)
	require.Contains(t, u, "tidemark-stream.", "the build of the log and stream worlds is built")
	n := brotli(u)
	t.Logf("%s alone: %d bytes brotli (%.1f KB); target %d", pages.ModuleStream, n, float64(n)/1000, streamModuleTarget)
	assert.LessOrEqual(t, n, streamModuleTarget, "the module of the stream world's pages is over its target")
}

// streamModuleTarget is the most, in bytes of brotli, that the module of a
// stream's page may weigh: the target of the stream world's issues for the
// browser module with the stream world.
const streamModuleTarget = 850_000

// needModules skips a test that reads the engine's modules when `make wasm`
// has not built them, and fails it when CI is set, where they must be.
func needModules(t *testing.T) {
	t.Helper()
	if _, built := web.LookupAsset(pages.ModuleHWM); !built {
		const msg = "tidemark-hwm.wasm is not built; run `make wasm`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip(msg)
	}
}
