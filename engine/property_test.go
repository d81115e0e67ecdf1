package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Property tests: many generated scenarios, each seeded, each a scenario
// file. A failure prints the seed and the scenario text, which can be saved
// as a .tdm file and run with `tidemark run FILE --seed N`.

var crashPoints = []string{"none", "mid-write", "after-write", "between", "after-mark"}

func reportJSON(t testing.TB, tr *engine.Trace) []byte {
	t.Helper()
	b, err := json.Marshal(report.Build(tr))
	require.NoError(t, err)
	return b
}

// randomGen makes a scenario with random knobs, workload, runs and one crash.
func randomGen(r *rand.Rand) gen {
	g := gen{
		Mark:      pick(r, "timestamp", "source-timestamp", "max-seen", "lsn"),
		Advance:   pick(r, "after", "before", "atomic"),
		Sink:      pick(r, "append", "merge", "overwrite"),
		Predicate: pick(r, "gt", "gte"),
		CAS:       pick(r, "on", "off"),
		Stamp:     pick(r, "txn-start", "statement", "commit"),
	}
	if r.IntN(3) == 0 {
		g.Overlap = pick(r, "500ms", "2s")
	}
	randomWorkload(r, &g)
	randomRuns(r, &g, 1+r.IntN(8))
	g.Runs[r.IntN(len(g.Runs)-1)].Crash = pick(r, crashPoints...)
	if r.IntN(3) == 0 {
		g.Lines = append(g.Lines, fmt.Sprintf("jump reader at=%s by=%s", t0.Add(vtime.Duration(r.IntN(5000))), pick(r, "-3s", "2s")))
	}
	return g
}

// (a) The same scenario, knobs and seed give byte-identical reports.
func TestPropertyDeterministic(t *testing.T) {
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 1))
		g := randomGen(r)
		a := reportJSON(t, runGen(t, g, seed))
		b := reportJSON(t, runGen(t, g, seed))
		require.Equal(t, string(a), string(b), "seed %d: two runs differ\n%s", seed, g.Text())
	}
}

// missingSet returns the keys missing from the target at the end.
func missingSet(tr *engine.Trace) []string { return tr.Final().Missing }

// (b) "advance=after with sink=merge never leaves a row missing."
//
// Stated exactly, this holds for mark=lsn only: whatever the crash point, a
// final clean run after the last commit leaves nothing missing. For the
// timestamp kinds (timestamp, source-timestamp, max-seen) it is false even
// with no crash at all: a transaction whose updated_at is taken at its start
// and which commits after a run has moved the mark past that value is never
// read again — the visibility gap hwm/visibility-gap teaches. What
// advance=after with merge does guarantee for every mark kind is that the
// crash itself loses nothing: the rows missing with a crash at any point are
// a subset of the rows missing from the same schedule without the crash.
// Both halves are tested.
func TestPropertyAdvanceAfterMerge(t *testing.T) {
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 2))
		g := gen{Mark: pick(r, "timestamp", "source-timestamp", "max-seen", "lsn"), Advance: "after", Sink: "merge",
			Predicate: pick(r, "gt", "gte"), Stamp: pick(r, "txn-start", "statement", "commit")}
		randomWorkload(r, &g)
		randomRuns(r, &g, 1+r.IntN(8))
		crashAt := r.IntN(len(g.Runs) - 1) // never the final clean run
		clean := g
		clean.Runs = slices.Clone(g.Runs)
		g.Runs[crashAt].Crash = pick(r, crashPoints...)

		crashed := runGen(t, g, seed)
		if g.Mark == "lsn" {
			require.Empty(t, missingSet(crashed), "seed %d: mark=lsn advance=after sink=merge lost rows\n%s", seed, g.Text())
		}
		lostAnyway := missingSet(runGen(t, clean, seed))
		for _, k := range missingSet(crashed) {
			require.Contains(t, lostAnyway, k, "seed %d: the crash (%s at run %d) lost row %s that the same schedule without it keeps\n%s",
				seed, g.Runs[crashAt].Crash, crashAt, k, g.Text())
		}
	}
}

