//go:build !js

package e2e

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons/chain"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/chainpage"
	"github.com/tidemark/tidemark/web/lessonpage"
)

func startChainSite(t *testing.T) string {
	t.Helper()
	lessons, err := lessonpage.Catalog()
	require.NoError(t, err)
	return startSite(t, web.Options{Lessons: lessons, Pages: append(lessonpage.Routes(), chainpage.Routes()...)})
}

// chainOf reads the chain the page's address holds.
func chainOf(t *testing.T, ctx context.Context) chain.Chain {
	t.Helper()
	q, err := url.ParseQuery(eval[string](t, ctx, `location.search.slice(1)`))
	require.NoError(t, err)
	c, err := chain.Parse(q)
	require.NoError(t, err)
	return c
}

// TestChainBuilderWithoutJavaScript assembles a chain with scripts off: the
// form is a GET that reloads the page, the address is the chain, and the
// page shows the guarantee the engine confirmed with the rows it lost and
// doubled.
func TestChainBuilderWithoutJavaScript(t *testing.T) {
	base := startChainSite(t)
	browser := startBrowser(t)
	ctx := newIsolatedTab(t, browser)
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/chain")))
	assert.Equal(t, "exactly-once", testText(t, ctx, "chain-guarantee"))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="chain-preview"]').hidden`), "no script ran, so no preview")

	// Pick a producer that retries without idempotence and a two-phase sink,
	// with the mouse, and send the form.
	click(t, ctx, `label[for="chain-source-retries"]`)
	click(t, ctx, `label[for="chain-sink-two-phase"]`)
	click(t, ctx, `[data-testid="chain-run"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`[data-testid="chain-result"]`))))
	waitLoaded(t, ctx, "the form reloaded the page with the chain in its address", `location.search.includes("sink=two-phase")`)
	c := chainOf(t, ctx)
	assert.Equal(t, "retries", c[chain.Source])
	assert.Equal(t, "two-phase", c[chain.Sink])
	assert.Equal(t, "at-least-once", testText(t, ctx, "chain-guarantee"))
	assert.Equal(t, "1 order is in fct_orders more than once: 1000 ×2.", testText(t, ctx, "chain-doubled"))
	assert.Equal(t, "true", eval[string](t, ctx, `document.querySelector('[data-testid="chain-confirmed"]').dataset.confirmed`))

	// The result is a link: following it in another tab shows the same.
	link := eval[string](t, ctx, `document.querySelector('[data-testid="chain-link"]').href`)
	other := newIsolatedTab(t, browser)
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(link)))
	assert.Equal(t, "at-least-once", testText(t, other, "chain-guarantee"))
	assert.Equal(t, c, chainOf(t, other))
}

// TestChainBuilderWithJavaScript picks options by clicking their labels and
// with the keyboard: the script says the chain's guarantee at once, and it is the one
// the server then claims and the engine confirms, for a chain of each
// guarantee.
func TestChainBuilderWithJavaScript(t *testing.T) {
	base := startChainSite(t)
	browser := startBrowser(t)
	ctx := newIsolatedTab(t, browser)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/chain")))
	waitTrue(t, ctx, "the preview is shown", `!document.querySelector('[data-testid="chain-preview"]').hidden`)
	assert.Equal(t, "exactly-once", eval[string](t, ctx, `document.querySelector('[data-testid="chain-preview"]').dataset.guarantee`))

	cases := []chain.Chain{
		{chain.Source: "retries", chain.Transport: "retention-long", chain.Processing: "after", chain.Sink: "append", chain.Serving: "live"},
		{chain.Source: "idempotent", chain.Transport: "retention-short", chain.Processing: "after", chain.Sink: "merge", chain.Serving: "atomic"},
		{chain.Source: "retries", chain.Transport: "retention-long", chain.Processing: "before", chain.Sink: "two-phase", chain.Serving: "live"},
		{chain.Source: "retries", chain.Transport: "retention-long", chain.Processing: "after", chain.Sink: "merge", chain.Serving: "live"},
	}
	for _, c := range cases {
		// The page scrolls to its result after a reload, so the labels are
		// clicked through the page rather than at a place on the screen.
		for _, h := range chain.Hops {
			jsClick(t, ctx, `label[for="chain-`+h.ID+`-`+c[h.ID]+`"]`)
		}
		want := c.Guarantee().Name()
		waitTrue(t, ctx, "the preview says "+want, `document.querySelector('[data-testid="chain-preview"]').dataset.guarantee === "`+want+`"`)
		jsClick(t, ctx, `[data-testid="chain-run"]`)
		waitLoaded(t, ctx, "the page reloaded with the chain", `location.search === "?`+c.Query()+`"`)
		assert.Equal(t, want, testText(t, ctx, "chain-guarantee"), c.Query())
		assert.Equal(t, "true", eval[string](t, ctx, `document.querySelector('[data-testid="chain-confirmed"]').dataset.confirmed`), c.Query())
		waitTrue(t, ctx, "the preview agrees with the page", `document.querySelector('[data-testid="chain-preview"]').dataset.guarantee === "`+want+`"`)
		assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="chain-result"]').classList.contains("chain-stale")`))
	}

	// A change not yet run, made with the keyboard, marks the result as the
	// previous chain's.
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#chain-transport-retention-long`))))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('#chain-transport-retention-short').checked`), "arrow keys choose the next option")
	waitTrue(t, ctx, "the result is marked stale", `document.querySelector('[data-testid="chain-result"]').classList.contains("chain-stale")`)
	assert.Contains(t, testText(t, ctx, "chain-preview"), "run this one to see what the engine finds")

	assert.Empty(t, pageProblems(t, ctx))
}

// waitLoaded waits up to twenty seconds for expr to be true in a page that
// is loading another: errors while the old document goes away are retried.
func waitLoaded(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && (`+expr+`)`))
		if err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not true after twenty seconds: %s", what, expr)
}
