//go:build !js

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
)

// atTop says whether the element with the id held in the variable id is
// at the top of the screen (below its scroll margin), as a link to it
// means.
const atTop = `(() => {
  const el = document.getElementById(id);
  return Math.abs(el.getBoundingClientRect().top - parseFloat(getComputedStyle(el).scrollMarginTop)) <= 2;
})()`

// waitAtTop waits until the section id is at the top of the screen, and
// checks that it stays there once the page has settled.
func waitAtTop(t *testing.T, ctx context.Context, what, id string) {
	t.Helper()
	expr := `((id) => ` + atTop + `)(` + jsString(id) + `)`
	top := `Math.round(document.getElementById(` + jsString(id) + `).getBoundingClientRect().top)`
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Errorf("%s: #%s is %d px down the screen", what, id, eval[int](t, ctx, top))
		return
	}
	time.Sleep(1500 * time.Millisecond)
	assert.True(t, eval[bool](t, ctx, expr), "%s: #%s moved to %d px once the page settled", what, id, eval[int](t, ctx, top))
}

// TestSectionLinkLandsOnItsSection: a link to a section of a chapter was
// followed as the page loaded, and the widgets drawn above the section
// then pushed it down, 2,900 px on a phone: "Matches that never happen"
// of how-it-breaks, "Evidence that the data is right" of trusting-it, and
// the first near the foot of a laptop's screen. The page now keeps the
// section at the top while they are drawn. A link followed later on the
// same page, whose smooth scroll passes parts of the widgets laid out as
// they come near the screen, lands there too, with or without motion;
// and a reader who presses a key (or scrolls, or clicks) on the way takes
// over: the page stops steering.
func TestSectionLinkLandsOnItsSection(t *testing.T) {
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		t.Skip("tidemark.wasm not built; run `make wasm`")
	}
	base := startLessonSite(t)
	browser := startBrowser(t)
	for _, c := range []struct {
		path, id string
		w, h     int64
	}{
		{"/lessons/guarantee-chain/how-it-breaks", "unjoined", 390, 844},
		{"/lessons/guarantee-chain/how-it-breaks", "unjoined", 1366, 768},
		{"/lessons/guarantee-chain/trusting-it", "trust", 390, 844},
	} {
		ctx := newIsolatedTab(t, browser)
		viewport(t, ctx, c.w, c.h)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+c.path+"#"+c.id)))
		waitEmbedsReady(t, ctx)
		waitAtTop(t, ctx, c.path, c.id)
		assert.Empty(t, pageProblems(t, ctx))
	}

	// Followed later, from the top of the page, smoothly and at once.
	for _, reduce := range []string{"no-preference", "reduce"} {
		ctx := newIsolatedTab(t, browser)
		viewport(t, ctx, 390, 844)
		call(t, ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: reduce}}})
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/guarantee-chain/how-it-breaks")))
		waitEmbedsReady(t, ctx)
		eval[bool](t, ctx, addLinkToUnjoined)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(`[data-testid="to-unjoined"]`)))
		waitAtTop(t, ctx, "a link clicked, prefers-reduced-motion: "+reduce, "unjoined")
		assert.Empty(t, pageProblems(t, ctx))
	}

	// A key pressed on the way: the page scrolls no more than the
	// browser's own smooth scroll, which stops short.
	ctx := newIsolatedTab(t, browser)
	viewport(t, ctx, 390, 844)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/lessons/guarantee-chain/how-it-breaks")))
	waitEmbedsReady(t, ctx)
	eval[bool](t, ctx, addLinkToUnjoined)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`[data-testid="to-unjoined"]`)))
	key(t, ctx, "x")
	time.Sleep(3 * time.Second)
	assert.False(t, eval[bool](t, ctx, `((id) => `+atTop+`)("unjoined")`), "the page kept steering after a key was pressed")
}

// addLinkToUnjoined puts a link to the section "Matches that never
// happen" under the chapter's title, for a test to follow from the top.
const addLinkToUnjoined = `(() => {
  const a = document.createElement("a");
  a.href = "#unjoined";
  a.textContent = "Matches that never happen";
  a.dataset.testid = "to-unjoined";
  document.querySelector("h1").after(a);
  return true;
})()`
