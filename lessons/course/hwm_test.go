package course

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedHeadings are the headings of the source document of lesson one
// (seeds/000_552daed8dd809f4c.txt), in its order. Every one must map to
// exactly one section of the lesson, and the sections must keep that order.
var seedHeadings = []string{
	"The question",
	"Who needs this",
	"What one row is",
	"The obvious build",
	"Why it breaks",
	"How it breaks with real data",
	"What is actually happening",
	"A position, and the gap a timestamp cannot close",
	"Storing the mark, and the order that decides gaps or duplicates",
	"When to advance the mark",
	"Advancing a mark in the same transaction as the output",
	"Checking a mark you cannot see inside",
	"Detecting a mark that is lying",
	"How to build it",
	"What this actually promises",
	"Can I trust it?",
	"The check that would catch this",
	"Freshness",
	"When the schema or meaning changes",
	"How to re-run this safely",
	"What can go wrong",
	"Failure modes",
	"Misreads",
	"Operating it",
	"How you see it in production",
	"What changes at 10x and 100x",
	"What drives cost here",
	"What this approach costs",
	"Where this applies",
	"Where the depth lives",
	"Domains that do not exist yet",
}

// hwm returns lesson one as the site loads it.
func hwm(t *testing.T) *Lesson {
	t.Helper()
	l, ok := Lookup("high-water-mark")
	if !ok {
		_, err := Lessons()
		t.Fatalf("lesson one does not load: %v", err)
	}
	return l
}

func TestEverySeedHeadingMapsToOneSectionInOrder(t *testing.T) {
	l := hwm(t)
	var mapped []string
	where := map[string]string{}
	for _, s := range l.Sections() {
		for _, src := range s.Sources {
			if prev, dup := where[src]; dup {
				t.Errorf("seed heading %q maps to both %q and %q", src, prev, s.ID)
			}
			where[src] = s.ID
			mapped = append(mapped, src)
		}
	}
	for _, h := range seedHeadings {
		assert.Contains(t, where, h, "seed heading %q has no section in the lesson", h)
	}
	for _, m := range mapped {
		assert.Contains(t, seedHeadings, m, "section source %q is not a heading of the seed", m)
	}
	assert.Equal(t, seedHeadings, mapped, "the lesson must cover the seed's sections in the seed's order")
}

func TestSectionsAreWellFormed(t *testing.T) {
	l := hwm(t)
	ids := map[string]bool{}
	for i, s := range l.Sections() {
		assert.NotEmpty(t, s.Title, "section %s", s.ID)
		assert.NotEmpty(t, s.Blocks, "section %s has no body", s.ID)
		assert.False(t, ids[s.ID], "section id %q repeats", s.ID)
		assert.False(t, strings.HasPrefix(s.ID, "term-"), "section id %q collides with glossary anchors", s.ID)
		ids[s.ID] = true
		require.Contains(t, []int{2, 3}, s.Level, "section %s", s.ID)
		if i == 0 {
			assert.Equal(t, 2, s.Level, "the first section must be a main section")
		}
	}
}

// TestEveryTermIsUsed checks the glossary holds no entry the text never
// refers to (the lesson's own subject excepted); that every reference names
// an entry is checked when the lesson loads.
func TestEveryTermIsUsed(t *testing.T) {
	l := hwm(t)
	used := map[string]bool{}
	eachRich(l, func(_ Pos, r Rich) {
		for _, id := range r.Terms() {
			used[id] = true
		}
	})
	for _, g := range l.Glossary {
		assert.NotEmpty(t, g.Name)
		assert.NotEmpty(t, g.Definition)
		if g.ID != "hwm" {
			assert.True(t, used[g.ID], "glossary term %q is never used in the text", g.ID)
		}
	}
}

// TestLessonsVerify runs the engine for everything every bundled lesson
// claims: embeds run to their step and focus on a check they report, every
// prediction's answer is the engine's, no embed repeats an earlier one and
// no prediction follows the embed that answers it.
func TestLessonsVerify(t *testing.T) {
	all, err := Lessons()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	for _, l := range all {
		assert.NoError(t, Verify(l), l.Slug)
	}
}

func TestEveryEmbeddedScenarioExistsAndRuns(t *testing.T) {
	l := hwm(t)
	embeds := l.Embeds()
	require.NotEmpty(t, embeds)
	for _, e := range embeds {
		tr, err := RunScenario(e.Scenario, e.Knobs)
		if !assert.NoError(t, err, "embed %s %v", e.Scenario, e.Knobs) {
			continue
		}
		assert.Positive(t, tr.Steps(), "embed %s ran no events", e.Scenario)
		if e.Focus != "" {
			names := []string{}
			for _, r := range tr.Checks() {
				names = append(names, r.Name)
			}
			assert.Contains(t, names, e.Focus, "embed %s %v focuses on a check it does not run", e.Scenario, e.Knobs)
		}
	}
	// The issue names these embeds; the lesson must keep them.
	has := func(id string, knobs map[string]string) bool {
		return slices.ContainsFunc(embeds, func(e Embed) bool {
			if e.Scenario != id {
				return false
			}
			for k, v := range knobs {
				if e.Knobs[k] != v {
					return false
				}
			}
			return true
		})
	}
	assert.True(t, has("hwm/visibility-gap", nil))
	assert.True(t, has("hwm/advance-order", map[string]string{"advance": "before"}))
	assert.True(t, has("hwm/advance-order", map[string]string{"advance": "after"}))
}

