package lessons

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the scenario parser's fuzz seeds from the bundled scenarios")

// corpusDir holds the seeds of the scenario parser's fuzz target
// (engine/scenario FuzzParse), in the format `go test` reads.
const corpusDir = "../engine/scenario/testdata/fuzz/FuzzParse"

// TestFuzzSeedsHoldEveryBundledScenario: the parser's fuzzer starts from
// the text of every bundled scenario as it is now, so each world's
// commands, and whatever a scenario was last given, are among the inputs it
// mutates. The seeds fell behind: some were older texts, and the log and
// stream worlds had none. Rewrite them with
// `go test ./lessons/ -run TestFuzzSeedsHoldEveryBundledScenario -update-corpus`.
func TestFuzzSeedsHoldEveryBundledScenario(t *testing.T) {
	all, err := Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		name := filepath.Join(corpusDir, "bundled_"+strings.ReplaceAll(sc.ID, "/", "_"))
		want := "go test fuzz v1\nstring(" + strconv.Quote(string(sc.Source)) + ")\n"
		if *updateCorpus {
			require.NoError(t, os.WriteFile(name, []byte(want), 0o644))
			continue
		}
		got, err := os.ReadFile(name)
		if !assert.NoError(t, err, "%s has no fuzz seed (see the test's comment)", sc.ID) {
			continue
		}
		assert.Equal(t, want, string(got), "%s's fuzz seed is not its text (see the test's comment)", sc.ID)
	}
}

// TestMakeFuzzRunsEveryFuzzTarget: `make fuzz` names every fuzz target in
// the module (package:Name in FUZZ_TARGETS), so a target added to a package
// is fuzzed too; the server's FuzzFastServer was left out of it once.
func TestMakeFuzzRunsEveryFuzzTarget(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "Makefile"))
	require.NoError(t, err)
	listed := map[string]bool{}
	in := false
	for line := range strings.Lines(string(mk)) {
		if strings.HasPrefix(line, "FUZZ_TARGETS = ") {
			in, line = true, strings.TrimPrefix(line, "FUZZ_TARGETS = ")
		}
		if !in {
			continue
		}
		for _, f := range strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), "\\")) {
			listed[f] = true
		}
		if !strings.HasSuffix(strings.TrimSpace(line), "\\") {
			break
		}
	}
	require.NotEmpty(t, listed, "the Makefile has a FUZZ_TARGETS list")

	found := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(src)) {
			rest, ok := strings.CutPrefix(line, "func Fuzz")
			if !ok {
				continue
			}
			name, _, _ := strings.Cut(rest, "(")
			found["./"+filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))+":Fuzz"+name] = true
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, found)
	for f := range found {
		assert.True(t, listed[f], "make fuzz does not run %s: add it to FUZZ_TARGETS", f)
	}
	for f := range listed {
		assert.True(t, found[f], "FUZZ_TARGETS names %s, which is no fuzz target", f)
	}
}
