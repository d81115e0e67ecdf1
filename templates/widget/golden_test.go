package widget_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/templates/widget"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// lines breaks the widget's one-line HTML between tags, so that a drawing
// change shows up in review as a readable diff of a few lines.
func lines(s string) string { return strings.ReplaceAll(s, "><", ">\n<") + "\n" }

// TestGolden pins the widget's HTML at one step of the opening scenario (the
// step where T3 commits below the mark and order 3 goes missing) and at the
// end of a crash fork compared with its original. Run
//
//	go test ./templates/widget -run TestGolden -update
//
// after a deliberate drawing change, and review the diff of testdata/.
func TestGolden(t *testing.T) {
	orig := run(t, "hwm/advance-order", map[string]string{"advance": "after", "sink": "append", "crash": "none"})
	fork, err := engine.RunWithFaults(bundled(t, "hwm/advance-order"), orig.Settings, 1, worlds.All(), []engine.Fault{{AfterStep: hwm.Of(orig).Runs[1].WriteStep, Kind: hwm.FaultCrash}})
	require.NoError(t, err)
	for _, tc := range []struct {
		file string
		html string
	}{
		{"visibility-gap-step14.html", widget.Render(run(t, "hwm/visibility-gap", nil),
			widget.State{Step: 14, ShowTruth: true, BasePath: gapBase})},
		{"advance-order-fork-end.html", widget.Stage(fork,
			widget.State{Step: fork.Steps(), ShowTruth: true, Original: orig, Live: true, BasePath: "/scenarios/hwm/advance-order"})},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			got := lines(tc.html)
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden file; run go test ./templates/widget -run TestGolden -update")
			assert.Equal(t, string(want), got, "the widget's HTML changed; if on purpose, run go test ./templates/widget -run TestGolden -update and review testdata/")
		})
	}
}
