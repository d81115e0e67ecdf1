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
