//go:build js && wasm && tm_stream

package main

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
)

// module names this build of the engine's module for the page: the log
// world and the stream world, without the high-water-mark world, for pages
// whose streams read topics that producers write. A stream over change
// capture needs the source database and loads the build of every world.
// The log and stream worlds reach the source only through engine.SourceOf,
// so this build links none of the high-water-mark world's commands and runs
// (see docs/performance.md, "Download: a build for the stream world").
const module = "tidemark-stream.wasm"

// pageWorlds are the worlds this build runs.
func pageWorlds() []engine.Domain { return []engine.Domain{logs.Domain, stream.Domain} }
