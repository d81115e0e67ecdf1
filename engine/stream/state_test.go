package stream_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// orders is a job's first lines: a topic of one partition, an order a
// second for a minute, each its own key, and a stream reading them.
const orders = `scenario t/x "X"
topic orders partitions=1
producer shop to=orders key=order_id
target out sink=append key=order_id
source customers key=customer_id
traffic shop records=60 from=10:00:00 every=1s keys=unique
stream s from=orders
`

// keyRange is the keys from to to, as the truth lists them.
func keyRange(from, to int) []string {
	var ks []string
	for k := from; k <= to; k++ {
		ks = append(ks, strconv.Itoa(k))
	}
	return ks
}

// A knob fills in a value and cannot take rate= away, so a buffer's
// option on a line with no rate= is an error whatever the knob's value:
// no value gives that line a buffer.
func TestBufferOptionNeedsRateUnderEveryKnobValue(t *testing.T) {
	src := strings.Replace(orders, "\n", "\nknob o = block | grow\n", 1) + "sink k from=s to=out overflow=$o\n"
	for _, v := range []string{"block", "grow"} {
		_, err := engine.Build(parse(t, src), map[string]string{"o": v}, 1, worlds.All())
		require.Error(t, err, v)
		assert.Contains(t, err.Error(), "s.tdm:9:31: overflow= needs rate=N/s", v)
	}
}

// Every bad line of the second part names its file:line:col and what was expected.
func TestBadStateLines(t *testing.T) {
	for _, tc := range []struct{ line, pos, want string }{
		{"checkpoint", "s.tdm:8:1", "checkpoint needs every=D"},
		{"checkpoint every=50ms", "s.tdm:8:18", "expected every= to be at least 100ms"},
		{"checkpoint every=10s timeout=0s", "s.tdm:8:30", "expected timeout= to be positive"},
		{"checkpoint every=10s\ncheckpoint every=5s", "s.tdm:9:1", "the job already has a checkpoint line, at s.tdm:8:1; it takes one interval"},
		{"fail nope at=10:00:00", "s.tdm:8:6", `unknown stream or operator "nope"`},
		{"fail s at=10:00:00 point=maybe", "s.tdm:8:26", "expected point= to be one of now, barrier, snapshot, commit or never"},
		{"fail s at=10:00:00 point=barrier", "s.tdm:8:1", "waits for a checkpoint, and this scenario takes none"},
		{"fail s at=10:00:00 restart=-1s", "s.tdm:8:28", "expected restart= to be zero or positive"},
		{"fail s", "s.tdm:8:1", "fail needs at=HH:MM:SS"},
		{"read nope at=10:00:00", "s.tdm:8:6", `unknown target "nope"`},
		{"read out at=10:00:00 isolation=serializable", "s.tdm:8:32", "expected isolation= to be one of read-committed or read-uncommitted"},
		{"read out at=10:00:00 as=x\nread out at=10:00:01 as=x", "s.tdm:9:25", `a read named "x" is already declared at s.tdm:8:25; give this one another as=`},
		{"read out at=10:00:00\nread out at=10:00:01 as=read1", "s.tdm:9:25", `a read named "read1" is already declared at s.tdm:8:1; give this one another as=`},
		{"read out at=10:00:00 as=read2\nread out at=10:00:01", "s.tdm:9:1", `a read named "read2" is already declared at s.tdm:8:25; give this one another as=`},
		{"aggregate g from=s ttl=soon", "s.tdm:8:24", "expected ttl= to be off or a positive duration"},
		{"aggregate g from=s rate=fast", "s.tdm:8:25", "expected rate= to be records a second such as 10/s"},
		{"aggregate g from=s rate=2000/s", "s.tdm:8:25", "expected rate= to be records a second"},
		{"aggregate g from=s rate=5/s overflow=spill", "s.tdm:8:38", "expected overflow= to be one of block, grow or drop"},
		{"aggregate g from=s rate=5/s memory=200", "s.tdm:8:36", "memory= is how many records a growing buffer holds before its task fails; it needs overflow=grow"},
		{"aggregate g from=s rate=5/s overflow=drop memory=200", "s.tdm:8:50", "it needs overflow=grow"},
		{"aggregate g from=s rate=5/s overflow=grow buffer=50 memory=20", "s.tdm:8:60", "expected memory= to be at least buffer= (50), found 20"},
		{"aggregate g from=s rate=5/s overflow=grow memory=0", "s.tdm:8:50", "expected a whole number from 1 to 1000000 for memory="},
		{"aggregate g from=s overflow=grow", "s.tdm:8:29", "overflow= needs rate=N/s: without a rate the operator takes no time over a record and keeps no buffer"},
		{"aggregate g from=s buffer=10", "s.tdm:8:27", "buffer= needs rate=N/s"},
		{"aggregate g from=s overflow=grow memory=50 buffer=10", "s.tdm:8:29", "overflow= needs rate=N/s"},
		{"sink k from=s to=out memory=50 overflow=grow", "s.tdm:8:29", "memory= needs rate=N/s"},
		{"window w from=s tumbling size=1s overflow=drop", "s.tdm:8:43", "overflow= needs rate=N/s"},
		{"join j left=s right=s between=0s..1s memory=5", "s.tdm:8:38", "unknown argument memory= for join"},
		{"aggregate g from=s agg=avg", "s.tdm:8:24", "expected agg= to be one of count, sum, min or max"},
		{"aggregate g from=nope", "s.tdm:8:18", `unknown stream "nope"`},
		{"sink k from=s", "s.tdm:8:1", "sink needs to=TARGET"},
		{"sink k from=s to=out value=lookup", "s.tdm:8:28", "value=lookup needs lookup=TABLE"},
		{"sink k from=s to=out value=lookup lookup=nope", "s.tdm:8:42", `unknown source table "nope"`},
		{"sink k from=s to=out ttl=1m", "s.tdm:8:26", "ttl= is how long the dedup remembers an id; it needs dedup=event or dedup=key"},
		{"sink k from=s to=out dedup=maybe", "s.tdm:8:28", "expected dedup= to be one of off, event or key"},
		{"sink k from=s to=out commit=two-phase", "s.tdm:8:1", "commit=two-phase commits when a checkpoint completes, and this scenario takes none"},
		{"sink k from=s to=out commit=xa", "s.tdm:8:29", "expected commit= to be one of auto or two-phase"},
		{"sink k from=s to=out txn-timeout=15m", "s.tdm:8:34", "txn-timeout= is how long a transaction may stay open before the broker aborts it; it needs commit=two-phase"},
		{"sink k from=s to=out commit=two-phase txn-timeout=0s", "s.tdm:8:51", `expected txn-timeout= to be a positive duration within a day, such as 15m, or none, found "0s"`},
		{"sink k from=s to=out commit=two-phase txn-timeout=10s\ncheckpoint every=10s", "s.tdm:8:51", "expected txn-timeout= to be longer than the checkpoint interval (every=10s), found 10s"},
		{"checkpoint every=50ms", "s.tdm:8:18", `expected every= to be at least 100ms, within a day, found "50ms"`},
		{"checkpoint every=25h", "s.tdm:8:18", `expected every= to be at least 100ms, within a day, found "25h"`},
		{"checkpoint every=10s timeout=soon", "s.tdm:8:30", `expected a duration such as 2s, 500ms or 1m for timeout=, found "soon"`},
		{"checkpoint every=10s timeout=25h", "s.tdm:8:30", `expected timeout= to be positive, within a day, found "25h"`},
		{"fail s at=10:00:01 restart=-5s", "s.tdm:8:28", `expected restart= to be zero or positive, within a day, found "-5s"`},
		{"join j left=s right=s between=0s..1s rate=5/s", "s.tdm:8:38", "unknown argument rate= for join"},
		{"stream s2 from=orders reset=oldest", "s.tdm:8:29", "expected reset= to be one of earliest, latest or none"},
		{"stream s2 from=orders rate=0/s", "s.tdm:8:28", "expected rate= to be records a second such as 50/s"},
		{"stream s2 from=orders parallelism=0", "s.tdm:8:35", "parallelism"},
		{"traffic shop records=5 from=10:00:00 scale=0x", "s.tdm:8:44", "expected scale= to be a factor from 1x to 10000x"},
		{"produce shop at=10:00:00 key=1 retry-after=1m", "s.tdm:8:44", "retry-after= is how much later the application resends"},
	} {
		_, err := engine.Build(parse(t, orders+tc.line+"\n"), nil, 1, worlds.All())
		require.Error(t, err, tc.line)
		assert.Contains(t, err.Error(), tc.pos+":", tc.line)
		assert.Contains(t, err.Error(), tc.want, tc.line)
	}
}

// A checkpoint line in a scenario with no stream would take nothing and
// say nothing; it is refused where it stands.
func TestCheckpointWithoutAStreamIsRefused(t *testing.T) {
	src := strings.Replace(orders, "stream s from=orders\n", "", 1) + "checkpoint every=10s\n"
	_, err := engine.Build(parse(t, src), nil, 1, worlds.All())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s.tdm:7:1: a checkpoint snapshots a stream job's positions and state, and this scenario has no stream")
}

// An append sink restored from a checkpoint writes again exactly the
// records between the checkpoint's positions and the failure: orders 41
// to 47 for a checkpoint at 10:00:40 and a failure at 10:00:47, before
// order 48 is read.
func TestAppendRewritesTheBlockBetweenCheckpointAndFailure(t *testing.T) {
	tr, st := run(t, orders+"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:47 restart=5s\n")
	dups := tr.Final().Duplicated
	require.Len(t, dups, 7)
	for k := 41; k <= 47; k++ {
		assert.Equal(t, 2, dups[strconv.Itoa(k)], "order %d", k)
	}
	require.Len(t, st.Job.Restores, 1)
	r := st.Job.Restores[0]
	assert.Equal(t, int32(4), r.From)
	assert.Equal(t, int64(7), r.Rewound)
	assert.Equal(t, []checkpoint.Resumed{{Next: 40}}, r.Resumed[0])
	assert.True(t, r.Exact)
	assert.Equal(t, 5*vtime.Second, r.At.Sub(st.Job.Failures[0].At), "the restart delay")
	assert.Equal(t, 12*vtime.Second, r.Behind, "the checkpoint of 10:00:40, restored at 10:00:52")
	// No checkpoint while the job was down: 10:00:50 is skipped.
	for _, c := range st.Job.Checkpoints {
		assert.NotEqual(t, at("10:00:50"), c.BeginAt)
	}
}

// With no checkpoint completed, a failed job starts over from the
// beginning with empty state.
func TestFailureBeforeAnyCheckpointStartsOver(t *testing.T) {
	tr, st := run(t, orders+"sink k from=s to=out\nfail k at=10:00:05 restart=1s\n")
	require.Len(t, st.Job.Restores, 1)
	assert.Zero(t, st.Job.Restores[0].From)
	assert.Equal(t, int64(5), st.Job.Restores[0].Rewound, "orders 1 to 5: the failure at 10:00:05 comes before order 6")
	assert.Len(t, tr.Final().Duplicated, 5)
}