func TestChecksTableShowsCatchAndMiss(t *testing.T) {
	l := hwm(t)
	var rows []CheckRow
	for _, s := range l.Sections() {
		for _, b := range s.Blocks {
			if c, ok := b.(Checks); ok {
				rows = append(rows, c.Rows...)
			}
		}
	}
	require.Len(t, rows, 6, "the seed's six checks")
	for _, r := range rows {
		require.NotEmpty(t, r.Caught.Scenario, "%s has no scenario where it notices the fault", r.Name)
		require.NotEmpty(t, r.Missed.Scenario, "%s has no scenario where it misses one", r.Name)
		caught, err := RunScenario(r.Caught.Scenario, r.Caught.Knobs)
		require.NoError(t, err)
		assert.Equal(t, "fail", string(status(caught.Checks(), r.Caught.Focus)), "%s should notice the fault in %s", r.Name, r.Caught.Scenario)
		missed, err := RunScenario(r.Missed.Scenario, r.Missed.Knobs)
		require.NoError(t, err)
		assert.NotEqual(t, "fail", string(status(missed.Checks(), r.Missed.Focus)), "%s should stay quiet in %s", r.Name, r.Missed.Scenario)
		f := missed.Final()
		assert.NotEmpty(t, f.Missing, "%s's miss case should really lose rows", r.Name)
	}
}

func TestPredictionsAreGradedByTheEngine(t *testing.T) {
	l := hwm(t)
	ps := l.Predictions()
	require.GreaterOrEqual(t, len(ps), 6)
	ids := map[string]bool{}
	for _, p := range ps {
		assert.False(t, ids[p.ID], "prediction id %q repeats", p.ID)
		ids[p.ID] = true
		ans, err := Grade(p)
		require.NoError(t, err, p.ID)
		require.Len(t, ans.Verdicts, len(p.Options))
		// A question with no right answer, or with every answer right, teaches nothing.
		assert.NotEmpty(t, ans.Correct(), "prediction %s: the engine finds no option true", p.ID)
		assert.Less(t, len(ans.Correct()), len(p.Options), "prediction %s: every option is true", p.ID)
		assert.NotEmpty(t, p.Why, p.ID)
		assert.Equal(t, sorted(p.Answer), sorted(ans.Correct()), "prediction %s: the lesson's answer is not the engine's", p.ID)
	}
}

func TestEveryMainSectionWithAMechanismAsksAPrediction(t *testing.T) {
	l := hwm(t)
	// The sections where the lesson shows a mechanism ask first.
	want := []string{"breaks", "visibility-gap", "storing", "one-transaction", "checks", "build", "promises", "trust-check",
		"failures", "misreads", "signals", "scale"}
	for _, s := range l.Sections() {
		if !slices.Contains(want, s.ID) {
			continue
		}
		asks := slices.ContainsFunc(s.Blocks, func(b Block) bool { _, ok := b.(Predict); return ok })
		assert.True(t, asks, "section %s asks no prediction", s.ID)
	}
}

func TestLoadSectionEmbedsAndPlotsTheLoadScenario(t *testing.T) {
	l := hwm(t)
	var scale *Section
	sections := l.Sections()
	for i := range sections {
		if sections[i].ID == "scale" {
			scale = &sections[i]
		}
	}
	require.NotNil(t, scale)
	var plot *Plot
	embedded := false
	for _, b := range scale.Blocks {
		switch b := b.(type) {
		case Plot:
			plot = &b
		case Embeds:
			embedded = embedded || slices.ContainsFunc(b, func(e Embed) bool { return e.Scenario == "hwm/load" })
		}
	}
	assert.True(t, embedded, "the 10x/100x section embeds hwm/load")
	require.NotNil(t, plot, "the 10x/100x section plots rows lost against load")
	// The plot's premise, checked against the engine: more load loses more
	// rows to a timestamp mark, and a log position loses none at any load.
	lost := func(knobs map[string]string) int {
		tr, err := RunScenario(plot.Scenario, knobs)
		require.NoError(t, err)
		return len(tr.Final().Missing)
	}
	prev := -1
	for _, x := range []string{"1s", "10s", "100s"} {
		assert.Contains(t, plot.XLabels, x)
		n := lost(map[string]string{plot.X: x})
		assert.Greater(t, n, prev, "load %s should lose more than the load below it", x)
		prev = n
		assert.Zero(t, lost(map[string]string{plot.X: x, plot.Series: "lsn"}), "a log position loses nothing at load %s", x)
	}
}

