package window_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// benchArrivals is the benchmark's input: n records over 16 partitions and
// 1,000 keys, each partition producing one record every 16 ms of event
// time on average (about 1,000 s in all), each arriving up to 2 s late, in
// arrival order.
func benchArrivals(n int) []arrival {
	const parts, keys = 16, 1000
	r := rand.New(rand.NewPCG(1, 2))
	clock := make([]vtime.Time, parts)
	for p := range clock {
		clock[p] = vtime.Time(36_000_000)
	}
	out := make([]arrival, n)
	for i := range out {
		p := i % parts
		clock[p] = clock[p].Add(vtime.Duration(8 + r.IntN(17)))
		out[i] = arrival{part: p, at: clock[p].Add(vtime.Duration(r.IntN(2000))),
			rec: window.Record{ID: int64(i), Key: int32(r.IntN(keys)), Time: clock[p], Value: int64(r.IntN(1000))}}
	}
	slices.SortFunc(out, func(a, b arrival) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return int(a.rec.ID - b.rec.ID)
	})
	return out
}

// benchAggregate runs the records through a per-partition watermark
// source (bound 2 s, every 200 ms) and a keyed 10-second tumbling window,
// as a stream job's source and window operator would, resetting the output
// after each call as a world that records each step would.
func benchAggregate(b *testing.B, cfg window.Config) {
	const parts = 16
	arrs := benchArrivals(1_000_000)
	wc := watermark.Config{Bound: 2 * vtime.Second, Interval: 200 * vtime.Millisecond}
	b.ReportAllocs()
	var firings, late int
	for b.Loop() {
		src, _ := watermark.New(wc, parts)
		o, err := window.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		var out window.Output
		firings, late = 0, 0
		next := arrs[0].at
		for i := range arrs {
			a := &arrs[i]
			for ; next <= a.at; next = next.Add(wc.Interval) {
				if u := src.Tick(next); u.Advanced {
					o.AdvanceWatermark(u.Watermark, &out)
				}
			}
			o.Add(a.rec, a.at, &out)
			src.Record(a.part, a.rec.Time)
			firings += len(out.Firings)
			late += len(out.Late)
			out.Reset()
		}
		o.AdvanceWatermark(watermark.End, &out)
		firings += len(out.Firings)
	}
	b.ReportMetric(float64(len(arrs))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(firings), "firings")
	b.ReportMetric(float64(late), "late")
}

// BenchmarkTumblingAggregate is the stream world's budget case: 1M records,
// 16 partitions, a keyed tumbling-window count/sum/min/max.
func BenchmarkTumblingAggregate(b *testing.B) {
	benchAggregate(b, window.Config{Assigner: window.Assigner{Kind: window.Tumbling, Size: 10 * vtime.Second}})
}

// BenchmarkTumblingAggregateContents keeps every window's record ids too,
// as a world listing each firing's records does.
func BenchmarkTumblingAggregateContents(b *testing.B) {
	benchAggregate(b, window.Config{Assigner: window.Assigner{Kind: window.Tumbling, Size: 10 * vtime.Second}, Contents: true})
}

// BenchmarkSlidingAggregate puts each record in three windows.
func BenchmarkSlidingAggregate(b *testing.B) {
	benchAggregate(b, window.Config{Assigner: window.Assigner{Kind: window.Sliding, Size: 30 * vtime.Second, Slide: 10 * vtime.Second}})
}

// BenchmarkSessionAggregate merges sessions with a 2-second gap.
func BenchmarkSessionAggregate(b *testing.B) {
	benchAggregate(b, window.Config{Assigner: window.Assigner{Kind: window.Session, Gap: 2 * vtime.Second}})
}
