package pages_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
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

// runs reports whether the build of domains runs every world trace t's
// scenario has a history in.
func runs(t *engine.Trace, domains []engine.Domain) bool {
	has := func(d engine.Domain) bool {
		for _, x := range domains {
			if x == d {
				return true
			}
		}
		return false
	}
	return (hwm.Of(t) == nil || has(hwm.Domain)) && (logs.Of(t) == nil || has(logs.Domain)) && (stream.Of(t) == nil || has(stream.Domain))
}

// TestEveryScenarioRunsTheSameInTheModuleItsPageLoads runs every bundled
// scenario, under its defaults and each value of each knob, with the worlds
// of the build its page would load, and of every other build that has its
// worlds (a lesson chapter loads one build for all its widgets), and finds
// the report byte for byte the one every world gives: a smaller build
// changes what is downloaded, never what a learner sees. Every value of a knob needs the build its default
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
			require.True(t, runs(full, moduleWorlds[module]), "%s %v: %s lacks one of its worlds", sc.ID, knobs, module)
			want := reportJSON(t, full)
			for m, domains := range moduleWorlds {
				if m == pages.ModuleAll || !runs(full, domains) {
					continue
				}
				small, err := engine.Run(sc.File, knobs, 1, domains)
				require.NoError(t, err, "%s %v in %s", sc.ID, knobs, m)
				assert.Equal(t, want, reportJSON(t, small), "%s %v in %s", sc.ID, knobs, m)
			}
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

// TestPagesOfSeveralScenariosLoadTheBuildOfTheirWorlds: a page whose
// widgets run different worlds loads the smallest build that runs the
// union of their worlds, not of the builds each would load alone: a log
// scenario of producers loads the build of the source database and the log
// by itself, but beside a stream the build of the log and stream worlds
// runs it, without the source database.
func TestPagesOfSeveralScenariosLoadTheBuildOfTheirWorlds(t *testing.T) {
	worldsOf := func(id string) pages.Worlds {
		t.Helper()
		sc, ok := lessons.Lookup(id)
		require.True(t, ok, id)
		tr, err := engine.Run(sc.File, nil, 1, worlds.All())
		require.NoError(t, err, id)
		return pages.WorldsOf(tr)
	}
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{nil, pages.ModuleHWM},
		{[]string{"hwm/visibility-gap"}, pages.ModuleHWM},
		{[]string{"dist/partition-change"}, pages.ModuleLog},
		{[]string{"hwm/visibility-gap", "dist/partition-change"}, pages.ModuleLog},
		{[]string{"stream/late-data"}, pages.ModuleStream},
		{[]string{"dist/partition-change", "stream/late-data"}, pages.ModuleStream},
		{[]string{"dist/dual-write", "stream/late-data"}, pages.ModuleAll},
		{[]string{"hwm/visibility-gap", "stream/late-data"}, pages.ModuleAll},
		{[]string{"stream/nondeterministic-replay"}, pages.ModuleAll},
	} {
		var w pages.Worlds
		for _, id := range c.ids {
			w |= worldsOf(id)
		}
		assert.Equal(t, c.want, w.Module(), "%v", c.ids)
	}
}

// TestWorldsOfCommandsAgreesWithTheRun: the worlds a text's commands name,
// which is all a linked embed's script can tell before it has an engine
// (see pages.Picker), are the worlds its run has a history in, for every
// bundled scenario under every value of its knobs; so the build a link
// picks is the build its scenario's page loads.
func TestWorldsOfCommandsAgreesWithTheRun(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		settings := []map[string]string{nil}
		for _, k := range sc.File.Knobs {
			for _, v := range k.Values {
				settings = append(settings, map[string]string{k.Name: v})
			}
		}
		for _, knobs := range settings {
			tr, err := engine.Run(sc.File, knobs, 1, worlds.All())
			require.NoError(t, err, "%s %v", sc.ID, knobs)
			assert.Equal(t, pages.WorldsOf(tr), pages.WorldsOfCommands(sc.File), "%s %v", sc.ID, knobs)
		}
	}
}