// TestTransactionTableIsTheEngines holds the table of four transactions in
// the visibility-gap section to the scenario the section plays: each
// transaction's stamp and commit, whether the first run sees it, and, for
// one it does not see, how its stamp compares with the mark that run
// stores (T4's stamp equals the mark; it is not below it).
func TestTransactionTableIsTheEngines(t *testing.T) {
	l := hwm(t)
	var table *Table
	for _, s := range l.Sections() {
		for _, b := range s.Blocks {
			if tb, ok := b.(Table); ok && s.ID == "visibility-gap" {
				table = &tb
			}
		}
	}
	require.NotNil(t, table, "the visibility-gap section has no table of transactions")

	// What the engine says happened: each transaction's stamp and commit,
	// what the first run found and the mark it stored.
	tr, err := RunScenario("hwm/visibility-gap", nil)
	require.NoError(t, err)
	stamp, commit := map[string]string{}, map[string]string{}
	var found []string
	mark := ""
	stampRe := regexp.MustCompile(`^(T\d+) inserts order \d+ .*updated_at = now\(\) = (\d\d:\d\d:\d\d)`)
	commitRe := regexp.MustCompile(`^(T\d+) commits at (\d\d:\d\d:\d\d)`)
	foundRe := regexp.MustCompile(`^extract reads .* and finds orders? ([\d, ]+)\.$`)
	markRe := regexp.MustCompile(`^extract stores its mark (\d\d:\d\d:\d\d) \(was none\)`)
	for _, n := range tr.Narrations() {
		if m := stampRe.FindStringSubmatch(n); m != nil {
			stamp[m[1]] = m[2]
		}
		if m := commitRe.FindStringSubmatch(n); m != nil {
			commit[m[1]] = m[2]
		}
		if m := foundRe.FindStringSubmatch(n); m != nil && found == nil {
			found = strings.Split(m[1], ", ")
		}
		if m := markRe.FindStringSubmatch(n); m != nil {
			mark = m[1]
		}
	}
	require.NotEmpty(t, mark, "the first run stores no mark")
	require.Equal(t, []string{"1", "2"}, found)

	require.Len(t, table.Rows, 4)
	rowRe := regexp.MustCompile(`^(T\d+) \(order (\d+)\)$`)
	for _, row := range table.Rows {
		require.Len(t, row, 4)
		m := rowRe.FindStringSubmatch(row[0].Plain())
		require.NotNil(t, m, "row %q", row[0].Plain())
		txn, order := m[1], m[2]
		assert.Equal(t, stamp[txn], row[1].Plain(), "%s's stamp", txn)
		assert.Equal(t, commit[txn], row[2].Plain(), "%s's commit", txn)
		seen := row[3].Plain()
		if slices.Contains(found, order) {
			assert.True(t, strings.HasPrefix(seen, "yes"), "%s: the run sees it; the table says %q", txn, seen)
			continue
		}
		assert.True(t, strings.HasPrefix(seen, "no"), "%s: the run does not see it; the table says %q", txn, seen)
		switch { // stamps are HH:MM:SS, so they compare as strings
		case stamp[txn] < mark:
			assert.Contains(t, seen, "below the mark", "%s's stamp %s is below the mark %s", txn, stamp[txn], mark)
		case stamp[txn] == mark:
			assert.Contains(t, seen, "equals the mark", "%s's stamp %s equals the mark", txn, stamp[txn])
			assert.NotContains(t, seen, "below", "%s's stamp %s is not below the mark", txn, stamp[txn])
		}
	}
}

// TestEveryWayItBreaksIsPlayed holds chapter two's list of the ways the
// obvious build loses or repeats rows to its promise that each has a
// scenario to open and play: an item is played in the section (by an embed
// or a comparison of a scenario no other item took), or links to the
// section of the lesson that plays it.
func TestEveryWayItBreaksIsPlayed(t *testing.T) {
	l := hwm(t)
	byID := map[string]Section{}
	for _, s := range l.Sections() {
		byID[s.ID] = s
	}
	played := func(s Section) []string {
		var ids []string
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case Embeds:
				for _, e := range b {
					ids = append(ids, e.Scenario)
				}
			case Compare:
				ids = append(ids, b.Sides[0].Embed.Scenario, b.Sides[1].Embed.Scenario)
			}
		}
		return ids
	}
	var links func(r Rich) []string
	links = func(r Rich) []string {
		var out []string
		for _, sp := range r {
			if sp.Kind == KindLink && strings.HasPrefix(sp.Ref, "#") {
				out = append(out, sp.Ref[1:])
			}
			out = append(out, links(sp.Kids)...)
		}
		return out
	}
	breaks, ok := byID["breaks"]
	require.True(t, ok)
	var items []Rich
	for _, b := range breaks.Blocks {
		if list, ok := b.(List); ok {
			items = append(items, list.Items...)
		}
	}
	require.Len(t, items, 6, "the section names six ways")
	here := map[string]bool{}
	for _, id := range played(breaks) {
		here[id] = true
	}
	unlinked := 0
	for _, item := range items {
		linked := false
		for _, id := range links(item) {
			if s, ok := byID[id]; ok && len(played(s)) > 0 {
				linked = true
			}
		}
		if !linked {
			unlinked++
		}
	}
	assert.LessOrEqual(t, unlinked, len(here),
		"%d of the ways are neither played in the section (it plays %d scenarios) nor link to where they are", unlinked, len(here))
}
