package pages_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
	"github.com/tidemark/tidemark/web/share"
)

// oembedAnswer is an oEmbed answer as a consumer reads it.
type oembedAnswer struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	Title        string `json:"title"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	CacheAge     int    `json:"cache_age"`
	HTML         string `json:"html"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
}

func siteWithLessons(t *testing.T) http.Handler {
	t.Helper()
	cat, err := pages.Catalog()
	require.NoError(t, err)
	h, err := web.NewHandler(web.Options{Scenarios: cat, Lessons: mustLessons(t), Pages: append(pages.Routes(), lessonpage.Routes()...)})
	require.NoError(t, err)
	return h
}

func askOEmbed(t *testing.T, h http.Handler, target string) (*httptest.ResponseRecorder, oembedAnswer) {
	t.Helper()
	rec, body := do(h, httptest.NewRequest(http.MethodGet, target, nil))
	var a oembedAnswer
	if rec.Code == http.StatusOK {
		require.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))
		require.NoError(t, json.Unmarshal([]byte(body), &a), body)
	}
	return rec, a
}

func oembedURL(page string, extra ...string) string {
	q := url.Values{"url": {page}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return "/oembed?" + q.Encode()
}

// iframeSrc returns the src of the one iframe in an oEmbed answer's html.
func iframeSrc(t *testing.T, fragment string) (src string, attrs map[string]string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(fragment), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	require.NoError(t, err)
	require.Len(t, nodes, 1, fragment)
	require.Equal(t, "iframe", nodes[0].Data, fragment)
	attrs = map[string]string{}
	for _, a := range nodes[0].Attr {
		attrs[a.Key] = a.Val
	}
	return attrs["src"], attrs
}

// TestOEmbed: the endpoint describes a scenario page (with its query) and
// its embed page as an iframe of the embed page, a scenario carried in a
// link as an iframe of /embed/#tdm=…, and a lesson as a link; it answers
// 501 for a format other than json and 404 for what it cannot show, as
// the oEmbed specification asks.
func TestOEmbed(t *testing.T) {
	h := siteWithLessons(t)

	rec, a := askOEmbed(t, h, oembedURL("http://example.com/scenarios/hwm/visibility-gap?step=14&mark=lsn", "format", "json"))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "public, max-age=3600", rec.Header().Get("Cache-Control"))
	assert.Equal(t, oembedAnswer{Version: "1.0", Type: "rich", Title: "A timestamp mark skips rows that commit late",
		ProviderName: "Tidemark", ProviderURL: "http://example.com/", CacheAge: 3600, HTML: a.HTML, Width: 680, Height: 800}, a)
	src, attrs := iframeSrc(t, a.HTML)
	assert.Equal(t, "http://example.com/embed/hwm/visibility-gap?mark=lsn&step=14", src)
	assert.Equal(t, "680", attrs["width"])
	assert.Equal(t, "800", attrs["height"])
	assert.Equal(t, "A timestamp mark skips rows that commit late — Tidemark", attrs["title"])

	_, a = askOEmbed(t, h, oembedURL("http://example.com/embed/dist/rebalance", "maxwidth", "400", "maxheight", "300"))
	assert.Equal(t, 400, a.Width)
	assert.Equal(t, 300, a.Height)
	_, attrs = iframeSrc(t, a.HTML)
	assert.Equal(t, "400", attrs["width"])

	text := "scenario mine/x \"My own <scenario>\"\nsource orders key=order_id\n"
	frag, err := share.Fragment(text)
	require.NoError(t, err)
	_, a = askOEmbed(t, h, oembedURL("http://example.com/play?step=2#"+frag))
	assert.Equal(t, "rich", a.Type)
	assert.Equal(t, "My own <scenario>", a.Title)
	src, _ = iframeSrc(t, a.HTML)
	assert.Equal(t, "http://example.com/embed/?step=2#"+frag, src)
	_, a = askOEmbed(t, h, oembedURL("http://example.com/embed/#"+frag))
	src, _ = iframeSrc(t, a.HTML)
	assert.Equal(t, "http://example.com/embed/#"+frag, src)

	_, a = askOEmbed(t, h, oembedURL("http://example.com/lessons/high-water-mark"))
	assert.Equal(t, "link", a.Type)
	assert.Equal(t, "Tidemark", a.ProviderName)
	assert.Empty(t, a.HTML)

	for target, code := range map[string]int{
		oembedURL("http://example.com/scenarios/hwm/visibility-gap", "format", "xml"): http.StatusNotImplemented,
		oembedURL("http://example.com/scenarios/hwm/no-such"):                         http.StatusNotFound,
		oembedURL("http://elsewhere.example/scenarios/hwm/visibility-gap"):            http.StatusNotFound,
		oembedURL("ftp://example.com/scenarios/hwm/visibility-gap"):                   http.StatusNotFound,
		oembedURL("http://example.com/play#tdm=damaged*"):                             http.StatusNotFound,
		oembedURL("http://example.com/play"):                                          http.StatusNotFound,
		oembedURL("http://example.com/lessons/no-such"):                               http.StatusNotFound,
		oembedURL("http://example.com/"):                                              http.StatusNotFound,
		"/oembed?format=json":                                                         http.StatusBadRequest,
	} {
		rec, _ := do(h, httptest.NewRequest(http.MethodGet, target, nil))
		assert.Equal(t, code, rec.Code, target)
	}
	// A url= that cannot be read is named as such, not as missing.
	rec, body := do(h, httptest.NewRequest(http.MethodGet, "/oembed?url=%zz", nil))
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Contains(t, body, `could not be read (invalid URL escape "%zz"), so url= may be badly percent-encoded`)
	// An address of no page is quoted short.
	rec, body = do(h, httptest.NewRequest(http.MethodGet, oembedURL("http://example.com/"+strings.Repeat("x", 10_000)), nil))
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Less(t, len(body), 200)
}

