package pages_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web/pages"
)

// moduleWorlds are the worlds each build of the engine's module runs, as
// wasm/worlds_*.go compose them.
var moduleWorlds = map[string][]engine.Domain{
	pages.ModuleHWM:    {hwm.Domain},
	pages.ModuleLog:    {hwm.Domain, logs.Domain},
	pages.ModuleStream: {logs.Domain, stream.Domain},
	pages.ModuleAll:    worlds.All(),
}

// TestEveryScenarioRunsTheSameInTheModuleItsPageLoads runs every bundled
// scenario, under its defaults and each value of each knob, with the worlds
// of the build its page would load, and finds the report byte for byte the
// one every world gives: a smaller build changes what is downloaded, never
// what a learner sees. Every value of a knob needs the build its default
// needs, since the page's module runs the knobs a learner flips. At least
// one scenario needs each build.
func TestEveryScenarioRunsTheSameInTheModuleItsPageLoads(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	needs := map[string]int{}
	for _, sc := range all {
		settings := []map[string]string{nil}
		for _, k := range sc.File.Knobs {
			for _, v := range k.Values {
				settings = append(settings, map[string]string{k.Name: v})
			}
		}
		page := ""
		for _, knobs := range settings {
			full, err := engine.Run(sc.File, knobs, 1, worlds.All())
			require.NoError(t, err, "%s %v", sc.ID, knobs)
			module := pages.ModuleFor(full)
			if page == "" {
				page = module // the defaults', which the page loads
			}
			assert.Equal(t, page, module, "%s %v needs another build than its page loads", sc.ID, knobs)
			needs[module]++
			small, err := engine.Run(sc.File, knobs, 1, moduleWorlds[module])
			require.NoError(t, err, "%s %v in %s", sc.ID, knobs, module)
			assert.Equal(t, reportJSON(t, full), reportJSON(t, small), "%s %v in %s", sc.ID, knobs, module)
		}
	}
	t.Logf("runs by the build their page loads: %v", needs)
	for m := range moduleWorlds {
		assert.Positive(t, needs[m], "no bundled scenario needs %s", m)
	}
	// A scenario that needs a larger build than the one given is refused
	// with the line the smaller one does not know, not run wrongly.
	sc, ok := lessons.Lookup("stream/late-data")
	require.True(t, ok)
	_, err = engine.Run(sc.File, nil, 1, moduleWorlds[pages.ModuleLog])
	require.Error(t, err)
	// So is a stream that looks up a source table, in the build of the log
	// and stream worlds.
	sc, ok = lessons.Lookup("stream/nondeterministic-replay")
	require.True(t, ok)
	_, err = engine.Run(sc.File, nil, 1, moduleWorlds[pages.ModuleStream])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "source")
}

func reportJSON(t *testing.T, tr *engine.Trace) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.NewEncoder(&b).Encode(report.Build(tr)))
	return b.String()
}

// TestModuleForBoth: a page whose widgets need two builds loads the
// smallest that runs the worlds of both; the build of the log and stream
// worlds has no source database, so a page that also shows one loads every
// world.
func TestModuleForBoth(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"", pages.ModuleHWM, pages.ModuleHWM},
		{"", pages.ModuleStream, pages.ModuleStream},
		{pages.ModuleHWM, pages.ModuleHWM, pages.ModuleHWM},
		{pages.ModuleHWM, pages.ModuleLog, pages.ModuleLog},
		{pages.ModuleLog, pages.ModuleHWM, pages.ModuleLog},
		{pages.ModuleStream, pages.ModuleStream, pages.ModuleStream},
		{pages.ModuleHWM, pages.ModuleStream, pages.ModuleAll},
		{pages.ModuleStream, pages.ModuleLog, pages.ModuleAll},
		{pages.ModuleLog, pages.ModuleAll, pages.ModuleAll},
		{pages.ModuleAll, "other.wasm", pages.ModuleAll},
	} {
		assert.Equal(t, c.want, pages.ModuleForBoth(c.a, c.b), "%q and %q", c.a, c.b)
	}
}
