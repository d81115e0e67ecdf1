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

// The worlds a build runs, as a set of bits.
const (
	worldHWM = 1 << iota
	worldLog
	worldStream
	worldsAll = worldHWM | worldLog | worldStream
)

// modules lists the builds from the smallest download to the largest, with
// the worlds each runs.
var modules = [...]struct {
	name   string
	worlds int
}{
	{ModuleHWM, worldHWM},
	{ModuleLog, worldHWM | worldLog},
	{ModuleStream, worldLog | worldStream},
	{ModuleAll, worldsAll},
}

// smallestModule names the smallest build that runs every world in
// worlds.
func smallestModule(worlds int) string {
	for _, m := range modules {
		if worlds&^m.worlds == 0 {
			return m.name
		}
	}
	return ModuleAll
}

// worldsOf returns the worlds build name runs; an unknown name, or none,
// runs none (the caller adds what it knows a page needs).
func worldsOf(name string) int {
	for _, m := range modules {
		if m.name == name {
			return m.worlds
		}
	}
	if name == "" {
		return 0
	}
	return worldsAll
}

// ModuleFor names the smallest build that runs trace t's scenario: t's
// worlds are those with a history in it (a world none of the scenario's
// lines named keeps none).
func ModuleFor(t *engine.Trace) string {
	var worlds int
	if hwm.Of(t) != nil {
		worlds |= worldHWM
	}
	if logs.Of(t) != nil {
		worlds |= worldLog
	}
	if stream.Of(t) != nil {
		worlds |= worldStream
	}
	return smallestModule(worlds)
}

// ModuleForBoth names the smallest build that runs every world builds a
// and b run, for a page whose widgets need both: a page with a widget of
// the high-water-mark world and one of a stream loads every world. An
// empty name adds no world (a page starts from it); an unknown one counts
// as every world.
func ModuleForBoth(a, b string) string {
	return smallestModule(worldsOf(a) | worldsOf(b))
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
