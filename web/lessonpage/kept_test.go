package lessonpage

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/pages"
)

// discard is a ResponseWriter that keeps the headers and status and drops
// the body, so that what a test counts is the handler's own work.
type discard struct {
	h    http.Header
	code int
	n    int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(code int)        { d.code = code }
func (d *discard) Write(b []byte) (int, error) { d.n += len(b); return len(b), nil }

// TestLessonPagesAreDrawnOnce: a lesson page runs its embedded scenarios and
// compresses a large page, so it is drawn once per address and the headers
// its links are built from, and then answered from what was kept: asking
// again allocates a few dozen small values, not a page; a browser's copy
// revalidates to 304; and the page says what it varies by.
func TestLessonPagesAreDrawnOnce(t *testing.T) {
	h, err := web.NewHandler(web.Options{Pages: Routes()})
	require.NoError(t, err)
	for _, target := range []string{"/lessons/high-water-mark", "/lessons/high-water-mark/position-or-timestamp"} {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		first := &discard{h: http.Header{}}
		drawing := mallocs(func() { h.ServeHTTP(first, req) })
		require.Equal(t, http.StatusOK, first.code, target)
		etag := first.h.Get("ETag")
		require.NotEmpty(t, etag, target)
		for _, v := range append(pages.OriginHeaders, "Accept-Encoding") {
			assert.Contains(t, first.h.Values("Vary"), v, target)
		}

		again := &discard{h: http.Header{}}
		kept := testing.AllocsPerRun(20, func() {
			clear(again.h)
			again.n = 0
			h.ServeHTTP(again, req)
		})
		t.Logf("%s: %d allocations drawn, %.0f kept", target, drawing, kept)
		require.Greater(t, drawing, uint64(1000), "drawing %s should cost more than answering from what was kept", target)
		assert.Equal(t, http.StatusOK, again.code, target)
		assert.Equal(t, etag, again.h.Get("ETag"), target)
		assert.Equal(t, first.n, again.n, target)
		assert.Less(t, kept, 100.0, "%s is drawn again for every request", target)

		req.Header.Set("If-None-Match", etag)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusNotModified, rec.Code, target)
	}
}

// mallocs is how many heap allocations fn makes.
func mallocs(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
