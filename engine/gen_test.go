package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// gen describes a generated scenario: one source, one pipeline with chosen
// knobs, a seeded workload of transactions with random durations, a list of
// runs, and optional faults. Text writes it as a scenario file, so the
// generated worlds go through the same parser and builder as hand-written ones.
type gen struct {
	Mark, Advance, Sink, Predicate, CAS, Stamp string
	Overlap                                    string

	Txns     int
	Every    vtime.Duration
	MaxDur   vtime.Duration
	Rollback int // percent
	Sessions int

	Runs []genRun
	// Lines are extra commands (jumps, resets, explicit transactions).
	Lines []string
}

type genRun struct {
	Worker             string
	At, Write, Store   vtime.Time
	HasWrite, HasStore bool
	Crash              string
}

var t0 = vtime.Time(10 * 3_600_000) // 10:00:00

// LastCommit is the latest instant a workload transaction can end.
func (g gen) LastCommit() vtime.Time {
	return t0.Add(vtime.Duration(g.Txns-1)*g.Every + g.MaxDur)
}

func (g gen) Text() string {
	var b strings.Builder
	b.WriteString("scenario prop/generated \"A generated scenario\"\n")
	stamp := g.Stamp
	if stamp == "" {
		stamp = "txn-start"
	}
	fmt.Fprintf(&b, "source orders key=order_id updated_at=%s\n", stamp)
	fmt.Fprintf(&b, "target fct_orders sink=%s key=order_id\n", g.Sink)
	fmt.Fprintf(&b, "pipeline extract from=orders to=fct_orders mark=%s advance=%s predicate=%s cas=%s", g.Mark, g.Advance, or(g.Predicate, "gt"), or(g.CAS, "off"))
	if g.Overlap != "" && g.Mark != "lsn" { // lsn refuses an overlap: it has no time to step back
		fmt.Fprintf(&b, " overlap=%s", g.Overlap)
	}
	b.WriteString("\n")
	if g.Txns > 0 {
		fmt.Fprintf(&b, "workload orders txns=%d from=%s every=%s duration=0s..%s sessions=%d rollback=%d\n",
			g.Txns, t0, g.Every, g.MaxDur, max(g.Sessions, 1), g.Rollback)
	}
	for _, l := range g.Lines {
		b.WriteString(l + "\n")
	}
	for _, r := range g.Runs {
		fmt.Fprintf(&b, "run extract at=%s", r.At)
		if r.Worker != "" {
			fmt.Fprintf(&b, " worker=%s", r.Worker)
		}
		if r.HasWrite {
			fmt.Fprintf(&b, " write=%s", r.Write)
		}
		if r.HasStore {
			fmt.Fprintf(&b, " store=%s", r.Store)
		}
		if r.Crash != "" {
			fmt.Fprintf(&b, " crash=%s", r.Crash)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// pick returns a random element.
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// randomWorkload fills in a small random workload.
func randomWorkload(r *rand.Rand, g *gen) {
	g.Txns = 5 + r.IntN(40)
	g.Every = vtime.Duration(100 + r.IntN(900))
	g.MaxDur = vtime.Duration(r.IntN(4000))
	g.Sessions = 1 + r.IntN(4)
	g.Rollback = pick(r, 0, 0, 10, 30)
}

// randomRuns spreads n single-worker runs over the workload's span, every
// phase at the read instant, plus a final clean run after the last commit.
func randomRuns(r *rand.Rand, g *gen, n int) {
	span := int64(g.LastCommit() - t0)
	for range n {
		g.Runs = append(g.Runs, genRun{At: t0.Add(vtime.Duration(r.Int64N(span + 1)))})
	}
	sortRuns(g.Runs)
	g.Runs = append(g.Runs, genRun{At: g.LastCommit().Add(vtime.Second)})
}

func sortRuns(rs []genRun) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].At < rs[j-1].At; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// runGen parses, builds and runs a generated scenario.
func runGen(t testing.TB, g gen, seed uint64) *engine.Trace {
	t.Helper()
	src := g.Text()
	f, err := scenario.Parse("generated.tdm", []byte(src))
	require.NoError(t, err, "generated scenario:\n%s", src)
	tr, err := engine.Run(f, nil, seed, worlds.All())
	require.NoError(t, err, "generated scenario:\n%s", src)
	return tr
}

// seeds is how many random cases a property tries.
func seeds() int {
	if testing.Short() {
		return 25
	}
	return 200
}
