//go:build !js

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web/share"
)

// workerRequest is a request of a kind the Worker's Go program answers.
type workerRequest struct {
	name, method, target, body string
}

// workerRequests returns the kinds of request left to the Worker's Go
// program, one of each dynamic route. (A function, so that the test binary's
// initialisation, which GODEBUG=inittrace=1 shows, does not encode a link.)
func workerRequests() []workerRequest {
	return []workerRequest{
		{"healthz", http.MethodGet, "/healthz", ""},
		{"picture", http.MethodGet, "/picture/hwm/visibility-gap.svg?step=3", ""},
		{"linked-picture", http.MethodGet, "/picture.svg?step=2&src=" + mustLink(sandboxText), ""},
		{"oembed", http.MethodGet, "/oembed?format=json&url=" + url.QueryEscape("http://example.com/scenarios/hwm/visibility-gap?step=4"), ""},
		{"oembed-lesson", http.MethodGet, "/oembed?format=json&url=" + url.QueryEscape("http://example.com"+lessonChapter), ""},
		{"play", http.MethodPost, "/play", "src=" + url.QueryEscape(sandboxText)},
	}
}

func (r workerRequest) new() *http.Request {
	req := httptest.NewRequest(r.method, "http://example.com"+r.target, strings.NewReader(r.body))
	if r.method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestWorkerHandlerAnswersTheDynamicRoutesAsTheServerDoes builds the
// Worker's handler natively (its GOOS=js build differs only in holding no
// static file and compressing nothing) and checks that it answers each
// dynamic route with the local server's bytes, and has no route for the
// pages that the Worker's static assets serve.
func TestWorkerHandlerAnswersTheDynamicRoutesAsTheServerDoes(t *testing.T) {
	worker, err := newWorkerHandler(quietLogger())
	require.NoError(t, err)
	server, err := newHandler(quietLogger())
	require.NoError(t, err)
	for _, r := range workerRequests() {
		t.Run(r.name, func(t *testing.T) {
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			worker.ServeHTTP(got, r.new())
			server.ServeHTTP(want, r.new())
			require.Equal(t, http.StatusOK, got.Code, got.Body.String())
			assert.Equal(t, want.Header().Get("Content-Type"), got.Header().Get("Content-Type"))
			assert.True(t, bytes.Equal(want.Body.Bytes(), got.Body.Bytes()), "the Worker's body is not the server's")
		})
	}
	for path, status := range map[string]int{
		"/scenarios/hwm/visibility-gap": http.StatusNotFound, "/embed/hwm/visibility-gap": http.StatusNotFound,
		"/embed/": http.StatusNotFound, "/lessons/high-water-mark": http.StatusNotFound,
		"/lessons/high-water-mark/glossary": http.StatusNotFound, "/play/": http.StatusNotFound,
		// Only its POST is the Worker's; entry.mjs hands GET to the assets.
		"/play": http.StatusNotFound,
	} {
		rec := httptest.NewRecorder()
		worker.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, status, rec.Code, "GET %s: a page of the static copy is not the Worker's", path)
	}
}

// mustLink returns src as a link carries it.
func mustLink(src string) string {
	p, err := share.Encode(src)
	if err != nil {
		panic(err)
	}
	return p
}

// BenchmarkWorkerHandler times, natively, what the Worker's Go program
// does for a request once its packages are initialised: build the handler
// and answer the request, for each kind. (Natively the first op also hashes
// the embedded static files, which a GOOS=js build does not hold; what the
// program reads once, such as a bundled scenario, is read by the first op
// only. docs/performance.md sets these beside the same requests in workerd.)
//
//	go test -run '^$' -bench WorkerHandler -benchmem ./cmd/serve
func BenchmarkWorkerHandler(b *testing.B) {
	for _, r := range workerRequests() {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				h, err := newWorkerHandler(quietLogger())
				if err != nil {
					b.Fatal(err)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r.new())
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", r.name, rec.Code)
				}
			}
		})
	}
}

// TestWorkerHandlerAnswersHEADWithoutBodyOrLength checks HEAD as the
// Worker's Go program answers it: GET's status and headers, but no body
// and no Content-Length (see headers), for a picture, which states its
// length, and for the health check.
func TestWorkerHandlerAnswersHEADWithoutBodyOrLength(t *testing.T) {
	worker, err := newWorkerHandler(quietLogger())
	require.NoError(t, err)
	for path, status := range map[string]int{
		"/healthz":                               http.StatusOK,
		"/picture/hwm/visibility-gap.svg?step=3": http.StatusOK,
		"/picture/no/such.svg":                   http.StatusNotFound,
	} {
		get := httptest.NewRecorder()
		worker.ServeHTTP(get, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, status, get.Code, path)
		require.NotEmpty(t, get.Body.Bytes(), path)

		head := httptest.NewRecorder()
		worker.ServeHTTP(head, httptest.NewRequest(http.MethodHead, path, nil))
		assert.Equal(t, status, head.Code, "HEAD %s", path)
		assert.Empty(t, head.Body.Bytes(), "HEAD %s", path)
		assert.Empty(t, head.Header().Values("Content-Length"), "HEAD %s", path)
		assert.Equal(t, get.Header().Get("Content-Type"), head.Header().Get("Content-Type"), "HEAD %s", path)
	}
}

