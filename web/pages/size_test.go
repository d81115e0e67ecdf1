package pages_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// TestWidgetPagesStayWithinTheDownloadBudget adds up what each kind of page
// with a widget makes the browser download to become interactive: its
// scripts and the engine's module, brotli-compressed as the handler serves
// them to a browser. Each must stay within pages.DownloadBudget (see
// docs/performance.md, "Download").
func TestWidgetPagesStayWithinTheDownloadBudget(t *testing.T) {
	wasmURL, built := web.LookupAsset("tidemark.wasm")
	if !built {
		const msg = "tidemark.wasm is not built; run `make wasm`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip(msg)
	}
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
	module := brotli(wasmURL)
	t.Logf("%s: %d bytes brotli", wasmURL, module)
	for _, target := range []string{"/scenarios/hwm/visibility-gap", "/embed/hwm/visibility-gap", "/play", "/lessons/high-water-mark/position-or-timestamp"} {
		code, d := get(t, h, target)
		require.Equal(t, http.StatusOK, code, target)
		total := module
		for _, s := range d.ByTag("script") {
			n := brotli(htmltest.Attr(s, "src"))
			t.Logf("%s: %s %d bytes brotli", target, htmltest.Attr(s, "src"), n)
			total += n
		}
		t.Logf("%s: %d bytes brotli (%.1f KB) with its scripts; budget %d", target, total, float64(total)/1000, pages.DownloadBudget)
		assert.LessOrEqual(t, total, pages.DownloadBudget, "%s downloads too much to become interactive", target)
	}
}
