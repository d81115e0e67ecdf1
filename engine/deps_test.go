package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// This file enforces the "must not import" column of DESIGN.md's folder
// table, after the Go toolchain's own go/build/deps_test.go: a policy table
// of rules, not a list of exceptions.
//
// A rule names the packages it governs and what they must not import. Some
// things are forbidden as direct imports only: the standard library's fmt
// itself imports os, sync, syscall and time, so "engine must not read the
// wall clock" can only mean engine code never imports time itself. Others
// are forbidden anywhere in the dependency graph: nothing the engine pulls
// in, however indirectly, may reach the network, the JavaScript bridge or
// templ.

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
		t.Errorf("import policy broken (see DESIGN.md, \"must not import\"):\n  %s", strings.Join(v, "\n  "))
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

// heavyForBrowser lists packages that must not reach the browser module,
// with what each would cost: the download budget (790 KB brotli for wasm
// and scripts, pages.DownloadBudget) leaves no room for them. See
// docs/performance.md, "Download".
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

// TestBrowserModuleStaysSmall lists what the wasm bridge links when built
// for the browser and refuses the heavy packages above.
func TestBrowserModuleStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin := goCommand(t)
	cmd := exec.Command(goBin, "list", "-deps", "./wasm")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list failed: %s", stderr.String())
	deps := strings.Fields(string(out))
	require.Contains(t, deps, module+"/engine", "the browser module must link the engine")
	for _, d := range deps {
		if why, bad := heavyForBrowser[d]; bad {
			t.Errorf("the browser module links %s: %s", d, why)
		}
	}
}

// goCommand finds the go command the tests run under.
func goCommand(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is not on PATH")
	return p
}
