package docpage

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
)

func get(t *testing.T, h http.Handler, target string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "docs.example:8080"
	h.ServeHTTP(rec, req)
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	return rec.Code, string(body)
}

func handler(t *testing.T) http.Handler {
	t.Helper()
	h, err := web.NewHandler(web.Options{Pages: Routes()})
	require.NoError(t, err)
	return h
}

// Every document's page is served, under its title, and every link in it
// that stays on the site leads somewhere: a section of the page itself, a
// section of the other document's page, or another page of the site.
// The documents' contents lists link to their sections by GitHub's ids,
// which the headings here must carry too.
func TestEveryLinkOfTheDocumentsLeadsSomewhere(t *testing.T) {
	h := handler(t)
	ids := map[string]map[string]bool{} // page -> the ids on it
	links := map[string][]string{}      // page -> its links within the site
	for _, d := range Docs {
		code, body := get(t, h, d.Path())
		require.Equal(t, http.StatusOK, code, d.Path())
		doc := htmltest.Parse(t, body)
		h1 := doc.ByTag("h1")
		require.Len(t, h1, 1, "%s: one title", d.Path())
		assert.Contains(t, body, "<title>"+html.EscapeString(htmltest.Text(h1[0]))+" — Tidemark</title>")
		ids[d.Path()] = map[string]bool{}
		for _, n := range htmltest.All(doc.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "id") }) {
			ids[d.Path()][htmltest.Attr(n, "id")] = true
		}
		for _, a := range doc.ByTag("a") {
			href := htmltest.Attr(a, "href")
			if strings.HasPrefix(href, "#") || strings.HasPrefix(href, "/") {
				links[d.Path()] = append(links[d.Path()], href)
			}
		}
		code2, _ := get(t, h, d.Path()+"/")
		assert.Equal(t, http.StatusOK, code2, "%s/: a static copy's address of it", d.Path())
	}
	checked := 0
	for page, hrefs := range links {
		for _, href := range hrefs {
			path, frag, _ := strings.Cut(href, "#")
			if path == "" {
				path = page
			}
			if on, ok := ids[path]; ok {
				if frag != "" {
					assert.True(t, on[frag], "%s: the link %q names no section of %s", page, href, path)
				}
			} else {
				assert.Contains(t, []string{"/", "/#lessons", "/#scenarios", "/play"}, href, "%s: a link to a page this test does not serve", page)
			}
			checked++
		}
	}
	assert.Greater(t, checked, 20, "the scenario format's contents alone links to thirteen sections")
}

// The documents' examples write https://HOST for the site's address; the
// page writes the address it was asked at, so a pasted snippet works. A
// request whose Host cannot be trusted keeps the placeholder.
func TestExamplesNameTheSitesAddress(t *testing.T) {
	h := handler(t)
	_, body := get(t, h, "/docs/embedding")
	assert.NotContains(t, body, "HOST")
	assert.Contains(t, body, `&lt;iframe src=&quot;http://docs.example:8080/embed/hwm/visibility-gap?step=14&amp;amp;mark=lsn&quot;`)
	assert.Contains(t, body, `(http://docs.example:8080/picture/hwm/visibility-gap.svg?step=14&amp;mark=lsn)`, "the example picture is the site's own")
	assert.Contains(t, body, `url=http%3A%2F%2Fdocs.example%3A8080%2Fscenarios%2Fhwm%2Fvisibility-gap`, "and so is the address in an oEmbed link's query")

	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/docs/embedding", nil)
	req.Host = "evil.example/<script>"
	h.ServeHTTP(rec, req)
	assert.Contains(t, rec.Body.String(), "https://HOST/embed/")
	assert.NotContains(t, rec.Body.String(), "evil.example")
}

// A link from one document to the other's file becomes a link to its
// page; other links are left as written.
func TestRewrite(t *testing.T) {
	for in, want := range map[string]string{
		"embedding.md":                 "/docs/embedding",
		"scenarios.md#knob":            "/docs/scenarios#knob",
		"docs/scenarios.md#the-header": "/docs/scenarios#the-header",
		"#lexical-rules":               "#lexical-rules",
		"security.md":                  "security.md",
		"https://oembed.com":           "https://oembed.com",
	} {
		assert.Equal(t, want, rewrite(in), in)
	}
}
