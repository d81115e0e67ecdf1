//go:build !js

package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/pages"
)

// The browser budgets (see docs/performance.md, "Browser"):
const (
	// Everything the scenario page measured here (a page of the
	// high-water-mark world) downloads to become interactive (wasm and
	// JavaScript), brotli-compressed. KB is 1,000 bytes here, the stricter
	// reading. web/pages holds every kind of widget page to its kind's
	// budget in `make test`.
	budgetDownload = pages.HWMDownloadBudget
	// Navigation start to the first interactive step, median of navRuns.
	budgetInteractive = 200 * time.Millisecond
	navRuns           = 7
	// One step, or a seek to any step, of a ~10k-step scenario, the
	// handler alone, every sample.
	budgetStep = 16.0 // ms
	// A step including style and layout: its median and every sample of
	// the ~10k-step scenario, and its median at ~100k steps.
	budgetStepLaidOut    = 6.0  // ms, median, 10k steps
	budgetStepLaidOutMax = 16.0 // ms, every sample, 10k steps
	budgetStepHundredK   = 16.0 // ms, median, 100k steps
	// No task longer than this while playing at the fastest speed.
	budgetLongTask = 50.0 // ms
	playFor        = 5 * time.Second
	// Steps and seeks timed in the 10k-step scenario, each.
	samples = 25
)

// bigScenario has about 10,000 steps: 3,000 generated transactions (begin,
// insert, commit each) and 122 extractor runs (read, write, mark each).
const bigScenario = `scenario perf/ten-k "Ten thousand steps"
about "3,000 generated transactions and 122 extractor runs, for measuring the browser."
source orders key=order_id clock=source updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
workload orders txns=3000 from=10:00:00 every=200ms duration=0s..3s
runs extract every=5s from=10:00:00 until=10:10:05
check monotonicity
check gap-scan
check uniqueness
`

// hugeScenario is bigScenario eleven times over: about 103,000 steps.
const hugeScenario = `scenario perf/hundred-k "A hundred thousand steps"
about "33,000 generated transactions and 1,321 extractor runs, for measuring the browser."
source orders key=order_id clock=source updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
workload orders txns=33000 from=10:00:00 every=200ms duration=0s..3s
runs extract every=5s from=10:00:00 until=11:50:05
check monotonicity
check gap-scan
check uniqueness
`

// bigPage serves a generated scenario at /perf/NAME as a scenario page,
// through the same widget code as the bundled scenarios' pages.
func bigPage(t *testing.T, name, src string) web.Page {
	f, err := scenario.Parse(name+".tdm", []byte(src))
	require.NoError(t, err)
	return web.Page{
		Pattern: "GET /perf/" + name,
		Render: func(r *http.Request) (templ.Component, error) {
			_, host, err := pages.Widget(r.Context(), f, r.URL.Query(), nil, "/perf/"+name, "tm", false)
			var budget *engine.BudgetError
			if errors.As(err, &budget) {
				// More than the server runs for a visitor: the page carries the
				// scenario for the browser to run and draw, as the sandbox's
				// page does for a large text.
				wasm, _ := web.LookupAsset("tidemark.wasm")
				host, err = templates.WidgetHost{WasmURL: wasm, Source: f.Source, Name: f.Name, BasePath: "/perf/" + name, ID: "tm"}, nil
			}
			if err != nil {
				return nil, err
			}
			return templates.ScenarioPage(templates.ScenarioView{
				Layout: pages.WidgetLayout(f.Title, pages.Scripts...),
				ID:     f.ID, Title: f.Title, Source: f.Source, Widget: host,
			}), nil
		},
	}
}

// longTaskProbe records every long task of a document from its start, so
// the test can report the ones during loading as well as while playing.
const longTaskProbe = `
window.__longTasks = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({start: e.startTime, duration: e.duration});
  }).observe({type: "longtask", buffered: true});
} catch (e) {
  window.__longTasks = null;
}
`

