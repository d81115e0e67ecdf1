package hwm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// intervalWorld is an interval pipeline: no mark, one closed minute of
// updated_at a run, taken once it has been closed for settle.
const intervalWorld = `scenario test/interval "Closed intervals"
knob settle = 5s | 1m
source orders key=order_id updated_at=txn-start
target fct_orders sink=overwrite key=order_id
pipeline load from=orders to=fct_orders interval=1m settle=$settle
`

func runInterval(t *testing.T, body string, knobs map[string]string) *engine.Trace {
	t.Helper()
	f, err := scenario.Parse("i.tdm", []byte(intervalWorld+body))
	require.NoError(t, err)
	tr, err := engine.Run(f, knobs, 1, worlds.All())
	require.NoError(t, err)
	return tr
}

func at(s string) vtime.Time {
	t, err := vtime.ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestIntervalRunsTakeTheLastClosedInterval: a run reads the last interval
// to have closed settle= before it, or the one its line names, and keeps
// no mark.
func TestIntervalRunsTakeTheLastClosedInterval(t *testing.T) {
	body := `run load at=10:01:05
run load at=10:02:04.999
run load at=10:02:05
run load at=10:05:00 interval=10:00:00..10:00:30
`
	for _, c := range []struct {
		settle string
		want   [][2]string
	}{
		{"5s", [][2]string{{"10:00:00", "10:01:00"}, {"10:00:00", "10:01:00"}, {"10:01:00", "10:02:00"}, {"10:00:00", "10:00:30"}}},
		{"1m", [][2]string{{"09:59:00", "10:00:00"}, {"10:00:00", "10:01:00"}, {"10:00:00", "10:01:00"}, {"10:00:00", "10:00:30"}}},
	} {
		t.Run(c.settle, func(t *testing.T) {
			ht := hwm.Of(runInterval(t, body, map[string]string{"settle": c.settle}))
			require.Len(t, ht.Runs, len(c.want))
			for i, w := range c.want {
				r := ht.Runs[i]
				assert.Equal(t, at(w[0]), r.From, "run %d starts its interval", i)
				assert.Equal(t, at(w[1]), r.To, "run %d ends its interval", i)
				assert.True(t, r.Finished)
				assert.Zero(t, r.MarkStep, "an interval run stores no mark")
			}
			assert.Empty(t, ht.Marks, "an interval pipeline keeps no mark")
		})
	}
}

// TestIntervalReadIsHalfOpenAndCommitted: a run reads the committed rows
// with FROM <= updated_at < TO, in its snapshot: not the row stamped at TO,
// nor one still uncommitted, however it is stamped.
func TestIntervalReadIsHalfOpenAndCommitted(t *testing.T) {
	tr := runInterval(t, `txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:59.999 commit=10:00:59.999 insert order_id=2
txn T3 begin=10:01:00 commit=10:01:00 insert order_id=3
txn T4 begin=10:00:30 commit=10:01:30 insert order_id=4
txn T5 begin=09:59:59.999 commit=09:59:59.999 insert order_id=5
run load at=10:01:05
`, nil)
	r := hwm.Of(tr).Runs[0]
	assert.Equal(t, []string{"1", "2"}, r.Keys)
	assert.Equal(t, 2, r.SourceCount, "the source counts the same interval in the same snapshot")
	assert.ElementsMatch(t, []string{"3", "4", "5"}, tr.Final().Missing)
	var read string
	for i := range tr.Events {
		if tr.Events[i].Kind == engine.KindRead {
			read = tr.Narration(&tr.Events[i])
		}
	}
	assert.Equal(t, "load reads no mark: it selects orders where 10:00:00 <= updated_at < 10:01:00 and finds orders 1, 2.", read)
}

// TestIntervalRunsConverge: a crash halfway through the write, the retry,
// and a second worker running the same interval leave its rows in the
// target once each: the overwrite deletes the interval before inserting.
func TestIntervalRunsConverge(t *testing.T) {
	tr := runInterval(t, `txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1,2,3,4
txn T2 begin=10:01:10 commit=10:01:10 insert order_id=5
run load at=10:01:05 crash=mid-write
run load worker=A at=10:01:20 write=10:01:30
run load worker=B at=10:01:25
`, nil)
	fin := tr.Final()
	assert.Equal(t, []string{"5"}, fin.Missing, "order 5 lies in the next minute, which no run takes")
	assert.Empty(t, fin.Duplicated)
	rows := tr.TargetAt("fct_orders", tr.Steps())
	assert.Len(t, rows, 4, "orders 1 to 4 once each")
	ht := hwm.Of(tr)
	assert.True(t, ht.Runs[0].Crashed)
	assert.Equal(t, 2, ht.Runs[0].Written, "the crash left half of the interval written")
	var writes []string
	for i := range tr.Events {
		if tr.Events[i].Kind == engine.KindWrite {
			writes = append(writes, tr.Narration(&tr.Events[i]))
		}
	}
	require.Len(t, writes, 2)
	assert.Contains(t, writes[0], "load/B overwrites its interval of fct_orders with orders 1, 2, 3, 4; it first deletes what the target already holds in that interval: orders 1, 2 (written by the run at 10:01:05)")
	assert.Contains(t, writes[1], "orders 1, 2, 3, 4 (written by B's run at 10:01:25); with no mark to store, the run is done.")
}

// TestALateCommitNamesEveryRunThatReadBeforeIt: a crash's retry reads the
// interval again, and a commit after both names both runs, not the first
// alone.
func TestALateCommitNamesEveryRunThatReadBeforeIt(t *testing.T) {
	tr := runInterval(t, `txn T1 begin=10:00:50 commit=10:01:20 insert order_id=1
run load at=10:01:05 crash=mid-write
run load at=10:01:10 interval=10:00:00..10:01:00
`, nil)
	assert.Equal(t, "T1 commits at 10:01:20 as lsn 1001, making order 1 visible; its updated_at lies in 10:00:00..10:01:00, which the runs at 10:01:05 and 10:01:10 read before this commit, so only a run of that interval again copies it.", lastCommit(tr))
}

// lastCommit is the narration of tr's last commit.
func lastCommit(tr *engine.Trace) string {
	var commit string
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == engine.KindCommit {
			commit = tr.Narration(e)
		}
	}
	return commit
}

