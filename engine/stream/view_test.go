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

// knobCombos is every combination of f's knob values (nil for a file
// without knobs).
func knobCombos(f *scenario.File) []map[string]string {
	combos := []map[string]string{nil}
	for _, k := range f.Knobs {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range k.Values {
				m := map[string]string{k.Name: v}
				for a, b := range c {
					m[a] = b
				}
				next = append(next, m)
			}
		}
		combos = next
	}
	return combos
}

// A window the chart shows as fired holds, at the end of the run, what its
// last firing of each key held: the records it counts are the ones the
// operator's state held when it fired, never a record dropped as late,
// sent to a side output or taken before a restore undid it. Every bundled
// scenario under every knob value, and tumbling, sliding and session
// windows failed and restored at several points of a checkpoint's life.
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
		for _, knobs := range knobCombos(sc.File) {
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
