package export

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/docpage"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

// TestRewrite: addresses of the site in attributes get the copy's path and,
// for a page, a trailing slash; everything else is copied as it was, and
// the policy is stated after the charset.
func TestRewrite(t *testing.T) {
	dirs := map[string]bool{"": true, "/play": true, "/scenarios/hwm/x": true, "/embed": true}
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/static/app.1234abcd.css"></head><body>` +
		`<a href="/">Home</a> <a href="/#lessons">Lessons</a> <a href="/scenarios/hwm/x?step=3&amp;mark=lsn">step 3</a> ` +
		`<a href="#main">skip</a> <a href="https://elsewhere.example/x">out</a> <img src="//cdn.example/p.png" alt="">` +
		`<form action="/play" method="post"><textarea name="src">keep &lt;this&gt; "as" it &amp; is /static/x</textarea></form>` +
		`<div class="tm-host" data-base="/scenarios/hwm/x" data-source="/not/an/address" data-embed-url="/embed/" data-page-url="/play"></div>` +
		`<pre><code>/scenarios/hwm/x in text stays</code></pre></body></html>`
	got, err := Rewrite([]byte(page), "/sub", dirs)
	require.NoError(t, err)
	s := string(got)
	for _, want := range []string{
		`<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src &#39;self&#39;; script-src &#39;self&#39; &#39;wasm-unsafe-eval&#39;;`,
		`href="/sub/static/app.1234abcd.css"`,
		`<a href="/sub/">Home</a>`,
		`<a href="/sub/#lessons">`,
		`<a href="/sub/scenarios/hwm/x/?step=3&amp;mark=lsn">`,
		`<a href="#main">skip</a>`,
		`<a href="https://elsewhere.example/x">out</a>`,
		`<img src="//cdn.example/p.png" alt="">`,
		`<form action="/sub/play/" method="post">`,
		`<textarea name="src">keep &lt;this&gt; "as" it &amp; is /static/x</textarea>`,
		`data-base="/sub/scenarios/hwm/x/"`, `data-source="/not/an/address"`, `data-embed-url="/sub/embed/"`, `data-page-url="/sub/play/"`,
		`<pre><code>/scenarios/hwm/x in text stays</code></pre>`,
	} {
		assert.Contains(t, s, want)
	}
	assert.NotContains(t, web.MetaPolicy(), "frame-ancestors", "a meta element cannot set it")

	// At the root of a host only the trailing slashes change.
	got, err = Rewrite([]byte(`<a href="/play">x</a><a href="/static/a.js">y</a>`), "", dirs)
	require.NoError(t, err)
	assert.Equal(t, `<a href="/play/">x</a><a href="/static/a.js">y</a>`, string(got))
}

func TestBaseURL(t *testing.T) {
	for raw, want := range map[string][2]string{
		"https://example.github.io/tidemark":  {"https://example.github.io/tidemark", "/tidemark"},
		"https://example.github.io/tidemark/": {"https://example.github.io/tidemark", "/tidemark"},
		"http://127.0.0.1:8000":               {"http://127.0.0.1:8000", ""},
		"https://docs.example/a b":            {"", ""},
		"example.github.io/tidemark":          {"", ""},
		"https://example.com/x?y=1":           {"", ""},
		"ftp://example.com/x":                 {"", ""},
	} {
		base, prefix, err := ParseBase(raw)
		if want[0] == "" {
			assert.Error(t, err, raw)
			continue
		}
		require.NoError(t, err, raw)
		assert.Equal(t, want, [2]string{base, prefix}, raw)
	}
}

