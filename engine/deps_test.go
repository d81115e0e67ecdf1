package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This file enforces the import rules of docs/architecture.md ("Who may
// import whom"), after the Go toolchain's own go/build/deps_test.go: policy
// tables, not lists of exceptions. There are two.
//
// The first, policy, says what whole folders must not import. Some things
// are forbidden as direct imports only: the standard library's fmt itself
// imports os, sync, syscall and time, so "engine must not read the wall
// clock" can only mean engine code never imports time itself. Others are
// forbidden anywhere in the dependency graph: nothing the engine pulls in,
// however indirectly, may reach the network, the JavaScript bridge or templ.
//
// The second, layers, places every package of the engine in a layer and
// says which it may import: the rule packages, the core, the worlds and
// what reads their traces.

const module = "github.com/tidemark/tidemark"

// rule is one row of the policy.
type rule struct {
	// who is a package pattern relative to the module root: "engine/..."
	// means engine and everything under it.
	who string
	// direct lists packages (or "prefix/..." families) the governed packages
	// must not import themselves.
	direct []string
	// anywhere lists packages that must not appear among their transitive
	// dependencies.
	anywhere []string
	// outside, when set, forbids importing any package of this module that
	// does not itself match who.
	outside bool
	why     string
}

var policy = []rule{
	{
		who: "engine/...",
		direct: []string{
			"os", "os/...", "net", "net/...", "syscall", "syscall/...",
			"time", "math/rand", "sync", "sync/...", "unsafe", "runtime", "log", "log/...",
			"github.com/a-h/templ", "github.com/a-h/templ/...",
		},
		anywhere: []string{
			"net", "net/...", "os/exec", "syscall/js", "math/rand",
			"github.com/a-h/templ", "github.com/a-h/templ/...",
		},
		outside: true,
		why:     "the engine is pure and caller-driven: no I/O, no wall clock, no global random, no goroutines, no templ, nothing outside engine/",
	},
	{
		who:      "lessons/...",
		direct:   []string{"net/http", "net/http/...", "syscall/js"},
		anywhere: []string{"net/http", "syscall/js"},
		why:      "lessons are content and a catalog, loadable by the CLI, the server and the wasm module",
	},
	{
		who: "templates/...",
		// The templ runtime itself imports net/http, so the rule can only
		// hold for what templates import directly.
		direct:   []string{"net/http", "net/http/...", "syscall/js"},
		anywhere: []string{"syscall/js"},
		why:      "templates take plain view structs; serving HTTP belongs to web/",
	},
}

// listed is the part of `go list -json` the policy reads.
type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// matches reports whether pkg is pattern, or under it when pattern ends in /...
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func goList(t *testing.T, root string, patterns ...string) []listed {
	t.Helper()
	goBin := goCommand(t)
	args := append([]string{"list", "-e", "-json=ImportPath,Imports,Deps"}, patterns...)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list failed: %s", stderr.String())
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		err := dec.Decode(&p)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// violations applies the policy to the listed packages and describes every
// broken rule as "package imports X (rule: why)".
func violations(pkgs []listed) []string {
	var out []string
	for _, r := range policy {
		self := module + "/" + r.who
		for _, p := range pkgs {
			if !matches(self, p.ImportPath) {
				continue
			}
			for _, imp := range p.Imports {
				for _, bad := range r.direct {
					if matches(bad, imp) {
						out = append(out, fmt.Sprintf("%s imports %s, which %s must not import directly (%s)", p.ImportPath, imp, r.who, r.why))
						break
					}
				}
				if r.outside && matches(module+"/...", imp) && !matches(self, imp) {
					out = append(out, fmt.Sprintf("%s imports %s, outside %s (%s)", p.ImportPath, imp, r.who, r.why))
				}
			}
			for _, dep := range p.Deps {
				for _, bad := range r.anywhere {
					if matches(bad, dep) {
						out = append(out, fmt.Sprintf("%s depends on %s, which %s must not reach even indirectly (%s)", p.ImportPath, dep, r.who, r.why))
						break
					}
				}
			}
		}
	}
	return out
}

func TestImportPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	var patterns []string
	for _, r := range policy {
		patterns = append(patterns, "./"+r.who)
	}
	pkgs := goList(t, "..", patterns...)
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.ImportPath] = true
	}
	// The rules must govern something, or a renamed folder would pass silently.
	require.True(t, seen[module+"/engine"], "go list found no engine package")
	require.True(t, seen[module+"/engine/scenario"], "go list found no engine/scenario package")
	require.True(t, seen[module+"/lessons"], "go list found no lessons package")
	if v := violations(pkgs); len(v) > 0 {
		t.Errorf("import policy broken (see docs/architecture.md, \"Who may import whom\"):\n  %s", strings.Join(v, "\n  "))
	}
}