// TestBudgets measures the browser budgets. It takes about a minute and
// needs a quiet machine, so it runs only with TIDEMARK_PERF=1:
//
//	make perf
func TestBudgets(t *testing.T) {
	if os.Getenv("TIDEMARK_PERF") != "1" {
		t.Skip("browser budgets are measured with TIDEMARK_PERF=1 (make perf)")
	}
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		t.Fatal("tidemark.wasm not built; run `make wasm` (make perf does)")
	}
	cat, err := pages.Catalog()
	require.NoError(t, err)
	h, err := web.NewHandler(web.Options{Scenarios: cat, Pages: append(pages.Routes(), bigPage(t, "ten-k", bigScenario), bigPage(t, "hundred-k", hugeScenario)), Precompress: true})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	t.Run("download", func(t *testing.T) { measureDownload(t, h) })
	// A page of each build, the build of every world costing the most to
	// download and compile.
	for _, c := range []struct{ name, path string }{
		{"hwm", "/scenarios/hwm/visibility-gap"},
		{"stream", "/scenarios/stream/late-data"},
		{"every-world", "/scenarios/stream/nondeterministic-replay"},
	} {
		t.Run("interactive/"+c.name, func(t *testing.T) { measureInteractive(t, srv.URL+c.path) })
	}
	t.Run("ten-k", func(t *testing.T) {
		st := measureBig(t, srv.URL, "ten-k", 9000, true)
		assert.LessOrEqual(t, slices.Max(st.stepD), budgetStep, "a step of the 10k-step scenario takes too long")
		assert.LessOrEqual(t, slices.Max(st.seekD), budgetStep, "a seek in the 10k-step scenario takes too long")
		assert.LessOrEqual(t, median(st.stepL), budgetStepLaidOut, "a step with style and layout, median, 10k steps")
		assert.LessOrEqual(t, slices.Max(st.stepL), budgetStepLaidOutMax, "a step with style and layout, every sample, 10k steps")
	})
	t.Run("hundred-k", func(t *testing.T) {
		st := measureBig(t, srv.URL, "hundred-k", 100_000, false)
		assert.LessOrEqual(t, median(st.stepL), budgetStepHundredK, "a step with style and layout, median, 100k steps")
	})
}

// stepStats are the timings of steps and seeks in one scenario, in ms:
// the synchronous handler alone (D) and with style and layout (L).
type stepStats struct {
	stepD, stepL, seekD, seekL []float64
}

// measureDownload sums the brotli bytes of every script and the wasm module
// that the scenario page loads, fetched through the real handler.
func measureDownload(t *testing.T, h http.Handler) {
	fetch := func(target, encodings string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Accept-Encoding", encodings)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, target)
		return rec
	}
	// The page itself is read as text (the handler gzips it for a browser
	// that accepts that); the budget counts what it makes the browser fetch.
	doc := htmltest.Parse(t, fetch("/scenarios/hwm/visibility-gap", "identity").Body.String())
	var urls []string
	for _, s := range doc.ByTag("script") {
		urls = append(urls, htmltest.Attr(s, "src"))
	}
	wasm := htmltest.Attr(doc.One(t, "widget-host"), "data-tidemark-wasm")
	require.NotEmpty(t, wasm, "the page names no wasm module")
	urls = append(urls, wasm)

	total := 0
	for _, u := range urls {
		rec := fetch(u, "br, gzip")
		require.Equal(t, "br", rec.Header().Get("Content-Encoding"), "%s is not served brotli-compressed", u)
		n := rec.Body.Len()
		t.Logf("%-40s %9d bytes brotli", u, n)
		total += n
	}
	t.Logf("download: %d bytes brotli (%.1f KB) for %d files; budget %d", total, float64(total)/1000, len(urls), budgetDownload)
	assert.LessOrEqual(t, total, budgetDownload, "the scenario page downloads too much to become interactive")
}