// A two-phase-commit sink shows read-committed readers nothing until the
// checkpoint completes, then the checkpoint's rows at once; a reader with
// read-uncommitted sees them as they are written.
func TestTwoPhaseRowsAppearWhenTheCheckpointCompletes(t *testing.T) {
	tr, st := run(t, orders+`checkpoint every=10s
sink k from=s to=out commit=two-phase
read out at=10:00:09.5 as=before
read out at=10:00:09.5 as=dirty isolation=read-uncommitted
read out at=10:00:10.5 as=after
`)
	reads := st.Job.Reads
	require.Len(t, reads, 3)
	assert.Empty(t, reads[0].Rows)
	assert.Equal(t, 10, reads[0].Pending)
	assert.Len(t, reads[1].Rows, 10)
	assert.True(t, reads[1].Rows[0].Pending)
	assert.Len(t, reads[2].Rows, 10, "ten committed by checkpoint 1 at 10:00:10, and order 11 is not")
	assert.Equal(t, 1, reads[2].Pending)
	// Every row appears at a commit step, ten at a time.
	first := tr.Targets[0].Rows[0].AddedStep
	assert.Equal(t, engine.KindTransaction, tr.Events[first-1].Kind)
	n := 0
	for _, r := range tr.Targets[0].Rows {
		if r.AddedStep == first {
			n++
		}
	}
	assert.Equal(t, 10, n)
	c, a := st.TxnCounts(tr.Steps())
	assert.Equal(t, 6, c)
	assert.Zero(t, a)
	require.Equal(t, checkpoint.Committed, st.Job.Txns[1].State)
	assert.Equal(t, 10*vtime.Second, st.Job.Txns[1].Wait, "order 1, written at 10:00:00, visible at 10:00:10")
}

// Each failure point of a checkpoint: between barrier and snapshot the
// open transaction is aborted; after the snapshot and before completion
// the pre-committed one is aborted on restore; during the commit the
// restore commits the prepared transaction again. Each row visible once.
func TestTwoPhaseFailurePoints(t *testing.T) {
	for _, tc := range []struct {
		point             string
		restored          int32
		abortedByRecovery bool
		recommitted       bool
	}{
		{"barrier", 3, false, false},
		{"snapshot", 3, true, false},
		{"commit", 4, false, true},
	} {
		tr, st := run(t, orders+"checkpoint every=10s\nsink k from=s to=out commit=two-phase\nfail k at=10:00:35 point="+tc.point+" restart=5s\n")
		truth := tr.Final()
		assert.Empty(t, truth.Duplicated, tc.point)
		assert.Empty(t, truth.Missing, tc.point)
		require.Len(t, st.Job.Failures, 1, tc.point)
		f := st.Job.Failures[0]
		assert.Equal(t, tc.point, f.Point)
		assert.Equal(t, at("10:00:40"), f.At, "%s: checkpoint 4's", tc.point)
		assert.Equal(t, tc.restored, st.Job.Restores[0].From, tc.point)
		var aborted, recommitted []stream.TxnPoint
		for _, x := range st.Job.Txns {
			switch {
			case x.State == checkpoint.Aborted:
				aborted = append(aborted, x)
			case x.State == checkpoint.Committed && x.Recovered:
				recommitted = append(recommitted, x)
			}
		}
		if tc.point == "commit" {
			assert.Empty(t, aborted)
		} else {
			require.Len(t, aborted, 1, tc.point)
			assert.Equal(t, int32(4), aborted[0].ID)
			assert.Equal(t, int32(10), aborted[0].Rows)
			assert.Equal(t, tc.abortedByRecovery, aborted[0].Recovered, tc.point)
		}
		assert.Equal(t, tc.recommitted, len(recommitted) == 1, tc.point)
	}
}

// A transaction pre-committed for a checkpoint that then expires (the sink
// took its snapshot, a slower operator's barrier was still behind its
// buffer) stays prepared, and the next checkpoint to complete commits it
// with its own, oldest first, as Flink's TwoPhaseCommitSinkFunction commits
// every pending transaction up to the completed checkpoint: no row is left
// pending for ever, and each is visible once.
func TestTwoPhaseCommitsWhatAnExpiredCheckpointPrepared(t *testing.T) {
	tr, st := run(t, `scenario t/x "X"
topic orders partitions=1
producer shop to=orders key=order_id
target out sink=append key=order_id
traffic shop records=60 from=10:00:00 every=100ms keys=unique
stream s from=orders
sink k from=s to=out commit=two-phase
aggregate slow from=s agg=count rate=5/s buffer=20
checkpoint every=2s timeout=1s tolerable=100
`)
	var expired []int32
	completed := int32(0)
	for _, c := range st.Job.Checkpoints {
		switch c.Status {
		case stream.CheckpointExpired:
			expired = append(expired, c.ID)
		case stream.CheckpointCompleted:
			if completed == 0 {
				completed = c.ID
			}
		}
	}
	require.NotEmpty(t, expired, "the slow aggregate makes checkpoints expire")
	require.Greater(t, completed, expired[0], "a later checkpoint completes")
	truth := tr.Final()
	assert.Empty(t, truth.Missing, "every row prepared for an expired checkpoint is committed later")
	assert.Empty(t, truth.Duplicated)
	assert.Zero(t, st.PendingAt(0, tr.Steps()), "nothing is left pending")
	committed := map[int32]int32{} // transaction -> the step it committed at
	for _, x := range st.Job.Txns {
		if x.State == checkpoint.Committed {
			committed[x.ID] = x.Step
		}
	}
	for _, id := range expired {
		step, ok := committed[id]
		if !ok {
			continue // the sink had written nothing for it
		}
		assert.Greater(t, step, st.Job.Checkpoints[completed-1].End, "transaction %d commits when checkpoint %d completes", id, completed)
		assert.Contains(t, tr.Narration(&tr.Events[step-1]), "checkpoint "+strconv.Itoa(int(completed))+" has completed")
	}
	assert.NotEmpty(t, committed)
}

// A checkpoint older than the topic's retention: the input it needs is
// gone; auto.offset.reset=earliest skips to the log start, none cannot
// restore at all.
func TestRestorePastRetention(t *testing.T) {
	src := strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=20s segment=5s", 1) +
		"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:12 restart=40s\n"
	tr, st := run(t, src)
	r := st.Job.Restores[0]
	assert.False(t, r.Failed)
	require.True(t, r.Resumed[0][0].Gone)
	assert.Positive(t, r.Skipped)
	assert.Len(t, tr.Final().Missing, int(r.Skipped)-2, "orders 11 and 12 were written before the failure")
	c, _, restored, unrestorable := st.CheckpointCounts(tr.Steps())
	assert.Positive(t, c)
	assert.Equal(t, 1, restored)
	assert.Zero(t, unrestorable)

	tr, st = run(t, strings.Replace(src, "stream s from=orders", "stream s from=orders reset=none", 1))
	r = st.Job.Restores[0]
	assert.True(t, r.Failed)
	assert.True(t, r.Resumed[0][0].Failed)
	assert.Len(t, tr.Final().Missing, 60-12, "the job never comes back")
	_, _, restored, unrestorable = st.CheckpointCounts(tr.Steps())
	assert.Zero(t, restored)
	assert.Equal(t, 1, unrestorable)

	// A two-phase-commit sink that fails during checkpoint 2's commit: the
	// checkpoint completed, so its prepared transaction is committed when
	// the sink restores its state (Flink's committer does so in
	// initializeState), before the source fails for want of its input.
	tr, st = run(t, strings.Replace(strings.Replace(src, "stream s from=orders", "stream s from=orders reset=none", 1),
		"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:12 restart=40s\n",
		"sink k from=s to=out commit=two-phase\ncheckpoint every=10s\nfail k at=10:00:15 point=commit restart=40s\n", 1))
	r = st.Job.Restores[0]
	require.True(t, r.Failed)
	assert.Equal(t, int32(2), r.From)
	last := st.Job.Txns[len(st.Job.Txns)-1]
	assert.Equal(t, checkpoint.Committed, last.State)
	assert.Equal(t, int32(2), last.ID)
	assert.True(t, last.Recovered)
	assert.Greater(t, last.Step, r.Step)
	assert.Equal(t, keyRange(21, 60), tr.Final().Missing, "orders 11 to 20 are committed by the restore that then fails")
	assert.Contains(t, tr.Narration(&tr.Events[r.Step-1]), "Before it fails, the sinks restore their state: checkpoint 2's transaction is still prepared, and will be committed now.")
}

// A prepared transaction waits for ever in a database, and a restore a
// day later still commits it; a Kafka broker aborts one left open longer
// than transaction.timeout.ms, and its rows are lost.
func TestPreparedTransactionTimesOut(t *testing.T) {
	src := orders + "sink k from=s to=out commit=two-phase$T\ncheckpoint every=10s\nfail k at=10:00:15 point=commit restart=2m\n"
	tr, st := run(t, strings.Replace(src, "$T", "", 1))
	assert.Empty(t, tr.Final().Missing, "the restore commits checkpoint 2's transaction, two minutes on")
	assert.Equal(t, int32(10), st.Job.Restores[0].Committed)
	none, _ := run(t, strings.Replace(src, "$T", " txn-timeout=none", 1))
	assert.Equal(t, tr.Events, none.Events, "txn-timeout=none is the default written out, for a knob to offer")

	tr, st = run(t, strings.Replace(src, "$T", " txn-timeout=30s", 1))
	assert.Equal(t, keyRange(11, 20), tr.Final().Missing, "checkpoint 2's transaction, open since 10:00:10, is aborted at 10:00:40")
	r := st.Job.Restores[0]
	assert.Zero(t, r.Committed)
	var abort *stream.TxnPoint
	for i, x := range st.Job.Txns {
		if x.ID == 2 && x.State == checkpoint.Aborted {
			abort = &st.Job.Txns[i]
		}
	}
	require.NotNil(t, abort)
	e := &tr.Events[abort.Step-1]
	assert.Equal(t, at("10:00:40"), e.At)
	assert.Less(t, abort.Step, r.Step)
	assert.Contains(t, tr.Narration(e), "The broker aborts k's transaction 2 to out on its own: it has been open since 10:00:10, longer than txn-timeout=30s")

	// Its checkpoint never completed: the restore of the one before reads
	// its rows again, and nothing is lost.
	tr, _ = run(t, strings.Replace(strings.Replace(src, "$T", " txn-timeout=30s", 1), "point=commit", "point=snapshot", 1))
	assert.Empty(t, tr.Final().Missing)
	aborts := narrating(tr, "The broker aborts k's transaction")
	require.Len(t, aborts, 1)
	assert.Contains(t, tr.Narration(&tr.Events[aborts[0]]), "Its checkpoint never completed, so nothing is lost")

	// A transaction held open past the timeout, its barrier waiting behind
	// a slow sink, fences the sink: the job fails.
	slow := strings.Replace(strings.Replace(orders, "every=1s", "every=250ms", 1), "records=60", "records=40", 1) +
		"sink k from=s to=out commit=two-phase txn-timeout=15s rate=1/s buffer=100 overflow=block\ncheckpoint every=10s\n"
	tr, st = run(t, slow)
	require.NotEmpty(t, st.Job.Failures)
	f := st.Job.Failures[0]
	assert.Equal(t, stream.PointTxnTimeout, f.Point)
	assert.Equal(t, at("10:00:16"), f.At, "15s after its first row, written at 10:00:01 (a record takes the sink a second)")
	assert.Contains(t, tr.Narration(&tr.Events[f.Step-1]), "The broker aborts k's open transaction to out, open since 10:00:01, longer than txn-timeout=15s")
	for _, x := range st.Job.Txns {
		assert.NotEqual(t, checkpoint.Committed, x.State, "no transaction outlived its timeout and still committed")
	}

	// A knob that turns the transactions off takes the timeout with them.
	knobbed := strings.Replace(strings.Replace(src, "commit=two-phase$T", "commit=$c txn-timeout=30s", 1), "\n", "\nknob c = two-phase | auto\n", 1)
	_, err := engine.Build(parse(t, knobbed), map[string]string{"c": "auto"}, 1, worlds.All())
	require.NoError(t, err)
}