// TestImportPolicyCatches makes sure the policy check itself can fail: a
// fabricated engine package importing os and the lessons package must be
// reported with both names.
func TestImportPolicyCatches(t *testing.T) {
	pkgs := []listed{
		{ImportPath: module + "/engine/bad", Imports: []string{"fmt", "os", module + "/lessons"}, Deps: []string{"fmt", "os", "net/http"}},
		{ImportPath: module + "/engine/good", Imports: []string{"fmt", module + "/engine/vtime"}, Deps: []string{"fmt", "os", "sync", "time"}},
		{ImportPath: module + "/templates", Imports: []string{"github.com/a-h/templ"}, Deps: []string{"net/http"}},
		{ImportPath: module + "/lessons", Imports: []string{"embed"}, Deps: []string{"syscall/js"}},
	}
	v := violations(pkgs)
	joined := strings.Join(v, "\n")
	require.Contains(t, joined, "engine/bad imports os,")
	require.Contains(t, joined, "engine/bad imports "+module+"/lessons, outside engine/...")
	require.Contains(t, joined, "engine/bad depends on net/http")
	require.Contains(t, joined, module+"/lessons depends on syscall/js")
	require.NotContains(t, joined, "engine/good")
	require.NotContains(t, joined, module+"/templates ")
	require.Len(t, v, 4)
}

// layers places every package of the engine and says what it may import,
// in the notation of go/build/deps_test.go: "a, b < c, d" lets c and d
// import a and b and everything a and b may import; packages on the same
// side of a "<" may not import each other unless a line says so. A package
// of the engine that no line names is a failure, so a new package is placed
// on purpose. Paths are relative to the module; the standard library is
// governed by policy above, not here.
const layers = `
	# Sorting, whole numbers, words and virtual time, beneath everything.
	NONE < engine/sorted, engine/varint, engine/nocmp, engine/whole < engine/prose < engine/vtime;

	# The rules of one system each, pure and knowing nothing of the engine or
	# of each other: MVCC, extractors, the partitioned log, consumer groups,
	# target tables, checks, the scenario file format, and the stream rules
	# (watermarks, windows, joins, keyed state, checkpoints and their sinks).
	engine/vtime
	< engine/mvcc, engine/extract, engine/topic, engine/group, engine/sink,
	  engine/check, engine/scenario,
	  engine/watermark, engine/window, engine/join, engine/keyed, engine/checkpoint;

	# The core: time, the event queue, the trace, the truth, seeking, faults'
	# dispatch, expectations. It may use any rule package, and no world.
	engine/mvcc, engine/extract, engine/topic, engine/group, engine/sink,
	engine/check, engine/scenario,
	engine/watermark, engine/window, engine/join, engine/keyed, engine/checkpoint
	< engine;

	# The worlds. Each builds on the core, and the stream world on the log
	# world, whose topics it reads. The log and stream worlds read the
	# source database through the core (engine.SourceDB), not by importing
	# the high-water-mark world, so that a program composed without that
	# world links none of it (the browser's build of the log and stream
	# worlds).
	engine < engine/hwm, engine/logs;
	engine/logs < engine/stream;

	# The list of every world, and what reads every world's trace.
	engine/hwm, engine/stream < engine/worlds, engine/report;
`

