package widget

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestFaultsInALink: each kind of fault a learner injects is written in a
// link and read back the same, a link's faults come in step order, and one
// that does not read is named and left out.
func TestFaultsInALink(t *testing.T) {
	for _, f := range []engine.Fault{
		{AfterStep: 12, Kind: hwm.FaultCrash},
		{AfterStep: 3, Kind: engine.FaultClockJump, Clock: "source", By: -5 * vtime.Second},
		{AfterStep: 20, Kind: logs.FaultAddPartition, Topic: "orders"},
		{AfterStep: 8, Kind: logs.FaultPause, Group: "billing", Member: "c1", For: 3 * vtime.Minute},
		{AfterStep: 5, Kind: engine.FaultClockJump, Clock: "till3", By: 5 * vtime.Minute},
		{AfterStep: 40, Kind: logs.FaultBurst, Producer: "phone", Records: 12, For: vtime.Minute},
		{AfterStep: 43, Kind: logs.FaultProducerClock, Producer: "till3", By: vtime.Minute},
		{AfterStep: 44, Kind: logs.FaultProducerClock, Producer: "till1", By: -30 * vtime.Second},
		{AfterStep: 41, Kind: stream.FaultStall, Stream: "tills", Partition: 2, For: 30 * vtime.Second},
		{AfterStep: 42, Kind: stream.FaultDelay, Stream: "tills", Partition: 1, For: vtime.Minute, By: 45 * vtime.Second},
	} {
		text := FaultText(f)
		back, err := ParseFault(text)
		require.NoError(t, err, text)
		assert.Equal(t, f, back, text)
		var b Values = Values{"fault": {text}}
		assert.Equal(t, "fault="+text, Encode(b), "the address keeps it as it is")
	}
	sc, ok := lessons.Lookup("hwm/advance-order")
	require.True(t, ok)
	_, st, problems := FromQuery(sc.File, Values{"fault": {"14~jump~+5s", "11~crash", "x~crash", "3~melt"}})
	require.Len(t, st.Faults, 2)
	assert.Equal(t, 11, st.Faults[0].AfterStep)
	assert.Equal(t, 14, st.Faults[1].AfterStep)
	assert.Equal(t, []string{
		"the link's fault=3~melt is not a fault: expected STEP~crash, STEP~jump~-5s (or STEP~jump~-5s~CLOCK), STEP~add-partition~TOPIC, STEP~pause~GROUP~MEMBER~30s, STEP~burst~PRODUCER~12~1m, STEP~burst-key~PRODUCER~KEY~100, STEP~producer-clock~PRODUCER~1m, STEP~stall~STREAM~2~30s, STEP~delay~STREAM~2~1m~45s, STEP~fail~OPERATOR~now~5s or STEP~slow~OPERATOR~500ms~30s; ignoring it",
		"the link's fault=x~crash does not start with a step number; ignoring it",
	}, problems)
}

// TestALinkCarriesAtMostMaxFaults: a link is untrusted and may carry any
// number of faults; FromQuery reads no more than a run takes (reading
// seventy thousand in reverse step order took half a minute before), says
// so once, and a session refuses a fault past the bound.
func TestALinkCarriesAtMostMaxFaults(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/advance-order")
	require.True(t, ok)
	var vals []string
	for i := 70_000; i > 0; i-- {
		vals = append(vals, itoa(i)+"~crash")
	}
	_, st, problems := FromQuery(sc.File, Values{"fault": vals})
	require.Len(t, st.Faults, MaxFaults)
	assert.Equal(t, []string{"the link carries 70000 faults and a run takes at most 24; ignoring the rest"}, problems)
	for i := 1; i < len(st.Faults); i++ {
		assert.LessOrEqual(t, st.Faults[i-1].AfterStep, st.Faults[i].AfterStep, "in step order")
	}
	assert.Equal(t, 69_977, st.Faults[0].AfterStep, "the first %d the link gives, sorted", MaxFaults)

	s := open(t, "hwm/advance-order", "")
	for range MaxFaults {
		s.faults = append(s.faults, engine.Fault{Kind: hwm.FaultCrash})
	}
	rerun, err := s.fork(engine.Fault{AfterStep: 1, Kind: hwm.FaultCrash})
	assert.False(t, rerun)
	require.ErrorContains(t, err, "this run already has 24 faults, as many as a run takes: undo one first")
	assert.Len(t, s.faults, MaxFaults)
}