// A reads claim naming no read fails saying so, with the read meant when
// the name is near one, rather than only that no read saw a state that
// never existed; a claim of a real read is checked as before.
func TestReadsClaimNamesAnUnknownRead(t *testing.T) {
	src := orders + "sink k from=s to=out\nread out at=10:00:30 as=report\n"
	for claim, want := range map[string]string{
		"expect reads never-existed=reprt\n":  "s.tdm:10:14: expected reads never-existed=reprt, got reads never-existed=none; there is no read named reprt; did you mean report?",
		"expect reads never-existed=audit\n":  "s.tdm:10:14: expected reads never-existed=audit, got reads never-existed=none; there is no read named audit; the reads are report",
		"expect reads never-existed=report\n": "s.tdm:10:14: expected reads never-existed=report, got reads never-existed=none",
		"expect reads never-existed=none\n":   "",
	} {
		outs, err := engine.CheckExpectations(parse(t, src+claim), 1, worlds.All())
		require.NoError(t, err, claim)
		require.Len(t, outs, 1, claim)
		if want == "" {
			assert.NoError(t, outs[0].Err, claim)
			continue
		}
		assert.EqualError(t, outs[0].Err, want, claim)
	}
	outs, err := engine.CheckExpectations(parse(t, orders+"sink k from=s to=out\nexpect reads never-existed=r1\n"), 1, worlds.All())
	require.NoError(t, err)
	assert.EqualError(t, outs[0].Err, "s.tdm:9:14: expected reads never-existed=r1, got reads never-existed=none; there is no read named r1, and this scenario has no read line")
}

// A transaction's timeout is the broker's watchdog: once the transaction
// commits there is nothing for it to abort, so it does not hold the end
// of input back. With txn-timeout=15m the input ends once the last order
// is read and committed, as it does without a timeout, not 15 minutes
// after the last transaction's first row.
func TestCommittedTransactionsTimeoutEndsNothing(t *testing.T) {
	src := orders + "sink k from=s to=out commit=two-phase$T\ncheckpoint every=10s\n"
	without, _ := run(t, strings.Replace(src, "$T", "", 1))
	with, st := run(t, strings.Replace(src, "$T", " txn-timeout=15m", 1))
	last := func(tr *engine.Trace) vtime.Time { return tr.Events[len(tr.Events)-1].At }
	assert.Less(t, last(without), at("10:01:30"))
	assert.Equal(t, last(without), last(with), "the run ends when its work does, whatever the timeout")
	assert.Equal(t, without.Steps(), with.Steps())
	assert.Empty(t, with.Final().Missing)
	for _, x := range st.Job.Txns {
		assert.NotEqual(t, checkpoint.Aborted, x.State, "no transaction was aborted")
	}
}

// A partition whose records a reset skipped is drawn at every step: the
// records passed (read or skipped) only grow, the skipped ones are never
// drawn as read, and no lane asks for more records than were appended.
func TestViewAfterARestorePastRetention(t *testing.T) {
	src := strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=20s segment=5s", 1) +
		"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:12 restart=40s\n"
	tr, st := run(t, src)
	require.Positive(t, st.Job.Restores[0].Skipped)
	last, skippedSeen := 0, false
	for n := 0; n <= tr.Steps(); n++ {
		ps := st.Partitions(0, n)[0]
		require.GreaterOrEqual(t, ps.Read, last, "step %d: the records passed go back", n)
		require.LessOrEqual(t, ps.Read, ps.Appended, "step %d", n)
		last = ps.Read
		dots := st.Dots(0, 0, n, 40)
		for _, d := range dots {
			require.Less(t, d.Off, ps.Appended, "step %d: a dot for a record not yet appended", n)
			if !d.Read && d.Off < ps.Read {
				skippedSeen = true
			}
		}
	}
	assert.True(t, skippedSeen, "some records were skipped, and drawn as not read")
}

// Backpressure by hand: ten records a second into an operator that takes
// two, behind a buffer of five.
func TestBufferOverflows(t *testing.T) {
	head := strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=30 from=10:00:00 every=100ms", 1)
	t.Run("block", func(t *testing.T) {
		tr, st := run(t, head+"sink k from=s to=out rate=2/s buffer=5 overflow=block\n")
		assert.Empty(t, tr.Final().Missing)
		d, l := st.BufferLosses(tr.Steps())
		assert.Zero(t, d+l)
		assert.Equal(t, 5, maxCount(st.Ops[0].Queue), "never more than the buffer")
		assert.Equal(t, 20.0, st.PeakLag(0, 0, tr.Steps()), "thirty records in three seconds: five written, five buffered, the rest waits in the topic")
		assert.Equal(t, at("10:00:15"), tr.Events[tr.Steps()-1].At, "thirty records at two a second")
	})
	t.Run("grow", func(t *testing.T) {
		tr, st := run(t, head+"sink k from=s to=out rate=2/s buffer=5 overflow=grow\n")
		assert.Empty(t, tr.Final().Missing)
		assert.Greater(t, maxCount(st.Ops[0].Queue), 20, "the buffer grows past its size")
		assert.LessOrEqual(t, st.PeakLag(0, 0, tr.Steps()), 1.0, "the stream reads everything at once")
	})
	t.Run("drop", func(t *testing.T) {
		tr, st := run(t, head+"sink k from=s to=out rate=2/s buffer=5 overflow=drop\n")
		d, _ := st.BufferLosses(tr.Steps())
		assert.Equal(t, d, len(tr.Final().Missing), "every record shed is missing")
		assert.Greater(t, d, 15)
		assert.Equal(t, d, st.DroppedAt(0, tr.Steps()))
	})
	t.Run("grow loses its buffer when the job fails", func(t *testing.T) {
		tr, st := run(t, head+"checkpoint every=1s\nsink k from=s to=out rate=2/s buffer=5 overflow=grow\nfail k at=10:00:04 restart=1s\n")
		_, l := st.BufferLosses(tr.Steps())
		assert.Positive(t, l)
		assert.Len(t, tr.Final().Missing, l)
	})
	t.Run("grow loses its buffer once when the job fails twice before the next checkpoint", func(t *testing.T) {
		tr, st := run(t, head+"checkpoint every=10s from=10:00:01\nsink k from=s to=out rate=2/s buffer=5 overflow=grow\nfail k at=10:00:02 restart=1s\nfail k at=10:00:03.500 restart=1s\n")
		require.Len(t, st.Job.Restores, 2)
		assert.Equal(t, st.Job.Restores[0].From, st.Job.Restores[1].From, "both restore the checkpoint of 10:00:01")
		_, l := st.BufferLosses(tr.Steps())
		assert.Positive(t, l)
		assert.Len(t, tr.Final().Missing, l, "the second restore loses nothing the first had not")
	})
}

// A growing buffer with memory= by hand: ten orders a second into a sink
// that takes two, memory for ten records, a checkpoint at 10:00:00.750.
// By then orders 1 to 8 are read and order 1 written (at 0.5): the
// checkpoint holds position 8 and orders 2 to 8 in the buffer. Order 2 is
// written at 1.0; at 1.2 order 13 makes the buffer 11 records (3 to 13),
// more than 10: the job fails then, restarts ten seconds later from the
// checkpoint and reads from order 9, so orders 3 to 8 are lost.
func TestBufferRunsOutOfMemory(t *testing.T) {
	head := strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=13 from=10:00:00 every=100ms", 1) +
		"checkpoint every=1s from=10:00:00.750\nsink k from=s to=out rate=2/s buffer=5 overflow=grow memory=10\n"
	t.Run("once", func(t *testing.T) {
		tr, st := run(t, head)
		require.Len(t, st.Job.Failures, 1)
		f := st.Job.Failures[0]
		assert.Equal(t, "out-of-memory", f.Point)
		assert.Equal(t, "k", f.Who)
		assert.Equal(t, at("10:00:01.200"), f.At, "order 13 is the eleventh record in the buffer")
		assert.Equal(t, int32(11), f.Buffered)
		assert.Equal(t, at("10:00:11.200"), f.RestartAt, "the default restart delay")
		assert.False(t, f.Down)
		assert.Equal(t, 11, maxCount(st.Ops[0].Queue), "one past the memory, for the step that fails")
		e := &tr.Events[f.Step-1]
		assert.Equal(t, engine.KindCrash, e.Kind)
		assert.Contains(t, tr.Narration(e), "k's buffer reaches 11 records, more than the 10 its memory holds: the task fails, out of memory")
		assert.Contains(t, tr.Narration(e), "It restarts at 10:00:11.200 from checkpoint 1")
		prev := &tr.Events[f.Step-2]
		assert.Equal(t, engine.KindArrive, prev.Kind, "the read of order 13 is the step before, at the same instant")
		assert.Equal(t, f.At, prev.At)
		require.Len(t, st.Job.Restores, 1)
		r := st.Job.Restores[0]
		assert.Equal(t, int32(1), r.From)
		assert.Equal(t, int32(6), r.Lost, "orders 2 to 8 buffered at the checkpoint, less order 2 written at 1.0")
		assert.Equal(t, int64(5), r.Rewound, "orders 9 to 13, after the checkpoint's position")
		assert.Equal(t, keyRange(3, 8), tr.Final().Missing)
	})
	t.Run("again and again", func(t *testing.T) {
		// Thirty orders: each restore reads orders 9 to 19 at once, eleven
		// records, and fails again, until the fourth failure leaves the job down.
		tr, st := run(t, strings.Replace(head, "records=13", "records=30", 1))
		require.Len(t, st.Job.Failures, 4)
		require.Len(t, st.Job.Restores, 3)
		for i, f := range st.Job.Failures {
			assert.Equal(t, "out-of-memory", f.Point)
			assert.Equal(t, at("10:00:01.200").Add(vtime.Duration(i)*10*vtime.Second), f.At)
			assert.Equal(t, int32(11), f.Buffered)
			assert.Equal(t, i == 3, f.Down, "failure %d", i+1)
		}
		_, l := st.BufferLosses(tr.Steps())
		assert.Equal(t, 6, l, "orders 3 to 8, lost once: later restores of the same checkpoint lose nothing more")
		assert.Equal(t, keyRange(3, 30), tr.Final().Missing, "lost, or never read by the job that stays down")
		assert.Contains(t, tr.Narration(&tr.Events[st.Job.Failures[3].Step-1]), "The job stays down")
	})
	t.Run("a knob that does not grow", func(t *testing.T) {
		src := strings.Replace(strings.Replace(head, "overflow=grow", "overflow=$o", 1), "\n", "\nknob o = block | grow\n", 1)
		tr, st := run(t, src)
		assert.Empty(t, st.Job.Failures, "memory= is for the knob's grow only")
		assert.Empty(t, tr.Final().Missing)
		tr, err := engine.Run(parse(t, src), map[string]string{"o": "grow"}, 1, worlds.All())
		require.NoError(t, err)
		assert.Len(t, stream.Of(tr).Job.Failures, 1)
	})
}

