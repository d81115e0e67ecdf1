package engine_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// Property tests of the stream world's checkpoints, sinks and buffers over
// generated jobs (see stateGen). A failure prints the seed and the
// scenario, which can be saved as a .tdm file and run with
// `tidemark run FILE --seed N`.

// A keyed merge converges whatever the failures: wherever the job fails
// (at any instant, or between a checkpoint's barrier and snapshot, after
// the snapshot, during the commit), and whatever the sink's commit, the
// table ends with every event's latest version once.
func TestKeyedMergeConvergesUnderAnyFailure(t *testing.T) {
	o := stateOptions{kinds: []string{"sink"}, targets: []string{"merge"}, commits: []string{"auto", "two-phase"}, overflows: []string{"", "block"}, slower: true}
	failed := 0
	for seed := range uint64(seeds()) {
		g := randomState(rand.New(rand.NewPCG(seed, 41)), o)
		src := g.Text()
		tr := runStream(t, src, seed)
		st := stream.Of(tr)
		if st.Job != nil {
			failed += len(st.Job.Failures)
		}
		truth := tr.Final()
		require.Empty(t, truth.Missing, "seed %d: missing\n%s", seed, src)
		require.Empty(t, truth.Duplicated, "seed %d: duplicated\n%s", seed, src)
		require.Empty(t, truth.Stale, "seed %d: stale\n%s", seed, src)
	}
	require.Greater(t, failed, seeds(), "the generated jobs fail often")
}

// A two-phase-commit sink never shows a reader a row of a checkpoint that
// was aborted, and after recovery each row is visible once: rows appear
// only when a transaction commits, every row a read-committed reader saw is
// in the final table, and the final table holds each event once.
func TestTwoPhaseCommitShowsEachRowOnce(t *testing.T) {
	o := stateOptions{kinds: []string{"sink"}, targets: []string{"append"}, commits: []string{"two-phase"}, overflows: []string{"", "block"}, reads: true, unique: true, slower: true}
	aborted, expired := 0, 0
	for seed := range uint64(seeds()) {
		g := randomState(rand.New(rand.NewPCG(seed, 43)), o)
		src := g.Text()
		tr := runStream(t, src, seed)
		st := stream.Of(tr)
		_, ab := st.TxnCounts(tr.Steps())
		aborted += ab
		for _, c := range st.Job.Checkpoints {
			if c.Status == stream.CheckpointExpired {
				expired++
			}
		}
		require.Zero(t, st.PendingAt(0, tr.Steps()), "seed %d: rows left pending at the end\n%s", seed, src)
		commits := map[int32]bool{}
		for i, e := range tr.Events {
			if e.Kind == engine.KindTransaction {
				commits[int32(i+1)] = true
			}
		}
		rows := tr.Targets[0].Rows
		for _, r := range rows {
			require.True(t, commits[r.AddedStep], "seed %d: row %s appeared at step %d, which commits no transaction\n%s", seed, tr.RowKey(&r), r.AddedStep, src)
			require.Equal(t, int32(sink.Live), r.RemovedStep, "seed %d: an append table loses no row\n%s", seed, src)
		}
		final := map[string]int{}
		for _, r := range rows {
			final[tr.RowKey(&r)]++
		}
		for _, rd := range st.Job.Reads {
			if rd.Uncommitted {
				continue
			}
			for _, row := range rd.Rows {
				require.Positive(t, final[row.Key], "seed %d: %s saw row %s, which the table does not keep\n%s", seed, rd.Name, row.Key, src)
			}
		}
		truth := tr.Final()
		require.Empty(t, truth.Duplicated, "seed %d: duplicated\n%s", seed, src)
		require.Empty(t, truth.Missing, "seed %d: missing\n%s", seed, src)
	}
	require.Positive(t, aborted, "some transactions were aborted")
	require.Positive(t, expired, "some checkpoints expired after the sink pre-committed")
}

