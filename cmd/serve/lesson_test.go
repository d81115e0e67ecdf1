//go:build !js

package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/web/htmltest"
)

// TestLessonInternalLinksResolve renders the lesson through the real site
// handler, its contents page and every chapter the contents link to, and
// follows every internal link: "#x" must name an id on the page, "/x" must
// answer 200 (and have the element "/x#y" names).
func TestLessonInternalLinksResolve(t *testing.T) {
	h, err := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	get := func(target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		return rec
	}
	checked := map[string]bool{}
	pagesSeen := 0
	var n int
	var visit func(path string)
	visit = func(path string) {
		rec := get(path)
		require.Equal(t, http.StatusOK, rec.Code, path)
		pagesSeen++
		doc := htmltest.Parse(t, rec.Body.String())
		ids := map[string]bool{}
		for _, n := range htmltest.All(doc.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "id") }) {
			ids[htmltest.Attr(n, "id")] = true
		}
		for _, a := range doc.ByTag("a") {
			href := htmltest.Attr(a, "href")
			switch {
			case strings.HasPrefix(href, "#"):
				assert.True(t, ids[href[1:]], "%s: link %s: no element with that id", path, href)
				n++
			case strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "//"):
				if checked[href] {
					continue
				}
				checked[href] = true
				target, frag, _ := strings.Cut(href, "#")
				if strings.HasPrefix(target, "/lessons/high-water-mark/") && !checked["visited "+target] {
					checked["visited "+target] = true
					visit(target)
				}
				res := get(target)
				if assert.Equal(t, http.StatusOK, res.Code, "%s: link %s", path, href) && frag != "" {
					assert.Contains(t, res.Body.String(), `id="`+frag+`"`, "%s: link %s: no element with that id", path, href)
				}
				n++
			}
		}
	}
	visit("/lessons/high-water-mark")
	assert.GreaterOrEqual(t, pagesSeen, 10, "the contents lead to every chapter and the glossary")
	assert.Greater(t, n, 50, "the lesson should be full of internal links")

	home := get("/")
	require.Equal(t, http.StatusOK, home.Code)
	assert.Contains(t, home.Body.String(), `href="/lessons/high-water-mark"`, "the home page lists the lesson")
	assert.Equal(t, http.StatusNotFound, get("/lessons/nope").Code)
	assert.Equal(t, http.StatusNotFound, get("/lessons/high-water-mark/nope").Code)
}