// TestLinkPreviews: a scenario page and a lesson page carry OpenGraph tags
// naming them at the address they were asked at, and an oEmbed discovery
// link that the endpoint answers; a lesson page kept for reuse is kept per
// address, so one host's preview is never served to another.
func TestLinkPreviews(t *testing.T) {
	h := siteWithLessons(t)
	meta := func(d htmltest.Doc, property string) string {
		for _, m := range d.ByTag("meta") {
			if htmltest.Attr(m, "property") == property || htmltest.Attr(m, "name") == property {
				return htmltest.Attr(m, "content")
			}
		}
		return ""
	}
	discovery := func(d htmltest.Doc) string {
		for _, l := range d.ByTag("link") {
			if htmltest.Attr(l, "rel") == "alternate" && htmltest.Attr(l, "type") == "application/json+oembed" {
				return htmltest.Attr(l, "href")
			}
		}
		return ""
	}

	_, d := get(t, h, "/scenarios/hwm/visibility-gap?step=14&mark=lsn")
	assert.Equal(t, "website", meta(d, "og:type"))
	assert.Equal(t, "A timestamp mark skips rows that commit late", meta(d, "og:title"))
	assert.NotEmpty(t, meta(d, "og:description"))
	assert.Equal(t, "Tidemark", meta(d, "og:site_name"))
	assert.Equal(t, "http://example.com/scenarios/hwm/visibility-gap?mark=lsn&step=14", meta(d, "og:url"))
	assert.Equal(t, "summary", meta(d, "twitter:card"))
	href := discovery(d)
	require.NotEmpty(t, href)
	u, err := url.Parse(href)
	require.NoError(t, err)
	rec, a := askOEmbed(t, h, u.RequestURI())
	require.Equal(t, http.StatusOK, rec.Code)
	src, _ := iframeSrc(t, a.HTML)
	assert.Equal(t, "http://example.com/embed/hwm/visibility-gap?mark=lsn&step=14", src)

	_, e := get(t, h, "/embed/hwm/visibility-gap")
	assert.Empty(t, meta(e, "og:url"), "the embed page is framed, not shared")

	lesson := func(host string) htmltest.Doc {
		req := httptest.NewRequest(http.MethodGet, "/lessons/high-water-mark", nil)
		req.Host = host
		rec, body := do(h, req)
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Contains(t, rec.Header().Values("Vary"), "Host")
		return htmltest.Parse(t, body)
	}
	l := lesson("one.example")
	assert.Equal(t, "article", meta(l, "og:type"))
	assert.Equal(t, "http://one.example/lessons/high-water-mark", meta(l, "og:url"))
	assert.Contains(t, discovery(l), "http://one.example/oembed?")
	assert.Equal(t, "http://two.example/lessons/high-water-mark", meta(lesson("two.example"), "og:url"))
}