// (c) mark=lsn never misses a row whatever the interleaving of two workers
// (cas=off, advance=after), given a final run after the last commit. Each
// worker reads, writes and stores at random instants, so one may store an
// older position over the other's newer one; that re-reads rows (the merge
// absorbs them) but never skips one, because a stored position is only ever
// one its writer had finished writing up to.
func TestPropertyLSNTwoWorkers(t *testing.T) {
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 3))
		g := gen{Mark: "lsn", Advance: "after", Sink: pick(r, "merge", "append"), CAS: "off", Predicate: pick(r, "gt", "gte")}
		randomWorkload(r, &g)
		span := int64(g.LastCommit() - t0)
		for i := range 2 + r.IntN(6) {
			read := t0.Add(vtime.Duration(r.Int64N(span + 1)))
			write := read.Add(vtime.Duration(r.IntN(3000)))
			store := write.Add(vtime.Duration(r.IntN(3000)))
			g.Runs = append(g.Runs, genRun{Worker: []string{"A", "B"}[i%2], At: read, Write: write, Store: store, HasWrite: true, HasStore: true})
		}
		last := g.LastCommit()
		for _, run := range g.Runs {
			last = max(last, run.Store)
		}
		g.Runs = append(g.Runs, genRun{Worker: "A", At: last.Add(vtime.Second)})
		tr := runGen(t, g, seed)
		require.Empty(t, missingSet(tr), "seed %d: two lsn workers lost rows\n%s", seed, g.Text())
	}
}

// (d) With cas=on the stored mark never moves backwards, except where an
// operator resets it — whatever the mark kind, the workers' interleaving,
// crashes, or a reader clock stepped back.
func TestPropertyCASMonotone(t *testing.T) {
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 4))
		g := gen{Mark: pick(r, "timestamp", "source-timestamp", "max-seen", "lsn"), Advance: pick(r, "after", "before", "atomic"),
			Sink: "merge", CAS: "on", Predicate: pick(r, "gt", "gte")}
		randomWorkload(r, &g)
		span := int64(g.LastCommit() - t0)
		for i := range 2 + r.IntN(8) {
			read := t0.Add(vtime.Duration(r.Int64N(span + 1)))
			a, b := read.Add(vtime.Duration(r.IntN(3000))), read.Add(vtime.Duration(r.IntN(3000)))
			first, second := min(a, b), max(a, b)
			run := genRun{Worker: []string{"A", "B", "C"}[i%3], At: read, HasWrite: true, HasStore: true, Crash: pick(r, crashPoints...)}
			switch g.Advance {
			case "before":
				run.Store, run.Write = first, second
			default:
				run.Write, run.Store = first, second
			}
			if g.Advance == "atomic" {
				run.Store = run.Write
			}
			g.Runs = append(g.Runs, run)
		}
		if r.IntN(2) == 0 {
			g.Lines = append(g.Lines, fmt.Sprintf("jump reader at=%s by=-5s", t0.Add(vtime.Duration(r.Int64N(span+1)))))
		}
		resets := 0
		if r.IntN(2) == 0 {
			to := t0.String()
			if g.Mark == "lsn" {
				to = "1001"
			}
			g.Lines = append(g.Lines, fmt.Sprintf("reset extract at=%s to=%s", t0.Add(vtime.Duration(r.Int64N(span+1))), to))
			resets = 1
		}
		tr := runGen(t, g, seed)
		require.Len(t, hwm.Of(tr).Marks, 1)
		seen := 0
		var prev *int64
		for _, p := range hwm.Of(tr).Marks[0].Points {
			if p.Reset {
				seen++
				v := p.Value
				prev = &v
				continue
			}
			if prev != nil && p.Set {
				require.GreaterOrEqual(t, p.Value, *prev, "seed %d: with cas=on the mark moved back to %s at step %d\n%s", seed, p.Display, p.Step, g.Text())
			}
			if p.Set {
				v := p.Value
				prev = &v
			}
		}
		require.Equal(t, resets, seen, "seed %d: the reset should appear in the mark history", seed)
	}
}