// A barrier waits behind the records in a buffer with flow control, so
// the checkpoint takes as long as they do; past its timeout it expires.
func TestCheckpointWaitsBehindTheBuffer(t *testing.T) {
	head := strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=100 from=10:00:00 every=100ms", 1)
	_, st := run(t, head+"checkpoint every=2s\nsink k from=s to=out rate=2/s buffer=10 overflow=block\n")
	c := st.Job.Checkpoints[0]
	assert.Equal(t, stream.CheckpointCompleted, c.Status)
	assert.Equal(t, 4500*vtime.Millisecond, c.EndAt.Sub(c.BeginAt), "ten records at two a second, the first already half done")
	// The triggers at +2s and +4s found it in flight: the next begins the
	// moment it completes, as Flink's coordinator runs a queued request.
	require.Greater(t, len(st.Job.Checkpoints), 1)
	assert.Equal(t, c.EndAt, st.Job.Checkpoints[1].BeginAt, "the queued checkpoint begins as the one in flight completes")
	// Each trigger is a request of its own, never merged with one already
	// waiting (Flink's CheckpointRequestDecider queues them all): the 25
	// triggers from 10:00:02 to 10:00:50 begin 25 checkpoints, each the
	// moment the one before ends, and the backlog left when the buffer
	// drains at 10:00:50 runs there back to back.
	begun := 0
	for i, cp := range st.Job.Checkpoints {
		if cp.BeginAt > at("10:00:50") {
			break
		}
		begun++
		if i > 0 {
			assert.Equal(t, st.Job.Checkpoints[i-1].EndAt, cp.BeginAt, "checkpoint %d begins as %d ends", cp.ID, cp.ID-1)
		}
	}
	assert.Equal(t, 25, begun, "one checkpoint for every trigger")

	_, st = run(t, head+"checkpoint every=2s timeout=3s tolerable=10\nsink k from=s to=out rate=2/s buffer=10 overflow=block\n")
	c = st.Job.Checkpoints[0]
	assert.Equal(t, stream.CheckpointExpired, c.Status)
	assert.Equal(t, 3*vtime.Second, c.EndAt.Sub(c.BeginAt), "it expires the moment its timeout runs out, not at a later trigger")
	require.Greater(t, len(st.Job.Checkpoints), 1)
	assert.Equal(t, c.EndAt, st.Job.Checkpoints[1].BeginAt, "the request queued behind it begins as it expires")
}

// Flink's coordinator triggers on its grid whether records flow or not: a
// quiet minute between two bursts of orders is checkpointed every interval,
// with the same positions each time. After the scenario's last send a job
// idle for a whole interval stops, so that the run can end.
func TestCheckpointsGoOnThroughAQuietSpell(t *testing.T) {
	src := strings.Replace(orders, "records=60", "records=5", 1) +
		"produce shop at=10:01:30 key=100\ncheckpoint every=10s from=10:00:10\nsink k from=s to=out\n"
	_, st := run(t, src)
	var begun []string
	for _, cp := range st.Job.Checkpoints {
		begun = append(begun, cp.BeginAt.String())
		assert.Equal(t, stream.CheckpointCompleted, cp.Status)
	}
	assert.Equal(t, []string{"10:00:10", "10:00:20", "10:00:30", "10:00:40", "10:00:50", "10:01:00",
		"10:01:10", "10:01:20", "10:01:30", "10:01:40"}, begun,
		"every trigger from 10:00:10 on, the quiet minute included; none after the idle interval that follows the last send")
	assert.Equal(t, st.Job.Checkpoints[1].Positions, st.Job.Checkpoints[7].Positions, "nothing was read in between")
}

// Checkpoints that expire, more in a row than the job tolerates, fail the
// job, as Flink's CheckpointFailureManager does (tolerable 0 by default):
// behind a blocked buffer each restart finds the same backlog, expires
// again and fails again, until the job gives up; a tolerance lets it run on.
func TestExpiredCheckpointsFailTheJob(t *testing.T) {
	head := strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=100 from=10:00:00 every=100ms", 1)
	const sink = "sink k from=s to=out rate=2/s buffer=10 overflow=block\n"
	tr, st := run(t, head+"checkpoint every=2s timeout=3s\n"+sink)
	require.NotEmpty(t, st.Job.Failures)
	f := st.Job.Failures[0]
	assert.Equal(t, stream.PointExpired, f.Point)
	assert.Equal(t, "for checkpoints that expired", f.Where())
	assert.Equal(t, stream.CheckpointExpired, st.Job.Checkpoints[0].Status)
	assert.Equal(t, st.Job.Checkpoints[0].EndAt, f.At, "the job fails as the checkpoint expires")
	var expiry, failure string
	for i := range tr.Events {
		n := tr.Narration(&tr.Events[i])
		if expiry == "" && strings.Contains(n, "Checkpoint 1 expires") {
			expiry = n
		}
		if failure == "" && strings.HasPrefix(n, "Checkpoint 1 expired, one more than the job tolerates: the job fails") {
			failure = n
		}
	}
	assert.Contains(t, expiry, "That is 1 in a row, more than the 0 the job tolerates (Flink's execution.checkpointing.tolerable-failed-checkpoints, 0 by default), so the job fails.")
	assert.Contains(t, failure, "It restarts at")
	assert.True(t, st.Job.Failures[len(st.Job.Failures)-1].Down, "the backlog makes every restart expire again, until the job gives up")

	// Tolerating two, the third expiry in a row fails it.
	tr, st = run(t, head+"checkpoint every=2s timeout=3s tolerable=2\n"+sink)
	expiry = ""
	for i := range tr.Events {
		if n := tr.Narration(&tr.Events[i]); strings.Contains(n, "Checkpoint 1 expires") {
			expiry = n
		}
	}
	assert.Contains(t, expiry, "The job runs on: it tolerates 2 failed checkpoints in a row (tolerable=2), and this is the 1st.")
	require.NotEmpty(t, st.Job.Failures)
	expired := 0
	for _, c := range st.Job.Checkpoints {
		if c.EndAt > st.Job.Failures[0].At {
			break
		}
		if c.Status == stream.CheckpointExpired {
			expired++
		}
	}
	assert.Equal(t, 3, expired)
}

// A count per key with a time to live starts again from one for a key
// quiet for longer; without, it counts every record.
func TestAggregateTTL(t *testing.T) {
	src := `scenario t/x "X"
topic visits partitions=1
producer web to=visits key=customer_id
target counts sink=upsert key=customer_id
produce web at=10:00:00 key=1
produce web at=10:00:30 key=1
produce web at=10:01:31 key=1
produce web at=10:01:40 key=1
stream s from=visits
aggregate n from=s agg=count ttl=TTL to=counts
`
	for _, tc := range []struct {
		ttl  string
		want int64
	}{{"off", 4}, {"1m", 2}} {
		tr, st := run(t, strings.Replace(src, "TTL", tc.ttl, 1))
		rows := tr.TargetAt("counts", tr.Steps())
		require.Len(t, rows, 1)
		assert.Equal(t, tc.want, rows[0].Amount, "ttl %s", tc.ttl)
		if tc.ttl == "1m" {
			assert.Equal(t, []string{"1"}, tr.Final().Stale, "the truth counts every visit")
			assert.True(t, st.Job.Outputs[2].Restarted)
		} else {
			assert.Empty(t, tr.Final().Stale)
		}
	}
}

// A dedup by event id drops a resend it remembers, and lets through one
// that comes after its time to live.
func TestDedupTTL(t *testing.T) {
	src := `scenario t/x "X"
topic orders partitions=1
producer shop to=orders key=order_id
target out sink=append key=order_id
produce shop at=10:00:00 key=1 id=e1 fail=timeout retry=app ids=keep retry-after=30s
stream s from=orders
sink k from=s to=out dedup=event ttl=TTL
`
	tr, st := run(t, strings.Replace(src, "TTL", "1m", 1))
	assert.Empty(t, tr.Final().Duplicated)
	require.Len(t, st.Job.Dups, 1)
	tr, st = run(t, strings.Replace(src, "TTL", "10s", 1))
	assert.Equal(t, map[string]int{"1": 2}, tr.Final().Duplicated)
	assert.Empty(t, st.Job.Dups)
	assert.Equal(t, 2, st.StateAt(0, tr.Steps())+1, "one id remembered at the end")
}

// A hot key pins one partition to one reader: that reader is busy all the
// time while the others idle.
func TestHotReaderSaturates(t *testing.T) {
	src := `scenario t/x "X"
topic clicks partitions=2
producer hot to=clicks key=user_id partition=0
producer cold to=clicks key=user_id partition=1
traffic hot records=400 from=10:00:00 every=40ms keys=1
traffic cold records=80 from=10:00:00 every=200ms keys=5
stream s from=clicks parallelism=2 rate=20/s
`
	tr, st := run(t, src)
	n := tr.Steps()
	assert.Equal(t, 1.0, st.PeakUtilisation(0, 0, n), "25 records a second for a reader of 20")
	assert.InDelta(t, 0.25, st.PeakUtilisation(0, 1, n), 0.06)
	assert.Greater(t, st.PeakLag(0, 0, n), 15.0)
	assert.LessOrEqual(t, st.PeakLag(0, 1, n), 1.0)
	assert.Less(t, st.PeakLag(0, -1, n), st.PeakLag(0, 0, n), "the average hides it")
}

// Rows stamped with now() or a value looked up as it stands are written
// differently by a replay, and the truth keeps both versions.
func TestReplayWritesDifferently(t *testing.T) {
	src := orders + `txn T0 begin=09:59:00 commit=09:59:00 insert customer_id=1..60 amount=1
txn T1 begin=10:00:25 commit=10:00:25 update customer_id=1..60 amount=2
checkpoint every=10s
sink k from=s to=out value=VALUE lookup=customers
fail k at=10:00:29 restart=5s
`
	_, st := run(t, strings.Replace(src, "VALUE", "lookup", 1))
	// Orders 21 to 29 are read again at 10:00:34; 21 to 25 were read before the upgrade.
	ds := st.ReplayDiffs(1 << 30)
	require.Len(t, ds, 5)
	assert.Equal(t, int64(1), ds[0].First.Amount)
	assert.Equal(t, int64(2), ds[0].Then.Amount)
	_, st = run(t, strings.Replace(src, "VALUE", "now", 1))
	assert.Len(t, st.ReplayDiffs(1<<30), 9)
	_, st = run(t, strings.Replace(src, "VALUE", "amount", 1))
	assert.Empty(t, st.ReplayDiffs(1<<30))
}

