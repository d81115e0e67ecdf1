package course

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small lesson in the format of docs/lessons.md, valid as it stands; each
// case below breaks one thing in it.
var fixture = map[string]string{
	"lesson.md": `---
summary: A lesson for the format's tests.
source: none
---

# A test lesson

A lede that names a {mark}.
`,
	"glossary.md": `# Glossary

::: term mark
name: Mark
definition: A stored position; see also {other|the other term}.
:::

::: term other
name: Other
definition: Another term.
:::
`,
	"01-one.md": `# Chapter one

## First section {#first seed="The question"}

Some **strong {mark} text** and a [link](#second).

::: predict ties-q
scenario: hwm/ties predicate=gte sink=append
question: What does the target end up with?
option a: Every order once
claim: clean
option b: Order 2 twice
claim: duplicated 2
answer: b
why: The repeat is appended.
:::

::: embed hwm/ties
caption: The ties.
:::

::: embed hwm/ties predicate=gte step=3
caption: The ties with ` + "`>=`" + `.
:::

### A part {#part}

| Col | Other |
|---|---|
| a | b |

Table: A caption.
`,
	"02-two.md": `# Chapter two

## Second section {#second}

- one item
- two items

` + "```sql title=\"A query\"\nSELECT 1;\n```" + `

::: note Simplified
text: A note.
:::
`,
}

