package pages

import (
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/share"
)

func getPicture(h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestLinkedPicture: /picture.svg?src= draws a scenario carried in a link
// at the step and knobs of its query, links back to the sandbox with the
// same text, and is kept by its content: asked again (even with every run
// slot taken) it is answered without a run, and a browser's copy gets 304.
func TestLinkedPicture(t *testing.T) {
	h := site(t)
	text := "scenario mine/pic \"A picture of my own\"\nknob mark = timestamp | lsn\n" +
		"source orders key=order_id updated_at=txn-start\ntarget fct key=order_id sink=merge\n" +
		"pipeline extract from=orders to=fct mark=$mark advance=after\n" +
		"txn T1 begin=10:00:00 commit=10:00:04 insert order_id=3\nrun extract at=10:00:02\nrun extract at=10:00:05\n"
	payload, err := share.Encode(text)
	require.NoError(t, err)
	target := "/picture.svg?step=3&mark=lsn&src=" + payload

	rec := getPicture(h, target)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "image/svg+xml", rec.Header().Get("Content-Type"))
	assert.Equal(t, PictureCache, rec.Header().Get("Cache-Control"))
	assert.True(t, strings.HasPrefix(rec.Header().Get("Content-Security-Policy"), "default-src 'none'; sandbox;"))
	body := rec.Body.String()
	assert.Contains(t, body, "A picture of my own")
	assert.Contains(t, body, "mark = lsn")
	// Its foot names the sandbox at the same settings, not the thousands
	// of characters of the scenario's text the link carries.
	assert.Contains(t, svgText(body), `play it at http://example.com/play?mark=lsn&step=3 with the scenario`)
	assert.NotContains(t, svgText(body), payload)
	for _, v := range OriginHeaders {
		assert.Contains(t, rec.Header().Values("Vary"), v, "the link in the picture is built from %s", v)
	}
	etag := rec.Header().Get("ETag")
	require.NotEmpty(t, etag)

	// A picture of another seed links back to that seed's run.
	seeded := getPicture(h, "/picture.svg?seed=5&step=3&src="+payload)
	require.Equal(t, http.StatusOK, seeded.Code, seeded.Body.String())
	assert.Contains(t, svgText(seeded.Body.String()), `http://example.com/play?seed=5&step=3 with`)

	// Kept by content: with every run slot taken, the same picture (its
	// query in another order) is still drawn, and a browser's copy is current.
	holdSlots(t)
	again := getPicture(h, "/picture.svg?src="+payload+"&mark=lsn&step=3")
	require.Equal(t, http.StatusOK, again.Code)
	assert.Equal(t, body, again.Body.String())
	assert.Equal(t, http.StatusNotModified, getPicture(h, target, "If-None-Match", etag).Code)
	// Another step needs a run, and there is none free.
	busy := getPicture(h, "/picture.svg?step=2&src="+payload)
	assert.Equal(t, http.StatusServiceUnavailable, busy.Code)
	assert.Equal(t, web.RetryAfter, busy.Header().Get("Retry-After"))
	// The address the picture links to is part of what it was drawn from.
	other := getPicture(h, target, "X-Forwarded-Proto", "https")
	assert.Equal(t, http.StatusServiceUnavailable, other.Code, "a picture for another address is another picture")
}

// TestLinkedPictureBadInput: a damaged payload, a scenario that does not
// build and one past the server's budget are pictures that say so.
func TestLinkedPictureBadInput(t *testing.T) {
	h := site(t)
	for name, tc := range map[string]struct {
		src    string
		status int
		says   string
	}{
		"damaged":        {"abc*", http.StatusBadRequest, "changed on the way? The src= of a picture"},
		"none":           {"", http.StatusBadRequest, "holds no scenario"},
		"does not parse": {mustEncode(t, "scenario x/y \"Y\"\nfrobnicate now\n"), http.StatusUnprocessableEntity, "linked.tdm:2:1"},
		// An error that ends in a question ends the picture's sentence.
		"a suggestion": {mustEncode(t, "scenario x/y \"Y\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\nrun extrac at=10:00:01\n"),
			http.StatusUnprocessableEntity, "did you mean extract?</text>"},
		"too much work": {mustEncode(t, "scenario x/y \"Y\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\n"+
			"workload orders txns=5000000 from=10:00:00 every=1ms\nrun extract at=23:00:00\n"), http.StatusUnprocessableEntity, "the server's limit for a picture"},
	} {
		t.Run(name, func(t *testing.T) {
			rec := getPicture(h, "/picture.svg?src="+tc.src)
			assert.Equal(t, tc.status, rec.Code)
			assert.Equal(t, "image/svg+xml", rec.Header().Get("Content-Type"))
			assert.Contains(t, html.UnescapeString(strings.Join(strings.Fields(rec.Body.String()), " ")), tc.says)
		})
	}
}

// svgText is the text of a picture's lines run together, so that a link
// wrapped over several lines reads whole.
func svgText(svg string) string {
	var b strings.Builder
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		b.WriteString(html.UnescapeString(m[1]))
	}
	return b.String()
}

func mustEncode(t *testing.T, text string) string {
	t.Helper()
	p, err := share.Encode(text)
	require.NoError(t, err)
	return p
}