// TestALinksClockJumpIsAtMostADay: a link's clock jump is refused past a
// day either way, with the reason; a day is taken.
func TestALinksClockJumpIsAtMostADay(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	_, st, problems := FromQuery(sc.File, Values{"fault": {"1~jump~1000000h"}})
	assert.Empty(t, st.Faults)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "needs a clock jump of at most a day either way")
	_, st, problems = FromQuery(sc.File, Values{"fault": {"1~jump~-24h"}})
	assert.Empty(t, problems)
	require.Len(t, st.Faults, 1)
	assert.Equal(t, -24*vtime.Hour, st.Faults[0].By)

	// A producer's clock is held to the same day.
	_, st, problems = FromQuery(sc.File, Values{"fault": {"1~producer-clock~till3~1000000h"}})
	assert.Empty(t, st.Faults)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "at most a day either way")
}

// TestALinksUnknownNamesMakeOneShortMessage: a link may carry thousands of
// names no knob has, and long values; the page's message names a few, says
// how many more, and clips what it quotes, so that its size is the
// scenario's, not the link's.
func TestALinksUnknownNamesMakeOneShortMessage(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	q := Values{}
	for i := range 9000 {
		q["k"+itoa(10000+i)] = []string{"x"}
	}
	q["step"] = []string{strings.Repeat("9", 100_000)}
	_, st, problems := FromQuery(sc.File, q)
	require.Len(t, problems, 1)
	assert.Equal(t, `this scenario has no knobs "k10000", "k10001", "k10002", "k10003", "k10004" and 8995 more; ignoring them`, problems[0])
	assert.Positive(t, st.Step, "a step of more digits than a number holds is past the end, which opens at the last step")
	q = Values{"step": {"9" + strings.Repeat("x", 100_000)}}
	_, _, problems = FromQuery(sc.File, q)
	assert.Equal(t, []string{"the link's step=9xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… is not a step number; starting at step 0"}, problems)

	// Values that used to be taken in silence.
	_, st, problems = FromQuery(sc.File, Values{"truth": {"maybe"}, "mark": {"lsn", "timestamp"}})
	assert.ElementsMatch(t, []string{"the link's truth=maybe is neither on nor off; the truth is shown", "the knob mark is set 2 times; the last, timestamp, counts"}, problems)
	assert.True(t, st.ShowTruth)

	_, _, problems = FromQuery(sc.File, Values{"colour": {"red"}})
	assert.Equal(t, []string{"this scenario has no knob \"colour\"; ignoring it"}, problems)
	c := Clip("a" + strings.Repeat("é", 21)) // byte 40 is inside the 20th é
	assert.Equal(t, "a"+strings.Repeat("é", 19)+"…", c, "cut at a character's boundary")
}

// TestALinkWithAnUnreadablePairKeepsTheRest: in the browser, a link with a
// bad %-escape keeps its other settings and says what was left out, and a
// bad seed is named as the server names it.
func TestALinkWithAnUnreadablePairKeepsTheRest(t *testing.T) {
	src, name := source(t, "hwm/visibility-gap")
	s, err := OpenLink("tm", src, name, "/scenarios/hwm/visibility-gap", "step=14&x=%zz&seed=abc", false, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, 14, s.st.Step, "the readable pairs still count")
	assert.Contains(t, s.st.Message, "Part of this page's address could not be read")
	assert.Contains(t, s.st.Message, "seed=abc is not a seed (a whole number from 0 up); using seed 1")
	assert.Equal(t, uint64(1), s.seed)

	s, err = OpenLink("tm", src, name, "/scenarios/hwm/visibility-gap", "step=3", false, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, 3, s.st.Step)
	assert.Empty(t, s.st.Message)
}