// measureInteractive navigates to the scenario page at url navRuns times,
// each with the browser cache disabled (a first visit), and reads how long
// after navigation start the widget was handed to the engine.
func measureInteractive(t *testing.T, url string) {
	ctx := newBrowser(t)
	measure := func() (ready, wasmStart, wasmEnd, htmlEnd, dcl float64) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`.tm-host[data-ready="true"]`))))
		v := eval[[]float64](t, ctx, `(() => {
			const nav = performance.getEntriesByType("navigation")[0];
			const wasm = performance.getEntriesByType("resource").find((e) => e.name.includes(".wasm"));
			return [Number(document.querySelector(".tm-host").dataset.readyAt), wasm ? wasm.startTime : -1, wasm ? wasm.responseEnd : -1,
				nav.responseEnd, nav.domContentLoadedEventEnd];
		})()`)
		return v[0], v[1], v[2], v[3], v[4]
	}
	var cold, warm, fetchStart, htmlEnd []float64
	setCache := func(disabled bool) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tgt, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tgt, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: disabled})
			return err
		})))
	}
	setCache(true)
	measure() // the browser's own start-up is not the page's
	for range navRuns {
		ready, wasmStart, wasmEnd, html, dcl := measure()
		t.Logf("first visit: interactive at %.0f ms (HTML received at %.0f ms, wasm requested at %.0f ms and downloaded at %.0f ms, DOMContentLoaded %.0f ms)",
			ready, html, wasmStart, wasmEnd, dcl)
		cold = append(cold, ready)
		fetchStart, htmlEnd = append(fetchStart, wasmStart), append(htmlEnd, html)
	}
	setCache(false)
	measure()
	for range navRuns {
		ready, _, _, _, _ := measure()
		warm = append(warm, ready)
	}
	t.Logf("first visit, median of %d: HTML received at %.0f ms, the module's download started at %.0f ms", navRuns, median(htmlEnd), median(fetchStart))
	t.Logf("navigation to interactive, median of %d: first visit %.0f ms, repeat visit (cached, compiled wasm) %.0f ms; budget %v",
		navRuns, median(cold), median(warm), budgetInteractive)
	assert.LessOrEqual(t, median(cold), float64(budgetInteractive.Milliseconds()), "navigation to the first interactive step is too slow")
	assert.Empty(t, pageProblems(t, ctx))
}