// A buffer that blocks never drops a record, however slow its operator
// and however often the job fails: what it cannot take waits in the topic.
func TestBlockNeverDrops(t *testing.T) {
	o := stateOptions{kinds: []string{"sink", "aggregate", "window"}, targets: []string{"merge"}, commits: []string{"auto", "two-phase"}, overflows: []string{"block"}}
	waited := 0
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 47))
		g := randomState(r, o)
		src := g.Text()
		f, err := scenario.Parse("state.tdm", []byte(src))
		require.NoError(t, err)
		// Slow the operator now and then, as a learner would.
		plain, err := engine.Run(f, nil, seed, worlds.All())
		require.NoError(t, err, "seed %d\n%s", seed, src)
		var faults []engine.Fault
		for step := 1 + r.IntN(40); step < plain.Steps()/2; step += 20 + r.IntN(200) {
			faults = append(faults, engine.Fault{AfterStep: step, Kind: stream.FaultSlow, Stream: "op", By: vtime.Duration(1+r.IntN(900)) * vtime.Millisecond, For: vtime.Duration(1+r.IntN(20)) * vtime.Second})
		}
		tr, err := engine.RunWithFaults(f, nil, seed, worlds.All(), faults)
		require.NoError(t, err, "seed %d\n%s", seed, src)
		st := stream.Of(tr)
		dropped, lost := st.BufferLosses(tr.Steps())
		require.Zero(t, dropped, "seed %d: a blocking buffer dropped records\n%s", seed, src)
		require.Zero(t, lost, "seed %d: a blocking buffer lost records\n%s", seed, src)
		if g.Kind == "sink" {
			require.Empty(t, tr.Final().Missing, "seed %d: missing\n%s", seed, src)
		}
		for i := range st.Ops {
			waited = max(waited, int(slices.MaxFunc(append(st.Ops[i].Queue, stream.CountPoint{}), func(a, b stream.CountPoint) int { return int(a.N - b.N) }).N))
		}
	}
	require.Positive(t, waited, "some buffer filled")
}

// A growing buffer with memory= never holds more than one record past it:
// the record that passes it fails the job, out of memory, at the next step
// and the same instant, which empties the buffer; a job that keeps passing
// it fails a bounded number of times and stays down, so every run ends.
func TestMemoryBoundsAGrowingBuffer(t *testing.T) {
	o := stateOptions{kinds: []string{"sink", "aggregate", "window"}, targets: []string{"merge"}, commits: []string{"auto", "two-phase"}, overflows: []string{"grow"}}
	ooms, down := 0, 0
	for seed := range uint64(seeds()) {
		g := randomState(rand.New(rand.NewPCG(seed, 59)), o)
		src := g.Text()
		tr := runStream(t, src, seed)
		st := stream.Of(tr)
		oh := st.Ops[0]
		var fails []stream.FailPoint
		for _, f := range st.Job.Failures {
			if f.Point == "out-of-memory" {
				fails = append(fails, f)
				down += map[bool]int{true: 1}[f.Down]
			}
		}
		ooms += len(fails)
		if oh.Memory == 0 {
			require.Empty(t, fails, "seed %d: no memory=, no failure for lack of it\n%s", seed, src)
			continue
		}
		require.LessOrEqual(t, len(fails), 4, "seed %d: the job gives up\n%s", seed, src)
		k := 0
		for _, q := range oh.Queue {
			require.LessOrEqual(t, int(q.N), oh.Memory+1, "seed %d: step %d\n%s", seed, q.Step, src)
			if int(q.N) <= oh.Memory {
				continue
			}
			require.Less(t, k, len(fails), "seed %d: the buffer passed its memory at step %d and nothing failed\n%s", seed, q.Step, src)
			f := fails[k]
			require.Equal(t, q.Step+1, f.Step, "seed %d: the failure follows the record that passes the memory\n%s", seed, src)
			require.Equal(t, tr.Events[q.Step-1].At, f.At, "seed %d\n%s", seed, src)
			k++
		}
		require.Equal(t, len(fails), k, "seed %d: every failure for lack of memory follows a buffer past it\n%s", seed, src)
	}
	require.Positive(t, ooms, "some buffers ran out of memory")
	require.Positive(t, down, "some jobs ran out of memory until they stayed down")
}

// Restoring a checkpoint gives each operator, byte for byte, the state the
// checkpoint took: windows, aggregates, dedups with a time to live, and
// transactions alike.
func TestRestoreIsExact(t *testing.T) {
	restores := 0
	for seed := range uint64(seeds()) {
		g := randomState(rand.New(rand.NewPCG(seed, 53)), anyState)
		src := g.Text()
		tr := runStream(t, src, seed)
		st := stream.Of(tr)
		if st.Job == nil {
			continue
		}
		for _, r := range st.Job.Restores {
			if r.From > 0 {
				restores++
			}
			require.True(t, r.Exact, "seed %d: the restore at step %d did not give back checkpoint %d's state\n%s", seed, r.Step, r.From, src)
		}
	}
	require.Greater(t, restores, seeds()/4, "the generated jobs restore checkpoints often")
}
