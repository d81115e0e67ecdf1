package engine_test

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// benchScenario is 100,000 source transactions over an hour and 1,001
// extractor runs, one every 3.6 s, with an lsn mark and a merge sink.
const benchScenario = `scenario bench/large "100k transactions, 1k runs"
knob mark = lsn | timestamp
source orders key=order_id updated_at=txn-start cache=20
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark advance=after
workload orders txns=100000 from=10:00:00 every=36ms duration=0s..2s sessions=16 rollback=5
runs extract from=10:00:00 until=11:00:00 every=3.6s
`

func benchFile(b *testing.B) *scenario.File {
	f, err := scenario.Parse("bench.tdm", []byte(benchScenario))
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkRun builds and runs the large scenario.
func BenchmarkRun(b *testing.B) {
	for _, mark := range []string{"lsn", "timestamp"} {
		b.Run("mark="+mark, func(b *testing.B) {
			measureRuns(b, benchFile(b), map[string]string{"mark": mark})
		})
	}
}

// measureRuns runs f with set at every iteration and reports simulated
// events per second and the bytes of heap the finished trace keeps per event.
func measureRuns(b *testing.B, f *scenario.File, set map[string]string) {
	events := 0
	var traceBytes float64
	var elapsed time.Duration
	for b.Loop() {
		before := heap()
		start := time.Now()
		tr, err := engine.Run(f, set, 1, worlds.All())
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		events += tr.Steps()
		b.StopTimer()
		after := heap()
		traceBytes = float64(int64(after)-int64(before)) / float64(tr.Steps())
		runtime.KeepAlive(tr)
		b.StartTimer()
	}
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(traceBytes, "trace-B/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkSeek reads the state at random steps of the large trace: what the
// browser does when the learner scrubs.
func BenchmarkSeek(b *testing.B) {
	f := benchFile(b)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	steps := make([]int, 1024)
	for i := range steps {
		steps[i] = r.IntN(tr.Steps() + 1)
	}
	ht := hwm.Of(tr)
	b.Run("Seek", func(b *testing.B) {
		// What the browser reads to draw a step: the core's snapshot and
		// every mark's value.
		i := 0
		for b.Loop() {
			_ = tr.Seek(steps[i%len(steps)])
			_ = ht.MarksAt(steps[i%len(steps)])
			i++
		}
	})
	b.Run("TargetAt", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = tr.TargetAt("fct_orders", steps[i%len(steps)])
			i++
		}
	})
	b.Run("MarkAt", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_, _ = ht.MarkAt(ht.Marks[0], steps[i%len(steps)])
			i++
		}
	})
	b.Run("Counts", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = tr.CountsAt(steps[i%len(steps)])
			i++
		}
	})
	b.Run("TruthAt", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = tr.TruthAt(steps[i%len(steps)])
			i++
		}
	})
	b.Run("ChecksAt", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = tr.ChecksAt(steps[i%len(steps)])
			i++
		}
	})
}
