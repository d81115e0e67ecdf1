package site

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGuessedIndexesLeadToTheLists: /lessons and /scenarios, which a
// visitor may type, lead to the lists on the home page; they answered 404
// (and /scenarios a redirect to a 404). A lesson and a scenario are still
// their own pages.
func TestGuessedIndexesLeadToTheLists(t *testing.T) {
	h, err := siteHandler()
	require.NoError(t, err)
	for path, want := range map[string]string{
		"/lessons": "/#lessons", "/lessons/": "/#lessons",
		"/scenarios": "/#scenarios", "/scenarios/": "/#scenarios",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusFound, rec.Code, path)
		assert.Equal(t, want, rec.Header().Get("Location"), path)
	}
	for _, path := range []string{"/lessons/guarantee-chain", "/scenarios/hwm/visibility-gap"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusOK, rec.Code, path)
	}
}