// loadFixture loads the fixture with files replaced (an empty value removes
// a file) as lesson "t".
func loadFixture(t *testing.T, replace map[string]string) (*Lesson, error) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range fixture {
		fsys["t/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	for name, body := range replace {
		if body == "" {
			delete(fsys, "t/"+name)
			continue
		}
		fsys["t/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	ls, err := Load(fsys, "lessons/text", []string{"t"})
	if err != nil {
		return nil, err
	}
	return ls[0], nil
}

// edit returns the fixture's file with old replaced by new, failing when old
// is not in it.
func edit(t *testing.T, file, old, new string) map[string]string {
	t.Helper()
	require.Contains(t, fixture[file], old, "the fixture changed; fix the case")
	return map[string]string{file: strings.Replace(fixture[file], old, new, 1)}
}

func TestFixtureLoadsAndVerifies(t *testing.T) {
	l, err := loadFixture(t, nil)
	require.NoError(t, err)
	assert.Equal(t, "A test lesson", l.Title)
	assert.Equal(t, "A lede that names a Mark.", l.Lede.Plain())
	require.Len(t, l.Chapters, 2)
	assert.Equal(t, []string{"first", "part"}, []string{l.Chapters[0].Sections[0].ID, l.Chapters[0].Sections[1].ID})
	assert.Equal(t, []string{"The question"}, l.Chapters[0].Sections[0].Sources)
	assert.Equal(t, []string{"first", "second"}, l.MainSections())
	// Strong text keeps the term inside it: the markup renders, nested.
	p := l.Chapters[0].Sections[0].Blocks[0].(Para)
	assert.Equal(t, Rich{
		{Kind: KindText, Text: "Some "},
		{Kind: KindStrong, Kids: Rich{{Kind: KindText, Text: "strong "}, {Kind: KindTerm, Ref: "mark", Kids: Text("Mark")}, {Kind: KindText, Text: " text"}}},
		{Kind: KindText, Text: " and a "},
		{Kind: KindLink, Ref: "#second", Kids: Text("link")},
		{Kind: KindText, Text: "."},
	}, p.Text)
	// Two embed directives in a row share one row.
	row := l.Chapters[0].Sections[0].Blocks[2].(Embeds)
	require.Len(t, row, 2)
	assert.Equal(t, 3, row[1].Step)
	assert.Equal(t, map[string]string{"predicate": "gte"}, row[1].Knobs)
	assert.Equal(t, "A caption.", l.Chapters[0].Sections[1].Blocks[0].(Table).Caption)
	assert.Equal(t, Code{Caption: "A query", Lang: "sql", Text: "SELECT 1;"}, l.Chapters[1].Sections[0].Blocks[1])
	assert.Equal(t, "the other term", l.Glossary[0].Definition[1].Kids.Plain())
	pr := l.Predictions()
	require.Len(t, pr, 1)
	assert.Equal(t, []string{"b"}, pr[0].Answer)
	assert.Equal(t, Claim{Kind: Duplicated, Keys: []string{"2"}}, pr[0].Options[1].Claim)
	assert.Equal(t, Pos{File: "lessons/text/t/01-one.md", Line: 7, Col: 1}, pr[0].Pos)
	require.NoError(t, Verify(l))
}

// TestFormatErrors breaks the fixture one way at a time and checks the
// error names the file, line and column, and says what was expected.
func TestFormatErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		replace map[string]string
		want    string
	}{
		{"unknown scenario", edit(t, "01-one.md", "::: embed hwm/ties\n", "::: embed hwm/tie\n"),
			`lessons/text/t/01-one.md:18:11: unknown scenario "hwm/tie"; did you mean`},
		{"unknown knob", edit(t, "01-one.md", "::: embed hwm/ties\n", "::: embed hwm/ties colour=red\n"),
			`lessons/text/t/01-one.md:18:20: scenario hwm/ties has no knob "colour"; its knobs: predicate, sink`},
		{"knob value", edit(t, "01-one.md", "scenario: hwm/ties predicate=gte", "scenario: hwm/ties predicate=maybe"),
			`lessons/text/t/01-one.md:8:20: knob predicate of hwm/ties cannot be "maybe"; expected gt | gte`},
		{"unknown term", edit(t, "01-one.md", "{mark}", "{marks}"),
			`lessons/text/t/01-one.md:5:15: {marks} names no term of this lesson's glossary; did you mean mark?`},
		{"unknown term in a field", edit(t, "01-one.md", "why: The repeat is appended.", "why: The repeat is {appended}."),
			`lessons/text/t/01-one.md:15:20: {appended} names no term`},
		{"unknown term in a definition", edit(t, "glossary.md", "Another term.", "Another {term}."),
			`lessons/text/t/glossary.md:10:21: {term} names no term`},
		{"stray braces", edit(t, "01-one.md", "Some **", "Some {Not a term} **"),
			`lessons/text/t/01-one.md:5:6: "{Not a term}" is not a glossary reference`},
		{"unpaired emphasis", edit(t, "01-one.md", "and a [link]", "and ** a [link]"),
			`does not pair up, so it would show as written`},
		{"unclosed directive", map[string]string{"02-two.md": fixture["02-two.md"] + "\n::: embed hwm/ties\ncaption: x\n"},
			`lessons/text/t/02-two.md:16:1: directive "embed hwm/ties" is never closed`},
		{"unknown directive", edit(t, "02-two.md", "::: note Simplified", "::: video Simplified"),
			`lessons/text/t/02-two.md:12:1: unknown directive "video"; expected one of embed, predict`},
		{"stray closing line", edit(t, "02-two.md", "- one item", ":::\n\n- one item"),
			`lessons/text/t/02-two.md:5:1: a ":::" line with no directive open`},
		{"stray closing line after text", edit(t, "02-two.md", "- two items\n", "- two items\n\nA paragraph.\n:::\n"),
			`lessons/text/t/02-two.md:9:1: a ":::" line with no directive open`},
		{"stray closing line in a list", edit(t, "02-two.md", "- two items\n", "- two items\n:::\n"),
			`lessons/text/t/02-two.md:7:1: a ":::" line with no directive open`},
		{"stray closing line after a table", edit(t, "01-one.md", "| a | b |\n", "| a | b |\n:::\n"),
			`lessons/text/t/01-one.md:31:1: a ":::" line with no directive open`},
		{"directive in a list", edit(t, "02-two.md", "- two items\n", "- two items\n  ::: note Simplified\n"),
			`lessons/text/t/02-two.md:7:3: a directive cannot start here`},
		{"unknown field", edit(t, "01-one.md", "caption: The ties.", "colour: red"),
			`lessons/text/t/01-one.md:19:1: embed: unknown field "colour"; expected caption`},
		{"missing field", edit(t, "01-one.md", "caption: The ties.\n", ""),
			`lessons/text/t/01-one.md:18:1: embed: missing field "caption"`},
		{"not a field", edit(t, "01-one.md", "caption: The ties.", "The ties."),
			`lessons/text/t/01-one.md:19:1: expected a field, as "caption: …", or ":::" to end the directive; got "The ties."`},
		{"indented line continuing nothing", edit(t, "02-two.md", "text: A note.", "text: A note.\n\n  more"),
			`lessons/text/t/02-two.md:15:1: this indented line continues no field`},
		{"bad claim", edit(t, "01-one.md", "claim: duplicated 2", "claim: dupes 2"),
			`lessons/text/t/01-one.md:13:8: claim "dupes 2": unknown claim; expected one of clean, missing`},
		{"claim without keys", edit(t, "01-one.md", "claim: duplicated 2", "claim: duplicated"),
			`claim "duplicated": duplicated names the keys it is about`},
		{"missing-count range", edit(t, "01-one.md", "claim: duplicated 2", "claim: missing-count 9..2"),
			`claim "missing-count 9..2": missing-count takes a range`},
		{"check status", edit(t, "01-one.md", "claim: duplicated 2", "claim: check gap-scan red"),
			`a check ends pass, fail or not-run; got "red"`},
		{"claim in another scenario", edit(t, "01-one.md", "claim: duplicated 2", "claim: clean in hwm/ties sink=merged"),
			`lessons/text/t/01-one.md:13:26: knob sink of hwm/ties cannot be "merged"`},
		{"option without claim", edit(t, "01-one.md", "claim: clean\n", ""),
			`lessons/text/t/01-one.md:10:1: predict: option a needs a claim`},
		{"answer not an option", edit(t, "01-one.md", "answer: b", "answer: z"),
			`lessons/text/t/01-one.md:14:1: predict: answer "z" is not one of the options`},
		{"one option", edit(t, "01-one.md", "option b: Order 2 twice\nclaim: duplicated 2\nanswer: b", "answer: a"),
			`predict: a prediction offers at least two options`},
		{"heading without id", edit(t, "02-two.md", "## Second section {#second}", "## Second section"),
			`lessons/text/t/02-two.md:3:1: section "Second section" has no id`},
		{"duplicate section id", edit(t, "02-two.md", "{#second}", "{#first}"),
			`lessons/text/t/02-two.md:3:1: section id "first" is also used at lessons/text/t/01-one.md:3:1`},
		{"reserved section id", edit(t, "02-two.md", "{#second}", "{#term-second}"),
			`section id "term-second" is kept for the page's own anchors`},
		{"link to nowhere", edit(t, "01-one.md", "(#second)", "(#nowhere)"),
			`link #nowhere goes nowhere`},
		{"odd link", edit(t, "01-one.md", "(#second)", "(javascript:alert)"),
			`link "javascript:alert": a link goes to a section`},
		{"raw HTML", edit(t, "02-two.md", "- one item", "- one <b>item</b>"),
			`lessons/text/t/02-two.md:5:7: HTML is not allowed in a lesson`},
		{"level-4 heading", edit(t, "02-two.md", "- one item", "#### Deep\n\n- one item"),
			`lessons/text/t/02-two.md:5:1: headings go down to ###`},
		{"nested list", edit(t, "02-two.md", "- two items", "- two items\n  - nested"),
			`a list item holds one paragraph of text`},
		{"table without caption", edit(t, "01-one.md", "Table: A caption.\n", ""),
			`lessons/text/t/01-one.md:28:1: a table needs a caption`},
		{"code without title", edit(t, "02-two.md", "```sql title=\"A query\"", "```sql"),
			`lessons/text/t/02-two.md:8:1: a code block needs a caption`},
		{"step not a number", edit(t, "01-one.md", "step=3", "step=three"),
			`lessons/text/t/01-one.md:22:34: step=three: a step is a whole number`},
		{"no summary", edit(t, "lesson.md", "summary: A lesson for the format's tests.\n", ""),
			`lessons/text/t/lesson.md:1: lesson.md has no summary`},
		{"front matter key", edit(t, "lesson.md", "source: none", "sauce: none"),
			`lessons/text/t/lesson.md:3:1: front matter: expected one of summary, source`},
		{"no lesson.md", map[string]string{"lesson.md": ""},
			`lessons/text/t: lesson "t" has no lesson.md`},
		{"chapter file name", map[string]string{"three.md": "# Three\n\n## Three {#three}\n\nText.\n"},
			`lessons/text/t/three.md: a chapter's file is named by its place and its id`},
		{"content before a section", edit(t, "02-two.md", "## Second section {#second}", "Loose text.\n\n## Second section {#second}"),
			`lessons/text/t/02-two.md:3:1: everything in a chapter sits in a section`},
		{"term outside the glossary", edit(t, "02-two.md", "::: note Simplified", "::: term x"),
			`term directives belong in glossary.md`},
		{"plot with knobs on its scenario line", plot(t, "scenario: hwm/load mark=lsn\nx: load"),
			`lessons/text/t/02-two.md:6:11: plot: scenario takes only a scenario id`},
		{"plot of an unknown scenario", plot(t, "scenario: hwm/nope\nx: load"),
			`unknown scenario "hwm/nope"`},
		{"plot along no knob", plot(t, "scenario: hwm/load\nx: colour"),
			`plot: x: scenario hwm/load has no knob "colour"`},
		{"plot's series labels without series", plot(t, "scenario: hwm/load\nx: load\nseries-labels: lsn=\"L\""),
			`plot: series-labels without series`},
		{"checks row with an unknown knob", edit(t, "02-two.md", "- one item", "::: checks\ncaption: Checks.\nrow: Gap scan\nexpresses: Ids.\ncatches: Gaps.\nmisses: The newest.\ncaught: hwm/gap-scan colour=red focus=gap-scan\ncaught-caption: Caught.\nmissed: hwm/clock-skew focus=gap-scan\nmissed-caption: Missed.\n:::\n\n- one item"),
			`lessons/text/t/02-two.md:11:22: scenario hwm/gap-scan has no knob "colour"`},
		{"checks row with one of its pair", edit(t, "02-two.md", "- one item", "::: checks\ncaption: Checks.\nrow: Gap scan\nexpresses: Ids.\ncatches: Gaps.\nmisses: The newest.\ncaught: hwm/gap-scan focus=gap-scan\ncaught-caption: Caught.\n:::\n\n- one item"),
			`lessons/text/t/02-two.md:7:1: checks: a row shows both where its check notices the fault (caught:) and where it does not (missed:), or neither`},
		{"compare side of an unknown scenario", edit(t, "02-two.md", "- one item", "::: compare\ncaption: Two orders.\nside: Before\ntext: Before.\nembed: hwm/advance-ordr advance=before\ncaption: Lost.\nside: After\ntext: After.\nembed: hwm/advance-order advance=after\ncaption: Twice.\n:::\n\n- one item"),
			`lessons/text/t/02-two.md:9:8: unknown scenario "hwm/advance-ordr"`},
		{"glossary term twice", map[string]string{"glossary.md": fixture["glossary.md"] + "\n::: term mark\nname: Again\ndefinition: Again.\n:::\n"},
			`lessons/text/t/glossary.md:13:1: term "mark" is defined twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadFixture(t, c.replace)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			var es Errors
			require.True(t, errors.As(err, &es), "the error is not an Errors list")
			for _, e := range es {
				assert.True(t, strings.HasPrefix(e.Pos.File, "lessons/text"), "%s names no file", e)
			}
		})
	}
}

// TestVerifyErrors breaks what only the engine can tell and checks Verify
// reports it at its place.
func TestVerifyErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		replace map[string]string
		want    string
	}{
		{"answer the engine does not confirm", edit(t, "01-one.md", "answer: b", "answer: a"),
			`lessons/text/t/01-one.md:7:1: prediction ties-q: answer says a, but the engine finds b true; the engine reports a (clean): missing: none; duplicated: 2 ×2; stale: none`},
		{"every option true", edit(t, "01-one.md", "claim: clean", "claim: duplicated 2"),
			`prediction ties-q: the engine finds every option true`},
		{"no option true", edit(t, "01-one.md", "claim: duplicated 2", "claim: missing 1"),
			`prediction ties-q: the engine finds no option true`},
		{"step past the end", edit(t, "01-one.md", "step=3", "step=300"),
			`lessons/text/t/01-one.md:22:1: embed hwm/ties: step=300 is past the end; this run has`},
		{"focus on a check not run", edit(t, "01-one.md", "step=3", "step=3 focus=monotonicity"),
			`embed hwm/ties: focus=monotonicity names a check this run does not report; it reports gap-scan, uniqueness`},
		{"embed repeats an earlier one", edit(t, "01-one.md", "hwm/ties predicate=gte step=3", "hwm/ties predicate=gt"),
			`lessons/text/t/01-one.md:22:1: this embed shows what the one at lessons/text/t/01-one.md:18:1 shows`},
		{"prediction after the widget", edit(t, "01-one.md", "caption: The ties.\n:::\n", "caption: The ties.\n:::\n\n::: predict again\nscenario: hwm/ties\nquestion: Again?\noption a: Yes\nclaim: missing 3\noption b: No\nclaim: present 3\nanswer: a\nwhy: Because.\n:::\n"),
			`prediction again asks about hwm/ties, which the embed at lessons/text/t/01-one.md:18:1 already plays`},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := loadFixture(t, c.replace)
			require.NoError(t, err)
			err = Verify(l)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// TestErrorsAreAllReported checks one load reports every problem, in file
// and line order.
func TestErrorsAreAllReported(t *testing.T) {
	r := edit(t, "01-one.md", "{mark}", "{nope}")
	r["02-two.md"] = strings.Replace(fixture["02-two.md"], "{#second}", "", 1)
	_, err := loadFixture(t, r)
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.GreaterOrEqual(t, len(lines), 2, err.Error())
	assert.Contains(t, lines[0], "01-one.md:5:15: {nope} names no term")
	assert.Contains(t, lines[1], "01-one.md:5:36: link #second goes nowhere")
	assert.Contains(t, lines[2], "02-two.md:3:1: section \"Second section\" has no id")
}

// TestASecondLessonIsOnlyFiles loads two lessons side by side, as
// registering a second lesson does: each keeps its own ids, glossary and
// chapters, in the order registered.
func TestASecondLessonIsOnlyFiles(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, slug := range []string{"one", "two"} {
		for name, body := range fixture {
			fsys[slug+"/"+name] = &fstest.MapFile{Data: []byte(body)}
		}
	}
	// The second lesson has a third chapter, and the same ids as the first.
	fsys["two/03-three.md"] = &fstest.MapFile{Data: []byte("# Three\n\n## Third {#third}\n\nA {mark} again.\n")}
	ls, err := Load(fsys, "lessons/text", []string{"two", "one"})
	require.NoError(t, err)
	require.Len(t, ls, 2)
	assert.Equal(t, "two", ls[0].Slug)
	assert.Equal(t, "one", ls[1].Slug)
	assert.Len(t, ls[0].Chapters, 3)
	assert.Len(t, ls[1].Chapters, 2)
	for _, l := range ls {
		assert.NoError(t, Verify(l), l.Slug)
	}
	_, err = Load(fsys, "lessons/text", []string{"one", "three"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `lessons/text/three: lesson "three" is registered but its directory cannot be read`)
}

// plot puts a plot directive with the given scenario and x fields (and any
// others) in the second chapter, before its list.
func plot(t *testing.T, fields string) map[string]string {
	t.Helper()
	return edit(t, "02-two.md", "- one item", "::: plot p\n"+fields+"\nx-title: Load\ncaption: A plot.\n:::\n\n- one item")
}