// TestALateCommitIntoATakenInterval: a row stamped inside an interval that
// commits after its run read it is missing until the interval is run
// again, the commit's narration says so, and a run that waits long enough
// takes it the first time.
func TestALateCommitIntoATakenInterval(t *testing.T) {
	body := `txn T1 begin=10:00:50 commit=10:01:30 insert order_id=1
run load at=10:01:05
run load at=10:02:05
`
	short := runInterval(t, body, nil)
	assert.Equal(t, []string{"1"}, short.Final().Missing, "a 5s settle took 10:00 before T1 committed, and never again")
	assert.Equal(t, "T1 commits at 10:01:30 as lsn 1001, making order 1 visible; its updated_at lies in 10:00:00..10:01:00, which the run at 10:01:05 read before this commit, so only a run of that interval again copies it.", lastCommit(short))

	assert.Equal(t, "Order 1 committed at 10:01:30 (lsn 1001) with updated_at 10:00:50; its updated_at lies in 10:00:00..10:01:00, which the run at 10:01:05 read before this commit, so only a run of that interval again copies it.",
		hwm.Explain(short, "1", short.Steps()), "the explanation of the missing row says the same")

	long := runInterval(t, body, map[string]string{"settle": "1m"})
	assert.Empty(t, long.Final().Missing, "a 1m settle takes 10:00 at 10:02:05, after T1 committed")

	rerun := runInterval(t, body+"run load at=10:03:00 interval=10:00:00..10:01:00\n", nil)
	assert.Empty(t, rerun.Final().Missing, "running the interval again copies the late row")
}

// TestCrashAfterAnIntervalRunsWrite: a crash point after the write comes
// past an interval run's end, which stores nothing; an injected crash
// before the write says the interval waits for a retry.
func TestCrashAfterAnIntervalRunsWrite(t *testing.T) {
	for _, crash := range []string{"after-write", "between", "after-mark"} {
		tr := runInterval(t, "txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1\nrun load at=10:01:05 crash="+crash+"\n", nil)
		assert.Empty(t, tr.Final().Missing, crash)
		last := tr.Events[len(tr.Events)-1]
		assert.Equal(t, engine.KindCrash, last.Kind, crash)
		assert.Equal(t, "load crashes after finishing its run: an interval run stores no mark, so its write was its last step; nothing is lost or repeated.", tr.Narration(&last), crash)
	}
}

// TestIntervalZeroIsAMark: interval=0s is no interval, so a knob can turn
// a pipeline with a mark into one without and back, and the mark's
// settings it pairs with interval= are not refused.
func TestIntervalZeroIsAMark(t *testing.T) {
	src := strings.Replace(intervalWorld, "settle=$settle", "mark=lsn advance=before cas=on", 1)
	src = strings.Replace(src, "interval=1m", "interval=$ivl", 1)
	src = strings.Replace(src, "knob settle = 5s | 1m", "knob ivl = 0s | 1m", 1)
	f, err := scenario.Parse("i.tdm", []byte(src+"txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1\nrun load at=10:01:05\n"))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err, "interval=0s keeps a mark, and mark= is its setting")
	require.Len(t, hwm.Of(tr).Marks, 1)
	assert.Equal(t, "lsn 1001", hwm.Of(tr).Runs[0].MarkAfter)
	tr, err = engine.Run(f, map[string]string{"ivl": "1m"}, 1, worlds.All())
	require.NoError(t, err, "the knob pairs interval= with mark=, which then has nothing to do")
	assert.Empty(t, hwm.Of(tr).Marks)
	assert.Equal(t, []string{"1"}, hwm.Of(tr).Runs[0].Keys)
	for i := range tr.Events {
		assert.NotEqual(t, engine.KindMark, tr.Events[i].Kind, "advance=before serves the mark the pipeline keeps without an interval; with one, a run writes and ends")
	}
	assert.True(t, hwm.Of(tr).Runs[0].Finished)
}

