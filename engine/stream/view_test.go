package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/window"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// A window the chart shows as fired holds, at the end of the run, what its
// last firing of each key held: the records it counts are the ones the
// operator's state held when it fired, never a record dropped as late,
// sent to a side output or taken before a restore undid it. Every bundled
// scenario under every knob value (stream/late-replay among them, a window
// made anew after a restore), and tumbling, sliding and session windows
// failed and restored at several points of a checkpoint's life.
func TestChartCountsWhatTheLastFiringsHeld(t *testing.T) {
	type run struct {
		name  string
		f     *scenario.File
		knobs map[string]string
	}
	var runs []run
	scs, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range scs {
		for _, knobs := range sc.File.KnobSettings() {
			runs = append(runs, run{sc.ID, sc.File, knobs})
		}
	}
	const head = `scenario t/x "X"
topic orders partitions=2
producer shop to=orders key=user_id
target out sink=merge key=window
traffic shop records=90 from=10:00:00 every=700ms keys=4 amount=1..9
stream s from=orders
watermark s bound=2s
checkpoint every=10s
`
	for _, w := range []string{
		"window w from=s tumbling size=20s agg=sum to=out",
		"window w from=s sliding size=30s slide=10s agg=count lateness=5s to=out",
		"window w from=s session gap=3s agg=max to=out",
	} {
		for _, fail := range []string{
			"fail w at=10:00:17 restart=2s",
			"fail w at=10:00:41 restart=0s",
			"fail w at=10:00:33 point=snapshot restart=4s",
			"fail w at=10:00:05 restart=1s",
		} {
			runs = append(runs, run{w + "; " + fail, parse(t, head+w+"\n"+fail+"\n"), nil})
		}
	}
	checked := 0
	for _, r := range runs {
		tr, err := engine.Run(r.f, r.knobs, 1, worlds.All())
		require.NoError(t, err, r.name)
		st := stream.Of(tr)
		if st == nil {
			continue
		}
		n := tr.Steps()
		for wi, wh := range st.Windows {
			type span struct{ start, end int64 }
			held := map[span]int64{}
			seen := map[[3]int64]bool{}
			fs := st.FiringsAt(n)
			for k := len(fs) - 1; k >= 0; k-- { // the last firing of each key
				f := fs[k]
				if int(f.Op) != wi || seen[[3]int64{int64(f.Window.Start), int64(f.Window.End), int64(f.Key)}] {
					continue
				}
				seen[[3]int64{int64(f.Window.Start), int64(f.Window.End), int64(f.Key)}] = true
				held[span{int64(f.Window.Start), int64(f.Window.End)}] += f.Acc.Count
			}
			for _, w := range st.WindowsAt(wi, n, at("00:00:00"), at("23:59:59")) {
				if w.Fired == 0 {
					continue
				}
				if wh.Config.Assigner.Kind != window.Session {
					// A session's count on the chart is its firing's by
					// construction; a tumbling or sliding window's is
					// counted from the records read.
					assert.Equal(t, held[span{int64(w.Window.Start), int64(w.Window.End)}], w.Count, "%s %v: %s %v", r.name, r.knobs, wh.Name, w.Window)
				}
				checked++
			}
		}
	}
	require.Greater(t, checked, 100)
}

