package chain

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/scenario"
)

// TestEveryChainIsWhatTheEngineShows runs every combination of options and
// requires the engine's truth to be exactly the chain's claimed guarantee:
// rows missing if and only if some hop may lose, rows doubled if and only
// if some hop may repeat and no later hop absorbs it; and the report's
// read torn exactly when the chain says a reader may see a half-written
// table.
func TestEveryChainIsWhatTheEngineShows(t *testing.T) {
	all := All()
	require.Len(t, all, 3*2*2*3*2)
	seen := map[string]bool{}
	for _, c := range all {
		q := c.Query()
		require.False(t, seen[q], "chain %s listed twice", q)
		seen[q] = true
		r, _, err := Run(c)
		require.NoError(t, err, q)
		assert.Equal(t, c.Guarantee(), r.Shows(), "%s: the chain claims %s, the engine shows %s (missing %v, doubled %v)",
			q, c.Guarantee().Name(), r.Shows().Name(), r.Missing, r.Duplicated)
		assert.Equal(t, c.Reads() == PartialStates, r.NeverExisted, "%s: the report's read", q)
	}
}

// TestTheWeakestHopsFailureShows: for each weak option, with every other
// hop strong, the run shows that option's own failure — its rows missing,
// or doubled — unless a later hop absorbs the repeat, and then it shows
// nothing.
func TestTheWeakestHopsFailureShows(t *testing.T) {
	for _, h := range Hops {
		for _, o := range h.Options {
			c := Default()
			c[h.ID] = o.ID
			r, _, err := Run(c)
			require.NoError(t, err, c.Query())
			want := o.Guarantee
			if _, ok := c.Absorbed()[h.ID]; ok {
				want.Repeats = false
			}
			assert.Equal(t, want, r.Shows(), "%s=%s alone", h.ID, o.ID)
			if o.Guarantee != ExactlyOnce && want != ExactlyOnce {
				assert.Equal(t, []string{h.ID}, c.Weakest(), "%s=%s alone is the weakest hop", h.ID, o.ID)
			}
		}
	}
	// With the strong option everywhere, the engine finds every row once.
	r, _, err := Run(Default())
	require.NoError(t, err)
	assert.Empty(t, r.Missing)
	assert.Empty(t, r.Duplicated)
	assert.False(t, r.NeverExisted)
	assert.Nil(t, Default().Weakest())
}

func TestMeetIsTheWeakerGuarantee(t *testing.T) {
	all := []Guarantee{ExactlyOnce, AtLeastOnce, AtMostOnce, None}
	for _, g := range all {
		assert.Equal(t, g, g.Meet(ExactlyOnce), "exactly-once is the identity")
		assert.Equal(t, None, g.Meet(None), "none absorbs")
		assert.Equal(t, g, g.Meet(g))
		for _, h := range all {
			assert.Equal(t, g.Meet(h), h.Meet(g))
		}
	}
	assert.Equal(t, None, AtMostOnce.Meet(AtLeastOnce), "losing and repeating meet at no guarantee")
	assert.Equal(t, "at-least-once", AtLeastOnce.Name())
	assert.Equal(t, "no guarantee", None.Name())
}

func TestGuaranteeIsTheMeetOfTheHopsLessWhatIsAbsorbed(t *testing.T) {
	c := Chain{Source: "retries", Transport: "retention-long", Processing: "after", Sink: "merge", Serving: "live"}
	assert.Equal(t, ExactlyOnce, c.Guarantee(), "a merge absorbs the producer's copy and the job's replays")
	assert.Equal(t, map[string]string{Source: Sink, Processing: Sink}, c.Absorbed())

	c[Sink] = "two-phase"
	assert.Equal(t, AtLeastOnce, c.Guarantee(), "a transaction discards replays, not a second record in the log")
	assert.Equal(t, map[string]string{Processing: Sink}, c.Absorbed())

	c[Transport] = "retention-short"
	assert.Equal(t, None, c.Guarantee())
	assert.Equal(t, []string{Source, Transport}, c.Weakest(), "the source's copy and the transport's loss make no guarantee together")

	// A hop that may both lose and repeat outranks hops that do one each.
	c[Processing], c[Sink] = "before", "append"
	assert.Equal(t, None, c.Guarantee())
	assert.Equal(t, []string{Processing}, c.Weakest())

	c = Chain{Source: "idempotent", Transport: "retention-long", Processing: "after", Sink: "append", Serving: "atomic"}
	assert.Equal(t, ExactlyOnce, c.Guarantee(), "publishing per checkpoint discards the append's replays")
	assert.Equal(t, WholeStates, c.Reads())
	c[Serving] = "live"
	assert.Equal(t, AtLeastOnce, c.Guarantee())
	assert.Equal(t, PartialStates, c.Reads())
}

