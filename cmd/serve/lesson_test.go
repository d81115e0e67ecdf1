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
// handler and follows every internal link: "#x" must name an id on the page,
// "/x" must answer 200.
func TestLessonInternalLinksResolve(t *testing.T) {
	h, err := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	get := func(target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		return rec
	}
	rec := get("/lessons/high-water-mark")
	require.Equal(t, http.StatusOK, rec.Code)
	doc := htmltest.Parse(t, rec.Body.String())
	ids := map[string]bool{}
	for _, n := range htmltest.All(doc.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "id") }) {
		ids[htmltest.Attr(n, "id")] = true
	}
	checked := map[string]bool{}
	var n int
	for _, a := range doc.ByTag("a") {
		href := htmltest.Attr(a, "href")
		switch {
		case strings.HasPrefix(href, "#"):
			assert.True(t, ids[href[1:]], "link %s: no element with that id", href)
			n++
		case strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "//"):
			if checked[href] {
				continue
			}
			checked[href] = true
			path, frag, _ := strings.Cut(href, "#")
			res := get(path)
			if assert.Equal(t, http.StatusOK, res.Code, "link %s", href) && frag != "" {
				assert.Contains(t, res.Body.String(), `id="`+frag+`"`, "link %s: no element with that id", href)
			}
			n++
		}
	}
	assert.Greater(t, n, 50, "the lesson should be full of internal links")

	home := get("/")
	require.Equal(t, http.StatusOK, home.Code)
	assert.Contains(t, home.Body.String(), `href="/lessons/high-water-mark"`, "the home page lists the lesson")
	assert.Equal(t, http.StatusNotFound, get("/lessons/nope").Code)
}
