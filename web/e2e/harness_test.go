//go:build !js

package e2e

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/lessonpage"
)

// testTimeout bounds each browser test. Launching Chromium takes about a
// second and a page a few hundred milliseconds on the machines we target;
// the margin is for a loaded CI runner.
const testTimeout = 30 * time.Second

// failureDir is where screenshots of failed tests go, relative to this
// package's directory (the working directory of its tests).
const failureDir = "failures"

// startSite serves the real site handler for opts on 127.0.0.1 and returns
// its base URL, without a trailing slash.
func startSite(t *testing.T, opts web.Options) string {
	t.Helper()
	h, err := web.NewHandler(opts)
	if err != nil {
		t.Fatalf("start site: %v", err)
	}
	srv := httptest.NewServer(h) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv.URL
}

// chromiumPath returns the browser to drive, or "" when there is none.
func chromiumPath() string {
	if p := os.Getenv("TIDEMARK_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageProbe runs in every document before the page's own scripts (scripts
// added through DevTools are not subject to the page's CSP). It records CSP
// violations and uncaught errors, which pageProblems reads back.
const pageProbe = `
window.__tidemarkProblems = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__tidemarkProblems.push("CSP blocked " + (e.blockedURI || "inline") + " by " + e.violatedDirective);
});
window.addEventListener("error", (e) => {
  window.__tidemarkProblems.push("error: " + (e.message || (e.target && (e.target.src || e.target.href)) || "unknown"));
}, true);
window.addEventListener("unhandledrejection", (e) => {
  window.__tidemarkProblems.push("unhandled rejection: " + String(e.reason));
});
`

// newBrowser starts a fresh headless Chromium for t, with its own profile
// directory, and returns a context for its tab that ends after testTimeout.
// The browser stops when the test ends; if the test failed, a screenshot of
// the tab is saved first.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return tabForTest(t, startBrowser(t))
}

// newBrowserWithin is newBrowser with a deadline of its own, for a test
// that must wait on a large scenario.
func newBrowserWithin(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	return tabWithin(t, startBrowser(t), timeout)
}

// startBrowser starts a fresh headless Chromium for t, with its own profile
// directory, and returns the context of its first tab, with the page probe
// installed and no deadline. The browser stops when t ends. Tests that share
// one browser open their tabs with newIsolatedTab and newTabBeside.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	exe := chromiumPath()
	if exe == "" {
		const msg = "chromium not found (looked for $TIDEMARK_CHROMIUM, /usr/bin/chromium, chromium on $PATH); install it with `apt-get install -y chromium`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so a missing browser is a failure")
		}
		t.Skip(msg)
	}

	// The profile directory is made first so that it is removed last, after
	// the browser has exited.
	profile := t.TempDir()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox, // we run as root in CI containers
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 800),
	)
	t.Cleanup(cancelAlloc) // waits for the browser process to exit

	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	// The first Run starts the browser and binds its life to the context it
	// gets, so it must not carry the test's timeout.
	if err := installProbe(tabCtx); err != nil {
		t.Fatalf("start chromium (%s): %v", exe, err)
	}
	return tabCtx
}

// installProbe opens the tab of tabCtx, if it is not open yet, and adds the
// page probe to every document it loads from now on.
func installProbe(tabCtx context.Context) error {
	return chromedp.Do(tabCtx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageProbe})
		return err
	}))
}

// tabForTest returns tabCtx bounded by testTimeout (or t's own deadline),
// and saves a screenshot of the tab if t fails.
func tabForTest(t *testing.T, tabCtx context.Context) context.Context {
	t.Helper()
	return tabWithin(t, tabCtx, testTimeout)
}

// tabWithin is tabForTest with a deadline of its own.
func tabWithin(t *testing.T, tabCtx context.Context, timeout time.Duration) context.Context {
	t.Helper()
	// Cleanups run last-in first-out: the screenshot is taken while the tab
	// is still open.
	t.Cleanup(func() {
		if t.Failed() {
			saveScreenshot(t, tabCtx)
		}
	})

	deadline := time.Now().Add(timeout)
	if d, ok := t.Deadline(); ok && d.Before(deadline) {
		deadline = d.Add(-2 * time.Second)
	}
	ctx, cancel := context.WithDeadline(tabCtx, deadline)
	t.Cleanup(cancel)
	return ctx
}

// newIsolatedTab opens a tab for t in a new browser context of the browser
// that startBrowser returned: its storage, cookies and cache are its own, as
// in a fresh profile, without the cost of starting another browser. The tab
// closes when t ends.
func newIsolatedTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	tabCtx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := installProbe(tabCtx); err != nil {
		t.Fatalf("open an isolated tab: %v", err)
	}
	return tabForTest(t, tabCtx)
}

// newTabBeside opens another tab for t in the same browser context as tab,
// so the two share storage, as two tabs of one browser window do. The tab
// closes when t ends.
func newTabBeside(t *testing.T, tab context.Context) context.Context {
	t.Helper()
	tabCtx, cancel := chromedp.NewContext(tab)
	t.Cleanup(cancel)
	if err := installProbe(tabCtx); err != nil {
		t.Fatalf("open a second tab: %v", err)
	}
	return tabForTest(t, tabCtx)
}

// unsafeFileChars matches what should not go into a screenshot's file name.
var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// saveScreenshot writes the tab of tabCtx to failures/<test>.png.
func saveScreenshot(t *testing.T, tabCtx context.Context) {
	ctx, cancel := context.WithTimeout(tabCtx, 5*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("no failure screenshot: %v", err)
		return
	}
	if err := os.MkdirAll(failureDir, 0o755); err != nil {
		t.Logf("no failure screenshot: %v", err)
		return
	}
	file := filepath.Join(failureDir, unsafeFileChars.ReplaceAllString(t.Name(), "_")+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Logf("no failure screenshot: %v", err)
		return
	}
	abs, _ := filepath.Abs(file)
	t.Logf("failure screenshot: %s", abs)
}

// pageProblems returns the CSP violations and uncaught script errors that the
// current document has seen so far.
func pageProblems(t *testing.T, ctx context.Context) []string {
	t.Helper()
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__tidemarkProblems || ["page probe missing"]`))
	if err != nil {
		t.Fatalf("read page problems: %v", err)
	}
	return problems
}

// eval evaluates a JavaScript expression in the page, failing the test on error.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// startLessonSite serves the site with the lesson pages.
func startLessonSite(t *testing.T) string {
	t.Helper()
	lessons, err := lessonpage.Catalog()
	if err != nil {
		t.Fatalf("lessons: %v", err)
	}
	return startSite(t, web.Options{Lessons: lessons, Pages: lessonpage.Routes()})
}
