package widget

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"

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

// BenchmarkStep draws what the browser draws for one step of a large
// trace, natively: a session's view of the next step, as changes to the
// stage on screen. BenchmarkSeek does the same for a jump to a random step.
func BenchmarkStep(b *testing.B) {
	for _, tc := range []struct{ name, src string }{{"10k", tenK}, {"100k", hundredK}} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchSession(b, tc.src)
			r := rand.New(rand.NewPCG(1, 2))
			steps := s.trace.Steps()
			for b.Loop() {
				b.StopTimer()
				n := r.IntN(steps)
				_, _ = s.Act("seek", strconv.Itoa(n))
				s.View(false)
				b.StartTimer()
				_, _ = s.Act("seek", strconv.Itoa(n+1))
				s.View(false)
			}
		})
	}
}

func BenchmarkSeek(b *testing.B) {
	for _, tc := range []struct{ name, src string }{{"10k", tenK}, {"100k", hundredK}} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchSession(b, tc.src)
			r := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				_, _ = s.Act("seek", strconv.Itoa(r.IntN(s.trace.Steps()+1)))
				s.View(false)
			}
		})
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
