//go:build tm_hwm || tm_log

package widget

import (
	"errors"

	"github.com/tidemark/tidemark/engine"
)

// The builds of the engine's module without the stream world (see
// wasm/worlds_hwm.go and wasm/worlds_log.go) run no stream and no stream
// job, so they leave its chart, panels and faults out of their download:
// these stand in for worlds_stream.go, streamchart.go, jobpanel.go and
// jobfaults.go there. No trace such a build makes has a stream.

func hasStream(*engine.Trace) bool { return false }

func transactionKeys(*engine.Trace, string, int) map[string]bool { return nil }

// streamDrawing keeps nothing in a build without the stream world.
type streamDrawing struct{}

func streamWhy(*engine.Trace, string, int) (head, why string, ok bool) { return "", "", false }

func streamStation(*builder, *atStep)             {}
func streamList(*builder, *atStep)                {}
func streamFaults(*builder, *engine.Trace, State) {}
func jobPanel(*builder, *engine.Trace, State)     {}
func jobFaultsOf(*builder, *engine.Trace, State)  {}

func hasOps(*engine.Trace) bool                                        { return false }
func opsStation(*builder, *atStep)                                     {}
func rowOrigin(*engine.Trace, string, int32, string, int) string       { return "" }
func streamLegendItems(*engine.Trace, func(class, glyph, text string)) {}

// errNoStream answers a fault of the stream world in a build without it.
var errNoStream = errors.New("this build of the engine runs no stream, so there is no partition to stall or delay")

func (s *Session) stallOrDelay(f engine.Fault, _, _ string) (engine.Fault, error) {
	return f, errNoStream
}

// errNoJob answers a job's fault in a build without the stream world.
var errNoJob = errors.New("this build of the engine runs no stream job")

func (s *Session) jobFault(string, string) (engine.Fault, error) {
	return engine.Fault{}, errNoJob
}

func jobFaultText(engine.Fault) (string, bool) { return "", false }

func parseJobFault(*engine.Fault, string, []string) (bool, error) { return false, nil }

// StreamChart draws nothing in a build without the stream world, where no
// trace has a stream; the picture package calls it for every trace.
func StreamChart(*engine.Trace, int, ChartOptions) (svg string, width, height float64) {
	return "", 0, 0
}

// StreamText says nothing in a build without the stream world.
func StreamText(*engine.Trace, int) []string { return nil }
