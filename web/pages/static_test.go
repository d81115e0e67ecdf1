package pages

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons"
)

// TestStaticPictureNames: a static copy's picture names read back into the
// knobs they were made from, values with characters a file name should
// not hold included, and the server answers each name with the picture of
// the same query.
func TestStaticPictureNames(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	assert.Equal(t, "hwm/visibility-gap/defaults.svg", StaticPicture(sc.File, nil))
	assert.Equal(t, "hwm/visibility-gap/defaults.svg", StaticPicture(sc.File, map[string]string{"mark": "timestamp"}), "a knob at its default is left out")
	assert.Equal(t, "hwm/visibility-gap/mark=lsn,predicate=gte.svg", StaticPicture(sc.File, map[string]string{"predicate": "gte", "mark": "lsn"}))

	for _, v := range []string{"10:00:06", "a+b", "x_y.z-w", "~"} {
		back, ok := pathUnescape(pathEscape(v))
		assert.True(t, ok, v)
		assert.Equal(t, v, back)
		assert.NotContains(t, pathEscape(v), ":")
	}
	q, ok := staticPictureQuery("until=10~3A00~3A30")
	require.True(t, ok)
	assert.Equal(t, "10:00:30", q.Get("until"))
	for _, bad := range []string{"step=3", "mark", "mark=~4", "mark=~zz"} {
		_, ok := staticPictureQuery(bad)
		assert.False(t, ok, bad)
	}

	h := site(t)
	get := func(target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		return rec
	}
	static := get("/picture/hwm/visibility-gap/mark=lsn,predicate=gte.svg")
	require.Equal(t, http.StatusOK, static.Code)
	assert.Equal(t, get("/picture/hwm/visibility-gap.svg?mark=lsn&predicate=gte").Body.String(), static.Body.String())
	assert.Equal(t, http.StatusNotFound, get("/picture/hwm/no-such/defaults.svg").Code)
	assert.Equal(t, http.StatusNotFound, get("/picture/hwm/visibility-gap/step=3.svg").Code, "a step is no static name")
}