// allowed parses layers into, for each package, the packages it may import.
func allowed(t testing.TB, text string) map[string]map[string]bool {
	t.Helper()
	may := map[string]map[string]bool{}
	for _, stmt := range strings.Split(text, ";") {
		var lines []string
		for _, line := range strings.Split(stmt, "\n") {
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i]
			}
			lines = append(lines, line)
		}
		stmt = strings.Join(lines, " ")
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		var below []string
		for _, group := range strings.Split(stmt, "<") {
			var names []string
			for _, n := range strings.Split(group, ",") {
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, n)
				}
			}
			require.NotEmpty(t, names, "layers: an empty side of < in %q", stmt)
			for _, n := range names {
				if n == "NONE" {
					continue
				}
				if may[n] == nil {
					may[n] = map[string]bool{}
				}
				for _, b := range below {
					may[n][b] = true
					for x := range may[b] {
						may[n][x] = true
					}
				}
			}
			below = names
		}
	}
	delete(may, "NONE")
	for _, m := range may {
		delete(m, "NONE")
	}
	return may
}

// layerViolations checks the engine's packages against layers: each must
// be placed, and import only what its layer allows.
func layerViolations(may map[string]map[string]bool, pkgs []listed) []string {
	var out []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok || !matches("engine/...", rel) {
			continue
		}
		allow, placed := may[rel]
		if !placed {
			out = append(out, fmt.Sprintf("%s is in no layer; place it in engine/deps_test.go's layers and docs/architecture.md", rel))
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if !allow[dep] {
				out = append(out, fmt.Sprintf("%s imports %s, which its layer does not allow", rel, dep))
			}
		}
	}
	return out
}

func TestImportLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	may := allowed(t, layers)
	pkgs := goList(t, "..", "./engine/...")
	require.NotEmpty(t, pkgs)
	if v := layerViolations(may, pkgs); len(v) > 0 {
		t.Errorf("import layers broken (see docs/architecture.md, \"Who may import whom\"):\n  %s", strings.Join(v, "\n  "))
	}
}

// TestImportLayersCatch makes sure the layers check can fail: the core
// importing a world, a world importing the world built on it, the log world
// importing the high-water-mark world, a rule package importing the core,
// and a package placed nowhere are each reported.
func TestImportLayersCatch(t *testing.T) {
	may := allowed(t, layers)
	assert.True(t, may["engine/stream"]["engine/logs"], "the stream world builds on the log world")
	assert.False(t, may["engine/logs"]["engine/hwm"], "the log world reads the source through the core")
	assert.False(t, may["engine/stream"]["engine/hwm"], "so does the stream world")
	assert.True(t, may["engine/worlds"]["engine/hwm"] && may["engine/worlds"]["engine/stream"], "the list of worlds names every world")
	assert.True(t, may["engine/logs"]["engine/vtime"], "what a layer may import, the layers above it may too")
	assert.False(t, may["engine/sink"]["engine/mvcc"], "rule packages on one line do not import each other")
	pkgs := []listed{
		{ImportPath: module + "/engine", Imports: []string{module + "/engine/hwm", module + "/engine/sink"}},
		{ImportPath: module + "/engine/hwm", Imports: []string{module + "/engine", module + "/engine/logs"}},
		{ImportPath: module + "/engine/sink", Imports: []string{module + "/engine"}},
		{ImportPath: module + "/engine/somewhere", Imports: nil},
		{ImportPath: module + "/engine/logs", Imports: []string{module + "/engine/hwm", module + "/engine/topic"}},
		{ImportPath: module + "/engine/stream", Imports: []string{module + "/engine/logs", module + "/engine/window"}},
	}
	v := layerViolations(may, pkgs)
	joined := strings.Join(v, "\n")
	assert.Contains(t, joined, "engine imports engine/hwm")
	assert.Contains(t, joined, "engine/hwm imports engine/logs")
	assert.Contains(t, joined, "engine/sink imports engine,")
	assert.Contains(t, joined, "engine/somewhere is in no layer")
	assert.Contains(t, joined, "engine/logs imports engine/hwm")
	assert.NotContains(t, joined, "engine/logs imports engine/topic")
	assert.NotContains(t, joined, "engine/stream imports")
	assert.NotContains(t, joined, "engine imports engine/sink")
	assert.Len(t, v, 5)
}