// A read mid-replay of a table written row by row sees a state that never
// existed; published with the checkpoints, what it sees existed.
func TestReadVerdict(t *testing.T) {
	src := `scenario t/x "X"
topic sales partitions=1
producer tills to=sales key=region
target totals sink=upsert key=region
traffic tills records=60 from=10:00:00 every=500ms keys=3
stream s from=sales rate=10/s
checkpoint every=10s
aggregate n from=s to=totals commit=COMMIT
fail n at=10:00:25 restart=1s
read totals at=10:00:26.3 as=mid
read totals at=10:00:40 as=end
`
	_, st := run(t, strings.Replace(src, "COMMIT", "auto", 1))
	_, ok := st.ReadVerdict(0)
	assert.False(t, ok, "mid-replay: regions rewound and regions ahead")
	_, ok = st.ReadVerdict(1)
	assert.True(t, ok)
	_, st = run(t, strings.Replace(src, "COMMIT", "two-phase", 1))
	assert.Empty(t, st.NeverExisted(1<<30))
}

// A read of a table a window or a join writes is judged by the rows they
// wrote; one of a table only a consumer group writes is not judged, and
// is not said to have never existed.
func TestReadVerdictOfWindowsJoinsAndGroups(t *testing.T) {
	tr, st := run(t, `scenario t/x "X"
topic sales partitions=1
producer till to=sales key=sale_id
target per_minute sink=merge key=minute
traffic till records=30 from=10:00:00 every=5s keys=100
stream s from=sales
key-by s none
window counts from=s tumbling size=1m to=per_minute
read per_minute at=10:01:30 as=one
read per_minute at=10:02:30 as=two
`)
	require.Len(t, st.Job.Reads, 2)
	for i, want := range []int{1, 2} {
		require.True(t, st.Judged(i))
		require.Len(t, st.Job.Reads[i].Rows, want)
		step, ok := st.ReadVerdict(i)
		assert.True(t, ok, "a read of what the window wrote, one firing after another, saw a state that existed")
		assert.Equal(t, engine.KindFire, tr.Events[step-1].Kind, "the state after a firing")
	}

	_, st = run(t, `scenario t/x "X"
topic clicks partitions=1
topic views partitions=1
producer a to=clicks key=ad
producer b to=views key=ad
target matched sink=merge key=ad
traffic a records=4 from=10:00:00 every=1s keys=unique
traffic b records=4 from=10:00:00 every=1s keys=unique
stream c from=clicks
stream v from=views
join m left=c right=v between=-5s..5s to=matched
read matched at=10:00:30 as=joined
`)
	require.Len(t, st.Job.Reads, 1)
	require.NotEmpty(t, st.Job.Reads[0].Rows)
	_, ok := st.ReadVerdict(0)
	assert.True(t, ok)

	_, st = run(t, `scenario t/x "X"
topic orders partitions=1
producer shop to=orders key=order_id
target fct_orders sink=merge key=order_id
traffic shop records=5 from=10:00:00 every=1s keys=unique
group g topic=orders to=fct_orders reset=earliest
member g c1 at=10:00:00
polls g from=10:00:01 until=10:00:10 every=1s
stream s from=orders
read fct_orders at=10:00:08 as=report
`)
	require.Len(t, st.Job.Reads[0].Rows, 5)
	assert.False(t, st.Judged(0))
	assert.Empty(t, st.NeverExisted(1<<30))
}

// A read-uncommitted reader of a table with one row per key sees the
// pending writes as their commit would leave the table: one row per key,
// a state that existed; a read-committed reader is told how many rows the
// open transactions add or change, not how many writes they hold; and the
// commit says how many rows its writes land as.
func TestDirtyReadSeesOneRowPerKey(t *testing.T) {
	tr, st := run(t, `scenario t/x "X"
topic sales partitions=1
producer tills to=sales key=region
target totals sink=upsert key=region
traffic tills records=12 from=10:00:00 every=1s keys=2
stream sales_in from=sales
checkpoint every=5s
aggregate per_region from=sales_in to=totals commit=two-phase
read totals at=10:00:08 as=dirty isolation=read-uncommitted
read totals at=10:00:08 as=clean
`)
	require.Len(t, st.Job.Reads, 2)
	dirty, clean := st.Job.Reads[0], st.Job.Reads[1]
	keys := map[string]int{}
	for _, r := range dirty.Rows {
		keys[r.Key]++
		assert.True(t, r.Pending, "both regions have a newer value in the open transaction")
	}
	assert.Equal(t, map[string]int{"1": 1, "2": 1}, keys)
	require.Len(t, clean.Rows, 2)
	assert.Equal(t, 2, clean.Pending, "two rows would change, whatever the number of writes")
	for i := range 2 {
		_, ok := st.ReadVerdict(i)
		assert.True(t, ok)
	}
	steps := narrating(tr, "per_region commits transaction 1 ")
	require.Len(t, steps, 1)
	assert.Contains(t, tr.Narration(&tr.Events[steps[0]]), "its 5 writes land as 2 rows (the last of each key), which become visible")
}

// The faults of the second part: a failure now or at a checkpoint's
// point, a slow operator that gets a buffer, a slow stream, a burst of one
// key; and what they refuse.
func TestStateFaults(t *testing.T) {
	f := parse(t, orders+"checkpoint every=10s\nsink k from=s to=out commit=two-phase\n")
	tr, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{
		{AfterStep: 20, Kind: stream.FaultFail, Stream: "k", For: 2 * vtime.Second},
		{AfterStep: 60, Kind: stream.FaultFail, Stream: "s", Point: "snapshot"},
		{AfterStep: 90, Kind: stream.FaultSlow, Stream: "k", By: 300 * vtime.Millisecond, For: 10 * vtime.Second},
		{AfterStep: 100, Kind: stream.FaultSlow, Stream: "s", By: 500 * vtime.Millisecond, For: 5 * vtime.Second},
		{AfterStep: 110, Kind: logs.FaultBurst, Producer: "shop", Records: 5, Key: "1000"},
	})
	require.NoError(t, err)
	st := stream.Of(tr)
	require.Len(t, st.Job.Failures, 2)
	assert.Equal(t, "now", st.Job.Failures[0].Point)
	assert.Equal(t, "snapshot", st.Job.Failures[1].Point)
	assert.Equal(t, 100, st.Ops[0].Buffer, "a slowed operator gets a buffer with flow control")
	assert.NotEmpty(t, st.Ops[0].Costs)
	assert.NotEmpty(t, st.Streams[0].Costs)
	assert.Empty(t, tr.Final().Missing)
	assert.Equal(t, map[string]int{"1000": 5}, tr.Final().Duplicated, "the burst's five events of key 1000, each a row of an append table")

	for _, tc := range []struct {
		fault engine.Fault
		want  string
	}{
		{engine.Fault{AfterStep: 5, Kind: stream.FaultFail, Stream: "nope"}, `unknown stream or operator "nope"`},
		{engine.Fault{AfterStep: 5, Kind: stream.FaultFail, Stream: "k", Point: "later"}, "not \"later\""},
		{engine.Fault{AfterStep: 5, Kind: stream.FaultSlow, Stream: "k"}, "positive cost per record"},
		{engine.Fault{AfterStep: 5, Kind: stream.FaultSlow, Stream: "nope", By: 1, For: 1}, `unknown stream or operator "nope"`},
	} {
		_, err := engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{tc.fault})
		require.Error(t, err, tc.want)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err = engine.RunWithFaults(parse(t, orders+"sink k from=s to=out\n"), nil, 1, worlds.All(), []engine.Fault{{AfterStep: 5, Kind: stream.FaultFail, Stream: "k", Point: "barrier"}})
	require.ErrorContains(t, err, "takes no checkpoints")

	// Once the job stays down no checkpoint begins again: a failure at a
	// checkpoint's point is refused, as one now is, rather than kept to
	// wait in silence for ever.
	down := parse(t, strings.Replace(strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=20s segment=5s", 1),
		"stream s from=orders", "stream s from=orders reset=none", 1)+"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:12 restart=40s\n")
	tr, err = engine.Run(down, nil, 1, worlds.All())
	require.NoError(t, err)
	rs := stream.Of(tr).Job.Restores
	require.Len(t, rs, 1)
	require.True(t, rs[0].Failed)
	require.Greater(t, tr.Steps(), int(rs[0].Step), "steps follow the failed restore")
	for _, point := range []string{"now", "barrier", "commit"} {
		_, err = engine.RunWithFaults(down, nil, 1, worlds.All(), []engine.Fault{{AfterStep: int(rs[0].Step), Kind: stream.FaultFail, Stream: "k", Point: point}})
		require.Error(t, err, point)
		assert.Contains(t, err.Error(), "the job is ", point)
	}
}

// A checkpoint holds every operator's state, and restoring it gives each
// back byte for byte: a window, a join, an aggregate and a dedup with a
// time to live, failing at every other second.
func TestRestoreEveryKindOfOperator(t *testing.T) {
	src := `scenario t/x "X"
topic a partitions=2
topic b partitions=1
producer pa to=a key=user_id
producer pb to=b key=user_id
target w sink=merge key=window
target j sink=merge key=user_id
target g sink=upsert key=user_id
target d sink=append key=user_id
traffic pa records=120 from=10:00:00 every=250ms keys=7 amount=1..9
traffic pb records=40 from=10:00:00 every=750ms keys=7
stream sa from=a
stream sb from=b
watermark sa bound=1s
watermark sb bound=1s
checkpoint every=3s
window win from=sa tumbling size=5s agg=sum to=w
join jn left=sa right=sb between=-2s..2s to=j
aggregate agg from=sa agg=max ttl=4s to=g
sink dd from=sb to=d dedup=key ttl=2s
fail win at=10:00:07 restart=1s
fail jn at=10:00:13.5 restart=0s
fail agg at=10:00:20 point=snapshot restart=2s
`
	_, st := run(t, src)
	require.Len(t, st.Job.Restores, 3)
	for _, r := range st.Job.Restores {
		assert.Positive(t, r.From)
		assert.True(t, r.Exact, "restore at step %d", r.Step)
	}
	for _, c := range st.Job.Checkpoints {
		if c.Status == stream.CheckpointCompleted {
			for oi, z := range c.Sizes {
				assert.Positive(t, z, "checkpoint %d, %s", c.ID, st.Ops[oi].Name)
			}
		}
	}
}

func maxCount(xs []stream.CountPoint) int {
	m := 0
	for _, x := range xs {
		m = max(m, int(x.N))
	}
	return m
}

