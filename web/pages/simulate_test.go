package pages

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/share"
)

// These tests are internal: they hold the server's run slots, or shorten
// its deadline, to see what a visitor gets when those limits are reached.

func site(t *testing.T) http.Handler {
	t.Helper()
	h, err := web.NewHandler(web.Options{Pages: Routes()})
	require.NoError(t, err)
	return h
}

func postPlay(h http.Handler, src string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/play", strings.NewReader(url.Values{"src": {src}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const small = "scenario sandbox/s \"S\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\n" +
	"txn T1 begin=10:00:00 commit=10:00:01 insert order_id=1\nrun extract at=10:00:02\n"

// holdSlots takes every run slot until the test ends.
func holdSlots(t *testing.T) {
	for range MaxSimulations {
		slots <- struct{}{}
	}
	t.Cleanup(func() {
		for range MaxSimulations {
			<-slots
		}
	})
}

// TestBusyServerAnswers503AtOnce: with every run slot taken, a post to the
// sandbox is answered at once with 503, Retry-After and the visitor's text
// kept in the page; a picture that needs a run gets a 503 picture; pages
// whose runs are kept (every bundled scenario at its links' seed) and the
// health check are served as ever.
func TestBusyServerAnswers503AtOnce(t *testing.T) {
	require.NoError(t, Warm())
	h := site(t)
	holdSlots(t)

	start := time.Now()
	rec := postPlay(h, small)
	assert.Less(t, time.Since(start), time.Second, "no waiting in a queue")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, web.RetryAfter, rec.Header().Get("Retry-After"))
	assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"), "a busy answer is never kept")
	d := htmltest.Parse(t, rec.Body.String())
	assert.Contains(t, htmltest.Text(d.One(t, "play-error")), "running as many scenarios as it can for other visitors right now")
	assert.Contains(t, htmltest.Text(d.One(t, "play-src")), "insert order_id=1", "the visitor's text is kept")

	pic := httptest.NewRecorder()
	h.ServeHTTP(pic, httptest.NewRequest(http.MethodGet, "/picture/hwm/visibility-gap.svg?seed=77", nil))
	assert.Equal(t, http.StatusServiceUnavailable, pic.Code)
	assert.Equal(t, web.RetryAfter, pic.Header().Get("Retry-After"))
	assert.Equal(t, "no-store", pic.Header().Get("Cache-Control"))
	assert.Contains(t, pic.Body.String(), "The server is busy")

	for _, target := range []string{"/scenarios/hwm/visibility-gap?mark=lsn&step=3", "/embed/dist/rebalance", "/picture/hwm/visibility-gap.svg", "/healthz"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		assert.Equal(t, http.StatusOK, rec.Code, target)
	}
}

// TestRunPastTheDeadlineIsStopped: a run that takes longer than the
// deadline is stopped, and the sandbox says so and keeps the text.
func TestRunPastTheDeadlineIsStopped(t *testing.T) {
	h := site(t)
	deadline = time.Nanosecond
	t.Cleanup(func() { deadline = SimulationDeadline })
	rec := postPlay(h, "scenario sandbox/s \"S\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\n"+
		"workload txns=5000 from=10:00:00\nruns extract from=10:00:00 until=10:10:00 every=1s\n")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	d := htmltest.Parse(t, rec.Body.String())
	assert.Contains(t, htmltest.Text(d.One(t, "play-error")), "the server stopped running this scenario after 5s")
	assert.Contains(t, htmltest.Text(d.One(t, "play-src")), "workload txns=5000")
}

// TestBurstOfPostsRunsAtMostTwoAtOnce: sixteen posts at once, each of a
// scenario just under the server's budget, are run at most MaxSimulations
// at a time; the others are turned away at once, and every answer is a page.
func TestBurstOfPostsRunsAtMostTwoAtOnce(t *testing.T) {
	h := site(t)
	// A slow machine (or the race detector) must not turn runs away by
	// their deadline: this test is about how many run at once.
	deadline = time.Minute
	t.Cleanup(func() { deadline = SimulationDeadline })
	heavy := "scenario sandbox/h \"H\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\n" +
		"workload txns=25000 from=10:00:00 every=10ms\nruns extract from=10:00:00 until=10:05:00 every=1s\n"
	var most int
	var mu sync.Mutex
	stop := make(chan struct{})
	go func() { // watch how many run while the burst runs
		for {
			select {
			case <-stop:
				return
			default:
				mu.Lock()
				most = max(most, int(running.Load()))
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	recs := make([]*httptest.ResponseRecorder, 16)
	var wg sync.WaitGroup
	for i := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i] = postPlay(h, heavy)
		}()
	}
	wg.Wait()
	close(stop)
	ok, busy := 0, 0
	for _, rec := range recs {
		switch c := rec.Code; c {
		case http.StatusOK:
			ok++
			assert.Contains(t, rec.Body.String(), `data-testid="widget"`, "a post that ran shows its widget")
		case http.StatusServiceUnavailable:
			busy++
		default:
			t.Errorf("a post got %d", c)
		}
	}
	assert.Positive(t, ok)
	assert.Positive(t, busy, "sixteen heavy posts at once cannot all run")
	mu.Lock()
	assert.Positive(t, most, "the watcher saw no run")
	assert.LessOrEqual(t, most, MaxSimulations, "runs at once")
	mu.Unlock()
	assert.Zero(t, running.Load(), "a run is still counted")
	assert.Zero(t, len(slots), "every slot is given back")
}

// TestDrawingHoldsTheRunSlot: a visitor's run keeps its slot until what it
// ran is drawn, since drawing a run costs as much as running it (tens of
// megabytes of page at the server's budget): with two posts being drawn,
// a third post and a linked picture are turned away at once, and once
// they are drawn every slot is free again.
func TestDrawingHoldsTheRunSlot(t *testing.T) {
	h := site(t)
	started, carryOn := make(chan struct{}, MaxSimulations), make(chan struct{})
	var drawings atomic.Int32
	beforeDrawing = func() {
		if drawings.Add(1) > MaxSimulations {
			return // one more than the slots allow: the test fails below
		}
		started <- struct{}{}
		<-carryOn
	}
	t.Cleanup(func() { beforeDrawing = func() {} })
	recs := make([]*httptest.ResponseRecorder, MaxSimulations)
	var wg sync.WaitGroup
	for i := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i] = postPlay(h, small)
		}()
	}
	for range MaxSimulations {
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatal("the posts were not run")
		}
	}
	assert.Zero(t, running.Load(), "both runs are over")
	assert.Equal(t, MaxSimulations, len(slots), "a drawing gave its slot back before it was drawn")
	rec := postPlay(h, small)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	payload, err := share.Encode(small)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, getPicture(h, "/picture.svg?src="+payload).Code)
	close(carryOn)
	wg.Wait()
	for _, rec := range recs {
		assert.Equal(t, http.StatusOK, rec.Code)
		assert.Contains(t, rec.Body.String(), `data-testid="widget"`)
	}
	assert.Zero(t, len(slots), "every slot is given back")
}

// TestEveryBundledScenarioFitsTheServer: every bundled scenario, under every
// combination of its knobs, runs within the server's budget, so Warm can
// keep them all and no page of the site needs a run slot at its links' seed.
func TestEveryBundledScenarioFitsTheServer(t *testing.T) {
	require.NoError(t, Warm())
}
