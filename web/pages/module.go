package pages

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/web"
)

// The engine's module is built once per set of worlds (`make wasm`,
// wasm/worlds_*.go): a page loads the smallest build that runs every
// scenario on it, so a learner of the high-water mark does not download the
// log and stream worlds, nor a learner of streams the source database. The
// log world captures changes from the high-water-mark world's source, and
// the stream world reads the log's topics, so every build with the stream
// world has the log world too.
const (
	// ModuleHWM runs the high-water-mark world alone.
	ModuleHWM = "tidemark-hwm.wasm"
	// ModuleLog runs the high-water-mark and log worlds.
	ModuleLog = "tidemark-log.wasm"
	// ModuleStream runs the log and stream worlds: streams over topics that
	// producers write, without the source database.
	ModuleStream = "tidemark-stream.wasm"
	// ModuleAll runs every world: the sandbox and links to an author's own
	// text, which may use any, load it, and so do streams over change
	// capture and pages that mix the source database with a stream.
	ModuleAll = "tidemark.wasm"
)

// Worlds is a set of the engine's worlds, as bits: those a build runs, or
// those a page's scenarios need.
type Worlds uint8

// The worlds, one bit each.
const (
	worldHWM Worlds = 1 << iota
	worldLog
	worldStream
	worldsAll = worldHWM | worldLog | worldStream
)

// modules lists the builds from the smallest download to the largest, with
// the worlds each runs.
var modules = [...]struct {
	name   string
	worlds Worlds
}{
	{ModuleHWM, worldHWM},
	{ModuleLog, worldHWM | worldLog},
	{ModuleStream, worldLog | worldStream},
	{ModuleAll, worldsAll},
}

// Module names the smallest build that runs every world in w; an empty set
// needs the smallest build.
func (w Worlds) Module() string {
	for _, m := range modules {
		if w&^m.worlds == 0 {
			return m.name
		}
	}
	return ModuleAll
}

// WorldsOf returns the worlds trace t's scenario runs: those with a history
// in t (a world none of the scenario's lines named keeps none).
func WorldsOf(t *engine.Trace) Worlds {
	var w Worlds
	if hwm.Of(t) != nil {
		w |= worldHWM
	}
	if logs.Of(t) != nil {
		w |= worldLog
	}
	if stream.Of(t) != nil {
		w |= worldStream
	}
	return w
}

// ModuleFor names the smallest build that runs trace t's scenario.
//
// A page with several widgets loads one build for all of them, chosen from
// the union of their scenarios' worlds (WorldsOf), not of the builds each
// would load alone: a widget of producers and a log needs the log world,
// which the build of the log and stream worlds runs, though alone it loads
// the build of the source database and the log (ModuleLog), the smaller
// download.
func ModuleFor(t *engine.Trace) string { return WorldsOf(t).Module() }

// ModuleURL returns the hashed address of build name, or of the build of
// every world when name was not built (a development tree where only
// tidemark.wasm is), and false when no module is built at all.
func ModuleURL(name string) (string, bool) {
	if u, ok := web.LookupAsset(name); ok {
		return u, true
	}
	return web.LookupAsset(ModuleAll)
}
