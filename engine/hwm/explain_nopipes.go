//go:build tm_stream

package hwm

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
)

// The build of the log and stream worlds (wasm/worlds_stream.go) runs no
// high-water-mark world, so a trace it makes has no pipelines, marks or
// runs, and Explain's questions about them (explain_pipes.go) have no
// answer there: these stand in for them, give the answers that an empty
// world gives, and keep the code that reads them out of that build's
// download.

func (t *Trace) readBy(string, string, engine.VersionRecord, int) string { return "" }

func (t *Trace) pipeFor(string) *extract.Config { return nil }

func (t *Trace) passedBy(string, engine.VersionRecord) (*extract.Config, extract.Mark, bool) {
	return nil, extract.Mark{}, false
}

func (t *Trace) lostBy(string, engine.VersionRecord, int) string { return "" }

func (t *Trace) readBefore(string, engine.VersionRecord) string { return "" }