// A fail line whose instant finds the job down is a step of its own that
// says so, and changes nothing: no failure is added and the pending
// restart keeps its time. A point of a checkpoint while the job waits to
// restart is no miss: it fails the first checkpoint after the restart.
func TestFailLineFindsTheJobDown(t *testing.T) {
	missed := func(tr *engine.Trace, when string) []string {
		var ns []string
		for i := range tr.Events {
			if e := &tr.Events[i]; e.Kind == engine.KindCrash && strings.Contains(tr.Narration(e), "finds the job") {
				assert.Equal(t, at(when), e.At)
				ns = append(ns, tr.Narration(e))
			}
		}
		return ns
	}
	t.Run("waiting to restart", func(t *testing.T) {
		tr, st := run(t, orders+"checkpoint every=5s\nsink k from=s to=out\nfail k at=10:00:10 restart=20s\nfail s at=10:00:20 restart=1s\n")
		require.Len(t, st.Job.Failures, 1, "the second line fails nothing")
		require.Len(t, st.Job.Restores, 1)
		assert.Equal(t, at("10:00:30"), st.Job.Restores[0].At, "the first failure's restart keeps its time")
		assert.Equal(t, []string{"The failure of s planned for 10:00:20 finds the job already down: at 10:00:10 k failed, and the job restarts at 10:00:30. " +
			"A job that is not running has no task to fail: nothing more happens, and the restart keeps its time."}, missed(tr, "10:00:20"))
	})
	t.Run("out of memory for good", func(t *testing.T) {
		src := strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=30 from=10:00:00 every=100ms", 1) +
			"checkpoint every=1s from=10:00:00.750\nsink k from=s to=out rate=2/s buffer=5 overflow=grow memory=10\nfail k at=10:01:00 point=barrier\n"
		tr, st := run(t, src)
		require.Len(t, st.Job.Failures, 4)
		require.True(t, st.Job.Failures[3].Down)
		assert.Equal(t, []string{"The failure of k planned for the barrier of the first checkpoint at or after 10:01:00 finds the job down for good: it has failed for lack of memory 4 times, the last at 10:00:31.200, and stays down. " +
			"A job that is not running has no task to fail: nothing more happens."}, missed(tr, "10:01:00"))
	})
	t.Run("a checkpoint's point waits for the restart", func(t *testing.T) {
		tr, st := run(t, orders+"checkpoint every=5s\nsink k from=s to=out\nfail k at=10:00:10 restart=20s\nfail s at=10:00:20 point=barrier restart=1s\n")
		assert.Empty(t, missed(tr, "10:00:20"))
		require.Len(t, st.Job.Failures, 2)
		assert.Equal(t, "barrier", st.Job.Failures[1].Point)
		assert.GreaterOrEqual(t, st.Job.Failures[1].At, at("10:00:30"), "at the first checkpoint after the restart")
	})
}

// A fail line with a checkpoint's point still waiting when the job goes
// down for good, by a last failure for lack of memory or by a restore
// that fails, will never fire: no checkpoint begins again. The step that
// leaves the job down says so, and no step of its own follows.
func TestFailLineStrandedWhenTheJobStaysDown(t *testing.T) {
	stranded := func(tr *engine.Trace) []int { return narrating(tr, "will never come") }
	t.Run("out of memory for good", func(t *testing.T) {
		src := strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=30 from=10:00:00 every=100ms", 1) +
			"checkpoint every=1s from=10:00:00.750\nsink k from=s to=out rate=2/s buffer=5 overflow=grow memory=10\nfail k at=10:00:01 point=barrier\n"
		tr, st := run(t, src)
		require.Len(t, st.Job.Failures, 4, "the line fails no checkpoint: the job runs out of memory before the next begins, after every restart")
		last := st.Job.Failures[3]
		require.True(t, last.Down)
		steps := stranded(tr)
		require.Equal(t, []int{int(last.Step) - 1}, steps, "said once, in the step of the last failure")
		n := tr.Narration(&tr.Events[steps[0]])
		assert.Contains(t, n, "The job stays down and nothing more is read. "+
			"The failure of k planned for the barrier of the first checkpoint at or after 10:00:01 will never come: no checkpoint will begin again.")
		assert.True(t, strings.HasSuffix(n, " While it is down it reports no lag: the lag a team sees is the Kafka group's, counted from the offsets checkpoint 1 committed, s at offsets 0:8, not from where it had read to (s at offsets 0:19)."), n)
	})
	t.Run("a restore that fails", func(t *testing.T) {
		src := strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=20s segment=5s", 1)
		src = strings.Replace(src, "stream s from=orders", "stream s from=orders reset=none", 1) +
			"sink k from=s to=out\ncheckpoint every=10s\nfail s at=10:00:11 point=snapshot\nfail k at=10:00:12 restart=40s\nfail k at=10:00:30 point=commit\n"
		tr, st := run(t, src)
		require.Len(t, st.Job.Failures, 1)
		require.Len(t, st.Job.Restores, 1)
		r := st.Job.Restores[0]
		require.True(t, r.Failed)
		steps := stranded(tr)
		require.Equal(t, []int{int(r.Step) - 1}, steps, "said once, in the step of the restore")
		e := &tr.Events[steps[0]]
		assert.Equal(t, engine.KindRestore, e.Kind)
		assert.True(t, strings.HasSuffix(tr.Narration(e), "The job stays down and nothing more is read. "+
			"The failure of s planned for the snapshot of the first checkpoint at or after 10:00:11 and the failure of k planned for the commit of the first checkpoint at or after 10:00:30 will never come: no checkpoint will begin again."), tr.Narration(e))
	})
	t.Run("nothing waiting", func(t *testing.T) {
		src := strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=30 from=10:00:00 every=100ms", 1) +
			"checkpoint every=1s from=10:00:00.750\nsink k from=s to=out rate=2/s buffer=5 overflow=grow memory=10\n"
		tr, _ := run(t, src)
		assert.Empty(t, stranded(tr))
	})
}

// A fail line with a checkpoint's point still waiting when the run is
// over (the job read everything and, idle, took no checkpoint again) gets
// a step of its own at the end, the run's last, rather than passing in
// silence; one whose point came gets none.
func TestFailLineUnreachedAtTheEnd(t *testing.T) {
	unreached := func(tr *engine.Trace) []int { return narrating(tr, "the job has read all of its input") }
	t.Run("one line", func(t *testing.T) {
		tr, st := run(t, orders+"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:05:00 point=barrier\n")
		assert.Empty(t, st.Job.Failures)
		steps := unreached(tr)
		require.Equal(t, []int{len(tr.Events) - 1}, steps, "said once, as the last step")
		e := &tr.Events[steps[0]]
		assert.Equal(t, engine.KindCrash, e.Kind)
		assert.Equal(t, "k", tr.Actor(e))
		assert.Equal(t, "The failure of k planned for the barrier of the first checkpoint at or after 10:05:00 will never come: "+
			"the job has read all of its input, and no checkpoint will begin again.", tr.Narration(e))
	})
	t.Run("two lines", func(t *testing.T) {
		tr, _ := run(t, orders+"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:05:00 point=barrier\nfail s at=10:06:00 point=commit\n")
		steps := unreached(tr)
		require.Len(t, steps, 1)
		assert.Equal(t, "The failure of k planned for the barrier of the first checkpoint at or after 10:05:00 and "+
			"the failure of s planned for the commit of the first checkpoint at or after 10:06:00 will never come: "+
			"the job has read all of its input, and no checkpoint will begin again.", tr.Narration(&tr.Events[steps[0]]))
	})
	t.Run("a point that came", func(t *testing.T) {
		tr, st := run(t, orders+"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:15 point=barrier restart=1s\n")
		require.Len(t, st.Job.Failures, 1)
		assert.Empty(t, unreached(tr))
	})
}

// narrating returns the steps of tr whose narration contains part.
func narrating(tr *engine.Trace, part string) []int {
	var steps []int
	for i := range tr.Events {
		if strings.Contains(tr.Narration(&tr.Events[i]), part) {
			steps = append(steps, i)
		}
	}
	return steps
}

// FailPoint.Where is the one phrase the narration, the widget's checkpoint
// list and the text report use for where a failure came.
func TestFailPointWhere(t *testing.T) {
	for fp, want := range map[stream.FailPoint]string{
		{Point: "now"}:                 "",
		{Point: ""}:                    "",
		{Point: "out-of-memory"}:       "for lack of memory",
		{Point: "offset-out-of-range"}: "for a position retention deleted",
		{Point: "barrier", Ckpt: 4}:    "at checkpoint 4's barrier",
		{Point: "snapshot", Ckpt: 2}:   "at checkpoint 2's snapshot",
		{Point: "commit", Ckpt: 12}:    "at checkpoint 12's commit",
		{Point: "barrier", Ckpt: 0}:    "",
	} {
		assert.Equal(t, want, fp.Where(), "%+v", fp)
	}
}

// behindRetention is a source held back by a slow sink (overflow=block)
// while retention deletes the records it has yet to read.
const behindRetention = `scenario test/behind "A blocked source behind retention"
topic clicks partitions=1 retention=10s segment=2s
producer app to=clicks key=click_id
target fct_clicks sink=merge key=click_id
traffic app records=100 from=10:00:00 every=100ms keys=unique
`

// behind is behindRetention with its stream's options and its slow sink.
func behind(opts string) string {
	return behindRetention + "stream taps from=clicks" + opts + "\nsink load from=taps to=fct_clicks rate=2/s buffer=5 overflow=block\n"
}

// TestReadBehindTheLogStart: a read whose position retention has deleted
// meanwhile gets Kafka's OffsetOutOfRange, and auto.offset.reset decides:
// earliest and latest jump over records that are never read, and the
// truth counts them missing; none fails the source, and the job, which
// restarts with no checkpoint from what the log still holds.
func TestReadBehindTheLogStart(t *testing.T) {
	t.Run("earliest", func(t *testing.T) {
		tr, _ := run(t, behind(""))
		steps := narrating(tr, "OffsetOutOfRange")
		require.NotEmpty(t, steps)
		assert.Equal(t, "taps asks clicks-0 for offset 34, which retention has deleted (the log now starts at 42): Kafka answers OffsetOutOfRange, and auto.offset.reset=earliest moves the position to 42, skipping 8 records unread: the target does not get them from this stream.",
			tr.Narration(&tr.Events[steps[0]]))
		lost := 0
		for _, i := range steps {
			var n int
			text := tr.Narration(&tr.Events[i])
			_, err := fmt.Sscanf(text[strings.Index(text, ", skipping ")+len(", skipping "):], "%d records unread", &n)
			require.NoError(t, err)
			lost += n
		}
		assert.Len(t, tr.Final().Missing, lost, "the truth counts every record jumped over, and only those")
		assert.Len(t, tr.TargetAt("fct_clicks", tr.Steps()), 100-lost)
	})
	t.Run("latest", func(t *testing.T) {
		tr, _ := run(t, behind(" reset=latest"))
		steps := narrating(tr, "OffsetOutOfRange")
		require.NotEmpty(t, steps)
		assert.Contains(t, tr.Narration(&tr.Events[steps[0]]), "auto.offset.reset=latest moves the position to ")
		assert.NotEmpty(t, tr.Final().Missing)
	})
	t.Run("none", func(t *testing.T) {
		tr, st := run(t, behind(" reset=none"))
		require.Len(t, st.Job.Failures, 1)
		f := st.Job.Failures[0]
		assert.Equal(t, stream.PointOutOfRange, f.Point)
		assert.Equal(t, "taps", f.Who)
		assert.Contains(t, tr.Narration(&tr.Events[f.Step-1]), "taps asks clicks-0 for offset 34, which retention has deleted (the log now starts at 42): with auto.offset.reset=none Kafka's consumer throws OffsetOutOfRangeException and the source task fails")
		require.Len(t, st.Job.Restores, 1)
		r := st.Job.Restores[0]
		assert.False(t, r.Failed, "with no checkpoint the source starts afresh from the log start: no position of its own is out of range")
		assert.Contains(t, tr.Narration(&tr.Events[r.Step-1]), "every stream reads from the beginning of what its log still holds (clicks-0 from offset 100: retention has deleted what came before)")
	})
}

