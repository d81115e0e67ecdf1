//go:build !js

package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/chromedp/chromedp"

	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
)

// TestWasmLoads checks the path every widget page will take: the page loads
// wasm_exec.js and app.js, and app.js instantiates tidemark.wasm under the
// site's CSP (which allows 'wasm-unsafe-eval' and nothing inline).
func TestWasmLoads(t *testing.T) {
	wasmURL, ok := web.LookupAsset("tidemark.wasm")
	if _, execOK := web.LookupAsset("wasm_exec.js"); !ok || !execOK {
		const msg = "tidemark.wasm or wasm_exec.js not built; run `make wasm`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip(msg)
	}
	host := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		_, err := io.WriteString(w, `<div data-testid="engine" data-tidemark-wasm="`+templ.EscapeString(wasmURL)+`">engine</div>`)
		return err
	})
	page := web.Page{
		Pattern: "GET /wasm-check",
		Render: func(*http.Request) (templ.Component, error) {
			layout := web.NewLayoutView("Engine check", "wasm_exec.js", "app.js")
			return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
				return templates.Layout(layout).Render(templ.WithChildren(ctx, host), w)
			}), nil
		},
	}
	base := startSite(t, web.Options{Pages: []web.Page{page}})
	ctx := newBrowser(t)

	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/wasm-check")); err != nil {
		t.Fatalf("open engine check page: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`window.tidemark.ready.then(() => document.querySelector('[data-testid="engine"]').dataset.tidemarkState, (e) => "error: " + e)`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("wait for the engine: %v", err)
	}
	if got != "ready" {
		t.Errorf("engine state = %q, want ready", got)
	}
	t.Logf("engine ready %v after navigation started", time.Since(start).Round(time.Millisecond))
	if p := pageProblems(t, ctx); len(p) != 0 {
		t.Errorf("page problems: %q", p)
	}
}