// TestWorkerHandlerAnswersWhatWouldEndTheProgram checks the two answers
// that stand in for a Go program that would otherwise end with its request
// unanswered: a handler that could not be built, and one that panics.
func TestWorkerHandlerAnswersWhatWouldEndTheProgram(t *testing.T) {
	rec := httptest.NewRecorder()
	unavailable(errors.New("web: no asset names linked in")).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Contains(t, rec.Body.String(), "Tidemark could not start: web: no asset names linked in")

	var logged bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logged, nil))
	panics := recovered(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("a bug") }), logger)
	rec = httptest.NewRecorder()
	require.NotPanics(t, func() { panics.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/picture/x.svg", nil)) })
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Contains(t, logged.String(), "a bug")

	// A panic after the response began keeps what was sent.
	late := recovered(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("partial"))
		panic("late")
	}), logger)
	rec = httptest.NewRecorder()
	late.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "partial", rec.Body.String())
}

// The most Tidemark's packages that the Worker links may allocate while
// they are initialised, together: every request to the Worker starts a Go
// program and pays for it (docs/architecture.md, "The Cloudflare Worker").
// They take 42 allocations and about 5 KB today; building the lessons'
// parser at initialisation took 44 and 16.5 KB more.
const (
	workerInitAllocs = 64
	workerInitBytes  = 8 << 10
)

// TestWorkerPackagesInitialiseCheaply checks that the Worker (cmd/serve
// for GOOS=js) links neither the course, the Markdown parser nor the
// lessons' text, then runs this test binary again with
// GODEBUG=inittrace=1 and adds up what the Worker's own packages (those
// that cmd/serve links for GOOS=js, from this module) allocate while they
// are initialised.
func TestWorkerPackagesInitialiseCheaply(t *testing.T) {
	if os.Getenv("TIDEMARK_INITTRACE_CHILD") != "" {
		return
	}
	list := exec.Command("go", "list", "-deps", ".")
	list.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := list.Output()
	require.NoError(t, err, "go list -deps (GOOS=js)")
	linked := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		// The Worker draws no lesson page and reads no lesson, so it
		// leaves the course and its Markdown parser out: their code and
		// the parser's initialisation (regular expressions compiled at
		// every start) cost a fifth of the module and milliseconds of
		// every request.
		assert.NotContains(t, p, "goldmark", "the Worker links the Markdown parser")
		assert.NotEqual(t, "github.com/tidemark/tidemark/lessons/course", p, "the Worker links the course")
		assert.NotEqual(t, "github.com/tidemark/tidemark/lessons/text", p, "the Worker embeds the lessons' text (it needs their titles only: lessons/titles)")
		if strings.HasPrefix(p, "github.com/tidemark/tidemark/") && p != "github.com/tidemark/tidemark/cmd/serve" {
			linked[p] = true
		}
	}
	require.Contains(t, linked, "github.com/tidemark/tidemark/web/pages")

	child := exec.Command(os.Args[0], "-test.run", "^TestWorkerPackagesInitialiseCheaply$")
	child.Env = append(os.Environ(), "GODEBUG=inittrace=1", "TIDEMARK_INITTRACE_CHILD=1")
	trace, err := child.CombinedOutput()
	require.NoError(t, err, "%s", trace)
	// init github.com/tidemark/tidemark/web @28 ms, 0.008 ms clock, 1008 bytes, 8 allocs
	line := regexp.MustCompile(`(?m)^init (\S+) @.*, (\d+) bytes, (\d+) allocs$`)
	var allocs, size int
	var seen []string
	for _, m := range line.FindAllStringSubmatch(string(trace), -1) {
		if !linked[m[1]] {
			continue
		}
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		size, allocs = size+b, allocs+a
		seen = append(seen, fmt.Sprintf("%s: %d B, %d allocs", strings.TrimPrefix(m[1], "github.com/tidemark/tidemark/"), b, a))
	}
	require.NotEmpty(t, seen, "GODEBUG=inittrace=1 traced none of the Worker's packages:\n%s", trace)
	t.Logf("the Worker's packages at initialisation: %d B, %d allocs (%s)", size, allocs, strings.Join(seen, "; "))
	assert.LessOrEqual(t, allocs, workerInitAllocs, "allocations while the Worker's packages are initialised")
	assert.LessOrEqual(t, size, workerInitBytes, "bytes allocated while the Worker's packages are initialised")
}
