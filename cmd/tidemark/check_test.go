package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckExpectationRanges: a claim's key range matches the keys it spans.
func TestCheckExpectationRanges(t *testing.T) {
	f := writeFile(t, "ranges.tdm", okScenario+"txn T3 begin=10:00:00 commit=10:00:05 insert order_id=90..94\nexpect missing=2,90..94\n")
	code, out, errOut := tidemark(t, "check", f)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "expectations: 1 passed, 0 failed")
}

// TestCheckBuildsEveryKnobValue: a knob value no expectation names must
// still build, and the error names it.
func TestCheckBuildsEveryKnobValue(t *testing.T) {
	src := `scenario test/knobs "A knob value that cannot build"
knob overlap = 0s | 5min
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders overlap=$overlap
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
run extract at=10:00:02
expect missing=none
`
	f := writeFile(t, "knobs.tdm", src)
	code, out, errOut := tidemark(t, "check", f)
	assert.Equal(t, 2, code, "stdout: %s", out)
	assert.Contains(t, errOut, f+`:5:52: expected a duration such as 2s, 500ms or 1m for overlap=, found "5min" (with knob overlap=5min)`)

	// Without any expect line, every value is built all the same.
	f = writeFile(t, "knobs-no-expect.tdm", strings.TrimSuffix(src, "expect missing=none\n"))
	code, _, errOut = tidemark(t, "check", f)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `found "5min" (with knob overlap=5min)`)

	// A when clause naming a value the knob does not have is an error.
	f = writeFile(t, "when.tdm", okScenario+"expect missing=none when mark=sundial\n")
	code, _, errOut = tidemark(t, "check", f)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, f+`:10:31: knob mark cannot be "sundial"; expected one of timestamp | lsn`)
}

// TestCheckWarnsOfANotePastTheEnd: a note no run reaches, with any knob's
// value, is named with its position; one a knob's longer run reaches is not.
func TestCheckWarnsOfANotePastTheEnd(t *testing.T) {
	src := `scenario test/notes "Notes"
knob second = 10:00:02 | 10:00:04
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
run extract at=10:00:02
run extract at=$second
note at-step=5 "seen when second=10:00:04"
note at-step=99 "never seen"
expect missing=none
`
	f := writeFile(t, "notes.tdm", src)
	code, out, errOut := tidemark(t, "check", f)
	assert.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, out, "WARN  "+f+":9:1: note at-step=99 is past the end: with each knob's values the runs have at most 6 steps, so no one will see it")
	assert.NotContains(t, out, "at-step=5")
}

// TestCheckWarnsOfAnUnusedKnob: a knob no line refers to is named with its
// position; one a line uses (here second) is not.
func TestCheckWarnsOfAnUnusedKnob(t *testing.T) {
	src := `scenario test/knobs "Knobs"
knob second = 10:00:02 | 10:00:04
knob colour = red | blue
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
run extract at=$second
expect missing=none
`
	f := writeFile(t, "knobs.tdm", src)
	code, out, errOut := tidemark(t, "check", f)
	assert.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, out, "WARN  "+f+":3:6: knob colour is used by no line (no $colour), so its values change nothing")
	assert.NotContains(t, out, "knob second")
}

// TestCheckNamesTheFileWithoutExpectations: the warning of a file that
// states no expectations names the file, as the other warnings do, so that
// an author whose folder holds two drafts of one id knows which to fix.
func TestCheckNamesTheFileWithoutExpectations(t *testing.T) {
	src := "scenario test/draft \"Draft\"\nsource orders key=order_id\ntarget fct_orders key=order_id\npipeline extract from=orders to=fct_orders\n"
	a := writeFile(t, "draft-a.tdm", src)
	b := writeFile(t, "draft-b.tdm", src+"expect missing=none\n")
	code, out, errOut := tidemark(t, "check", a, b)
	assert.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Contains(t, out, "WARN  "+a+": test/draft states no expectations\n")
	assert.NotContains(t, out, b)
}

// TestCheckUnknownCommandWithoutExpectations: a file that cannot build is
// bad input whether or not it states expectations.
func TestCheckUnknownCommandWithoutExpectations(t *testing.T) {
	f := writeFile(t, "cmd.tdm", "scenario test/cmd \"Cmd\"\n\nsourse orders key=order_id\n")
	code, out, errOut := tidemark(t, "check", f)
	assert.Equal(t, 2, code, "stdout: %s", out)
	assert.Contains(t, errOut, f+`:3:1: unknown command "sourse"`)
	assert.NotContains(t, out, "WARN", "a file that does not build gets an error, not a warning")
}

