package site

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
)

// siteHandler is the whole site's handler, built once for the fuzz target:
// building it reads every lesson and scenario.
var siteHandler = sync.OnceValues(func() (http.Handler, error) {
	opts, err := Options(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, err
	}
	return web.NewHandler(opts)
})

// FuzzSite sends the site requests a visitor could make up: any path and
// query on any of its routes, and any body posted to the sandbox. Whatever
// they hold, the site answers without a panic and without a 500 ("the page
// could not be built" is a bug: bad input gets a 4xx that says what is
// wrong), and a page it answers 200 with is HTML or SVG it could send.
func FuzzSite(f *testing.F) {
	seeds := []struct{ method, path, query, body string }{
		{"GET", "/", "", ""},
		{"GET", "/scenarios/hwm/visibility-gap", "step=14&mark=lsn", ""},
		{"GET", "/scenarios/hwm/visibility-gap", "step=-3&mark=bogus&fault=crash@x", ""},
		{"GET", "/scenarios/stream/late-data", "step=99999999999999999999&present", ""},
		{"GET", "/scenarios/stream/checkpoint-two-phase", "fault=fail:load@10:00:15&step=40", ""},
		{"GET", "/scenarios/dist/partition-change", "present=notes&step=3", ""},
		{"GET", "/embed/hwm/visibility-gap", "step=5", ""},
		{"GET", "/embed/", "", ""},
		{"GET", "/picture/hwm/visibility-gap", "step=7&mark=timestamp", ""},
		{"GET", "/picture.svg", "src=hFXNbuNGDL7rKQhlgbRArFq2s7sNIBTbQ9Hj", ""},
		{"GET", "/oembed", "url=http%3A%2F%2Fexample.com%2Fscenarios%2Fhwm%2Fvisibility-gap&format=json", ""},
		{"GET", "/lessons/high-water-mark", "", ""},
		{"GET", "/lessons/guarantee-chain/five-failures", "step=3", ""},
		{"GET", "/lessons/high-water-mark/glossary", "", ""},
		{"GET", "/chain", "source=timestamp-mark&sink=merge", ""},
		{"GET", "/chain", "source=%ff&sink=", ""},
		{"GET", "/docs/scenarios", "", ""},
		{"GET", "/play", "", ""},
		{"POST", "/play", "", "src=" + url.QueryEscape("scenario x \"X\"\nsource orders key=order_id\n")},
		{"POST", "/play", "", "src=%zz"},
		{"GET", "/static/app.css", "", ""},
		{"GET", "/healthz", "", ""},
		{"GET", "/nowhere/at/all", "x=%", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, s.body)
	}
	h, err := siteHandler()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, method, path, query, body string) {
		switch method {
		case "GET", "HEAD", "POST":
		default:
			method = "GET"
		}
		// What net/http's server would hand the handler: a path that starts
		// with a slash, in valid UTF-8 after unescaping, and a bounded body.
		if !strings.HasPrefix(path, "/") || !utf8.ValidString(path) || len(path) > 4096 || len(query) > 16384 || len(body) > 1<<16 {
			t.Skip()
		}
		r := httptest.NewRequest(method, "/", strings.NewReader(body))
		r.URL = &url.URL{Path: path, RawQuery: query}
		r.RequestURI = r.URL.RequestURI()
		if method == "POST" {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		w := httptest.NewRecorder()
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("%s %s: panic: %v", method, r.RequestURI, p)
				}
			}()
			h.ServeHTTP(w, r)
		}()
		require.NotEqual(t, http.StatusInternalServerError, w.Code, "%s %s: %s", method, r.RequestURI, w.Body.String())
		require.GreaterOrEqual(t, w.Code, 200, "%s %s", method, r.RequestURI)
		require.Less(t, w.Code, 600, "%s %s", method, r.RequestURI)
	})
}
