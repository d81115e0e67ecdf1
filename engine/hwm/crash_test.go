package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestCrashAfterTheRunFinished: a crash point that comes after the last of
// the pipeline's phases (after-write when the mark is stored first,
// after-mark when it is stored last or with the write) is not silently
// dropped: the run finishes, then the trace says it crashed and that
// nothing is lost or repeated.
func TestCrashAfterTheRunFinished(t *testing.T) {
	const src = `scenario test/crash "Crash points past a run's end"
knob advance = before | after | atomic
knob crash = after-write | after-mark
source orders key=order_id
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders advance=$advance
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2
run extract at=10:00:02 crash=$crash
txn T2 begin=10:00:03 commit=10:00:03 insert order_id=3
run extract at=10:00:05
`
	for _, c := range []struct{ advance, crash, last string }{
		{"before", "after-write", "with advance=before writing is its last step"},
		{"after", "after-mark", "with advance=after storing the mark is its last step"},
		{"atomic", "after-mark", "with advance=atomic the rows and the mark are stored in one transaction"},
	} {
		t.Run(c.advance+"/"+c.crash, func(t *testing.T) {
			f, err := scenario.Parse("c.tdm", []byte(src))
			require.NoError(t, err)
			tr, err := engine.Run(f, map[string]string{"advance": c.advance, "crash": c.crash}, 1, worlds.All())
			require.NoError(t, err)
			var crashes []engine.Event
			step := 0 // the crash's step
			for i, e := range tr.Events {
				if e.Kind == engine.KindCrash {
					crashes = append(crashes, e)
					step = i + 1
				}
			}
			require.Len(t, crashes, 1, "the crash is in the trace")
			e := crashes[0]
			assert.EqualValues(t, 0, e.Run, "it is the first run's crash")
			text := tr.Narration(&e)
			assert.Contains(t, text, "extract crashes after finishing its run")
			assert.Contains(t, text, c.last)
			assert.Contains(t, text, "nothing is lost or repeated")
			r := hwm.Of(tr).Runs[0]
			assert.True(t, r.Finished, "the run had finished")
			assert.False(t, r.Crashed, "no phase was cut short")
			assert.Equal(t, 2, r.Written)
			assert.Equal(t, step-1, r.EndStep, "the run had ended at its last phase, just before")
			truth := tr.Final()
			assert.Empty(t, truth.Missing)
			assert.Empty(t, truth.Duplicated)
		})
	}
}