// TestSiteWritesACopy exports the site under a sub-path and checks the
// copy: every page, picture and description it promises is there, every
// address of the site in every page leads to a file of the copy, the
// headers file names the sub-path in at most the 100 rules Cloudflare
// reads, and a second export replaces the first but never a directory
// that holds something else.
func TestSiteWritesACopy(t *testing.T) {
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		if os.Getenv("CI") != "" {
			t.Fatal("tidemark.wasm not built; CI is set, so this is a failure")
		}
		t.Skip("tidemark.wasm not built; run `make wasm`")
	}
	out := t.TempDir()
	rep, err := Site(Options{BaseURL: "https://docs.example/sub/path", Out: out})
	require.NoError(t, err)
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	assert.Equal(t, 1+1+1+1+1+1+len(docpage.Docs)+len(lessonpage.Paths())+2*len(all), rep.Pages, "home, sandbox, linked embed, chain builder, 404, the embeds' 404, the reference documents, every lesson page, a page and an embed per scenario")
	pics, err := pages.StaticPictures()
	require.NoError(t, err)
	assert.Equal(t, len(pics), rep.Pictures)
	assert.Greater(t, len(pics), 2*len(all), "every combination of every scenario's knobs")

	for _, f := range []string{"index.html", "404.html", "play/index.html", "embed/index.html", "embed/404.html", "lessons/high-water-mark/index.html", "lessons/guarantee-chain/the-chain/index.html", "chain/index.html", "docs/scenarios/index.html", "docs/embedding/index.html",
		"scenarios/hwm/visibility-gap/index.html", "embed/hwm/visibility-gap/index.html", "picture/hwm/visibility-gap/defaults.svg",
		"picture/hwm/visibility-gap/mark=lsn.svg", "oembed/scenarios/hwm/visibility-gap.json", "oembed/lessons/high-water-mark.json", "oembed/lessons/high-water-mark/glossary.json",
		"static/embed.js", "_headers", ".nojekyll"} {
		assert.FileExists(t, filepath.Join(out, f))
	}

	// Every address of the site in every page is a file of the copy.
	const prefix = "/sub/path"
	exists := func(p string) bool {
		p = strings.TrimPrefix(p, prefix)
		if strings.HasSuffix(p, "/") {
			p += "index.html"
		}
		_, err := os.Stat(filepath.Join(out, filepath.FromSlash(p)))
		return err == nil
	}
	checked := 0
	require.NoError(t, filepath.WalkDir(out, func(file string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(file, ".html") {
			return err
		}
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		doc := htmltest.Parse(t, string(b))
		for _, n := range htmltest.All(doc.Root, func(*html.Node) bool { return true }) {
			for _, a := range n.Attr {
				if !urlAttrs[a.Key] && !(strings.HasPrefix(a.Key, "data-") && strings.HasSuffix(a.Key, "-url")) {
					continue
				}
				u, err := url.Parse(a.Val)
				if err != nil || u.Host != "" || !strings.HasPrefix(a.Val, "/") {
					continue
				}
				assert.True(t, strings.HasPrefix(u.Path, prefix+"/"), "%s: %s=%q is outside the copy's path", file, a.Key, a.Val)
				assert.True(t, exists(u.Path), "%s: %s=%q leads to no file of the copy", file, a.Key, a.Val)
				checked++
			}
		}
		return nil
	}))
	assert.Greater(t, checked, 1000)

	// A scenario page's absolute links, its preview and its oEmbed
	// description name the copy's address.
	b, err := os.ReadFile(filepath.Join(out, "scenarios/hwm/visibility-gap/index.html"))
	require.NoError(t, err)
	page := htmltest.Parse(t, string(b))
	assert.Contains(t, htmltest.Text(page.One(t, "snippet-iframe")), `src="https://docs.example/sub/path/embed/hwm/visibility-gap/"`)
	assert.Contains(t, htmltest.Text(page.One(t, "snippet-markdown")), "(https://docs.example/sub/path/picture/hwm/visibility-gap/defaults.svg)")
	assert.Contains(t, htmltest.Text(page.One(t, "snippet-pictures")), "drawn by a Tidemark server", "the page says what needs a server")
	var desc struct{ HTML, Type string }
	b, err = os.ReadFile(filepath.Join(out, "oembed/scenarios/hwm/visibility-gap.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &desc))
	assert.Equal(t, "rich", desc.Type)
	assert.Contains(t, desc.HTML, `src="https://docs.example/sub/path/embed/hwm/visibility-gap/"`)
	for _, m := range page.ByTag("link") {
		if htmltest.Attr(m, "type") == "application/json+oembed" {
			assert.Equal(t, "https://docs.example/sub/path/oembed/scenarios/hwm/visibility-gap.json", htmltest.Attr(m, "href"))
		}
	}
	play, err := os.ReadFile(filepath.Join(out, "play/index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(play), `data-testid="play-static-note"`)
	assert.NotContains(t, string(play), "data-picture-url", "no server draws pictures here")

	// A mistyped embed id gets a note that fits in the author's iframe:
	// the embeds' own 404 page (which Cloudflare serves for a missing file
	// under embed/) lists every id for frame.js to match, and the copy's
	// 404.html (which the other hosts serve) points its script there.
	b, err = os.ReadFile(filepath.Join(out, "embed/404.html"))
	require.NoError(t, err)
	missing := htmltest.Parse(t, string(b))
	assert.Contains(t, htmltest.Text(missing.One(t, "not-found-what")), "No Tidemark scenario has the address")
	assert.Contains(t, string(b), `src="/sub/path/static/frame.`, "sized to its frame")
	assert.NotContains(t, string(b), "site-header", "not the site's whole page")
	known := htmltest.Text(missing.One(t, "not-found-known"))
	for _, sc := range all {
		assert.Contains(t, known, sc.ID)
	}
	b, err = os.ReadFile(filepath.Join(out, "404.html"))
	require.NoError(t, err)
	assert.Equal(t, "/sub/path/embed/404.html", htmltest.Attr(htmltest.Parse(t, string(b)).One(t, "embed-not-found"), "data-embed-not-found-url"))

	headers, err := os.ReadFile(filepath.Join(out, "_headers"))
	require.NoError(t, err)
	rules := 0
	for _, line := range strings.Split(string(headers), "\n") {
		if strings.HasPrefix(line, "/") {
			rules++
			assert.True(t, strings.HasPrefix(line, prefix+"/"), line)
		}
	}
	assert.LessOrEqual(t, rules, 100, "Cloudflare reads at most 100 rules")
	assert.Contains(t, string(headers), prefix+"/embed/*\n  Content-Security-Policy: default-src 'self';")

	// Again into the same directory: the copy is replaced, nothing stale stays.
	stale := filepath.Join(out, "static", "app.00000000.css")
	require.NoError(t, os.WriteFile(stale, []byte("old"), 0o644))
	_, err = Site(Options{BaseURL: "https://docs.example/sub/path", Out: out})
	require.NoError(t, err)
	assert.NoFileExists(t, stale)

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644))
	_, err = Site(Options{BaseURL: "https://docs.example/", Out: other})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not empty")
	assert.FileExists(t, filepath.Join(other, "notes.txt"))
}
