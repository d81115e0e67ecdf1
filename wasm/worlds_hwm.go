//go:build js && wasm && tm_hwm

package main

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
)

// module names this build of the engine's module for the page: the
// high-water-mark world alone, for pages whose scenarios use nothing else.
// Leaving the log and stream worlds out leaves their scenario lines and
// their runs out of the download (see docs/performance.md, "One module per
// set of worlds").
const module = "tidemark-hwm.wasm"

// pageWorlds are the worlds this build runs.
func pageWorlds() []engine.Domain { return []engine.Domain{hwm.Domain} }
