//go:build !js

package main

import (
	"io"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoryLimit: the server sets the runtime's soft memory limit unless
// GOMEMLIMIT already does.
func TestMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })

	assert.Equal(t, int64(defaultMemoryLimit), setMemoryLimit(func(string) string { return "" }))
	assert.Equal(t, int64(defaultMemoryLimit), debug.SetMemoryLimit(-1))

	debug.SetMemoryLimit(3 << 30) // as the runtime would from GOMEMLIMIT=3GiB
	env := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "3GiB"
		}
		return ""
	}
	assert.Equal(t, int64(3<<30), setMemoryLimit(env))
	assert.Equal(t, int64(3<<30), debug.SetMemoryLimit(-1), "GOMEMLIMIT wins")
}

// TestBurstOfHeavyPostsLeavesTheServerAnswering sends the real server
// sixteen concurrent posts of a scenario just under its work budget, twice
// over, while asking /healthz every 20 ms: every health check is answered,
// quickly; every post gets a page (its run, or 503 with Retry-After at
// once); and the server serves pages afterwards.
func TestBurstOfHeavyPostsLeavesTheServerAnswering(t *testing.T) {
	h, err := siteHandler()
	require.NoError(t, err)
	base := startFast(t, h) // the server cmd/serve runs
	client := &http.Client{}

	heavy := "scenario sandbox/h \"H\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\n" +
		"workload txns=25000 from=10:00:00 every=10ms\nruns extract from=10:00:00 until=10:05:00 every=1s\n"
	form := url.Values{"src": {heavy}}.Encode()

	stop := make(chan struct{})
	var checks, slow atomic.Int32
	var healthErr atomic.Value
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			start := time.Now()
			resp, err := client.Get(base + "/healthz")
			if err != nil {
				healthErr.Store(err.Error())
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				healthErr.Store(resp.Status)
			}
			checks.Add(1)
			if time.Since(start) > time.Second {
				slow.Add(1)
			}
		}
	}()

	var ran, busy atomic.Int32
	for range 2 {
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := client.Post(base+"/play", "application/x-www-form-urlencoded", strings.NewReader(form))
				if !assert.NoError(t, err) {
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					ran.Add(1)
					assert.Contains(t, string(body), `data-testid="widget"`)
				case http.StatusServiceUnavailable: // busy, or past the deadline
					busy.Add(1)
					assert.NotEmpty(t, resp.Header.Get("Retry-After"))
					assert.Contains(t, string(body), "txns=25000", "the text is kept")
				default:
					t.Errorf("a post got %s", resp.Status)
				}
			}()
		}
		wg.Wait()
	}
	close(stop)
	<-done

	assert.Nil(t, healthErr.Load(), "every health check is answered")
	assert.Positive(t, checks.Load())
	assert.Zero(t, slow.Load(), "no health check waits a second")
	// A run may also be turned away by its deadline on a slow machine, so
	// only the busy answers are sure to be there.
	assert.Equal(t, int32(32), ran.Load()+busy.Load())
	assert.Positive(t, busy.Load())
	resp, err := client.Get(base + "/scenarios/hwm/visibility-gap")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
