//go:build !js

package e2e

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web/export"
	"github.com/tidemark/tidemark/web/pages"
)

// headerRule is one path of an exported _headers file and its headers.
type headerRule struct {
	path    string
	headers [][2]string
}

// readHeaders reads a _headers file as Cloudflare and Netlify do: a path,
// then its headers indented below it.
func readHeaders(t *testing.T, file string) []headerRule {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var rules []headerRule
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, " "):
			require.NotEmpty(t, rules, "a header before any path: %q", line)
			k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
			require.True(t, ok, line)
			rules[len(rules)-1].headers = append(rules[len(rules)-1].headers, [2]string{k, v})
		default:
			rules = append(rules, headerRule{path: line})
		}
	}
	require.NoError(t, s.Err())
	return rules
}

// withHeaders serves next with the headers of every rule that matches a
// request's path (exactly, or a prefix ending in *), as a host that reads
// _headers would, and fails the test if two rules set one header on one
// path: a host would then send both.
func withHeaders(t *testing.T, rules []headerRule, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set := map[string]string{}
		for _, rule := range rules {
			prefix, splat := strings.CutSuffix(rule.path, "*")
			if rule.path != r.URL.Path && !(splat && strings.HasPrefix(r.URL.Path, prefix)) {
				continue
			}
			for _, h := range rule.headers {
				if was, ok := set[h[0]]; ok {
					t.Errorf("%s: two rules set %s (%q and %q)", r.URL.Path, h[0], was, h[1])
				}
				set[h[0]] = h[1]
				w.Header().Set(h[0], h[1])
			}
		}
		next.ServeHTTP(w, r)
	})
}