// TestCrashInsideTheRun: a crash point inside the run's phases still cuts
// it short (the narrated case above is only for points past its end).
func TestCrashInsideTheRun(t *testing.T) {
	src := world + `txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
run extract at=10:00:02 crash=after-write
`
	f, err := scenario.Parse("c.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	r := hwm.Of(tr).Runs[0]
	assert.True(t, r.Crashed)
	assert.False(t, r.Finished)
}

// TestCrashMidWriteSaysWhatArrived: a crash in the middle of a write names
// the rows written and the count read, in words that fit a run that read
// nothing, one row, two rows or more.
func TestCrashMidWriteSaysWhatArrived(t *testing.T) {
	for _, c := range []struct{ keys, want string }{
		{"", "extract crashes mid-write at 10:00:02: it had read nothing, so nothing is lost or repeated."},
		{"insert order_id=1", "extract crashes mid-write at 10:00:02 before the one order it read reaches fct_orders; it never arrives."},
		{"insert order_id=1,2", "extract crashes mid-write at 10:00:02 after writing 1 of the 2 orders it read into fct_orders (order 1); the last never arrives."},
		{"insert order_id=1..5", "extract crashes mid-write at 10:00:02 after writing 2 of the 5 orders it read into fct_orders (orders 1, 2); the rest never arrive."},
	} {
		t.Run(c.keys, func(t *testing.T) {
			src := `scenario test/mid "A crash mid-write"
source orders key=order_id
target fct_orders sink=append key=order_id
pipeline extract from=orders to=fct_orders mark=lsn
`
			if c.keys != "" {
				src += "txn T1 begin=10:00:00 commit=10:00:00 " + c.keys + "\n"
			}
			src += "run extract at=10:00:02 crash=mid-write\n"
			assert.Equal(t, []string{c.want}, crashNarrations(t, src))
		})
	}
}

// TestCrashMidOverwriteSaysWhatItDeleted: a run that overwrites an
// interval deletes the target's rows of it first, and its crash mid-write
// says so before the rows it put back, even when it had read nothing.
func TestCrashMidOverwriteSaysWhatItDeleted(t *testing.T) {
	const world = `scenario test/mid "A crash mid-overwrite"
source orders key=order_id updated_at=txn-start
target fct_orders sink=overwrite key=order_id
pipeline load from=orders to=fct_orders interval=1m
txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1,2,3
run load at=10:01:05
`
	for _, c := range []struct{ line, want string }{
		{"run load at=10:01:10 interval=10:00:00..10:01:00 crash=mid-write",
			"load crashes mid-write at 10:01:10 after deleting what fct_orders held in that interval: orders 1, 2, 3 (written by the run at 10:01:05); it wrote 1 of the 3 orders it read (order 1), and the rest never arrive."},
		{"txn T2 begin=10:01:06 commit=10:01:06 delete order_id=1,2,3\nrun load at=10:01:10 interval=10:00:00..10:01:00 crash=mid-write",
			"load crashes mid-write at 10:01:10 after deleting what fct_orders held in that interval: orders 1, 2, 3 (written by the run at 10:01:05); it had read nothing to put back, so the interval is left as a finished run would leave it."},
	} {
		assert.Equal(t, []string{c.want}, crashNarrations(t, world+c.line+"\n"))
	}
}

// crashNarrations runs scenario src and returns the narration of each of
// its crashes, in order.
func crashNarrations(t *testing.T, src string) []string {
	t.Helper()
	f, err := scenario.Parse("m.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	var crashes []string
	for i := range tr.Events {
		if tr.Events[i].Kind == engine.KindCrash {
			crashes = append(crashes, tr.Narration(&tr.Events[i]))
		}
	}
	return crashes
}

// TestResetSaysWhichWay: an operator's reset that moves the mark forward
// says what will never be read; one back (or to none) that the range is
// read again; one to the value it holds that nothing changes.
func TestResetSaysWhichWay(t *testing.T) {
	src := `scenario test/reset "Resets"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
run extract at=10:00:02
txn T2 begin=10:00:05 commit=10:00:05 insert order_id=2
reset extract at=10:00:06 to=10:00:30
reset extract at=10:00:07 to=10:00:30
reset extract at=10:00:08 to=10:00:01
reset extract at=10:00:09 to=none
reset extract at=10:00:10 to=10:00:03
run extract at=10:00:40
`
	f, err := scenario.Parse("r.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	var resets []string
	for i := range tr.Events {
		if tr.Events[i].Kind == engine.KindReset {
			resets = append(resets, tr.Narration(&tr.Events[i]))
		}
	}
	assert.Equal(t, []string{
		"An operator resets extract from 10:00:02 to 10:00:30; it moves forward, so whatever lies after 10:00:02 and up to 10:00:30 is never read.",
		"An operator resets extract from 10:00:30 to 10:00:30; the mark already held that value, so nothing changes.",
		"An operator resets extract from 10:00:30 to 10:00:01; the next run re-reads everything after it, which is safe only if the write is idempotent.",
		"An operator resets extract from 10:00:01 to none; the next run reads everything from the beginning again, which is safe only if the write is idempotent.",
		"An operator sets extract, which held no mark, to 10:00:03; the next run starts after 10:00:03 instead of from the beginning, so whatever lies up to it is never read.",
	}, resets)
}

// TestCrashWithoutAPipeline: a crash fault (from a link) in a scenario with
// a source but no extractor says there is no run to stop, not that none is
// in flight "at this step", which sent a reader stepping for one.
func TestCrashWithoutAPipeline(t *testing.T) {
	const src = `scenario test/nopipe "A source and a topic"
source orders key=order_id
topic changes partitions=1
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2
txn T2 begin=10:00:03 commit=10:00:03 insert order_id=3
`
	f, err := scenario.Parse("c.tdm", []byte(src))
	require.NoError(t, err)
	_, err = engine.RunWithFaults(f, nil, 1, worlds.All(), []engine.Fault{{AfterStep: 2, Kind: hwm.FaultCrash}})
	require.ErrorIs(t, err, hwm.ErrNoPipeline)
	assert.Contains(t, err.Error(), "runs no extractor")
}
