//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web/share"
	"github.com/tidemark/tidemark/web/site"
)

// axeDir holds the pinned axe-core (package.json, package-lock.json); `make
// axe`, which `make test` runs, installs it into its node_modules.
const axeDir = "testdata/axe"

// axeTags are the rule sets the audit runs: WCAG 2.0, 2.1 and 2.2 at levels
// A and AA, and axe's best practices.
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"}

// axeSource returns axe.min.js, or skips t (fails it when CI is set, as a
// missing browser does) when it is not installed or does not match the
// version package-lock.json pins.
func axeSource(t *testing.T) string {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		msg := why + "; install it with `make axe` (npm ci in web/e2e/" + axeDir + ", which needs npm: `apt-get install -y npm`)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so a missing axe-core is a failure")
		}
		t.Skip(msg)
	}
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	b, err := os.ReadFile(filepath.Join(axeDir, "package-lock.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &lock))
	want := lock.Packages["node_modules/axe-core"].Version
	require.NotEmpty(t, want, "package-lock.json pins no axe-core")

	var installed struct{ Version string }
	b, err = os.ReadFile(filepath.Join(axeDir, "node_modules", "axe-core", "package.json"))
	if err != nil {
		missing("axe-core is not installed in web/e2e/" + axeDir + "/node_modules")
	}
	require.NoError(t, json.Unmarshal(b, &installed))
	if installed.Version != want {
		missing(fmt.Sprintf("axe-core %s is installed in web/e2e/%s/node_modules, but package-lock.json pins %s", installed.Version, axeDir, want))
	}
	src, err := os.ReadFile(filepath.Join(axeDir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		missing("axe.min.js is missing from web/e2e/" + axeDir + "/node_modules/axe-core")
	}
	return string(src)
}

// axeViolation is what the audit reports of one failed rule.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	URL    string `json:"helpUrl"`
	Count  int    `json:"count"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
		HTML    string `json:"html"`
		Related []any  `json:"related"` // the elements the checks name: a duplicate, a neighbour
	} `json:"nodes"`
}

func (v axeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s, on %d element(s) — %s", v.ID, v.Impact, v.Help, v.Count, v.URL)
	for _, n := range v.Nodes {
		target, _ := json.Marshal(n.Target)
		fmt.Fprintf(&b, "\n    %s\n      %s\n      %s", target, n.HTML, strings.ReplaceAll(n.Summary, "\n", "\n      "))
		if len(n.Related) > 0 {
			related, _ := json.Marshal(n.Related)
			fmt.Fprintf(&b, "\n      related: %s", related)
		}
	}
	return b.String()
}

// TestAccessibility audits a page of each kind with axe-core (WCAG 2.2 A and
// AA and axe's best practices): the site must be accessible by default.
// axe-core is put into the page through DevTools (Runtime.evaluate), which
// the page's CSP does not govern, and the test checks that the page saw no
// CSP violation or error. No rule is turned off on any page.
func TestAccessibility(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	src := axeSource(t)
	needWasm(t)
	opts, err := site.Options(nil)
	require.NoError(t, err)
	base := startSite(t, opts)
	browser := startBrowser(t)
	frag, err := share.Fragment(sandboxScenario)
	require.NoError(t, err)

	const (
		widgetReady  = `document.querySelector('.tm-host[data-ready="true"] [data-testid="btn-play"]') !== null`
		loaded       = `document.readyState === "complete"`
		progressShow = `document.readyState === "complete" && !document.querySelector('[data-testid="progress"]').hidden`
		playReady    = `document.documentElement.dataset.playReady === "true" && document.querySelector('#play-output .tm-host[data-ready="true"]') !== null`
	)
	cases := []struct {
		name, path, ready string
		width             int64
		dark              bool // prefers-color-scheme: dark (app.css has a palette of its own for it)
	}{
		{name: "home", path: "/", ready: loaded},
		{name: "lesson-contents", path: "/lessons/high-water-mark", ready: progressShow},
		{name: "lesson-one-chapter", path: "/lessons/high-water-mark/position-or-timestamp", ready: progressShow + " && " + widgetReady},
		{name: "lesson-two-chapter", path: "/lessons/guarantee-chain/the-chain", ready: progressShow + " && " + widgetReady},
		{name: "glossary", path: "/lessons/high-water-mark/glossary", ready: loaded},
		{name: "chain-builder", path: "/chain", ready: loaded + ` && document.querySelector('[data-testid="chain-result"]') !== null`},
		{name: "scenario-hwm", path: "/scenarios/hwm/visibility-gap", ready: widgetReady},
		{name: "scenario-log", path: "/scenarios/dist/partition-change", ready: widgetReady},
		{name: "scenario-stream", path: "/scenarios/stream/late-data", ready: widgetReady},
		{name: "embed", path: "/embed/hwm/visibility-gap", ready: widgetReady},
		{name: "play", path: "/play", ready: playReady},
		{name: "linked-embed", path: "/embed/#" + frag, ready: widgetReady},
		{name: "presenter", path: "/scenarios/hwm/visibility-gap?step=13&mark=lsn&present=on", ready: widgetReady + ` && document.querySelector('.tm-widget[data-present="on"]') !== null`},
		{name: "presenter-notes", path: "/scenarios/hwm/visibility-gap?step=14&mark=lsn&present=notes", ready: widgetReady + ` && document.querySelector('.tm-widget[data-present="notes"]') !== null`},
		{name: "stepped-with-faults", path: "/scenarios/hwm/visibility-gap?step=13&mark=lsn", ready: widgetReady + ` && !document.querySelector('[data-testid="faults"]').hidden`},
		// A fork: a crash the learner put in, the comparison with the
		// original run, and a key's story told.
		{name: "fork-explained", path: "/scenarios/hwm/advance-order?advance=after&sink=append&crash=none&step=18&fault=11~crash&explain=4",
			ready: widgetReady + ` && document.querySelector('[data-testid="panel-compare"]') !== null`},
		{name: "not-found", path: "/no-such-page", ready: loaded},
		{name: "doc-scenarios", path: "/docs/scenarios", ready: loaded},
		{name: "doc-embedding-phone", path: "/docs/embedding", width: 360, ready: loaded},
		{name: "doc-scenarios-dark", path: "/docs/scenarios", ready: loaded, dark: true},
		{name: "scenario-phone", path: "/scenarios/hwm/visibility-gap", width: 360, ready: widgetReady},
		{name: "home-dark", path: "/", ready: loaded, dark: true},
		{name: "lesson-one-chapter-dark", path: "/lessons/high-water-mark/position-or-timestamp", ready: progressShow + " && " + widgetReady, dark: true},
		{name: "scenario-log-dark", path: "/scenarios/dist/partition-change?step=21", ready: widgetReady, dark: true},
		{name: "scenario-stream-dark", path: "/scenarios/stream/late-data?step=120", ready: widgetReady, dark: true},
		{name: "play-dark", path: "/play", ready: playReady, dark: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := newIsolatedTab(t, browser)
			if c.width != 0 {
				viewport(t, ctx, c.width, 740)
			}
			if c.dark {
				call(t, ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
			}
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+c.path)))
			waitFor(t, ctx, "the page is ready", c.ready)

			// Scroll through the page once, as a reader would, so that every
			// part drawn with content-visibility: auto has been laid out and
			// keeps its size: a part off screen that never was stays the
			// placeholder's height while its content, measured, overflows it,
			// and axe then reports targets as overlapping what follows,
			// which no reader sees.
			_, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`(async () => {
				const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
				for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight) {
					scrollTo({top: y, behavior: "instant"});
					await frame();
				}
				scrollTo({top: 0, behavior: "instant"});
				await frame();
			})()`, chromedp.EvalAwaitPromise))
			require.NoError(t, err, "scroll through the page")
			_, err = chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](src))
			require.NoError(t, err, "inject axe-core")
			opts, _ := json.Marshal(map[string]any{
				"runOnly":     map[string]any{"type": "tag", "values": axeTags},
				"resultTypes": []string{"violations"},
			})
			out, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, `+string(opts)+`).then((r) => r.violations.map((v) => ({
				id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, count: v.nodes.length,
				nodes: v.nodes.slice(0, 4).map((n) => ({target: n.target, failureSummary: n.failureSummary, html: n.html.slice(0, 200),
					related: [...n.any, ...n.all, ...n.none].flatMap((c) => c.relatedNodes.map((r) => r.target)).slice(0, 3)})),
			})))`, chromedp.EvalAwaitPromise))
			require.NoError(t, err, "run axe-core")
			for _, v := range out {
				t.Errorf("%s", v)
			}
			assert.Empty(t, pageProblems(t, ctx), "the page saw no CSP violation or error, axe-core included")
		})
	}
}
