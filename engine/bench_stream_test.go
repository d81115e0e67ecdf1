package engine_test

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/worlds"
)

// benchStreamScenario is the stream world's budget case: a million keyed
// records over 16 partitions, one a millisecond, each happening up to 2 s
// before it is sent, through a keyed 10-second tumbling window (count, sum,
// min and max of 1,000 keys) that writes its results into a target, with a
// watermark per partition (bound 2 s, a tick every 200 ms).
const benchStreamScenario = `scenario bench/stream "1M records, 16 partitions, a keyed tumbling window"
topic events partitions=16
target per_key sink=merge key=window
producer shop to=events key=user_id
traffic shop records=1000000 from=10:00:00 every=1ms keys=1000 event-lag=0s..2s amount=1..100
stream s from=events
watermark s bound=2s
window w from=s tumbling size=10s agg=sum contents=off to=per_key
`

func benchStream(b *testing.B) *scenario.File {
	f, err := scenario.Parse("bench-stream.tdm", []byte(benchStreamScenario))
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkStreamRun builds and runs the stream scenario. It reports the
// records per second (each a send and a read), simulated events per second,
// and the heap the finished trace keeps per event.
func BenchmarkStreamRun(b *testing.B) {
	f := benchStream(b)
	events, records := 0, 0
	var traceBytes float64
	var elapsed time.Duration
	for b.Loop() {
		before := heap()
		start := time.Now()
		tr, err := engine.Run(f, nil, 1, worlds.All())
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		events += tr.Steps()
		records += len(stream.Of(tr).Arrivals)
		b.StopTimer()
		after := heap()
		traceBytes = float64(int64(after)-int64(before)) / float64(tr.Steps())
		runtime.KeepAlive(tr)
		b.StartTimer()
	}
	b.ReportMetric(float64(records)/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(traceBytes, "trace-B/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkStreamSeek reads the state at random steps of the stream trace:
// the core's snapshot and the stream's watermark, as a widget redraws it.
func BenchmarkStreamSeek(b *testing.B) {
	tr, err := engine.Run(benchStream(b), nil, 1, worlds.All())
	if err != nil {
		b.Fatal(err)
	}
	st := stream.Of(tr)
	r := rand.New(rand.NewPCG(1, 2))
	steps := make([]int, 1024)
	for i := range steps {
		steps[i] = r.IntN(tr.Steps() + 1)
	}
	b.Run("Seek", func(b *testing.B) {
		i := 0
		for b.Loop() {
			n := steps[i%len(steps)]
			_ = tr.Seek(n)
			_, _ = st.Watermark(0, -1, n)
			i++
		}
	})
}

// benchCheckpointScenario is the budget case of the stream world's second
// part: benchStreamScenario with a checkpoint every 10 s of simulated time
// and a failure of the window in the middle of the run (at 10:08:20, half
// way through the 1,000 s of traffic), after which the job restores its
// latest checkpoint and reads again from its positions.
const benchCheckpointScenario = benchStreamScenario + `checkpoint every=10s
fail w at=10:08:20 restart=5s
`

// BenchmarkStreamCheckpointRun builds and runs the checkpointed stream
// scenario. It reports what BenchmarkStreamRun does, records counting every
// read (the replay after the failure included), and fails when the run did
// not restore a checkpoint or took fewer than 90 checkpoints.
func BenchmarkStreamCheckpointRun(b *testing.B) {
	f, err := scenario.Parse("bench-checkpoint.tdm", []byte(benchCheckpointScenario))
	if err != nil {
		b.Fatal(err)
	}
	events, records := 0, 0
	var traceBytes float64
	var elapsed time.Duration
	for b.Loop() {
		before := heap()
		start := time.Now()
		tr, err := engine.Run(f, nil, 1, worlds.All())
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		st := stream.Of(tr)
		events += tr.Steps()
		records += len(st.Arrivals)
		b.StopTimer()
		if st.Job == nil || len(st.Job.Restores) != 1 || st.Job.Restores[0].From == 0 || len(st.Job.Checkpoints) < 90 {
			b.Fatalf("the run should take a checkpoint every 10 s and restore one after its failure: %+v", st.Job)
		}
		after := heap()
		traceBytes = float64(int64(after)-int64(before)) / float64(tr.Steps())
		runtime.KeepAlive(tr)
		b.StartTimer()
	}
	b.ReportMetric(float64(records)/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(traceBytes, "trace-B/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
