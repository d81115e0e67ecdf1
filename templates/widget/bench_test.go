package widget

import (
	"math/rand/v2"
	"net/url"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/tidemark/tidemark/engine/worlds"
)

// tenK is the browser budget's scenario (see web/e2e/perf_test.go): about
// 10,000 steps, with a timestamp mark that loses rows as it goes.
const tenK = `scenario perf/ten-k "Ten thousand steps"
source orders key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
workload orders txns=3000 from=10:00:00 every=200ms duration=0s..3s
runs extract every=5s from=10:00:00 until=10:10:05
check monotonicity
check gap-scan
check uniqueness
`

// hundredK is the same workload ten times over: about 103,000 steps.
const hundredK = `scenario perf/hundred-k "A hundred thousand steps"
source orders key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
workload orders txns=33000 from=10:00:00 every=200ms duration=0s..3s
runs extract every=5s from=10:00:00 until=11:50:05
check monotonicity
check gap-scan
check uniqueness
`

// streamHundredK is the stream world's costliest page of that size: about
// 100,000 steps (50,000 records sent and read over 4 partitions, out of
// order) through a keyed one-minute tumbling window with allowed lateness,
// whose every step the stage draws with the windows so far (the chart and
// its text equivalent), and a checkpoint every 10 s.
const streamHundredK = `scenario perf/stream-hundred-k "A hundred thousand steps of a stream job"
topic events partitions=4
target per_key sink=merge key=window
producer shop to=events key=user_id
traffic shop records=50000 from=10:00:00 every=10ms keys=200 event-lag=0s..3s amount=1..100
stream s from=events
watermark s bound=2s
checkpoint every=10s
window w from=s tumbling size=1m agg=sum lateness=5s to=per_key
check late-records
check recount
`

// BenchmarkStep measures what the page does for one step of a large trace
// (web/static/widget.js: playing, the forward button and the arrow key all
// seek the step after the one on screen): a session that has drawn step n
// draws step n+1, as changes to the stage on screen. Its ns/op is that
// step alone, timed by the clock around it; allocs/op and B/op are the
// step's too (pageIdle allocates nothing).
//
// Between two steps the page is idle, and its idle (wasm/main.go) collects
// garbage if the heap has come three quarters of the way to the
// collector's goal; the benchmark does the same between two steps, outside
// the step's time (pageIdle). Without that, steps in wasm ran with the
// collector marking a third of the time or more: with one thread and no
// preemption only the steps' own allocations mark (assists), so a mark
// phase lasted 0.4–0.6 s, every pointer a step wrote meanwhile went
// through the write barrier, and the steps swept the spans they took.
// That was a quarter to a third of a step's time in wasm (natively the
// second core marks and sweeps), and the page does not pay it in its
// steps.
//
// The steps are played in runs of stepRun from random steps, so that they
// sample the whole trace; the jump to a run's first step is left out of the
// timer. Nothing stops the world between two steps of a run: the
// benchmark's earlier form stopped the timer around a jump before every
// step, and runtime.ReadMemStats, which StopTimer and StartTimer call,
// stops the world; on a loaded machine that made the native figure grow
// with the load less than the wasm figure did (docs/performance.md, "make
// bench").
//
// BenchmarkSeek does the same for a jump to a random step.
func BenchmarkStep(b *testing.B) {
	for _, tc := range []struct{ name, src string }{{"10k", tenK}, {"100k", hundredK}, {"stream-100k", streamHundredK}} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchSession(b, tc.src)
			r := rand.New(rand.NewPCG(1, 2))
			steps := s.trace.Steps()
			var spent time.Duration
			left := 0
			for b.Loop() {
				if left == 0 || s.st.Step >= steps {
					b.StopTimer()
					_, _ = s.Act("seek", strconv.Itoa(r.IntN(steps)))
					s.View(false)
					pageIdle()
					left = stepRun
					b.StartTimer()
				}
				left--
				start := time.Now()
				_, _ = s.Act("seek", strconv.Itoa(s.st.Step+1))
				s.View(false)
				spent += time.Since(start)
				pageIdle()
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N), "ns/op")
		})
	}
}

// stepRun is how many steps BenchmarkStep plays from each random step.
const stepRun = 64

func BenchmarkSeek(b *testing.B) {
	for _, tc := range []struct{ name, src string }{{"10k", tenK}, {"100k", hundredK}, {"stream-100k", streamHundredK}} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchSession(b, tc.src)
			r := rand.New(rand.NewPCG(1, 2))
			var spent time.Duration
			for b.Loop() {
				n := strconv.Itoa(r.IntN(s.trace.Steps() + 1))
				start := time.Now()
				_, _ = s.Act("seek", n)
				s.View(false)
				spent += time.Since(start)
				pageIdle()
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N), "ns/op")
		})
	}
}

// idleHeap is what pageIdle reads: the heap's objects (MemStats.HeapAlloc)
// and the collector's goal (MemStats.NextGC).
var idleHeap = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/goal:bytes"}}

// pageIdle does what the page's idle does between two steps (wasm/main.go):
// it collects garbage if the heap has come three quarters of the way to
// the collector's goal. It reads the heap through runtime/metrics, which
// does not stop the world as the page's runtime.ReadMemStats does; the
// figures are the same.
func pageIdle() {
	metrics.Read(idleHeap)
	if idleHeap[0].Value.Uint64()*4 >= idleHeap[1].Value.Uint64()*3 {
		runtime.GC()
	}
}

func benchSession(b testing.TB, src string) *Session {
	if b != nil {
		b.Helper()
	}
	s, err := Open("tm", src, "bench.tdm", "/perf", url.Values{}, false, worlds.All())
	if err != nil {
		b.Fatal(err)
	}
	for {
		done, err := s.Advance(1 << 30)
		if err != nil {
			b.Fatal(err)
		}
		if done {
			break
		}
	}
	if err := s.Stopped(); err != nil {
		b.Fatal(err)
	}
	s.View(true)
	return s
}
