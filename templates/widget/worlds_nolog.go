//go:build tm_hwm

package widget

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
)

// The build of the high-water-mark world alone (see wasm/worlds_hwm.go)
// runs no partitioned log, so it leaves the log's stations and tables out
// of its download: these stand in for logpanel.go there. No trace that
// build makes has a log (logs.Of is nil), so none of them is reached.

func logPanel(*builder, *engine.Trace, State)      {}
func groupStations(*builder, *atStep, *logs.Trace) {}
func logTables(*builder, *logs.Trace, State)       {}

// LogChart draws no log: the build has none.
func LogChart(*engine.Trace, int, ChartOptions) (string, float64, float64) { return "", 0, 0 }
