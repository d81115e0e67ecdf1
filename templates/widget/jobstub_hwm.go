//go:build tm_hwm

package widget

import (
	"errors"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/stream"
)

// The build of the high-water-mark world alone (see wasm/worlds_hwm.go)
// runs no stream job, so it leaves the job's panel and faults out of its
// download: these stand in for jobpanel.go and jobfaults.go there.

func jobPanel(*builder, *engine.Trace, State)    {}
func jobFaultsOf(*builder, *engine.Trace, State) {}

func opsStation(*builder, *atStep, *stream.Trace) {}

func streamOrigin(*stream.Trace, string, int32, string, int) string { return "" }

func streamLegendItems(*stream.Trace, func(class, glyph, text string)) {}

func takenAt(*stream.Trace, int, int) map[int64]bool { return nil }

func movingNext(*stream.Trace, int) map[int64]bool { return nil }

// errNoJob answers a job's fault in a build without the stream world.
var errNoJob = errors.New("this build of the engine runs no stream job")

func (s *Session) jobFault(string, string) (engine.Fault, error) {
	return engine.Fault{}, errNoJob
}

func jobFaultText(engine.Fault) (string, bool) { return "", false }

func parseJobFault(*engine.Fault, string, []string) (bool, error) { return false, nil }