// layeredPackages are the engine's packages the layers name, NONE left out.
func layeredPackages(layers string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(layers, "\n") {
		line, _, _ = strings.Cut(line, "#")
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == '<' || r == ';' || r == ' ' || r == '\t' }) {
			if f != "NONE" && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// docPackages are the engine's packages docs/architecture.md names in
// backquotes, as its table of packages does: `engine/window`, `engine`.
func docPackages(doc string) map[string]bool {
	out := map[string]bool{}
	for _, part := range strings.Split(doc, "`")[1:] {
		if part == "engine" || strings.HasPrefix(part, "engine/") && !strings.ContainsAny(part, " .*()<>") {
			out[strings.TrimSuffix(part, "/")] = true
		}
	}
	return out
}

// TestArchitectureNamesEveryLayeredPackage keeps docs/architecture.md and
// the layers in step: every package the layers place is named in the
// document, and every engine package the document names is placed.
func TestArchitectureNamesEveryLayeredPackage(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	require.NoError(t, err)
	named := docPackages(string(doc))
	placed := layeredPackages(layers)
	require.Contains(t, placed, "engine/window")
	for _, p := range placed {
		assert.True(t, named[p], "%s is placed in engine/deps_test.go's layers but docs/architecture.md never names it; add it to the table of packages", p)
	}
	for p := range named {
		assert.Contains(t, placed, p, "docs/architecture.md names %s, which engine/deps_test.go's layers do not place", p)
	}
}

// TestArchitectureCheckCatches: a package the document leaves out, and
// one it names that the layers do not place, are both seen.
func TestArchitectureCheckCatches(t *testing.T) {
	placed := layeredPackages("NONE < engine/a, engine/b < engine; # engine/c\nengine < engine/d;")
	assert.Equal(t, []string{"engine/a", "engine/b", "engine", "engine/d"}, placed)
	named := docPackages("| `engine/a` | x |\n| `engine` and `engine/e` | `engine/...` and `engine/b.go` |")
	assert.Equal(t, map[string]bool{"engine/a": true, "engine": true, "engine/e": true}, named)
}

// heavyForBrowser lists packages that must not reach the browser module,
// with what each would cost: the download budget (790 KB brotli for wasm
// and scripts, pages.DownloadBudget) leaves no room for them. See
// docs/performance.md, "Download", and docs/architecture.md, "What the
// browser module may carry".
var heavyForBrowser = map[string]string{
	"fmt":                  "about 100 KB with reflect; format with engine/prose",
	"reflect":              "comes with fmt or encoding/*",
	"net/url":              "about 40 KB with net/netip; use the widget's Values",
	"encoding/json":        "about 80 KB; the bridge passes plain js values",
	"html/template":        "templ and html/template belong to the server",
	"github.com/a-h/templ": "templ doubles the download; the widget draws in plain Go",
	"net/http":             "the browser module makes no requests",
	"text/template":        "belongs to the server",
	"regexp":               "parse by hand (see engine/scenario)",
}

// wasmList runs go list with args for the browser's platform (js/wasm)
// from the module's root, and returns what it prints.
func wasmList(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(goCommand(t), append([]string{"list"}, args...)...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list failed: %s", stderr.String())
	return string(out)
}

// TestBrowserModuleStaysSmall lists what the wasm bridge links when built
// for the browser and refuses the heavy packages above.
func TestBrowserModuleStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	deps := strings.Fields(wasmList(t, "-deps", "./wasm"))
	require.Contains(t, deps, module+"/engine", "the browser module must link the engine")
	for _, d := range deps {
		if why, bad := heavyForBrowser[d]; bad {
			t.Errorf("the browser module links %s: %s", d, why)
		}
	}
}

// strconvRefused are the parsers and the quoting functions of package
// strconv that the browser module must not link, with what to use
// instead. Each parser brings its error type, *strconv.NumError, and
// ParseFloat Go's float parser as well; quoting brings the tables of
// printable characters. See docs/performance.md, "Download: whole numbers
// without strconv's parsers", "Download: a decimal reader" and "Download:
// quoting without strconv".
var strconvRefused = map[string]string{
	"Atoi":             "whole.Int",
	"ParseInt":         "whole.Int64",
	"ParseUint":        "whole.Uint64",
	"ParseFloat":       "vtime.ParseDecimal",
	"ParseBool":        "a comparison with the words accepted",
	"ParseComplex":     "nothing: the engine has no complex numbers",
	"NumError":         "a bool from engine/whole",
	"ErrRange":         "the bound whole.Int returns for a number out of range",
	"ErrSyntax":        "a bool from engine/whole",
	"Quote":            "prose.Quote",
	"QuoteRune":        "prose.QuoteRune",
	"QuoteToASCII":     "prose.Quote",
	"QuoteToGraphic":   "prose.Quote",
	"AppendQuote":      "prose.Quote",
	"AppendQuoteRune":  "prose.QuoteRune",
	"QuoteRuneToASCII": "prose.QuoteRune",
	"IsPrint":          "prose.Quote, which knows the characters that are not",
}

// strconvRefusedUses lists, as "file:line: strconv.X (use Y)", the uses of
// strconvRefused in one file's source.
func strconvRefusedUses(t testing.TB, name string, src any) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	require.NoError(t, err)
	local := "" // the name the file gives package strconv
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "strconv" {
			local = "strconv"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
			if use, bad := strconvRefused[sel.Sel.Name]; bad {
				out = append(out, fmt.Sprintf("%s: strconv.%s (use %s)", fset.Position(sel.Pos()), sel.Sel.Name, use))
			}
		}
		return true
	})
	return out
}

