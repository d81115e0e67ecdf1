package logs_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/vtime"
)

// The helpers the log world's tests share with the engine's (engine's
// build_test.go, gen_test.go, property_test.go and budget_test.go have the
// same): a small source and pipeline to build on, random choices, and the
// report of a trace to compare runs byte for byte.

// world is a source table, a target and a pipeline, for scenarios that
// capture the source's commits into the log.
const world = `scenario test/build "Build errors"
knob mark = timestamp | lsn
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark
`

// t0 is 10:00:00, where generated scenarios start.
var t0 = vtime.Time(10 * 3_600_000)

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// pick returns a random element.
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// seeds is how many random cases a property tries.
func seeds() int {
	if testing.Short() {
		return 25
	}
	return 200
}

// reportJSON is the trace's JSON report, to compare two runs byte for byte.
func reportJSON(t testing.TB, tr *engine.Trace) []byte {
	t.Helper()
	b, err := json.Marshal(report.Build(tr))
	require.NoError(t, err)
	return b
}

// within runs fn and fails the test if it takes longer than d: a test that
// hangs reports nothing.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}
