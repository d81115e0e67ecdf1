//go:build js && wasm && !tm_hwm && !tm_log && !tm_stream

package main

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/worlds"
)

// module names this build of the engine's module for the page: every world.
// The sandbox, the linked embed and the pages of streams over change
// capture, or of lessons that mix the source database with a stream, load
// it (see web/pages/module.go).
const module = "tidemark.wasm"

// pageWorlds are the worlds this build runs: all of them.
func pageWorlds() []engine.Domain { return worlds.All() }