// measureBig opens a generated scenario of at least minSteps steps and
// times steps and seeks, and, with play, playing at the fastest speed.
func measureBig(t *testing.T, base, name string, minSteps int, play bool) stepStats {
	ctx := newBrowserWithin(t, 5*time.Minute)
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: longTaskProbe})
		return err
	})))
	start := time.Now()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/perf/"+name), chromedp.WaitVisible(chromedp.CSS(`.tm-host[data-ready="true"]`))))
	steps := eval[int](t, ctx, `Number(document.querySelector(".tm-widget").dataset.steps)`)
	t.Logf("%s: %d steps; interactive at %s ms after navigation start (%v wall)", name, steps,
		eval[string](t, ctx, `document.querySelector(".tm-host").dataset.readyAt`), time.Since(start).Round(time.Millisecond))
	require.Greater(t, steps, minSteps)
	if lt := eval[[]map[string]float64](t, ctx, `window.__longTasks || []`); len(lt) > 0 {
		var parts []string
		for _, e := range lt {
			parts = append(parts, fmt.Sprintf("%.0f ms at %.0f", e["duration"], e["start"]))
		}
		t.Logf("%s: long tasks while loading (not budgeted): %s", name, strings.Join(parts, ", "))
	}

	// timed runs one synchronous interaction and returns how long the handler
	// took and how long until style and layout were done as well.
	timed := func(js string) (dispatch, withLayout float64) {
		t.Helper()
		v := eval[[]float64](t, ctx, `(() => {
			const host = document.querySelector(".tm-host");
			const t0 = performance.now();
			`+js+`;
			const t1 = performance.now();
			void document.body.offsetHeight;
			const t2 = performance.now();
			return [t1 - t0, t2 - t0];
		})()`)
		return v[0], v[1]
	}
	seekJS := func(n int) string {
		return fmt.Sprintf(`const s = host.querySelector('[data-act="scrub"]'); s.value = "%d"; s.dispatchEvent(new Event("input", {bubbles: true}))`, n)
	}
	r := rand.New(rand.NewPCG(1, 2))
	random := func(n int, first ...int) []int {
		for len(first) < n {
			first = append(first, r.IntN(steps+1))
		}
		return first
	}
	// The first calls into the module run its code unoptimised: warm up.
	for _, n := range random(samples / 2) {
		timed(seekJS(n))
	}
	// settle lets what follows a step run before the next: a pending fill
	// (the checks of a step) and the page's idle moment, as between a
	// learner's clicks, when the engine collects its garbage.
	settle := func() {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise((r) => setTimeout(() => requestIdleCallback(() => r(true), {timeout: 500}), 0))`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
	}

	// Forward one step from random places, the last step included.
	var stepD, stepL []float64
	for _, from := range random(samples, steps-1, 0) {
		from = min(from, steps-1)
		timed(seekJS(from))
		settle()
		d, l := timed(`host.querySelector('[data-act="forward"]').click()`)
		require.Equal(t, from+1, step(t, ctx), "forward from %d", from)
		stepD, stepL = append(stepD, d), append(stepL, l)
		settle()
	}
	// Seeks to random steps, from wherever the last one left the widget.
	var seekD, seekL []float64
	for _, to := range random(samples, steps, 0) {
		d, l := timed(seekJS(to))
		require.Equal(t, to, step(t, ctx), "seek to %d", to)
		seekD, seekL = append(seekD, d), append(seekL, l)
		settle()
	}
	t.Logf("%s step (forward click), %d samples: handler median %.1f / p95 %.1f / max %.1f ms; with style+layout median %.1f / p95 %.1f / max %.1f ms",
		name, len(stepD), median(stepD), pct(stepD, 95), slices.Max(stepD), median(stepL), pct(stepL, 95), slices.Max(stepL))
	t.Logf("%s seek (scrubber input), %d samples: handler median %.1f / p95 %.1f / max %.1f ms; with style+layout median %.1f / p95 %.1f / max %.1f ms",
		name, len(seekD), median(seekD), pct(seekD, 95), slices.Max(seekD), median(seekL), pct(seekL, 95), slices.Max(seekL))
	st := stepStats{stepD: stepD, stepL: stepL, seekD: seekD, seekL: seekL}
	if !play {
		assert.Empty(t, pageProblems(t, ctx))
		return st
	}

	// Play at the fastest speed for playFor, watching for long tasks with an
	// observer registered just before.
	timed(seekJS(0))
	eval[bool](t, ctx, `(() => {
		window.__playTasks = [];
		new PerformanceObserver((list) => {
			for (const e of list.getEntries()) window.__playTasks.push(e.duration);
		}).observe({type: "longtask"});
		const host = document.querySelector(".tm-host");
		const speed = host.querySelector('[data-act="speed"]');
		speed.value = [...speed.options].map((o) => o.value).sort((a, b) => a - b)[0];
		host.querySelector('[data-act="play"]').click();
		return true;
	})()`)
	time.Sleep(playFor)
	played := step(t, ctx)
	eval[bool](t, ctx, `(document.querySelector('[data-act="play"]').click(), true)`)
	time.Sleep(100 * time.Millisecond) // let the observer deliver the last entries
	long := eval[[]float64](t, ctx, `window.__playTasks`)
	t.Logf("%s play at the fastest speed for %v: %d steps, %d long tasks %v (budget: none over %.0f ms)", name, playFor, played, len(long), long, budgetLongTask)
	assert.Positive(t, played, "playing did not advance")
	for _, d := range long {
		assert.LessOrEqual(t, d, budgetLongTask, "a long task while playing")
	}
	assert.Empty(t, pageProblems(t, ctx))
	return st
}

func median(xs []float64) float64 { return pct(xs, 50) }

// pct is the p-th percentile of xs, by the nearest-rank method.
func pct(xs []float64, p int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}