// A record without a key is known by its event id, through a stream's sink
// as through a consumer group: a resend under a new id is a new row that
// no uniqueness check and no recount over the topic can tell from a new
// event, though the truth knows it is a duplicate. A resend that kept its
// id is one event to the recount, which then sees the table's extra row.
func TestKeylessResendThroughASink(t *testing.T) {
	src := `scenario t/x "X"
topic orders partitions=1
producer shop to=orders
target fct_orders sink=append key=event
produce shop at=10:00:00 fail=timeout retry=app ids=IDS
produce shop at=10:00:05
stream orders_in from=orders
sink load from=orders_in to=fct_orders
check recount
check uniqueness
`
	status := func(tr *engine.Trace) map[string]string {
		out := map[string]string{}
		for _, c := range tr.Checks() {
			out[c.Name] = string(c.Status)
		}
		return out
	}
	tr, _ := run(t, strings.Replace(src, "IDS", "regenerate", 1))
	var keys []string
	for _, r := range tr.TargetAt("fct_orders", tr.Steps()) {
		keys = append(keys, tr.RowKey(&r))
	}
	assert.Equal(t, []string{"shop-1", "shop-2", "shop-3"}, keys)
	assert.Len(t, tr.Final().Duplicated, 1, "the truth knows shop-2 is shop-1 sent again")
	assert.Equal(t, map[string]string{"recount": "pass", "uniqueness": "pass"}, status(tr), "no check a team could run notices")

	tr, _ = run(t, strings.Replace(src, "IDS", "keep", 1))
	assert.Len(t, tr.Final().Duplicated, 1)
	assert.Equal(t, map[string]string{"recount": "fail", "uniqueness": "fail"}, status(tr), "one event id twice: both checks see it")
}

// Two sinks that copy one topic's rows into two tables are refused at the
// second: the truth follows a producer's rows into one table, and would
// call every row of the other stale.
func TestSecondTableOfTheSameRowsIsRefused(t *testing.T) {
	_, err := engine.Run(parse(t, `scenario t/x "X"
topic clicks partitions=1
producer app to=clicks key=click_id
target a_t sink=merge key=click_id
target b_t sink=merge key=click_id
traffic app records=5 from=10:00:00 every=1s keys=unique
stream taps from=clicks
sink a from=taps to=a_t
sink b from=taps to=b_t
`), nil, 1, worlds.All())
	require.Error(t, err)
	assert.Equal(t, "s.tdm:9:21: the rows of app already reach a_t, and the truth follows them into one target; sink b copying them into b_t as well is not modelled: write to a_t, or show the second copy in a scenario of its own", err.Error())
}

// The records a restore loses from buffers without flow control are those
// the buffer held when the checkpoint began and whose effect does not
// survive: counted buffer by buffer, the count equals what the truth finds
// missing, whether a stateless sink wrote some of them at once, a
// two-phase-commit sink wrote them into a transaction that rolled back, or
// a faster operator's buffer beside it emptied in the meantime.
func TestBufferLossIsWhatTheTruthMisses(t *testing.T) {
	const head = `scenario t/x "X"
topic clicks partitions=1
producer app to=clicks key=click_id
target slow_t sink=merge key=click_id
target fast_t sink=upsert key=click_id
traffic app records=60 from=10:00:00 every=100ms keys=unique
stream taps from=clicks
checkpoint every=2s
`
	for name, lines := range map[string]string{
		"auto":                         "sink slow from=taps to=slow_t rate=5/s buffer=10 overflow=grow\n",
		"two-phase":                    "sink slow from=taps to=slow_t rate=5/s buffer=10 overflow=grow commit=two-phase\n",
		"beside a faster operator":     "sink slow from=taps to=slow_t rate=5/s buffer=10 overflow=grow\naggregate fast from=taps to=fast_t rate=1000/s buffer=10 overflow=grow\n",
		"an aggregate writing at once": "aggregate slow from=taps to=fast_t rate=5/s buffer=10 overflow=grow\n",
	} {
		t.Run(name, func(t *testing.T) {
			tr, st := run(t, head+lines+"fail slow at=10:00:03 restart=1s\n")
			require.Len(t, st.Job.Restores, 1)
			lost := int(st.Job.Restores[0].Lost)
			assert.Positive(t, lost)
			assert.Len(t, tr.Final().Missing, lost)
		})
	}
}

// Records a reset jumped over and a restart with no checkpoint then reads
// from the log start are read for the first time, not again: the restore
// counts none of them as read again, and their rows are written as first
// reads are.
func TestRestartReadsWhatAResetSkippedForTheFirstTime(t *testing.T) {
	tr, st := run(t, behind(" reset=latest")+"fail load at=10:00:15.200 restart=100ms\n")
	require.NotEmpty(t, narrating(tr, "auto.offset.reset=latest moves the position to 100"))
	require.Len(t, st.Job.Restores, 1)
	r := st.Job.Restores[0]
	assert.Contains(t, tr.Narration(&tr.Events[r.Step-1]), "from offset 42")
	assert.Zero(t, r.Rewound, "nothing from offset 42 on had been read")
	for _, i := range narrating(tr, "from clicks-0 at offset 4") {
		assert.NotContains(t, tr.Narration(&tr.Events[i]), "reads it again")
	}
}

// A stream's sink over a change capture topic applies a delete event as a
// group does: a merge or upsert table removes the row, one that only
// inserts keeps it, which the truth calls stale and a recount over the
// topic, counting the inserts, does not notice.
func TestSinkAppliesCaptureDeletes(t *testing.T) {
	src := `scenario t/x "X"
source orders key=order_id updated_at=txn-start
topic orders_cdc partitions=1
target fct_orders sink=SINK key=order_id
cdc capture from=orders to=orders_cdc
stream s from=orders_cdc
sink load from=s to=fct_orders
check recount
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1 amount=120
txn T2 begin=10:00:01 commit=10:00:01 insert order_id=2 amount=75
txn T3 begin=10:00:03 commit=10:00:03 delete order_id=1
read fct_orders at=10:00:05 as=after
`
	for _, c := range []struct {
		sink, effect string
		rows         int
		stale        []string
	}{
		{"merge", "load writes the delete of 1 to fct_orders: the table removes the key's row", 1, nil},
		{"append", "load writes the delete of 1 to fct_orders: a table that is only ever inserted into cannot apply it, and keeps the row", 2, []string{"1"}},
	} {
		t.Run(c.sink, func(t *testing.T) {
			tr, st := run(t, strings.Replace(src, "SINK", c.sink, 1))
			assert.Len(t, tr.TargetAt("fct_orders", tr.Steps()), c.rows)
			assert.Len(t, narrating(tr, c.effect), 1)
			if c.stale == nil {
				assert.Empty(t, tr.Final().Stale)
			} else {
				assert.Equal(t, c.stale, tr.Final().Stale)
			}
			checks := tr.Checks()
			require.Len(t, checks, 1)
			assert.Equal(t, check.Pass, checks[0].Status, checks[0].Detail)
			_, ok := st.ReadVerdict(0)
			assert.True(t, ok, "the read saw the table as it stood")
		})
	}
}

// After a restore, a window holds what the checkpoint held and what was
// read since, each record once: the records taken between the snapshot
// and the failure are gone from it, and those read again count once. An
// order a second for a minute, checkpoints every ten seconds, a failure at
// 10:00:47 restored from the checkpoint of 10:00:40: right after the
// restore the windows hold the 40 orders before it (30 in the window
// fired at 10:00:30, 10 in the next), and at the end all 60, as the
// firings do. Counting every read, the chart said 47 and then 67; a
// session, grown over the seven orders the restore undid, said so too;
// and a join's buffer held them twice.
func TestWindowsAfterARestoreHoldEachRecordOnce(t *testing.T) {
	const head = `scenario t/x "X"
topic orders partitions=1
topic payments partitions=1
producer shop to=orders key=order_id
producer bank to=payments key=order_id
target out sink=merge key=window
target paid sink=merge key=order_id
traffic shop records=60 from=10:00:00 every=1s keys=unique
traffic bank records=2 from=10:00:00 every=1s keys=unique
stream s from=orders
stream p from=payments
watermark s bound=0s
checkpoint every=10s
`
	for _, tc := range []struct{ name, op, line string }{
		{"tumbling", "w", "window w from=s tumbling size=30s to=out"},
		{"session", "w", "key-by s none\nwindow w from=s session gap=10s to=out"},
		{"join", "j", "join j left=s right=p between=-1h..1h to=paid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, st := run(t, head+tc.line+"\nfail "+tc.op+" at=10:00:47 restart=5s\n")
			require.Len(t, st.Job.Restores, 1)
			r := st.Job.Restores[0]
			require.EqualValues(t, 4, r.From, "restored from the checkpoint of 10:00:40")
			held := func(n int) int64 {
				if tc.op == "j" {
					l, _ := st.Buffered(0, n)
					return int64(l)
				}
				var c int64
				for _, w := range st.WindowsAt(0, n, at("09:00:00"), at("11:00:00")) {
					c += w.Count
				}
				return c
			}
			assert.EqualValues(t, 40, held(int(r.Step)), "right after the restore")
			if tc.op != "j" {
				assert.EqualValues(t, 60, held(tr.Steps()), "at the end")
			}
		})
	}
}

// A dedup by key says it knows the record by its key, not by its event:
// two orders of one customer are different events with the same key.
func TestKeyDedupNarratesTheKey(t *testing.T) {
	src := `scenario t/x "X"
topic orders partitions=1
producer shop to=orders key=customer_id
target out sink=append key=customer_id
produce shop at=10:00:00 key=7
produce shop at=10:00:10 key=7
produce shop at=10:01:30 key=7
stream s from=orders
sink k from=s to=out dedup=key ttl=1m
`
	tr, _ := run(t, src)
	assert.Len(t, narrating(tr, "k has seen its key within the last 1m and drops it as a duplicate"), 1)
	assert.Len(t, narrating(tr, "k saw key 7 at least 1m ago and has forgotten it, so it is no duplicate any more"), 1)
	assert.Empty(t, narrating(tr, "this event"))

	// At exactly the time to live the id is forgotten already, as in
	// Flink (an entry expires when its last write plus the TTL is not
	// after now), and the narration does not say more time had passed.
	edge, _ := run(t, `scenario t/x "X"
topic orders partitions=1
producer shop to=orders key=order_id
target out sink=append key=order_id
produce shop at=10:00:00 key=1 id=e1
produce shop at=10:00:10 key=1 id=e1
stream s from=orders
sink k from=s to=out dedup=event ttl=10s
`)
	assert.Len(t, narrating(edge, "k saw this event at least 10s ago and has forgotten it"), 1)
	assert.Equal(t, map[string]int{"1": 2}, edge.Final().Duplicated, "the copy read 10s after the first is let through")

	tr, _ = run(t, strings.Replace(src, "dedup=key", "dedup=event", 1))
	assert.Empty(t, narrating(tr, "its key"), "each produce is an event of its own")
}

