//go:build !js

package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
)

// testCatalog stands in for the lesson catalog until the lessons package
// provides one.
var testCatalog = web.Options{
	Lessons: []templates.CatalogItem{
		{ID: "hwm", Title: "High-water marks", Summary: "Why a timestamp mark can skip rows that commit late.", Href: "/lessons/hwm"},
		{ID: "offsets", Title: "Committed offsets", Summary: "When a consumer saves its place, and what a crash does to it.", Href: "/lessons/offsets"},
	},
	Scenarios: []templates.CatalogItem{
		{ID: "hwm/visibility-gap", Title: "A timestamp mark skips late commits", Href: "/scenarios/hwm/visibility-gap"},
	},
}

func TestHomePage(t *testing.T) {
	base := startSite(t, testCatalog)
	ctx := newBrowser(t)

	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/"))
	if err != nil {
		t.Fatalf("open home page: %v", err)
	}
	if resp.Status != 200 {
		t.Fatalf("home page status = %d", resp.Status)
	}
	csp := fmt.Sprint(resp.Headers["Content-Security-Policy"]) + fmt.Sprint(resp.Headers["content-security-policy"])
	if !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval'") {
		t.Errorf("Content-Security-Policy header missing or wrong: %v", resp.Headers)
	}

	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	if title != "Tidemark" {
		t.Errorf("title = %q, want %q", title, "Tidemark")
	}

	lessons := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-testid="lesson-list"] [data-testid="lesson-item"]')].map((li) => li.dataset.id)`)
	if got, want := strings.Join(lessons, ","), "hwm,offsets"; got != want {
		t.Errorf("lesson list = %q, want %q", got, want)
	}

	// The hashed stylesheet is linked, loaded and applied: the skip link is
	// moved off screen only by app.css.
	href := eval[string](t, ctx, `document.querySelector('link[rel="stylesheet"]').getAttribute("href")`)
	if !regexp.MustCompile(`^/static/app\.[0-9a-f]{8}\.css$`).MatchString(href) {
		t.Errorf("stylesheet href = %q, want a hashed app.css", href)
	}
	if n := eval[int](t, ctx, `document.styleSheets.length`); n != 1 {
		t.Errorf("document has %d stylesheets, want 1", n)
	}
	if pos := eval[string](t, ctx, `getComputedStyle(document.querySelector('[data-testid="skip-link"]')).position`); pos != "absolute" {
		t.Errorf("skip link position = %q, want absolute (is app.css applied?)", pos)
	}

	// app.js ran under the CSP.
	if !eval[bool](t, ctx, `document.documentElement.classList.contains("js")`) {
		t.Error("app.js did not run")
	}
	if p := pageProblems(t, ctx); len(p) != 0 {
		t.Errorf("page problems: %q", p)
	}
}

// TestHomePageNarrow checks that the home page fits a 360 px wide phone
// without sideways scrolling, and that the skip link shows when focused.
func TestHomePageNarrow(t *testing.T) {
	base := startSite(t, testCatalog)
	ctx := newBrowser(t)

	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile),
		chromedp.Navigate(base+"/"),
	); err != nil {
		t.Fatalf("open home page at 360 px: %v", err)
	}
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
		t.Errorf("page is %d px wide at a 360 px viewport", w)
	}
	// The first Tab lands on the skip link, which then comes into view.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if id := eval[string](t, ctx, `document.activeElement.dataset.testid || document.activeElement.tagName`); id != "skip-link" {
		t.Errorf("first Tab focused %q, want the skip link", id)
	}
	if top := eval[float64](t, ctx, `document.activeElement.getBoundingClientRect().top`); top < 0 {
		t.Errorf("focused skip link is off screen (top %v)", top)
	}
	if p := pageProblems(t, ctx); len(p) != 0 {
		t.Errorf("page problems: %q", p)
	}
}
