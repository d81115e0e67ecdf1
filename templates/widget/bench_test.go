package widget

import (
	"math/rand/v2"
	"testing"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
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

// BenchmarkStage draws the stage at random steps of a 10k-step trace: the
// work of one step or seek in the browser, natively.
func BenchmarkStage(b *testing.B) {
	f, err := scenario.Parse("ten-k.tdm", []byte(tenK))
	if err != nil {
		b.Fatal(err)
	}
	tr, err := engine.Run(f, nil, 1, worlds.All())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := State{ShowTruth: true, BasePath: "/perf/ten-k"}
	for b.Loop() {
		s.Step = r.IntN(tr.Steps() + 1)
		_ = Stage(tr, s)
	}
}