func TestParseAndQueryRoundTrip(t *testing.T) {
	for _, c := range All() {
		q, err := url.ParseQuery(c.Query())
		require.NoError(t, err)
		back, err := Parse(q)
		require.NoError(t, err)
		assert.Equal(t, c, back)
	}
	c, err := Parse(url.Values{})
	require.NoError(t, err)
	assert.Equal(t, Default(), c, "an empty query is the strong chain")
	c, err = Parse(url.Values{"sink": {"append"}, "utm": {"x"}})
	require.NoError(t, err)
	assert.Equal(t, "append", c[Sink], "other parameters are left alone")
}

func TestParseRefusesWhatItDoesNotKnow(t *testing.T) {
	_, err := Parse(url.Values{"sink": {"upsert"}})
	require.Error(t, err)
	assert.Equal(t, `hop sink cannot be "upsert"; expected merge | two-phase | append`, err.Error())
	_, err = Parse(url.Values{"source": {"idempotent", "retries"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hop source is given 2 times")
}

// TestScenarioIsAScenarioFile checks the generated text is an ordinary
// scenario file (so `tidemark run` and the sandbox take it), the same for
// the same chain, and says in its first line which chain it is.
func TestScenarioIsAScenarioFile(t *testing.T) {
	for _, c := range All() {
		src := c.Scenario()
		assert.Equal(t, src, c.Scenario())
		f, err := scenario.Parse("chain.tdm", []byte(src))
		require.NoError(t, err, src)
		assert.Equal(t, "chain/built", f.ID)
		assert.True(t, strings.HasPrefix(src, "# Generated by the chain builder from the chain "+c.Query()+"."))
	}
	src := Chain{Source: "no-retries", Transport: "retention-short", Processing: "before", Sink: "two-phase", Serving: "live"}.Scenario()
	for _, want := range []string{"retention=1m", "idempotent=off", "fail=lost retry=none", "commit=two-phase", "overflow=grow", "sink=append key=order_id"} {
		assert.Contains(t, src, want)
	}
}

func TestRunCountsTheIntendedOrders(t *testing.T) {
	c := Default()
	c[Transport] = "retention-short"
	r, tr, err := Run(c)
	require.NoError(t, err)
	assert.NotEmpty(t, r.Missing)
	assert.Less(t, len(r.Missing), Orders)
	assert.Equal(t, r.Steps, len(tr.Events))
}

// TestLessonTwosExample holds what chapter 6 of lesson two says of the
// chain it links to: with an append written in place, both the producer's
// copy and the restarts' blocks show; a merge removes both; a two-phase
// sink only the blocks.
func TestLessonTwosExample(t *testing.T) {
	c := Chain{Source: "retries", Transport: "retention-long", Processing: "after", Sink: "append", Serving: "live"}
	r, _, err := Run(c)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Duplicated["1000"], "the producer's copy")
	assert.Greater(t, len(r.Duplicated), 1, "the restarts' blocks")
	c[Sink] = "merge"
	r, _, err = Run(c)
	require.NoError(t, err)
	assert.Empty(t, r.Duplicated)
	c[Sink] = "two-phase"
	r, _, err = Run(c)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"1000": 2}, r.Duplicated)
}
