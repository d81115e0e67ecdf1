package pages

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/web"
)

// The engine's module is built once per nested set of worlds (`make wasm`,
// wasm/worlds_*.go): a page loads the smallest build that runs every
// scenario on it, so a learner of the high-water mark does not download the
// log and stream worlds. The sets nest (the log world captures changes from
// the high-water-mark world's source, and the stream world reads the log's
// topics), so the builds are ordered and a page with several widgets takes
// the largest any of them needs.
const (
	// ModuleHWM runs the high-water-mark world alone.
	ModuleHWM = "tidemark-hwm.wasm"
	// ModuleLog runs the high-water-mark and log worlds.
	ModuleLog = "tidemark-log.wasm"
	// ModuleAll runs every world: the sandbox and links to an author's own
	// text, which may use any, load it.
	ModuleAll = "tidemark.wasm"
)

// moduleOrder lists the builds from the smallest to the largest set of worlds.
var moduleOrder = [...]string{ModuleHWM, ModuleLog, ModuleAll}

// ModuleFor names the smallest build that runs trace t's scenario: t's
// worlds are those with a history in it (a world none of the scenario's
// lines named keeps none).
func ModuleFor(t *engine.Trace) string {
	switch {
	case stream.Of(t) != nil:
		return ModuleAll
	case logs.Of(t) != nil:
		return ModuleLog
	}
	return ModuleHWM
}

// LargerModule returns whichever of builds a and b runs more worlds; an
// unknown name counts as every world.
func LargerModule(a, b string) string {
	rank := func(m string) int {
		for i, x := range moduleOrder {
			if x == m {
				return i
			}
		}
		return len(moduleOrder)
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// ModuleURL returns the hashed address of build name, or of the build of
// every world when name was not built (a development tree where only
// tidemark.wasm is), and false when no module is built at all.
func ModuleURL(name string) (string, bool) {
	if u, ok := web.LookupAsset(name); ok {
		return u, true
	}
	return web.LookupAsset(ModuleAll)
}