// TestCheckPrintsOnlyTheErrorOfAFileThatDoesNotBuild: no count of
// expectations, since none was checked, only the error with its position,
// and exit 2; beside a file that builds, the count is that file's.
func TestCheckPrintsOnlyTheErrorOfAFileThatDoesNotBuild(t *testing.T) {
	bad := writeFile(t, "bad.tdm", "scenario test/bad \"Bad\"\ntopic t partitions=1\nstream s from=nope\nexpect missing=none\n")
	code, out, errOut := tidemark(t, "check", bad)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "tidemark: "+bad+":3:15: unknown topic \"nope\"; declare it first with `topic nope partitions=3`\n", errOut)

	code, out, errOut = tidemark(t, "check", "--json", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, out, `"errors": [`, "--json still prints its report, with the error in it")
	assert.Contains(t, errOut, bad+":3:15:")

	good := writeFile(t, "good.tdm", okScenario+"expect missing=2\n")
	code, out, errOut = tidemark(t, "check", good, bad)
	assert.Equal(t, 2, code)
	assert.Equal(t, "expectations: 1 passed, 0 failed\n", out)
	assert.Contains(t, errOut, bad+":3:15:")
}

// TestHelpEverywhere: -h prints a command's usage on stdout and exits 0.
func TestHelpEverywhere(t *testing.T) {
	for _, cmd := range []string{"list", "run", "check", "replay", "link", "export", "version"} {
		for _, h := range []string{"-h", "--help"} {
			code, out, errOut := tidemark(t, cmd, h)
			assert.Equal(t, 0, code, "%s %s: %s", cmd, h, errOut)
			assert.Empty(t, errOut)
			assert.True(t, strings.HasPrefix(out, "usage:\n  tidemark "+cmd), "%s %s printed %q", cmd, h, out)
		}
		// help COMMAND prints the same.
		_, flagOut, _ := tidemark(t, cmd, "-h")
		code, out, _ := tidemark(t, "help", cmd)
		assert.Equal(t, 0, code)
		assert.Equal(t, flagOut, out, "help %s", cmd)
	}
	code, _, errOut := tidemark(t, "help", "rnu")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `no command "rnu" to help with`)
	code, out, _ := tidemark(t, "help")
	assert.Equal(t, 0, code)
	cliGolden(t, "help.txt", out)
}

// TestCheckFlags: --seed reaches the engine, --json prints one object, and
// - reads the scenario from standard input.
func TestCheckFlags(t *testing.T) {
	// A workload's schedule comes from the seed, so the same claim holds
	// under one seed and not another.
	src := `scenario test/seed "Seeded"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
workload txns=20 from=10:00:00 every=500ms duration=0s..5s rollback=30
runs extract from=10:00:03 until=10:00:30 every=3s
`
	f := writeFile(t, "seed.tdm", src)
	var claims [2]string
	for i, seed := range []string{"1", "2"} {
		code, js, errOut := tidemark(t, "run", f, "--seed", seed, "--json")
		require.Equal(t, 0, code, errOut)
		var doc struct{ Truth struct{ Missing []string } }
		require.NoError(t, json.Unmarshal([]byte(js), &doc))
		claims[i] = "expect missing=" + keyListOrNone(doc.Truth.Missing) + "\n"
	}
	require.NotEqual(t, claims[0], claims[1], "the two seeds should lose different rows")
	seeded := writeFile(t, "seeded.tdm", src+claims[1])
	code, out, _ := tidemark(t, "check", seeded)
	assert.Equal(t, 1, code, "seed 1 is the default, and the claim is seed 2's: %s", out)
	code, out, errOut := tidemark(t, "check", "--seed", "2", seeded)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)

	code, out, errOut = tidemarkIn(t, okScenario+"expect missing=2\nexpect missing=1\n", "check", "-")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "FAIL  test/ok: <stdin>:11:8: expected missing=1, got missing=2")

	code, out, errOut = tidemarkIn(t, okScenario+"expect missing=2\nexpect missing=1\n", "check", "--json", "-")
	assert.Equal(t, 1, code, errOut)
	var rep checkReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, 1, rep.Passed)
	assert.Equal(t, 1, rep.Failed)
	require.Len(t, rep.Scenarios, 1)
	assert.Equal(t, "test/ok", rep.Scenarios[0].Scenario)
	assert.Equal(t, "<stdin>", rep.Scenarios[0].File)
	require.Len(t, rep.Scenarios[0].Expectations, 2)
	assert.Equal(t, expectationReport{Position: "<stdin>:10:8", Claim: "missing=2", Status: "pass"}, rep.Scenarios[0].Expectations[0])
	assert.Equal(t, "fail", rep.Scenarios[0].Expectations[1].Status)
	assert.Empty(t, rep.Errors)
}