// TestExportedSiteOnAStaticHost exports the site for an address under a
// sub-path, serves the files with a plain file server there (and the
// headers its _headers file asks for), and uses it in Chromium: a scenario
// page, its step and knob links, an embed page, embed.js from the copy on
// someone else's page, a lesson, a linked scenario and the sandbox all
// play, under the copy's Content-Security-Policy.
func TestExportedSiteOnAStaticHost(t *testing.T) {
	needWasm(t)
	out := t.TempDir()
	const sub = "/docs/tidemark"
	var files http.Handler
	var author string
	mux := http.NewServeMux()
	mux.Handle(sub+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { files.ServeHTTP(w, r) }))
	mux.HandleFunc("/author", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(author))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	site := srv.URL + sub

	_, err := export.Site(export.Options{BaseURL: site, Out: out})
	require.NoError(t, err)
	rules := readHeaders(t, filepath.Join(out, "_headers"))
	// A missing file gets the copy's 404.html with status 404: the nearest
	// one up its path, as Cloudflare serves it, or with rootOnly the copy's
	// own, as GitHub Pages and Netlify do.
	rootOnly := false
	files = withHeaders(t, rules, http.StripPrefix(sub, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Join(out, filepath.FromSlash(path.Clean("/"+r.URL.Path)))
		if _, err := os.Stat(name); err == nil {
			http.FileServer(http.Dir(out)).ServeHTTP(w, r)
			return
		}
		for dir := filepath.Dir(name); ; dir = filepath.Dir(dir) {
			if b, err := os.ReadFile(filepath.Join(dir, "404.html")); err == nil && (!rootOnly || dir == out) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write(b)
				return
			}
			if dir == out || len(dir) < len(out) {
				http.NotFound(w, r)
				return
			}
		}
	})))
	author = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Author</title></head><body>` +
		`<script src="` + site + `/static/embed.js" data-scenario="hwm/visibility-gap" data-step="5" data-knobs="mark=lsn" async></script></body></html>`

	browser := startBrowser(t)
	ready := `document.querySelector('.tm-host[data-ready="true"]') !== null`

	t.Run("scenario page", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+"/scenarios/hwm/visibility-gap/")))
		// The first paint is the server's drawing at step 0, before any script.
		assert.Equal(t, "0", eval[string](t, ctx, `document.querySelector(".tm-widget").dataset.step`))
		waitFor(t, ctx, "the widget hydrates", ready)
		// A knob and a step move the address, under the sub-path.
		jsClick(t, ctx, `label[for="tm-knob-mark-lsn"]`)
		waitFor(t, ctx, "the knob in the address", `location.search.includes("mark=lsn")`)
		assert.Equal(t, sub+"/scenarios/hwm/visibility-gap/", eval[string](t, ctx, `location.pathname`))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("a step and knob link", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		// Without the trailing slash, as the widget's links and a person
		// would write it: the file server redirects to the directory and
		// keeps the query, and the page's script opens the step it names.
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+"/scenarios/hwm/visibility-gap?step=14&mark=lsn")))
		waitFor(t, ctx, "the widget hydrates", ready)
		assert.Equal(t, "14", eval[string](t, ctx, `document.querySelector(".tm-widget").dataset.step`))
		assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-testid="knob-mark-lsn"]').checked`))
		assert.Contains(t, text(t, ctx, `[data-testid="narration"]`), "Step 14 of")
		// A step link in the page is taken by the script, not the host.
		jsClick(t, ctx, `[data-testid="btn-forward"]`)
		waitFor(t, ctx, "step 15", `document.querySelector(".tm-widget").dataset.step === "15"`)
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("embed page and embed.js", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+"/embed/hwm/visibility-gap/?step=3")))
		waitFor(t, ctx, "the embed hydrates", ready)
		assert.Equal(t, "3", eval[string](t, ctx, `document.querySelector(".tm-widget").dataset.step`))

		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/author")))
		doc := `document.querySelector("iframe").contentDocument`
		waitFor(t, ctx, "embed.js's frame hydrates", `document.querySelector("iframe") && `+doc+` && `+doc+`.querySelector('.tm-host[data-ready="true"]') !== null`)
		assert.True(t, strings.HasPrefix(eval[string](t, ctx, `document.querySelector("iframe").src`), site+"/embed/hwm/visibility-gap?"))
		assert.Equal(t, "5", eval[string](t, ctx, doc+`.querySelector(".tm-widget").dataset.step`))
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("a mistyped embed id", func(t *testing.T) {
		// The host's bare 404 would leave an empty frame in the author's
		// page: the copy's embed note names the id and what it most
		// likely meant, and embed.js sizes the frame to it, whether the
		// host serves the embeds' own 404.html or only the copy's.
		for _, root := range []bool{false, true} {
			rootOnly = root
			ctx := newIsolatedTab(t, browser)
			author = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Author</title></head><body>` +
				`<script src="` + site + `/static/embed.js" data-scenario="hwm/visiblity-gap" async></script></body></html>`
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/author")))
			doc := `document.querySelector("iframe").contentDocument`
			said := doc + `.querySelector('[data-testid="not-found-what"]').textContent`
			waitFor(t, ctx, "the frame names the id", `document.querySelector("iframe") && `+doc+` && `+doc+`.querySelector('[data-testid="not-found-what"]') !== null && `+said+`.includes("hwm/visiblity-gap")`)
			assert.Equal(t, "No Tidemark scenario is named “hwm/visiblity-gap”. Did you mean hwm/visibility-gap?", eval[string](t, ctx, said), "root only: %v", root)
			waitFor(t, ctx, "embed.js sizes the frame to the note", `document.querySelector("iframe").style.height !== "" && document.querySelector("iframe").getBoundingClientRect().height < 400`)
			assert.Nil(t, eval[any](t, ctx, doc+`.querySelector(".site-header")`), "not the site's whole page in the author's frame")
			assert.Empty(t, pageProblems(t, ctx))
		}
		rootOnly = false
		// An id without its folder names the one it most likely meant.
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+"/embed/visibility-gap")))
		waitFor(t, ctx, "the note names the id", `(document.querySelector('[data-testid="not-found-what"]')||{textContent:""}).textContent.includes("“visibility-gap”")`)
		assert.Equal(t, "No Tidemark scenario is named “visibility-gap”. Did you mean hwm/visibility-gap?", text(t, ctx, `[data-testid="not-found-what"]`))
	})

	t.Run("a mistyped page address", func(t *testing.T) {
		// The copy's one 404.html answers every missing address; it names
		// and links the pages the address most likely meant, as the
		// server's not-found page does, whichever 404.html the host sends.
		for _, root := range []bool{false, true} {
			rootOnly = root
			ctx := newIsolatedTab(t, browser)
			for path, want := range map[string]string{
				"/scenarios/hwm/visiblity-gap/":         "Did you mean scenarios/hwm/visibility-gap?",
				"/lessons/high-water-mark/how-it-break": "Did you mean lessons/high-water-mark/how-it-breaks?",
				"/visibility-gap":                       "Did you mean scenarios/hwm/visibility-gap?",
			} {
				require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+path)))
				waitFor(t, ctx, "the page offers what "+path+" meant", `document.querySelector('[data-testid="not-found-near"]') !== null`)
				assert.Equal(t, want, text(t, ctx, `[data-testid="not-found-near"]`), "%s, root only: %v", path, root)
				href := eval[string](t, ctx, `new URL(document.querySelector('[data-testid="not-found-near"] a').href).pathname`)
				assert.True(t, strings.HasPrefix(href, sub+"/") && strings.HasSuffix(href, "/"), "a link into the copy: %s", href)
				assert.Empty(t, pageProblems(t, ctx))
			}
			// An address near nothing offers nothing.
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+"/zzzzzzzzzzzzzzzz")))
			waitFor(t, ctx, "the not-found page", `document.querySelector('[data-testid="not-found-what"]') !== null && document.readyState === "complete"`)
			assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-testid="not-found-near"]') !== null`))
		}
		rootOnly = false
	})

	t.Run("lesson", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+"/lessons/high-water-mark/how-it-breaks/")))
		waitEmbedsReady(t, ctx)
		link := eval[string](t, ctx, `new URL(document.querySelector('[data-testid="embed-link"]').href).pathname`)
		assert.True(t, strings.HasPrefix(link, sub+"/scenarios/") && strings.HasSuffix(link, "/"), "a lesson links to the copy's scenario pages: %s", link)
		present := eval[string](t, ctx, `(() => { const u = new URL(document.querySelector('[data-testid="embed-present"]').href); return u.pathname + " " + u.searchParams.get("present"); })()`)
		assert.True(t, strings.HasPrefix(present, sub+"/scenarios/") && strings.HasSuffix(present, "/ on"), "a lesson's link to present a scenario opens the copy's page: %s", present)
		assert.Empty(t, pageProblems(t, ctx))
	})

	t.Run("linked scenario and sandbox", func(t *testing.T) {
		ctx := newIsolatedTab(t, browser)
		frag := mustFragment(t, sandboxScenario)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(site+"/embed/?step=4#"+frag)))
		waitFor(t, ctx, "the linked scenario plays", ready)
		assert.Equal(t, "4", eval[string](t, ctx, `document.querySelector(".tm-widget").dataset.step`))
		// The build its text needs, found beside the one the copy's page
		// names under the copy's path.
		assert.Equal(t, pages.ModuleHWM, eval[string](t, ctx, `window.tidemarkEngine.module`))
		openPlay(t, ctx, site+"/play#"+frag)
		assert.Equal(t, sandboxScenario, playText(t, ctx))
		assert.NotEmpty(t, text(t, ctx, `[data-testid="play-static-note"]`))
		waitFor(t, ctx, "the verdicts", `document.querySelector('[data-testid="play-expect"]').dataset.done === "true"`)
		assert.Equal(t, "3 expectations: 2 hold, 1 fails.", text(t, ctx, `[data-testid="play-expect-summary"]`))
		assert.Empty(t, pageProblems(t, ctx))
	})

	// The copy's policy reached the browser: the file server added it from
	// _headers.
	resp, err := http.Get(site + "/scenarios/hwm/visibility-gap/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'self'")
	resp, err = http.Get(site + "/embed/hwm/visibility-gap/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors *")
	assert.Empty(t, resp.Header.Get("X-Frame-Options"))
}