// TestBrowserModuleParsesWithoutStrconv reads the non-test files of the
// module's packages that the wasm bridge links (the build of every world,
// which links every package of the others) and refuses strconv's parsers.
func TestBrowserModuleParsesWithoutStrconv(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out := wasmList(t, "-deps", "-tags", "tm_browser",
		"-f", `{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{"\n"}}{{end}}`, "./wasm")
	files := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		for _, name := range fields[1:] {
			path := filepath.Join(fields[0], name)
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, use := range strconvRefusedUses(t, path, src) {
				t.Errorf("a file the browser module links uses %s", use)
			}
			files++
		}
	}
	require.Greater(t, files, 50, "go list named too few of the module's files")
}

// TestStrconvParserUsesCatch makes sure the check above can fail, under
// another name for the package too.
func TestStrconvParserUsesCatch(t *testing.T) {
	src := `package p

import (
	sc "strconv"
)

func f(s string) (int, string) {
	n, _ := sc.Atoi(s)
	return n, sc.Itoa(n) + sc.Quote(s)
}
`
	assert.Equal(t, []string{"p.go:8:10: strconv.Atoi (use whole.Int)", "p.go:9:25: strconv.Quote (use prose.Quote)"}, strconvRefusedUses(t, "p.go", src))
	assert.Empty(t, strconvRefusedUses(t, "q.go", "package q\n\nfunc f(strconv struct{ Atoi int }) int { return strconv.Atoi }\n"))
}

// goCommand finds the go command the tests run under.
func goCommand(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is not on PATH")
	return p
}
