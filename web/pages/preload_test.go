package pages_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// TestWidgetPagesPreloadTheModule: every page with a widget asks for the
// engine's module from its head, before any script, with a request that
// fetch() will reuse (as=fetch, crossorigin), at the hashed URL the widget
// loads, and that URL serves the module. Pages without a widget do not.
func TestWidgetPagesPreloadTheModule(t *testing.T) {
	needModules(t)
	cat, err := pages.Catalog()
	require.NoError(t, err)
	h, err := web.NewHandler(web.Options{Scenarios: cat, Pages: append(pages.Routes(), lessonpage.Routes()...)})
	require.NoError(t, err)

	preloads := func(d htmltest.Doc) []*html.Node {
		return htmltest.All(d.Root, func(n *html.Node) bool { return n.Data == "link" && htmltest.Attr(n, "rel") == "preload" })
	}
	for target, name := range map[string]string{
		"/scenarios/hwm/visibility-gap": pages.ModuleHWM, "/embed/hwm/visibility-gap": pages.ModuleHWM,
		"/scenarios/dist/partition-change": pages.ModuleLog, "/scenarios/stream/late-data": pages.ModuleStream,
		"/scenarios/stream/nondeterministic-replay": pages.ModuleAll,
		"/play": pages.ModuleAll, "/lessons/high-water-mark/position-or-timestamp": pages.ModuleHWM,
	} {
		t.Run(target, func(t *testing.T) {
			wasmURL, ok := pages.ModuleURL(name)
			require.True(t, ok)
			module, err := os.ReadFile("../static/" + name)
			require.NoError(t, err)
			code, d := get(t, h, target)
			require.Equal(t, http.StatusOK, code)
			links := preloads(d)
			require.Len(t, links, 1, "one preload, for the module")
			link := links[0]
			assert.Equal(t, wasmURL, htmltest.Attr(link, "href"))
			assert.Equal(t, "fetch", htmltest.Attr(link, "as"))
			assert.True(t, htmltest.HasAttr(link, "crossorigin"), "without crossorigin the preload's request does not match fetch()'s and the module is downloaded twice")
			assert.Equal(t, "head", link.Parent.Data)

			// It comes before the scripts, so the download starts first.
			head := slices.Collect(link.Parent.ChildNodes())
			firstScript := slices.IndexFunc(head, func(n *html.Node) bool { return n.Data == "script" })
			require.GreaterOrEqual(t, firstScript, 0)
			assert.Less(t, slices.Index(head, link), firstScript, "the preload should come before the scripts")

			// The widget fetches the same URL.
			hosts := htmltest.All(d.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "data-tidemark-wasm") })
			require.NotEmpty(t, hosts)
			for _, host := range hosts {
				assert.Equal(t, wasmURL, htmltest.Attr(host, "data-tidemark-wasm"))
			}

			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, htmltest.Attr(link, "href"), nil))
			require.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, "application/wasm", rec.Header().Get("Content-Type"))
			assert.Contains(t, rec.Header().Get("Cache-Control"), "immutable")
			assert.True(t, bytes.Equal(module, rec.Body.Bytes()), "the preloaded URL serves another module")
		})
	}
	for _, target := range []string{"/", "/scenarios/hwm/no-such-scenario"} {
		_, d := get(t, h, target)
		assert.Empty(t, preloads(d), "%s has no widget and should preload nothing", target)
	}
}
