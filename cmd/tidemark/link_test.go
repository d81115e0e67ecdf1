package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web/share"
)

// TestLinkCommand: link prints the sandbox, embed and picture links of a
// scenario, each carrying its text; run and check read a link back.
func TestLinkCommand(t *testing.T) {
	code, out, errOut := tidemark(t, "link", "hwm/visibility-gap", "--base-url", "https://example.github.io/tidemark/")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut, "a site address given, nothing to warn of")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 3, out)
	sc, _ := lessons.Lookup("hwm/visibility-gap")
	for i, prefix := range []string{"sandbox: https://example.github.io/tidemark/play#tdm=", "embed:   https://example.github.io/tidemark/embed/#tdm=", "picture: https://example.github.io/tidemark/picture.svg?src="} {
		require.True(t, strings.HasPrefix(lines[i], prefix), lines[i])
		text, err := share.Decode(strings.TrimPrefix(lines[i], prefix))
		require.NoError(t, err)
		assert.Equal(t, string(sc.Source), text)
	}

	link := strings.TrimPrefix(lines[0], "sandbox: ")
	code, out, errOut = tidemark(t, "run", link)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "VERDICT: 2 rows missing")
	// The knobs a shared link's query carries are the run's, unless --set
	// says otherwise; a link's faults are refused, not silently dropped.
	withKnob := strings.Replace(link, "#", "?mark=lsn&step=4#", 1)
	code, out, errOut = tidemark(t, "run", withKnob)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "VERDICT: the target matches", "the lsn mark loses nothing")
	code, out, errOut = tidemark(t, "run", withKnob, "--set", "mark=timestamp")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "VERDICT: 2 rows missing", "--set wins over the link")
	code, _, errOut = tidemark(t, "run", strings.Replace(link, "#", "?fault=11~crash#", 1))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "carries faults")
	code, out, errOut = tidemark(t, "check", link)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `expectations: [1-9][0-9]* passed, 0 failed`, out)

	// A misspelt knob in a link is named, as the page would name it.
	code, _, errOut = tidemark(t, "run", strings.Replace(link, "#", "?marc=lsn#", 1))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `link: scenario hwm/visibility-gap has no knob "marc"`)

	// The picture link link prints, and the links of a bundled scenario's
	// pages that docs/embedding.md gives, are read too, with their knobs.
	code, out, errOut = tidemark(t, "run", strings.TrimPrefix(lines[2], "picture: ")+"&mark=lsn")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "knobs: mark=lsn")
	for _, page := range []string{"/scenarios/hwm/visibility-gap", "/embed/hwm/visibility-gap/", "/picture/hwm/visibility-gap.svg"} {
		code, out, errOut = tidemark(t, "run", "https://example.github.io/tidemark"+page+"?step=14&mark=lsn")
		require.Equal(t, 0, code, "%s: %s", page, errOut)
		assert.Contains(t, out, "VERDICT: the target matches", page)
	}
	code, _, errOut = tidemark(t, "run", "https://example.github.io/tidemark/embed/hwm/visibility-gapp")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `link: no bundled scenario named "hwm/visibility-gapp"; did you mean hwm/visibility-gap?`)
	code, _, errOut = tidemark(t, "run", "https://example.github.io/tidemark/lessons/high-water-mark")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "link: tidemark run reads a sandbox link")

	// --set and --step open the links with those settings, which run reads back.
	code, out, errOut = tidemark(t, "link", "hwm/visibility-gap", "--base-url", "https://example.github.io/tidemark", "--set", "mark=lsn", "--set", "predicate=gt", "--step", "4")
	require.Equal(t, 0, code, errOut)
	set := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, set, 3)
	assert.True(t, strings.HasPrefix(set[0], "sandbox: https://example.github.io/tidemark/play?mark=lsn&step=4#tdm="), set[0])
	assert.True(t, strings.HasPrefix(set[1], "embed:   https://example.github.io/tidemark/embed/?mark=lsn&step=4#tdm="), set[1])
	assert.True(t, strings.HasSuffix(set[2], "&mark=lsn&step=4"), "a knob at its default (predicate=gt) is left out: %s", set[2])
	code, out, errOut = tidemark(t, "run", strings.TrimPrefix(set[0], "sandbox: "))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "knobs: mark=lsn")
	// A mistyped bundled id is named with the ids it most likely meant.
	code, _, errOut = tidemark(t, "link", "hwm/visiblity-gap")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `no bundled scenario or file named "hwm/visiblity-gap"; did you mean hwm/visibility-gap?`)
	code, _, errOut = tidemark(t, "check", "hwm/visiblity-gap")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "did you mean hwm/visibility-gap?")

	code, _, errOut = tidemark(t, "link", "hwm/visibility-gap", "--set", "marc=lsn")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--set: scenario hwm/visibility-gap has no knob "marc"`)
	// A step past the end is refused with the number of steps there are.
	code, out, errOut = tidemark(t, "link", "hwm/visibility-gap", "--step", "9999")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Regexp(t, `--step: step 9999 is past the end; hwm/visibility-gap has \d+ steps with these knobs`, errOut)

	code, _, errOut = tidemark(t, "link", "hwm/visibility-gap", "--step", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--step: expected a step number, 0 or more")

	code, _, errOut = tidemark(t, "run", "https://example.github.io/tidemark/play#tdm=abc*")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "link: the link's scenario is damaged")

	// A link's scenario that does not build is named by the file its link
	// names (file=, as embed.js writes for data-source), else linked.tdm,
	// as in the browser.
	broken, err := share.Fragment("scenario x/y \"Y\"\nsource orders key=order_id\ntarget fct sink=merj key=order_id\n")
	require.NoError(t, err)
	code, _, errOut = tidemark(t, "run", "https://example.github.io/tidemark/embed/#file=retry-dup.tdm&"+broken)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "retry-dup.tdm:3:")
	code, _, errOut = tidemark(t, "run", "https://example.github.io/tidemark/play#"+broken)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "linked.tdm:3:")

	code, out, errOut = tidemarkIn(t, "scenario x/y \"Y\"\nsource orders key=order_id\ntarget fct sink=merge key=order_id\npipeline extract from=orders to=fct\n", "link", "-")
	require.Equal(t, 0, code, errOut)
	// Without --base-url the links are the local server's, and standard
	// error says so (standard output stays the links alone).
	assert.Equal(t, "tidemark link: no --base-url, so these links open the site make serve runs at http://127.0.0.1:8080; for links to publish, give --base-url your site's address\n", errOut)
	assert.Len(t, strings.Split(strings.TrimSuffix(out, "\n"), "\n"), 3, out)
	// A text the reader takes but no world builds gets no link: its
	// readers would see the error, not the scenario.
	code, _, errOut = tidemarkIn(t, "scenario x/y \"Y\"\nsource orders key=order_id colour=red\n", "link", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "colour=")
	assert.True(t, strings.HasPrefix(out, "sandbox: http://127.0.0.1:8080/play#tdm="), out)
	code, _, errOut = tidemark(t, "link", "hwm/visibility-gap", "--base-url", "example.com")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "expected an absolute http or https address")
	// The same check as export's: an address a link cannot carry is refused.
	code, _, errOut = tidemark(t, "link", "hwm/visibility-gap", "--base-url", "https://me@example.com/docs")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "expected no query, fragment or user name")
}

// TestLinkMarkdown: link reads a Markdown file as check does, so an author
// who keeps a scenario in a tdm block of their docs links that block: its
// text without the list item's indentation, which run reads back; with
// several scenarios, each under its id and line; a block that does not
// build is named at the Markdown file's line and column, and no link is
// printed.
func TestLinkMarkdown(t *testing.T) {
	dir := t.TempDir()
	const body = "scenario mydocs/late \"Late\"\nsource orders key=order_id updated_at=txn-start\ntarget fct sink=merge key=order_id\n" +
		"pipeline extract from=orders to=fct mark=timestamp advance=after\ntxn T1 begin=10:00:00 commit=10:00:04 insert order_id=1\n" +
		"run extract at=10:00:02\nrun extract at=10:00:06\nexpect missing=1\n"
	indented := "  " + strings.ReplaceAll(strings.TrimSuffix(body, "\n"), "\n", "\n  ")
	one := filepath.Join(dir, "one.md")
	require.NoError(t, os.WriteFile(one, []byte("# Docs\n\n- a list item\n\n  ```tdm\n"+indented+"\n  ```\n\n```tdm\nexpect duplicated=none\n```\n"), 0o644))
	code, out, errOut := tidemark(t, "link", one, "--base-url", "https://docs.example")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, "one whole scenario, one set of links; the fragment is part of none: %s", out)
	payload := lines[0][strings.Index(lines[0], "#tdm=")+len("#tdm="):]
	text, err := share.Decode(payload)
	require.NoError(t, err)
	assert.Equal(t, body, text, "the block's text as a scenario file")
	code, out, errOut = tidemark(t, "run", strings.TrimPrefix(lines[0], "sandbox: "))
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "VERDICT: 1 row missing")

	two := filepath.Join(dir, "two.md")
	second := strings.Replace(body, "mydocs/late", "mydocs/again", 1)
	require.NoError(t, os.WriteFile(two, []byte("```tdm\n"+body+"```\n\n```tdm\n"+second+"```\n"), 0o644))
	code, out, errOut = tidemark(t, "link", two)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "mydocs/late ("+two+":2):\nsandbox: ")
	assert.Contains(t, out, "\n\nmydocs/again ("+two+":13):\nsandbox: ")

	bad := filepath.Join(dir, "bad.md")
	require.NoError(t, os.WriteFile(bad, []byte("```tdm\n"+body+"```\n\n```tdm\n"+strings.Replace(second, "sink=merge", "sink=mrge", 1)+"```\n"), 0o644))
	code, out, errOut = tidemark(t, "link", bad)
	assert.Equal(t, 2, code)
	assert.Empty(t, out, "no links while a block is wrong")
	assert.Contains(t, errOut, bad+":15:17: expected sink= to be one of")

	none := filepath.Join(dir, "none.md")
	require.NoError(t, os.WriteFile(none, []byte("# Nothing to link\n"), 0o644))
	code, _, errOut = tidemark(t, "link", none)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "holds no scenario to link")
}

// TestLinkNamesTheSettingThatDoesNotBuild: link refuses a text one of whose
// knob values does not build, and says which value, as check does: the
// text runs with its defaults, so the error alone did not say why.
func TestLinkNamesTheSettingThatDoesNotBuild(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	text := strings.Replace(string(sc.Source), "knob mark = timestamp | lsn", "knob mark = timestamp | lsn | lsm", 1)
	require.NotEqual(t, string(sc.Source), text)
	path := filepath.Join(t.TempDir(), "lsm.tdm")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	code, _, errOut := tidemark(t, "run", path)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = tidemark(t, "link", path)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `found "lsm" (with knob mark=lsm)`)
}