// A session cleared before a checkpoint is not in the state a restore
// brings back; a late record of its key, replayed after the restore (the
// watermark starts again from nothing, so it is no longer late), opens a
// new session inside the old one's bounds. The new session holds that
// record alone, and the cleared one keeps its ten: the records of the old
// session inside the new one's bounds were counted in the new one.
func TestSessionMadeAnewAfterARestoreHoldsItsOwnRecords(t *testing.T) {
	tr, st := run(t, `scenario t/x "X"
topic clicks partitions=1
producer app to=clicks key=user_id
producer phone to=clicks key=user_id
target out sink=merge key=window
traffic app records=10 from=10:00:00 every=1s keys=1
produce app at=10:01:00 key=1
offline phone at=10:00:04 until=10:01:25 backlog=send
produce phone at=10:00:05 key=1
stream s from=clicks
watermark s bound=1s
window w from=s session gap=10s to=out
checkpoint every=20s
fail w at=10:01:28 restart=2s
`)
	require.Len(t, st.Job.Restores, 1)
	restore := st.Job.Restores[0].Step
	opened := 0 // the step the replayed record opens its session at
	for _, m := range st.Merges {
		if m.Step > restore && m.From == 0 && m.Into.Start == at("10:00:05") {
			opened = int(m.Step)
		}
	}
	require.Positive(t, opened, "the replayed record opens a session")
	require.Less(t, opened, tr.Steps())
	got := map[string]int64{}
	for _, w := range st.WindowsAt(0, opened, at("09:00:00"), at("11:00:00")) {
		got[w.Window.String()] = w.Count
	}
	assert.Equal(t, map[string]int64{
		"[10:00:00, 10:00:19)": 10, // cleared at 10:01:00, before the checkpoint
		"[10:00:05, 10:00:15)": 1,  // the replayed late record alone
		"[10:01:00, 10:01:10)": 1,
	}, got)
}

// A record dropped as late, then read again after a restore whose
// watermark starts from nothing, is taken the second time: its dot is no
// longer marked late. In stream/late-replay the phone's four clicks of
// 10:01 are late at 10:02:30 and taken when they are read again after the
// restore at 10:02:37.
func TestDotShowsWhatItsLatestReadCameTo(t *testing.T) {
	sc, ok := lessons.Lookup("stream/late-replay")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	st := stream.Of(tr)
	require.Len(t, st.Job.Restores, 1)
	lateDots := func(n int) int {
		c := 0
		for _, d := range st.Dots(0, 0, n, 1000) {
			if d.Late >= 0 {
				c++
			}
		}
		return c
	}
	restore := int(st.Job.Restores[0].Step)
	assert.Equal(t, 4, lateDots(restore), "dropped as late before the failure")
	assert.Zero(t, lateDots(tr.Steps()), "taken when read again")
}

// An update whose number a restore took back says so: the state restored
// from the checkpoint counts the window's updates from there (and the
// row's version with them), so after update 5 comes update 2 again.
func TestUpdateAfterARestoreSaysItsNumberWentBack(t *testing.T) {
	sc, ok := lessons.Lookup("stream/late-replay")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, map[string]string{"lateness": "2m"}, 1, worlds.All())
	require.NoError(t, err)
	assert.Len(t, narrating(tr, "count 18 (update 2 again, as the state restored from the checkpoint counts it; before the failure it had reached update 5)"), 1)
	assert.Len(t, narrating(tr, "count 18 (update 2)"), 0, "said plainly, update 2 reads as the table's second value")
}

// A window's first firing that repeats one from before a restore says so,
// and what it fired then: made anew, when it was cleared before the
// checkpoint the restore went back to (the replayed late clicks: 4 where it
// fired 14); again, when the restore brought its state back (12 both
// times). Into a merge, the narration says the row stays.
func TestFiringAfterARestoreSaysWhatItRepeats(t *testing.T) {
	sc, ok := lessons.Lookup("stream/late-replay")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Len(t, narrating(tr, "count 4 (made anew after the restore; it fired before with 14) and writes it to clicks_per_minute, whose merge keeps the row it has"), 1)
	tr, err = engine.Run(sc.File, map[string]string{"sink": "upsert"}, 1, worlds.All())
	require.NoError(t, err)
	assert.Len(t, narrating(tr, "count 4 (made anew after the restore; it fired before with 14) and writes it to clicks_per_minute."), 1)

	tr, _ = run(t, `scenario t/refire "R"
topic clicks partitions=1
producer app to=clicks key=user_id
target out sink=merge key=minute
traffic app records=48 from=10:00:00 every=5s keys=5
stream taps from=clicks
watermark taps bound=5s
key-by taps none
window per_minute from=taps tumbling size=1m to=out
checkpoint every=60s
fail per_minute at=10:01:10 restart=2s
`)
	assert.Len(t, narrating(tr, "count 12 (again after the restore; it fired before with 12)"), 1)
	assert.Len(t, narrating(tr, "it fires [10:00:00, 10:01:00) count 12 and writes it to out."), 1, "the first firing says nothing of a restore")
}
