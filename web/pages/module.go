package pages

import (
	"encoding/json"
	"path"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
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

// commandWorlds maps each command a scenario's line may start with to the
// world that reads it, and the header's and the core's commands to none
// (0): every build reads those.
func commandWorlds() map[string]Worlds {
	m := map[string]Worlds{"scenario": 0, "about": 0, "knob": 0}
	for _, c := range engine.CoreCommands {
		m[c] = 0
	}
	for _, w := range []struct {
		d     engine.Domain
		world Worlds
	}{{hwm.Domain, worldHWM}, {logs.Domain, worldLog}, {stream.Domain, worldStream}} {
		for _, c := range w.d.Commands() {
			m[c] = w.world
		}
	}
	return m
}

// WorldsOfCommands returns the worlds whose commands f's lines name, which
// is what a page that has only the scenario's text, not its run, can tell
// (the linked embed, whose script reads the text from the address; see
// Picker). A test holds it equal to WorldsOf for every bundled scenario.
func WorldsOfCommands(f *scenario.File) Worlds {
	known := commandWorlds()
	var w Worlds
	for _, c := range f.Commands {
		w |= known[c.Name]
	}
	return w
}

// Picker returns what a page that picks its build in the browser carries
// (web/static/share.js reads it, as data-tidemark-builds): the world each
// command belongs to, as a bit of Worlds, and the file and worlds of each
// build that exists, from the smallest download to the largest. The script
// ORs the worlds of the words that start the text's lines and loads the
// first build that has them all; a word it does not know (a typo, which
// the engine refuses and names its commands) takes the build of every
// world, whose refusal lists them all. A build is named by its hashed file
// alone, which the script finds beside the build the page names in
// data-tidemark-wasm: a static copy served under a path rewrites that
// address (web/export), and a JSON of addresses would escape it.
func Picker() string {
	type build struct {
		File   string `json:"file"`
		Worlds Worlds `json:"worlds"`
	}
	p := struct {
		Commands map[string]Worlds `json:"commands"`
		Builds   []build           `json:"builds"`
	}{Commands: commandWorlds()}
	for _, m := range modules {
		if u, ok := web.LookupAsset(m.name); ok {
			p.Builds = append(p.Builds, build{path.Base(u), m.worlds})
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // a map of strings to numbers and a list of them always marshal
	}
	return string(b)
}