// TestIntervalKnobTakesSettle: a knob that sets interval= to 0s makes the
// pipeline an ordinary one, and the settle= beside it then serves the knob's
// other values rather than being refused.
func TestIntervalKnobTakesSettle(t *testing.T) {
	src := strings.Replace(strings.Replace(intervalWorld, "interval=1m", "interval=$iv", 1), "knob settle", "knob iv = 1m | 0s\nknob settle", 1) +
		"txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1\nrun load at=10:01:05\n"
	for _, iv := range []string{"1m", "0s"} {
		f, err := scenario.Parse("k.tdm", []byte(src))
		require.NoError(t, err)
		tr, err := engine.Run(f, map[string]string{"iv": iv, "settle": "5s"}, 1, worlds.All())
		require.NoError(t, err, "iv=%s", iv)
		assert.Empty(t, tr.Final().Missing, "iv=%s: the run copies order 1 either way", iv)
	}
}

// TestIntervalErrors: the settings of a stored mark, a target that cannot
// replace an interval, and runs, resets and intervals that mean nothing
// for the pipeline are refused where they are written.
func TestIntervalErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{intervalWorld + "run load at=00:01:04\n", "i.tdm:6:13: no interval has ended settle= before this time; expected a later one"},
		{intervalWorld + "runs load from=00:00:30 until=10:05:00 every=1m\n", "i.tdm:6:16: no interval has ended settle= before this time"},
		{intervalWorld + "run load at=10:01:05 store=10:01:06\n", "i.tdm:6:28: a pipeline with interval= keeps no mark to store; leave store= out"},
		{intervalWorld + "run load at=10:01:05 interval=10:00:00..10:00:00\n", "i.tdm:6:31: interval=10:00:00..10:00:00 is empty: FROM..TO reads FROM <= updated_at < TO; expected FROM before TO"},
		{intervalWorld + "run load at=10:00:30 interval=10:00:00..10:01:00\n", "i.tdm:6:31: interval= ends at 10:01:00, after the run's at=10:00:30: rows of an interval that has not ended are still being written; expected TO at or before at="},
		{intervalWorld + "run load at=10:01:05 interval=10:01:00..10:00:00\n", "i.tdm:6:31: expected interval=FROM..TO"},
		{intervalWorld + "reset load at=10:01:05 to=10:00:00\n", "i.tdm:6:1: a pipeline with interval= keeps no mark to reset; to read an interval again, give a run interval=FROM..TO"},
		{strings.Replace(intervalWorld, "settle=$settle", "mark=lsn", 1), "i.tdm:5:53: mark= sets up a stored mark, and a pipeline with interval= keeps none; leave it out"},
		{strings.Replace(intervalWorld, "settle=$settle", "overlap=5s", 1), "i.tdm:5:53: overlap= sets up a stored mark"},
		{strings.Replace(intervalWorld, "interval=1m", "interval=-1m", 1), "i.tdm:5:50: expected interval= to be from 0s to 24h, found \"-1m\""},
		{strings.Replace(intervalWorld, "settle=$settle", "settle=-1s", 1), "i.tdm:5:60: expected settle= to be from 0s to 24h, found \"-1s\""},
		{strings.Replace(intervalWorld, "interval=1m ", "", 1), "i.tdm:5:48: settle= is how long a run waits after an interval ends; expected interval= beside it"},
		{strings.Replace(intervalWorld, "interval=1m", "interval=24h", 1), "i.tdm:5:50: interval=24h and settle=5s add up to a day or more"},
		{strings.Replace(intervalWorld, "sink=overwrite", "sink=merge", 1), "i.tdm:5:30: a run of a pipeline with interval= replaces its interval in the target; expected a target declared sink=overwrite"},
		{world + "run extract at=10:00:05 interval=10:00:00..09:59:00\n", "b.tdm:6:34: expected interval=FROM..TO"},
		{world + "run extract at=10:01:05 interval=10:00:00..10:01:00\n", "b.tdm:6:34: interval=FROM..TO runs an interval of a pipeline declared with interval=, and pipeline extract reads from its mark; leave it out"},
	} {
		name := "i.tdm"
		if strings.HasPrefix(c.src, world) {
			name = "b.tdm"
		}
		f, err := scenario.Parse(name, []byte(c.src))
		require.NoError(t, err)
		_, err = engine.Run(f, nil, 1, worlds.All())
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
	}
}