// TestLinkedEmbedPicksItsBuildInTheBrowser: the page of a scenario carried
// in a link preloads no build, since only the browser reads the text; it
// names the build of every world and marks the element to wait for
// share.js's choice, and carries the picker: every command a scenario's
// line may start with, with the world it belongs to, and every build,
// smallest first, named by a file that lies beside the build it names.
func TestLinkedEmbedPicksItsBuildInTheBrowser(t *testing.T) {
	needModules(t)
	h, d := linkedEmbedPage(t)
	assert.Empty(t, htmltest.All(d.Root, func(n *html.Node) bool { return n.Data == "link" && htmltest.Attr(n, "rel") == "preload" }),
		"the page cannot know its build before the browser reads the text")
	hosts := htmltest.All(d.Root, func(n *html.Node) bool { return htmltest.HasAttr(n, "data-tidemark-wasm") })
	require.Len(t, hosts, 1)
	host := hosts[0]
	all, ok := pages.ModuleURL(pages.ModuleAll)
	require.True(t, ok)
	assert.Equal(t, all, htmltest.Attr(host, "data-tidemark-wasm"))
	assert.True(t, htmltest.HasAttr(host, "data-tidemark-wait"))

	var picker struct {
		Commands map[string]pages.Worlds
		Builds   []struct {
			File   string
			Worlds pages.Worlds
		}
	}
	require.NoError(t, json.Unmarshal([]byte(htmltest.Attr(host, "data-tidemark-builds")), &picker))
	for _, d := range worlds.All() {
		for _, c := range d.Commands() {
			assert.NotZero(t, picker.Commands[c], "the picker does not know %s's world", c)
		}
	}
	for _, c := range append([]string{"scenario", "about", "knob"}, engine.CoreCommands...) {
		w, ok := picker.Commands[c]
		assert.True(t, ok && w == 0, "%s belongs to no world, and every build reads it", c)
	}
	var names []string
	for _, b := range picker.Builds {
		u := path.Dir(all) + "/" + b.File
		name, _, _ := strings.Cut(b.File, ".")
		names = append(names, name+".wasm")
		assert.Equal(t, name+".wasm", b.Worlds.Module(), "%s is said to run the worlds of another build", b.File)
		code, _ := do(h, httptest.NewRequest(http.MethodGet, u, nil))
		assert.Equal(t, http.StatusOK, code.Code, "%s is not served beside the build of every world", u)
	}
	assert.Equal(t, []string{pages.ModuleHWM, pages.ModuleLog, pages.ModuleStream, pages.ModuleAll}, names, "smallest first")
}

// TestLinkedEmbedWithoutScripts: without scripts the linked embed says it
// needs them, and nothing else: no "Opening…" line that never resolves,
// and no link to the sandbox, which only a script can give the scenario
// the page's address carries (share.js shows both).
func TestLinkedEmbedWithoutScripts(t *testing.T) {
	_, d := linkedEmbedPage(t)
	loading := htmltest.All(d.Root, func(n *html.Node) bool { return htmltest.Attr(n, "class") == "linked-loading" })
	require.Len(t, loading, 1)
	assert.True(t, htmltest.HasAttr(loading[0], "hidden"))
	credit := d.One(t, "linked-open").Parent
	assert.True(t, htmltest.HasAttr(credit, "hidden"))
	noscript := htmltest.All(d.Root, func(n *html.Node) bool { return n.Data == "noscript" })
	require.Len(t, noscript, 1)
	assert.Contains(t, htmltest.Text(noscript[0]), "so it needs JavaScript")
}

// linkedEmbedPage is the page of a linked scenario's embed, /embed/, as the
// site serves it, and the site's handler.
func linkedEmbedPage(t *testing.T) (http.Handler, htmltest.Doc) {
	t.Helper()
	cat, err := pages.Catalog()
	require.NoError(t, err)
	h, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	code, d := get(t, h, "/embed/")
	require.Equal(t, http.StatusOK, code)
	return h, d
}
