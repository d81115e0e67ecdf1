// Package worlds lists every world of the engine, for callers that want
// them all: the CLI, the server, tests, and a browser module for pages that
// play every kind of scenario. A module built for pages of one kind hands
// engine.Build only the worlds those pages need, and links no other.
package worlds

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
)

// All returns every world, in the order their commands are listed when a
// scenario names an unknown one.
func All() []engine.Domain {
	return []engine.Domain{hwm.Domain, logs.Domain, stream.Domain}
}