// TestLinkProblemsReadAsSentences: what was wrong with a link is said as
// sentences, each with a capital letter and a full stop, not as clauses
// run together in lower case.
func TestLinkProblemsReadAsSentences(t *testing.T) {
	s := open(t, "hwm/visibility-gap", "step=abc&mark=lns&fault=3~crash")
	assert.Equal(t, `The knob mark cannot be "lns"; expected timestamp | lsn, so it stays timestamp. `+
		`The link's step=abc is not a step number; starting at step 0. `+
		`The link's fault=3~crash could not be applied (no extractor run is in flight at this step, so a crash would change nothing; step to a run's read or write first), so the scenario runs without it.`,
		s.st.Message)

	assert.Equal(t, "", Sentences(nil))
	assert.Equal(t, "One. Two? Three.", Sentences([]string{"one", " two? ", "", "three."}))
	assert.Equal(t, "Nothing to undo.", Sentence("nothing to undo"), "an action's error reads as a sentence")
	assert.Equal(t, "late-commit.tdm:4:24: expected a time.", Sentence("late-commit.tdm:4:24: expected a time"), "a file's name keeps its case")
	assert.Equal(t, "", Sentence("  "))
	assert.Equal(t, "Part of this page's address could not be read (bad), so it was left out. A.",
		WithUnreadNote(errors.New("bad"), Sentences([]string{"a"})))
}

// TestEmbedSaysItDoesNotPresent: a link asking an embedded widget to
// present gets a sentence saying where presenting is, as the server's page
// says it, and the widget does not present.
func TestEmbedSaysItDoesNotPresent(t *testing.T) {
	src, name := source(t, "hwm/visibility-gap")
	s, err := OpenLink("tm", src, name, "/embed/hwm/visibility-gap", "step=3&present", true, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, "An embedded scenario does not present; open it on its own page to present it.", s.st.Message)
	assert.Empty(t, s.st.Present)
	s, err = OpenLink("tm", src, name, "/scenarios/hwm/visibility-gap", "step=3&present", false, worlds.All())
	require.NoError(t, err)
	assert.Empty(t, s.st.Message, "the scenario's own page presents")
	assert.Equal(t, "on", s.st.Present)
}

// TestSeedOfTakesTheLastValue: a link's seed= is read as its other
// settings are, the last value winning, by the server's page and the
// browser's session alike (the session took the first, so a link with two
// seeds ran another trace once the browser took over).
func TestSeedOfTakesTheLastValue(t *testing.T) {
	for _, tc := range []struct {
		q       Values
		seed    uint64
		problem string
	}{
		{Values{}, 1, ""},
		{Values{"seed": {"7"}}, 7, ""},
		{Values{"seed": {"abc", "2"}}, 2, ""},
		{Values{"seed": {"2", "abc"}}, 1, "the link's seed=abc is not a seed (a whole number from 0 up); using seed 1"},
		{Values{"seed": {"-1"}}, 1, "the link's seed=-1 is not a seed (a whole number from 0 up); using seed 1"},
		{Values{"seed": {""}}, 1, ""},
	} {
		seed, problem := SeedOf(tc.q)
		assert.Equal(t, tc.seed, seed, "%v", tc.q)
		assert.Equal(t, tc.problem, problem, "%v", tc.q)
	}
	src, name := source(t, "hwm/visibility-gap")
	s, err := OpenLink("tm", src, name, "/scenarios/hwm/visibility-gap", "seed=abc&seed=2", false, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, uint64(2), s.seed)
	assert.Empty(t, s.st.Message)
}

// TestALinksFaultLengthsAreAtMostADay: a pause, a burst's span, a stall, a
// delay, a job's restart and a slow operator's length are refused past a
// day, with the reason, as a clock jump is: a length of years put times no
// clock reads ("until 1000000010:00:02") into the narration and picture.
func TestALinksFaultLengthsAreAtMostADay(t *testing.T) {
	for text, want := range map[string]string{
		"8~pause~billing~c1~1000000000h": "needs a pause length of at most a day",
		"8~pause~billing~c1~25h":         "needs a pause length of at most a day",
		"5~burst~app~1000~1000000000h":   "needs a number of events and a span of at most a day",
		"5~stall~taps~0~1000000000h":     "needs a partition and a length of at most a day",
		"5~delay~taps~0~1m~1000000000h":  "needs how much later records are read, at most a day",
		"5~delay~taps~0~1000000000h~1m":  "needs a partition and a length of at most a day",
		"5~fail~agg~now~1000000000h":     "needs a restart of at most a day",
		"5~slow~agg~500ms~1000000000h":   "each at most a day",
		"5~slow~agg~1000000000h~30s":     "each at most a day",
	} {
		_, err := ParseFault(text)
		assert.ErrorContains(t, err, want, text)
	}
	for _, text := range []string{"8~pause~billing~c1~24h", "5~burst~app~12~24h", "5~stall~taps~0~24h", "5~delay~taps~0~24h~24h"} {
		_, err := ParseFault(text)
		assert.NoError(t, err, text)
	}
}