// A failure during checkpoint 2's commit, with transaction 1 still
// prepared for checkpoint 1, which expired: the failure, the restore and
// the commit each name the transaction and the checkpoint that commits it.
func TestRestoreCommitsAnEarlierPreparedTransaction(t *testing.T) {
	tr, st := run(t, `scenario t/multi "X"
topic orders partitions=1
producer shop to=orders key=order_id
target fct_orders sink=append key=order_id
target totals sink=merge key=order_id
traffic shop records=40 from=10:00:00 every=250ms keys=unique
stream orders_in from=orders
aggregate agg from=orders_in agg=count to=totals commit=two-phase
sink slow from=orders_in to=fct_orders rate=2/s buffer=100 overflow=block
checkpoint every=10s timeout=5s tolerable=10
fail agg at=10:00:19 point=commit restart=30s
`)
	require.Len(t, st.Job.Failures, 1)
	f := st.Job.Failures[0]
	assert.Contains(t, tr.Narration(&tr.Events[f.Step-1]), "fails while the sinks commit checkpoint 2's transactions", "transaction 1 waits on that commit")
	r := st.Job.Restores[0]
	assert.Contains(t, tr.Narration(&tr.Events[r.Step-1]), "transaction 1 is still prepared, and checkpoint 2's completion covers it: it will be committed now")
	assert.Contains(t, tr.Narration(&tr.Events[r.Step]), "the restore found checkpoint 2 completed, which commits every earlier transaction still prepared, and this one (pre-committed for checkpoint 1, which never completed)")
	assert.Empty(t, tr.Final().Missing)
}

// While the job is down it reports no lag of its own: the lag a team sees
// is the Kafka group's, counted from the offsets the source committed,
// which Flink's Kafka source commits only when a checkpoint completes, not
// from where the dead job had read to. By hand: one record a second,
// offset k sent at 10:00:k; checkpoints every 10s, the one of 10:00:20
// holding offset 20; the job fails at 10:00:25 having read offsets 0 to 24
// (position 25) and restarts at 10:00:45, before that instant's record.
func TestLagWhileDownCountsFromTheCommittedOffsets(t *testing.T) {
	tr, st := run(t, orders+"checkpoint every=10s\nsink k from=s to=out\nfail k at=10:00:25 restart=20s\n")
	require.Len(t, st.Job.Failures, 1)
	require.Len(t, st.Job.Restores, 1)
	fail, back := int(st.Job.Failures[0].Step), int(st.Job.Restores[0].Step)

	_, down := st.CommittedAt(0, 0, fail-1)
	assert.False(t, down, "the job runs: its own metric counts")
	assert.Equal(t, int64(25), st.PositionAt(0, 0, fail-1))
	assert.Equal(t, int64(0), st.LagAt(0, 0, fail-1), "it has read all 25 records")

	c, down := st.CommittedAt(0, 0, fail)
	assert.True(t, down)
	assert.Equal(t, int64(20), c, "checkpoint 2's offset")
	assert.Equal(t, int64(5), st.LagAt(0, 0, fail), "offsets 20 to 24, read but not committed")
	assert.Equal(t, int64(25), st.PositionAt(0, 0, back-1), "the dead job's position does not move")
	assert.Equal(t, int64(25), st.LagAt(0, 0, back-1), "45 records appended less 20 committed, not 45 less 25")
	assert.Equal(t, 25.0, st.PeakLag(0, 0, back-1), "the peak the alert sees follows the same count")
	assert.Contains(t, tr.Narration(&tr.Events[fail-1]), " While it is down it reports no lag: the lag a team sees is the Kafka group's, counted from the offsets checkpoint 2 committed, s at offsets 0:20, not from where it had read to (s at offsets 0:25).")

	_, down = st.CommittedAt(0, 0, back)
	assert.False(t, down, "restored: it reports its lag again")
	assert.Equal(t, int64(20), st.PositionAt(0, 0, back), "it resumes where it committed")
	assert.Equal(t, int64(25), st.LagAt(0, 0, back))

	t.Run("no checkpoint completed", func(t *testing.T) {
		// Nothing committed: the lag counts from the log start, offset 0
		// here. It fails at 10:00:05 (position 5), before the first
		// checkpoint, and restarts at 10:00:25.
		tr, st := run(t, orders+"checkpoint every=10s\nsink k from=s to=out\nfail k at=10:00:05 restart=20s\n")
		fail, back := int(st.Job.Failures[0].Step), int(st.Job.Restores[0].Step)
		c, down := st.CommittedAt(0, 0, fail)
		assert.True(t, down)
		assert.Equal(t, int64(-1), c, "nothing committed")
		assert.Equal(t, int64(5), st.LagAt(0, 0, fail), "five records read, none committed")
		assert.Equal(t, int64(25), st.LagAt(0, 0, back-1), "25 appended, not 25 less 5")
		assert.Contains(t, tr.Narration(&tr.Events[fail-1]), "counted from the log start, as no checkpoint has committed any offsets: s at offsets 0:0, not from where it had read to (s at offsets 0:5).")
	})

	t.Run("no checkpoint, and retention", func(t *testing.T) {
		// Nothing committed while retention deletes: the lag counts from
		// the log start as it moves, never the records already deleted,
		// and the peak the alert sees follows the same count.
		src := strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=10s segment=5s", 1)
		src = strings.Replace(src, "stream s from=orders", "stream s from=orders reset=earliest", 1)
		tr, st := run(t, src+"checkpoint every=5m\nsink k from=s to=out\nfail k at=10:00:30 restart=30s\n")
		fail, back := int(st.Job.Failures[0].Step), int(st.Job.Restores[0].Step)
		part := logs.Of(tr).Topics[0].Parts[0]
		start, end := part.StartAt(int32(back-1)), part.EndAt(int32(back-1))
		require.Positive(t, start, "retention deleted the first records while the job was down")
		assert.Equal(t, end-start, st.LagAt(0, 0, back-1), "the records the log still holds")
		most := int64(0)
		for n := fail; n < back; n++ {
			most = max(most, st.LagAt(0, 0, n))
		}
		assert.Equal(t, float64(most), st.PeakLag(0, 0, back-1), "the peak is the largest lag the trace shows while down")
	})

	t.Run("the alert", func(t *testing.T) {
		// Retention deletes offset 20 before the restart at 10:00:55, and
		// earliest jumps ahead: only the downtime's count reaches the
		// alert, 55 appended less 20 committed = 35, where the dead job's
		// position would give 55 less 25 = 30.
		src := strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=10s segment=5s", 1)
		src = strings.Replace(src, "stream s from=orders", "stream s from=orders reset=earliest", 1)
		tr, st := run(t, src+"checkpoint every=10s\nsink k from=s to=out\nfail k at=10:00:25 restart=30s\ncheck partition-lag max=32\n")
		assert.Equal(t, 35.0, st.PeakLag(0, 0, tr.Steps()))
		var seen bool
		for _, c := range tr.Checks() {
			if c.Name == "partition-lag" {
				seen = true
				assert.Equal(t, "fail", string(c.Status), c.Detail)
				assert.Contains(t, c.Detail, "s on orders-0 reached 35")
			}
		}
		assert.True(t, seen)
	})
}

// TestRestorePastRetentionWhenEveryOffsetSkippedWasRead: when every offset
// the reset jumps over was read before the failure, the restore says so,
// and no longer that "0 records are never read at all".
func TestRestorePastRetentionWhenEveryOffsetSkippedWasRead(t *testing.T) {
	for _, c := range []struct {
		records, next string
		skipped       int64
		said          string
	}{
		{"11", "11", 1, "it skips 1 offset, read before the failure: it is not read again, so nothing redoes what the restore undid of its work."},
		{"12", "12", 2, "it skips 2 offsets, both read before the failure: neither is read again, so nothing redoes what the restore undid of their work."},
		{"14", "14", 4, "it skips 4 offsets, all read before the failure: none is read again, so nothing redoes what the restore undid of their work."},
	} {
		// Checkpoint 1 stores offset 10; the job reads on to the last
		// record before it fails, and retention deletes all of them while
		// it is down.
		src := strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=5s segment=1s", 1)
		src = strings.Replace(src, "records=60", "records="+c.records, 1) +
			"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:15 restart=40s\n"
		tr, st := run(t, src)
		require.Len(t, st.Job.Restores, 1)
		said := tr.Narration(&tr.Events[st.Job.Restores[0].Step-1])
		assert.Contains(t, said, "orders-0 needs offset 10, which retention has deleted (the log starts at "+c.next+"), so auto.offset.reset=earliest resumes at "+c.next+" and "+c.said)
		assert.NotContains(t, said, "never read")
		assert.Equal(t, c.skipped, st.Job.Restores[0].Skipped, "the restore counts every offset it jumps over")
	}
}

// TestRestoreCountsOneInTheSingular: a restore past retention and a
// restore that loses a buffer's records count one as one: they said "1
// were read before the failure" and "1 were written ..., and the other 1
// are in no snapshot".
func TestRestoreCountsOneInTheSingular(t *testing.T) {
	src := strings.Replace(orders, "topic orders partitions=1", "topic orders partitions=1 retention=20s segment=5s", 1) +
		"sink k from=s to=out\ncheckpoint every=10s\nfail k at=10:00:11 restart=40s\n"
	tr, st := run(t, src)
	require.NotEmpty(t, st.Job.Restores)
	assert.Contains(t, tr.Narration(&tr.Events[st.Job.Restores[0].Step-1]), "it skips 20 offsets: 1 was read before the failure, and 19 records are never read at all")

	// Fifty-one records at ten a second into a sink that writes five a
	// second: when checkpoint 1 begins, at 10:00:10, two are still in its
	// buffer; it writes one, and the failure loses the other.
	src = strings.Replace(orders, "traffic shop records=60 from=10:00:00 every=1s", "traffic shop records=51 from=10:00:00 every=100ms", 1) +
		"sink k from=s to=out rate=5/s buffer=50 overflow=grow memory=1000\ncheckpoint every=10s\nfail k at=10:00:10.100 restart=5s\n"
	tr, st = run(t, src)
	require.NotEmpty(t, st.Job.Restores)
	assert.Contains(t, tr.Narration(&tr.Events[st.Job.Restores[0].Step-1]), "of the 2 records that sat in buffers without flow control when the checkpoint began, 1 was written before the failure, and the other 1 is in no snapshot and before every position, and nothing it changed survives the restore: lost")
}