func keyListOrNone(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ",")
}

// TestVersion prints the module version; a test binary has none of its own,
// so the line says (devel) or names the version and the Go release.
func TestVersion(t *testing.T) {
	code, out, errOut := tidemark(t, "version")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^tidemark \S.* \(github.com/tidemark/tidemark, `+runtime.Version()+`\)\n$`, out)

	assert.Equal(t, "v1.4.0", moduleVersion(&debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.4.0"}}))
	assert.Equal(t, "(devel) 0123456789ab+dirty", moduleVersion(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}))
	assert.Equal(t, "(unknown)", moduleVersion(nil))
}

// TestCheckMarkdown: every tdm block of a Markdown file is checked, a
// fragment as a continuation of the whole scenario above it, and every
// position is the Markdown file's.
func TestCheckMarkdown(t *testing.T) {
	guide := filepath.Join("testdata", "check", "guide.md")
	code, out, errOut := tidemark(t, "check", guide)
	assert.Equal(t, 1, code, errOut)
	cliGolden(t, "check-guide.txt", out)

	code, js, _ := tidemark(t, "check", "--json", guide)
	assert.Equal(t, 1, code)
	cliGolden(t, "check-guide.json", js)

	broken := filepath.Join("testdata", "check", "broken.md")
	code, out, errOut = tidemark(t, "check", broken)
	assert.Equal(t, 2, code, out)
	cliGolden(t, "check-broken.txt", out+"--- stderr\n"+errOut)
	for _, want := range []string{
		broken + ":4:1: this tdm block has no `scenario` line",
		broken + `:16:52: expected a duration such as 2s, 500ms or 1m for overlap=, found "5min" (with knob overlap=5min)`,
		broken + `:24:5: unknown pipeline "extrct"`,
		broken + ":27:1: this tdm block holds no commands",
	} {
		assert.Contains(t, errOut, want)
	}

	// A directory is read for its Markdown and scenario files.
	dir := t.TempDir()
	md, err := os.ReadFile(guide)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "guide.md"), md, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.tdm"), []byte(okScenario+"expect missing=2\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not read"), 0o644))
	code, out, _ = tidemark(t, "check", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "expectations: 7 passed, 1 failed", "the guide's seven claims and the file's one")

	// A directory with no scenario in it (a CI step pointed at the wrong
	// folder, blocks fenced as something else) is named, not passed in
	// silence; a Markdown file without blocks, as a pre-commit hook passes
	// them, is not.
	bare := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bare, "readme.md"), []byte("# Notes\n\n```sql\nselect 1;\n```\n"), 0o644))
	code, out, errOut = tidemark(t, "check", bare)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "WARN  "+bare+" holds no scenario to check")
	code, js, _ = tidemark(t, "check", "--json", bare)
	assert.Equal(t, 0, code)
	assert.Contains(t, js, `"warnings": [`)
	code, out, _ = tidemark(t, "check", filepath.Join(bare, "readme.md"))
	assert.Equal(t, 0, code)
	assert.NotContains(t, out, "WARN")
}

// TestDocsScenariosHold: the project's own documentation is checked the
// way a reader's would be: every tdm block in docs/ builds under every knob
// value and every claim in it holds.
func TestDocsScenariosHold(t *testing.T) {
	code, out, errOut := tidemark(t, "check", filepath.Join("..", "..", "docs"))
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.NotContains(t, out, "FAIL")
}

// TestMarkdownBlocks: what counts as a tdm block, and where its lines are.
func TestMarkdownBlocks(t *testing.T) {
	src := "# T\n\n```tdm\nscenario a/b \"B\"\n\nsource o\n```\n\n```tdm extra words\n# c\nrun p at=10:00:00\n```\n\n    ```tdm\n    indented code, not a fence\n    ```\n\n~~~tdm\nknob x = a\n~~~\n\n```TDM\nnot this one\n```\n"
	blocks := markdownBlocks([]byte(src))
	require.Len(t, blocks, 3)
	assert.Equal(t, mdBlock{fence: 3, first: 4, lines: []string{`scenario a/b "B"`, "", "source o"}, whole: true}, blocks[0])
	assert.Equal(t, mdBlock{fence: 9, first: 10, lines: []string{"# c", "run p at=10:00:00"}}, blocks[1])
	assert.Equal(t, mdBlock{fence: 18, first: 19, lines: []string{"knob x = a"}}, blocks[2])
}

// TestReplayCommand: the replay's exit codes for what needs no database;
// the replay itself is tested against a real PostgreSQL in
// internal/replay.
func TestReplayCommand(t *testing.T) {
	code, _, errOut := tidemark(t, "replay", "hwm/visibility-gap")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "replay needs --postgres URL")

	code, _, errOut = tidemark(t, "replay", "--postgres", "postgres://localhost/db")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "replay needs scenario ids or files")

	code, _, errOut = tidemark(t, "replay", "--postgres", "postgres://localhost/db", "--every-knob", "--set", "mark=lsn", "hwm/visibility-gap")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--set or --every-knob, not both")

	code, out, errOut := tidemark(t, "replay", "--postgres", "postgres://nowhere.invalid/db", "--every-knob", "hwm/log-position-mark")
	assert.Equal(t, 3, code, "nothing disagreed, and nothing was replayed: %s", errOut)
	assert.Equal(t, 2, strings.Count(out, "NOT REPLAYABLE: it reads through the partitioned log"), "one line per knob setting:\n%s", out)

	sock := t.TempDir()
	code, _, errOut = tidemark(t, "replay", "--postgres", "host="+sock+" port=1 user=nobody connect_timeout=2", "hwm/visibility-gap")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "tidemark: replay of hwm/visibility-gap: cannot connect to PostgreSQL")
}