func mustLessons(t *testing.T) []templates.CatalogItem {
	t.Helper()
	l, err := lessonpage.Catalog()
	require.NoError(t, err)
	return l
}

// TestStaticCopyLinksWorkOnTheServer: a copy in static files links each
// page as a directory, with a trailing slash (docs/deploy.md); the server
// answers those addresses with the same pages.
func TestStaticCopyLinksWorkOnTheServer(t *testing.T) {
	h := siteWithLessons(t)
	for _, target := range []string{"/scenarios/hwm/visibility-gap/?step=3", "/embed/hwm/visibility-gap/", "/play/",
		"/lessons/high-water-mark/", "/lessons/high-water-mark/how-it-breaks/", "/lessons/high-water-mark/glossary/"} {
		code, d := get(t, h, target)
		assert.Equal(t, http.StatusOK, code, target)
		assert.NotEmpty(t, d.ByTestID("page-title"), target)
	}
	_, d := get(t, h, "/scenarios/hwm/visibility-gap/?step=3")
	assert.Equal(t, "3", htmltest.Attr(d.One(t, "widget"), "data-step"))
}

// TestFaultsInTheLink: a link's faults fork the run on the server as in the
// browser, with the comparison to the run without them; every link and
// snippet of the page carries them on, as does the picture; a fault that
// cannot apply is dropped with a word, and so is one that does not read.
func TestFaultsInTheLink(t *testing.T) {
	h := handler(t)
	base := "/scenarios/hwm/advance-order?advance=after&sink=append&crash=none"
	_, plain := get(t, h, base+"&step=10")
	assert.Empty(t, plain.ByTestID("panel-compare"))
	// The second run's write is at step 11 with these knobs: crash right after it.
	code, d := get(t, h, base+"&step=18&fault=11~crash&explain=4")
	require.Equal(t, http.StatusOK, code)
	assert.True(t, htmltest.HasAttr(d.One(t, "message"), "hidden"), htmltest.Text(d.One(t, "message")))
	d.One(t, "panel-compare")
	back := htmltest.Attr(d.One(t, "btn-back"), "href")
	assert.Contains(t, back, "fault=11~crash")
	assert.Contains(t, back, "explain=4", "the key being explained stays in the address")
	assert.Contains(t, htmltest.Text(d.One(t, "snippet-iframe")), "fault=11~crash")
	assert.Contains(t, htmltest.Text(d.One(t, "snippet-script")), "fault=11~crash")
	assert.Contains(t, htmltest.Text(d.One(t, "snippet-markdown")), "fault=11~crash")

	// The picture of the fork is the fork's, and links back to it.
	rec, body := do(h, httptest.NewRequest(http.MethodGet, "/picture/hwm/advance-order.svg?advance=after&sink=append&crash=none&fault=11~crash", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	_, noFault := do(h, httptest.NewRequest(http.MethodGet, "/picture/hwm/advance-order.svg?advance=after&sink=append&crash=none", nil))
	assert.NotEqual(t, noFault, body, "the fork ends otherwise")
	assert.Contains(t, body, "fault=11~crash")

	_, bad := get(t, h, base+"&fault=1~crash")
	assert.Contains(t, htmltest.Text(bad.One(t, "message")), "The link's fault=1~crash could not be applied")
	assert.Empty(t, bad.ByTestID("panel-compare"))
	_, nonsense := get(t, h, base+"&fault=soon~explode")
	assert.Contains(t, htmltest.Text(nonsense.One(t, "message")), "The link's fault=soon~explode does not start with a step number; ignoring it.")
}
