package lessons

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidemark/tidemark/engine/scenario"
)

func TestLookupReadsOnlyItsOwnFile(t *testing.T) {
	resetForTest(t)
	sc, ok := Lookup("hwm/visibility-gap")
	require.True(t, ok)
	assert.Equal(t, "hwm/visibility-gap", sc.ID)
	assert.Equal(t, "scenarios/hwm/visibility-gap.tdm", sc.Path)
	assert.NotEmpty(t, sc.Title)
	parsedMu.Lock()
	n := len(parsed)
	parsedMu.Unlock()
	assert.Equal(t, 1, n, "Lookup of one scenario parses one file, not the catalog")
}

func TestLookupAndScenariosShareOneParse(t *testing.T) {
	resetForTest(t)
	before, ok := Lookup("hwm/visibility-gap")
	require.True(t, ok)
	all, err := Scenarios()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	for i, sc := range all {
		if i > 0 {
			assert.Less(t, all[i-1].ID, sc.ID, "Scenarios is ordered by id")
		}
		again, ok := Lookup(sc.ID)
		require.True(t, ok, sc.ID)
		assert.Same(t, sc.File, again.File, "%s: Lookup returns the catalog's own parse", sc.ID)
		if sc.ID == before.ID {
			assert.Same(t, before.File, sc.File, "the catalog reuses what Lookup parsed")
		}
	}
}

func TestLookupRefusesWhatIsNoBundledScenario(t *testing.T) {
	for _, id := range []string{"", "hwm", "hwm/", "no/such", "hwm/visibility-gap.tdm", "../lessons", "hwm/../hwm/visibility-gap",
		"/hwm/visibility-gap", "hwm//visibility-gap", "hwm/visibility-gap/defaults"} {
		_, ok := Lookup(id)
		assert.False(t, ok, "%q", id)
	}
}

// resetForTest forgets every parse, so that a test sees what a fresh
// program (a Worker's) would do.
func resetForTest(t *testing.T) {
	t.Helper()
	parsedMu.Lock()
	parsed = map[string]parsedFile{}
	parsedMu.Unlock()
	loadOnce, catalog, loadErr = sync.Once{}, nil, nil
}

// TestCheckpointPagesSayFlinkHasUnalignedCheckpoints: the scenarios that
// introduce checkpoints and the barrier that waits behind a full buffer
// tell the learner, on their pages, that the engine's checkpoints are
// aligned and that Flink also has unaligned ones (issue 12).
func TestCheckpointPagesSayFlinkHasUnalignedCheckpoints(t *testing.T) {
	for _, id := range []string{"stream/checkpoint-append", "stream/backpressure"} {
		s, ok := Lookup(id)
		require.True(t, ok, id)
		assert.Contains(t, s.About, "unaligned checkpoints", id)
		assert.Contains(t, s.About, "not modelled here", id)
	}
}

// TestNearNamesWhatAMistypedIDMeant: a mistyped id finds the bundled
// scenario it most likely meant; an id near nothing finds none.
func TestNearNamesWhatAMistypedIDMeant(t *testing.T) {
	assert.Equal(t, "hwm/visibility-gap", Near("hwm/visibilty-gap")[0])
	assert.Equal(t, "stream/late-data", Near("stream/late_data")[0])
	assert.Empty(t, Near("nothing/like-any-of-them"))
	// An id without its folder, or held whole in a path or an address, as
	// an author pastes it.
	assert.Equal(t, []string{"hwm/visibility-gap"}, Near("visibility-gap"))
	assert.Equal(t, []string{"hwm/visibility-gap"}, Near("https:/docs.example/scenarios/hwm/visibility-gap/"))
	assert.Equal(t, []string{"hwm/visibility-gap"}, Near("hwm/visibility-gap.tdm"))
	assert.Empty(t, Near(strings.Repeat("x", 10_000)))
}

// TestBundledProducersThatNameAKeyColumnSendKeys: a producer line's key=
// names the column its records' keys fill, which a Kafka reader takes for
// "this producer keys its records by that column". So a bundled producer
// that names one gives every record of its own a key; one whose events
// carry no key, only an id (dist/dedup-regenerated-id), names none.
func TestBundledProducersThatNameAKeyColumnSendKeys(t *testing.T) {
	all, err := Scenarios()
	require.NoError(t, err)
	named := func(c *scenario.Command, key string) (string, bool) {
		for _, a := range c.Args {
			if a.Key == key {
				return a.Value, true
			}
		}
		return "", false
	}
	for _, sc := range all {
		keyed := map[string]string{} // producer: its key column
		for i := range sc.File.Commands {
			c := &sc.File.Commands[i]
			if len(c.Args) == 0 || c.Args[0].Key != "" {
				continue
			}
			switch c.Name {
			case "producer":
				if col, ok := named(c, "key"); ok {
					keyed[c.Args[0].Value] = col
				}
			case "produce":
				col, ok := keyed[c.Args[0].Value]
				_, hasKey := named(c, "key")
				assert.False(t, ok && !hasKey, "%s line %d: producer %s names key=%s, but this record has no key", sc.ID, c.Pos.Line, c.Args[0].Value, col)
			}
		}
	}
}