// TestProseNamesTheReconciliationsAsTheyAreNow: the reconciliations are
// named for when they count (reconciliation-same-window,
// reconciliation-closed-interval). The documentation and the lessons use
// those names; the former ones, and "same-column reconciliation", survive
// only in the sentence of docs/scenarios.md that says they were renamed.
func TestProseNamesTheReconciliationsAsTheyAreNow(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	for _, dir := range []string{"docs", filepath.Join("lessons", "text"), filepath.Join("lessons", "scenarios")} {
		require.NoError(t, filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".tdm")) {
				files = append(files, p)
			}
			return err
		}))
	}
	files = append(files, filepath.Join(root, "README.md"))
	require.NotEmpty(t, files)
	renameNote := "Until this release they were called `reconciliation-same-column` and `reconciliation-independent`"
	for _, p := range files {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(src)), " ") // a phrase may wrap
		if filepath.Base(p) == "scenarios.md" && filepath.Base(filepath.Dir(p)) == "docs" {
			require.Contains(t, text, renameNote, "docs/scenarios.md says the checks were renamed")
			text = strings.Replace(text, renameNote, "", 1)
		}
		for _, old := range []string{"reconciliation-same-column", "reconciliation-independent", "same-column reconciliation", "independent reconciliation"} {
			assert.NotContains(t, strings.ToLower(text), old, "%s uses a former name of a reconciliation check", p)
		}
	}
}

// TestCheckNamesAMiscasedFence: a block fenced as ```TDM is not a tdm
// block to a Markdown reader, so nothing checks it; check says so at its
// line rather than pass it over in silence.
func TestCheckNamesAMiscasedFence(t *testing.T) {
	md := filepath.Join(t.TempDir(), "doc.md")
	require.NoError(t, os.WriteFile(md, []byte("# Doc\n\n```TDM\nscenario x/y \"Y\"\n```\n\n```tdm\n"+okScenario+"```\n\n~~~ Tdm\nnothing\n~~~\n"), 0o644))
	code, out, errOut := tidemark(t, "check", md)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "WARN  "+md+":3: this block's language is not tdm in lower case, so it is not checked; fence it as ```tdm\n")
	assert.Contains(t, out, "WARN  "+md+":19: this block's language")
	code, js, _ := tidemark(t, "check", "--json", md)
	assert.Equal(t, 0, code)
	assert.Contains(t, js, md+":3: this block's language is not tdm")
}
