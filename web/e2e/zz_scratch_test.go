//go:build !js

package e2e

import (
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

func TestZZBreakdown(t *testing.T) {
	if os.Getenv("ZZ") == "" { t.Skip() }
	cat, _ := pages.Catalog()
	name, src := "ten-k", bigScenario
	if os.Getenv("ZZ") == "100" { name, src = "hundred-k", hugeScenario }
	h, err := web.NewHandler(web.Options{Scenarios: cat, Pages: append(pages.Routes(), bigPage(t, name, src)), Precompress: true})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := newBrowserWithin(t, 300e9)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/perf/"+name), chromedp.WaitVisible(chromedp.CSS(`.tm-host[data-ready="true"]`))))
	out := eval[string](t, ctx, `(() => {
		const host = document.querySelector(".tm-host");
		const e = window.tidemarkEngine, view = e.view;
		let tv = 0, n = 0, ops = 0, bytes = 0;
		e.view = (id, full) => { const t0 = performance.now(); const v = view(id, full); tv += performance.now() - t0; n++; if (v.ops) { ops += v.ops.length; bytes += JSON.stringify(v.ops).length; } return v; };
		const steps = Number(host.querySelector('.tm-widget').dataset.steps);
		const res = [];
		for (const kind of ["step", "seek"]) {
		let tot = 0, lay = 0; tv = 0; n = 0; ops = 0; bytes = 0;
		for (let i = 0; i < 40; i++) {
			const s = host.querySelector('[data-act="scrub"]');
			const from = Math.floor(Math.random() * (steps - 1));
			if (kind === "step") { s.value = String(from); s.dispatchEvent(new Event("input", {bubbles: true})); void document.body.offsetHeight; tv = 0; n = 0; ops = 0; bytes=0; }
			const t0 = performance.now();
			if (kind === "step") host.querySelector('[data-act="forward"]').click(); else { s.value = String(from); s.dispatchEvent(new Event("input", {bubbles: true})); }
			const t1 = performance.now();
			void document.body.offsetHeight;
			const t2 = performance.now();
			tot += t1 - t0; lay += t2 - t1;
			if (kind === "step") res.push(kind + " view " + tv.toFixed(1) + " handler " + (t1-t0).toFixed(1) + " layout " + (t2-t1).toFixed(1) + " ops " + ops + " bytes " + bytes);
		}
		res.push(kind + " avg handler " + (tot/40).toFixed(2) + " layout " + (lay/40).toFixed(2) + " view " + (tv/n).toFixed(2) + " ops/step " + (ops/40) + " bytes " + (bytes/40));
		}
		return res.join("\n");
	})()`)
	fmt.Println(out)
}
