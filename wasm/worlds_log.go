//go:build js && wasm && tm_log

package main

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
)

// module names this build of the engine's module for the page: the
// high-water-mark world and the log world (which captures changes from the
// first), for pages of log scenarios without a stream.
const module = "tidemark-log.wasm"

// pageWorlds are the worlds this build runs.
func pageWorlds() []engine.Domain { return []engine.Domain{hwm.Domain, logs.Domain} }
