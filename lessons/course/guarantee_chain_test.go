package course

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chainSeedHeadings are the headings of lesson two's source document
// (seeds/004_bb6a6cba0df77ebb.txt), in its order. Every one must map to
// exactly one section of the lesson, and the sections must keep that order.
var chainSeedHeadings = []string{
	"Who needs this, what one row is, and why the obvious build breaks",
	"What is actually happening",
	"What a pipeline inherits, and from whom",
	"Reading the guarantee column top to bottom",
	"The five failures that look like a data bug",
	"How to build it",
	"What this actually promises",
	"Can I trust it?",
	"What can go wrong",
	"Operating it",
	"Where this applies",
	"Where the depth lives",
}

// chainTopics are the subjects lesson two must teach, each with a scenario
// of the stream or log world that a section of the lesson embeds or asks
// about: the list in issue 13, checked against what the lesson plays.
var chainTopics = map[string][]string{
	"the chain of hops, what each promises and fails by": {"dist/dual-write", "dist/retention-lag", "dist/auto-commit", "stream/watermark-fastest-partition", "stream/late-data", "stream/checkpoint-append", "stream/serving-publish"},
	"at-least-once as the default, and why":              {"dist/producer-retry", "dist/commit-order"},
	"ordering and partitions":                            {"dist/partition-change"},
	"event time, watermarks and lateness":                {"stream/event-vs-arrival", "stream/watermark-quiet-partition", "stream/idle-partition", "stream/session-window"},
	"checkpoints and the sink's guarantee":               {"stream/checkpoint-two-phase", "stream/checkpoint-past-retention"},
	"backpressure":                                       {"stream/backpressure"},
	"joins":                                              {"stream/join-skew"},
	"state and hot keys":                                 {"stream/state-ttl", "stream/hot-key"},
	"serving tables and atomic publish":                  {"stream/serving-publish"},
	"what to check and what to monitor":                  {"dist/dedup-regenerated-id", "stream/hot-key"},
}

// chain returns lesson two as the site loads it.
func chain(t *testing.T) *Lesson {
	t.Helper()
	l, ok := Lookup("guarantee-chain")
	if !ok {
		_, err := Lessons()
		t.Fatalf("lesson two does not load: %v", err)
	}
	return l
}

func TestChainCoversEverySeedHeadingInOrder(t *testing.T) {
	l := chain(t)
	var mapped []string
	for _, s := range l.Sections() {
		mapped = append(mapped, s.Sources...)
	}
	assert.Equal(t, chainSeedHeadings, mapped, "lesson two must cover seed 004's sections once each, in the seed's order")
}

// TestChainEveryMainSectionAsksAndPlays: every main section of lesson two,
// with its parts, asks at least one prediction and plays at least one
// scenario.
func TestChainEveryMainSectionAsksAndPlays(t *testing.T) {
	l := chain(t)
	asks, plays := map[string]bool{}, map[string]bool{}
	main := ""
	for _, s := range l.Sections() {
		if s.Level == 2 {
			main = s.ID
		}
		for _, b := range s.Blocks {
			switch b.(type) {
			case Predict:
				asks[main] = true
			case Embeds, Compare, Checks:
				plays[main] = true
			}
		}
	}
	for _, id := range l.MainSections() {
		assert.True(t, asks[id], "main section %s asks no prediction", id)
		assert.True(t, plays[id], "main section %s plays no scenario", id)
	}
}

// TestChainEverySectionThatPlaysAsks: a section or part of lesson two that
// plays a scenario also asks a prediction of its own, so a learner guesses
// in every part with a run, not once per main section. Parts of prose alone
// (who the lesson is for, what one row is) need neither.
func TestChainEverySectionThatPlaysAsks(t *testing.T) {
	l := chain(t)
	for _, s := range l.Sections() {
		asks, plays := false, false
		for _, b := range s.Blocks {
			switch b.(type) {
			case Predict:
				asks = true
			case Embeds, Compare, Checks:
				plays = true
			}
		}
		assert.False(t, plays && !asks, "section %s plays a scenario and asks no prediction", s.ID)
	}
}

func TestChainTeachesEveryTopicWithItsScenarios(t *testing.T) {
	l := chain(t)
	played := map[string]bool{}
	for _, s := range l.Sections() {
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case Predict:
				played[b.Scenario] = true
			case Embeds:
				for _, e := range b {
					played[e.Scenario] = true
				}
			case Compare:
				played[b.Sides[0].Embed.Scenario] = true
				played[b.Sides[1].Embed.Scenario] = true
			}
		}
	}
	for topic, ids := range chainTopics {
		for _, id := range ids {
			assert.True(t, played[id], "topic %q: lesson two never plays %s", topic, id)
		}
	}
	// Both worlds beyond lesson one's are used, and nothing from lesson one's.
	var stream, dist int
	for id := range played {
		switch {
		case strings.HasPrefix(id, "stream/"):
			stream++
		case strings.HasPrefix(id, "dist/"):
			dist++
		default:
			t.Errorf("lesson two plays %s, a scenario of lesson one's world", id)
		}
	}
	assert.GreaterOrEqual(t, stream, 12, "stream scenarios played")
	assert.GreaterOrEqual(t, dist, 6, "log-world scenarios played")
}

func TestChainEveryTermIsUsed(t *testing.T) {
	l := chain(t)
	used := map[string]bool{}
	eachRich(l, func(_ Pos, r Rich) {
		for _, id := range r.Terms() {
			used[id] = true
		}
	})
	for _, g := range l.Glossary {
		assert.True(t, used[g.ID], "glossary term %q is never used in lesson two's text", g.ID)
	}
}

func TestChainPredictionsAreGradedByTheEngine(t *testing.T) {
	l := chain(t)
	n := 0
	for _, p := range l.Predictions() {
		n++
		ans, err := Grade(p)
		require.NoError(t, err, p.ID)
		assert.NotEmpty(t, ans.Correct(), "prediction %s: the engine finds no option true", p.ID)
		assert.Less(t, len(ans.Correct()), len(p.Options), "prediction %s: every option is true", p.ID)
		assert.Equal(t, sorted(p.Answer), sorted(ans.Correct()), "prediction %s: the lesson's answer is not the engine's", p.ID)
	}
	assert.GreaterOrEqual(t, n, 25)
}

func TestBothLessonsAreInTheCourse(t *testing.T) {
	all, err := Lessons()
	require.NoError(t, err)
	var slugs []string
	for _, l := range all {
		slugs = append(slugs, l.Slug)
	}
	assert.True(t, slices.Equal([]string{"high-water-mark", "guarantee-chain"}, slugs), "lessons in order: %v", slugs)
}
