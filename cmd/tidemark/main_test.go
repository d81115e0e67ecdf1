package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/lessons"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

// tidemark runs the CLI in-process and returns its exit code, stdout and stderr.
func tidemark(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return tidemarkIn(t, "", args...)
}

// tidemarkIn is tidemark with text on standard input.
func tidemarkIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// goldenName is the file name stem of a scenario's golden files.
func goldenName(id string) string { return strings.ReplaceAll(id, "/", "__") }

// golden compares got with testdata/golden/name, a scenario's golden file,
// or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", "golden", name), got)
}

// cliGolden compares got with testdata/cli/name, the golden output of a
// command other than run, or rewrites it under -update.
func cliGolden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", "cli", name), got)
}

func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Fatalf("golden file %s is missing (a new scenario?); run go test ./cmd/tidemark -update to write it, then review the diff", path)
	}
	require.NoError(t, err)
	if string(want) != got {
		assert.Equal(t, string(want), got, "output differs from %s; if the change is intended, run go test ./cmd/tidemark -update and review the diff", path)
	}
}

// TestGolden runs every bundled scenario with its default knobs and compares
// the text timeline and the JSON report with the golden files. The catalog is
// iterated, so a new scenario is covered as soon as it is added.
func TestGolden(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	for _, s := range all {
		t.Run(s.ID, func(t *testing.T) {
			code, out, errOut := tidemark(t, "run", s.ID)
			require.Equal(t, 0, code, "stderr: %s", errOut)
			require.Empty(t, errOut)
			require.True(t, strings.HasPrefix(out, s.ID+" — "+s.Title+"\n"), "text output should start with the id and title, got %q", firstLine(out))
			golden(t, goldenName(s.ID)+".txt", out)

			code, js, errOut := tidemark(t, "run", s.ID, "--json")
			require.Equal(t, 0, code, "stderr: %s", errOut)
			require.True(t, json.Valid([]byte(js)), "--json output is not valid JSON")
			golden(t, goldenName(s.ID)+".json", js)
		})
	}
	if *update {
		return
	}
	// Every golden file belongs to a bundled scenario: a renamed or deleted
	// scenario must take its golden files with it.
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, s := range all {
		ids[goldenName(s.ID)] = true
	}
	variants := map[string]bool{}
	for _, v := range goldenKnobs {
		variants[knobFile(v)] = true
	}
	for _, f := range files {
		stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".txt"), ".json")
		stem, knobs, _ := strings.Cut(stem, "@") // a knob variant's (TestGoldenKnobs)
		assert.True(t, ids[stem], "golden file %s has no bundled scenario; delete it", f)
		if knobs != "" {
			assert.True(t, variants[stem+"@"+knobs], "golden file %s is no variant TestGoldenKnobs runs; delete it", f)
		}
	}
}

// goldenKnobs are the knob settings, beyond each scenario's defaults, whose
// output TestGoldenKnobs holds to golden files: those where the stream job
// shows what its defaults do not (records a full buffer drops and records
// a growing buffer loses, a failure during a sink's commit, a restore that
// retention makes impossible, keyed state that expires, a hot key at
// 10x, sessions that fired and were then merged into a larger one, late
// records sent to a side output nobody reads), of the log world (a
// producer that learns of new partitions late, a group whose error handler
// skips records of a schema version its code cannot read, one whose
// new code cannot read the old records, and a static member whose session
// times out while it restarts), and of the high-water-mark
// world (a cutover to a new kind of mark that reads a stretch again and
// finds the row the old mark skipped; stamps to the millisecond that end a
// tie and leave the row committed behind the mark lost; a settle long enough that a run of an
// interval that has ended sees the commit a short one misses, and a retry
// that writes an interval last from an older snapshot than another run's). Each is the scenario's id, "@", and
// its knobs as k=v joined by ",".
var goldenKnobs = []string{
	"dist__partition-change@refresh=5m",
	"dist__schema-change@compatibility=forward",
	"dist__schema-change@on-error=skip",
	"dist__static-membership@session=15s",
	"hwm__finer-timestamps@resolution=1ms",
	"hwm__interval-bounded@settle=1m",
	"hwm__interval-bounded@t6=10:02:16",
	"hwm__mark-migration@cutover=1002",
	"stream__backpressure@overflow=drop",
	"stream__backpressure@overflow=grow",
	"stream__checkpoint-two-phase@crash=commit",
	"stream__checkpoint-two-phase@crash=snapshot,commit=auto",
	"stream__checkpoint-past-retention@reset=none",
	"stream__state-ttl@ttl=1m",
	"stream__hot-key@load=10x",
	"stream__serving-publish@commit=two-phase",
	"stream__join-skew@idleness=30s",
	"stream__late-data@lateness=2m",
	"stream__late-data@late=side-output,side=none",
	"stream__late-replay@sink=upsert",
	"stream__late-replay@lateness=2m",
	"stream__session-window@lateness=2m",
}

// TestGoldenKnobs runs the knob settings of goldenKnobs and compares the
// text timeline and the JSON report with their golden files, so that the
// report of what only a knob shows (drops, losses, aborted and recovered
// transactions, unrestorable checkpoints) is held as the defaults' is.
func TestGoldenKnobs(t *testing.T) {
	for _, v := range goldenKnobs {
		t.Run(v, func(t *testing.T) {
			stem, knobs, _ := strings.Cut(v, "@")
			args := []string{"run", strings.ReplaceAll(stem, "__", "/")}
			for _, kv := range strings.Split(knobs, ",") {
				args = append(args, "--set", kv)
			}
			code, out, errOut := tidemark(t, args...)
			require.Equal(t, 0, code, "stderr: %s", errOut)
			require.Empty(t, errOut)
			for _, kv := range strings.Split(knobs, ",") {
				require.Contains(t, firstLines(out, 2), kv, "the timeline names the knob it was run with")
			}
			golden(t, knobFile(v)+".txt", out)

			code, js, errOut := tidemark(t, append(args, "--json")...)
			require.Equal(t, 0, code, "stderr: %s", errOut)
			require.True(t, json.Valid([]byte(js)), "--json output is not valid JSON")
			golden(t, knobFile(v)+".json", js)
		})
	}
}

// knobFile is the name of variant v's golden files: a time's colons, which
// a Go module's file names may not hold (nor macOS's), become dots.
func knobFile(v string) string { return strings.ReplaceAll(v, ":", ".") }

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// TestAverageLagAgrees: the timeline's average lag and the average-lag
// check's detail spell the same peak (at 10x the hot key's average peaks at
// 15.25, which rounding half up and rounding as strconv does spell apart).
func TestAverageLagAgrees(t *testing.T) {
	code, out, errOut := tidemark(t, "run", "stream/hot-key", "--set", "load=10x")
	require.Equal(t, 0, code, errOut)
	_, lag, ok := strings.Cut(out, "taps average over 4 partitions: peak ")
	require.True(t, ok, "the timeline has the average lag")
	lag, _, _ = strings.Cut(lag, "\n")
	_, check, ok := strings.Cut(out, "taps's average over 4 partitions peaked at ")
	require.True(t, ok, "the average-lag check reports the peak")
	check, _, _ = strings.Cut(check, "\n")
	assert.Equal(t, lag, check)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// marked reports whether f declares a pipeline that keeps a mark: one
// without interval=, which keeps none.
func marked(f *scenario.File) bool {
	for _, c := range f.Commands {
		if c.Name == "pipeline" && !slices.ContainsFunc(c.Args, func(a scenario.Arg) bool { return a.Key == "interval" }) {
			return true
		}
	}
	return false
}

// TestJSONShape checks the fields tools rely on, for every bundled scenario.
func TestJSONShape(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, s := range all {
		t.Run(s.ID, func(t *testing.T) {
			code, js, errOut := tidemark(t, "run", s.ID, "--json")
			require.Equal(t, 0, code, errOut)
			var doc struct {
				Scenario *string           `json:"scenario"`
				Knobs    map[string]string `json:"knobs"`
				Steps    *int              `json:"steps"`
				Truth    *struct {
					Missing    []string       `json:"missing"`
					Duplicated map[string]int `json:"duplicated"`
				} `json:"truth"`
				Checks []map[string]any `json:"checks"`
				Marks  []struct {
					Pipeline *string          `json:"pipeline"`
					History  []map[string]any `json:"history"`
				} `json:"marks"`
				Events []map[string]any `json:"events"`
				Log    *struct {
					Partitions []map[string]any `json:"partitions"`
					Records    []map[string]any `json:"records"`
				} `json:"log"`
			}
			require.NoError(t, json.Unmarshal([]byte(js), &doc))
			require.NotNil(t, doc.Scenario)
			assert.Equal(t, s.ID, *doc.Scenario)
			require.NotNil(t, doc.Knobs, "knobs")
			for _, k := range s.File.Knobs {
				assert.Equal(t, k.Default, doc.Knobs[k.Name], "knob %s should be at its default", k.Name)
			}
			require.NotNil(t, doc.Steps)
			assert.Equal(t, len(doc.Events), *doc.Steps, "steps should count the events")
			require.NotNil(t, doc.Truth, "truth")
			assert.NotNil(t, doc.Truth.Missing, "truth.missing must be a list, even an empty one")
			assert.NotNil(t, doc.Truth.Duplicated, "truth.duplicated must be an object, even an empty one")
			require.NotEmpty(t, doc.Checks)
			for _, c := range doc.Checks {
				for _, f := range []string{"name", "status", "detail"} {
					assert.Contains(t, c, f, "check %v", c)
				}
				assert.Contains(t, []any{"pass", "fail", "not-run"}, c["status"])
			}
			if doc.Log != nil {
				// The log world: every partition with its offsets and each group's lag,
				// every record with its partition and offset.
				require.NotEmpty(t, doc.Log.Partitions)
				for _, p := range doc.Log.Partitions {
					for _, f := range []string{"topic", "partition", "log_start", "end", "groups"} {
						assert.Contains(t, p, f, "partition %v", p)
					}
				}
				for _, r := range doc.Log.Records {
					for _, f := range []string{"topic", "partition", "offset", "key", "step"} {
						assert.Contains(t, r, f, "record %v", r)
					}
				}
			} else if marked(s.File) {
				require.NotEmpty(t, doc.Marks)
			}
			for _, m := range doc.Marks {
				require.NotNil(t, m.Pipeline)
				for _, p := range m.History {
					for _, f := range []string{"step", "at", "value"} {
						assert.Contains(t, p, f, "mark point %v", p)
					}
				}
			}
			require.NotEmpty(t, doc.Events)
			for i, e := range doc.Events {
				for _, f := range []string{"step", "at", "actor", "kind", "narration"} {
					require.Contains(t, e, f, "event %v", e)
				}
				assert.EqualValues(t, i+1, e["step"], "events are numbered from 1 in order")
				assert.NotEmpty(t, e["narration"])
			}
		})
	}
}

// TestKnobsChangeOutput: --set reaches the engine and the JSON says so.
func TestKnobsChangeOutput(t *testing.T) {
	code, js, errOut := tidemark(t, "run", "hwm/visibility-gap", "--set", "mark=lsn", "--json")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Knobs map[string]string          `json:"knobs"`
		Truth struct{ Missing []string } `json:"truth"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	assert.Equal(t, "lsn", doc.Knobs["mark"])
	assert.Empty(t, doc.Truth.Missing, "an lsn mark loses nothing in the visibility-gap scenario")

	code, def, _ := tidemark(t, "run", "hwm/visibility-gap", "--json")
	require.Equal(t, 0, code)
	assert.NotEqual(t, def, js)
}

func TestList(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	code, out, errOut := tidemark(t, "list")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, lines, len(all), "one line per bundled scenario")
	for i, s := range all {
		fields := strings.Fields(lines[i])
		require.NotEmpty(t, fields)
		assert.Equal(t, s.ID, fields[0])
		assert.Equal(t, s.Title, strings.TrimSpace(strings.TrimPrefix(lines[i], s.ID)))
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

const okScenario = `scenario test/ok "A small scenario"
knob mark = timestamp | lsn
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:00 commit=10:00:04 insert order_id=2
run extract at=10:00:02
run extract at=10:00:06
`

func TestExitCodes(t *testing.T) {
	good := writeFile(t, "ok.tdm", okScenario)
	malformed := writeFile(t, "bad.tdm", "scenario test/bad \"Bad\"\nsource orders key=order_id\ntarget t sink=\"merge\nrun x at=10:00:00\n")
	badCommand := writeFile(t, "cmd.tdm", "scenario test/cmd \"Cmd\"\n\nsourse orders key=order_id\n")
	falseExpect := writeFile(t, "expect.tdm", okScenario+"expect missing=none\n")
	trueExpect := writeFile(t, "expect-ok.tdm", okScenario+"expect missing=2\nexpect missing=none when mark=lsn\n")
	// A scenario of no step (a topic and nothing else) and a job with
	// nothing to read (one step, its input's end) both report; a job of no
	// step panicked in the report once. A checkpoint with no stream to take
	// is refused where it stands.
	noStep := writeFile(t, "no-step.tdm", "scenario test/empty \"Empty\"\ntopic t\n")
	idleJob := writeFile(t, "idle-job.tdm", "scenario test/idle \"Idle\"\ntopic t\nstream s from=t\ncheckpoint every=1m\n")
	noJob := writeFile(t, "no-job.tdm", "scenario test/nojob \"No job\"\ntopic t\ncheckpoint every=1m\n")
	// A run does not check claims, but refuses one it could not check.
	badClaim := writeFile(t, "bad-claim.tdm", okScenario+"expect missng=none\n")
	badWhen := writeFile(t, "bad-when.tdm", okScenario+"expect missing=none when colour=red\n")

	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  string // substring
		stderr  string // substring
		noStout bool
	}{
		{name: "run bundled", args: []string{"run", "hwm/visibility-gap"}, code: 0, stdout: "VERDICT"},
		{name: "run file", args: []string{"run", good}, code: 0, stdout: "test/ok — A small scenario"},
		{name: "run file with knob", args: []string{"run", good, "--set", "mark=lsn"}, code: 0, stdout: "knobs: mark=lsn"},
		{name: "run a scenario of no step", args: []string{"run", noStep}, code: 0, stdout: "VERDICT: the target matches the source"},
		{name: "run a scenario of no step as JSON", args: []string{"run", "--json", noStep}, code: 0, stdout: `"scenario": "test/empty"`},
		{name: "run a job with nothing to read", args: []string{"run", idleJob}, code: 0, stdout: "its input ends"},
		{name: "run a job with nothing to read as JSON", args: []string{"run", "--json", idleJob}, code: 0, stdout: `"scenario": "test/idle"`},
		{name: "a checkpoint with no stream", args: []string{"run", noJob}, code: 2, stderr: "no-job.tdm:3:1: a checkpoint snapshots a stream job's positions and state, and this scenario has no stream"},
		{name: "run refuses a malformed claim", args: []string{"run", badClaim}, code: 2, stderr: badClaim + `:10:8: unknown claim "missng"`},
		{name: "run refuses an unknown knob after when", args: []string{"run", badWhen}, code: 2, stderr: badWhen + `:10:26: unknown knob "colour" after when`},
		{name: "run leaves a false claim to check", args: []string{"run", falseExpect}, code: 0, stdout: "VERDICT"},
		{name: "flags before ref", args: []string{"run", "--seed", "7", good}, code: 0, stdout: "seed: 7"},
		{name: "no args", args: nil, code: 2, stderr: "usage"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: `unknown command "frobnicate"`},
		{name: "unknown scenario", args: []string{"run", "hwm/no-such-thing"}, code: 2, stderr: `no bundled scenario or file named "hwm/no-such-thing"`},
		{name: "missing file", args: []string{"run", filepath.Join(t.TempDir(), "nope.tdm")}, code: 2, stderr: "cannot read scenario"},
		{name: "unknown knob", args: []string{"run", "hwm/visibility-gap", "--set", "colour=red"}, code: 2, stderr: `has no knob "colour"`},
		{name: "bad knob value", args: []string{"run", "hwm/visibility-gap", "--set", "mark=sundial"}, code: 2, stderr: `knob mark cannot be "sundial"; expected one of timestamp | lsn`},
		{name: "bad set syntax", args: []string{"run", "hwm/visibility-gap", "--set", "mark"}, code: 2, stderr: "expected knob=value"},
		{name: "bad seed", args: []string{"run", "hwm/visibility-gap", "--seed", "x"}, code: 2, stderr: `invalid value "x" for flag -seed: expected a whole number from 0 to`},
		{name: "negative seed", args: []string{"check", good, "--seed", "-1"}, code: 2, stderr: `invalid value "-1" for flag -seed: expected a whole number`},
		{name: "knob set twice", args: []string{"run", good, "--set", "mark=lsn", "--set", "mark=timestamp"}, code: 2, stderr: "knob mark is set twice (lsn, then timestamp); set it once"},
		{name: "no scenario", args: []string{"run"}, code: 2, stderr: "run needs a scenario"},
		{name: "two scenarios", args: []string{"run", good, good}, code: 2, stderr: "run takes one scenario"},
		{name: "malformed file", args: []string{"run", malformed}, code: 2, stderr: malformed + ":3:15: the quoted string is not closed"},
		{name: "unknown command word", args: []string{"run", badCommand}, code: 2, stderr: badCommand + `:3:1: unknown command "sourse"`},
		{name: "check false expectation", args: []string{"check", falseExpect}, code: 1, stdout: "expectations: 0 passed, 1 failed"},
		{name: "check names the line", args: []string{"check", falseExpect}, code: 1, stdout: falseExpect + ":10:8: expected missing=none, got missing=2"},
		{name: "check true expectations", args: []string{"check", trueExpect}, code: 0, stdout: "expectations: 2 passed, 0 failed"},
		{name: "check all", args: []string{"check", "--all"}, code: 0, stdout: "0 failed"},
		{name: "check malformed", args: []string{"check", malformed}, code: 2, stderr: malformed + ":3:15:"},
		{name: "check nothing", args: []string{"check"}, code: 2, stderr: "check needs scenario ids"},
		{name: "help", args: []string{"help"}, code: 0, stdout: "tidemark list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := tidemark(t, tc.args...)
			assert.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out, errOut)
			if tc.stdout != "" {
				assert.Contains(t, out, tc.stdout)
			}
			if tc.stderr != "" {
				assert.Contains(t, errOut, tc.stderr)
			}
			if tc.code == 2 {
				assert.True(t, strings.HasPrefix(errOut, "tidemark:") || strings.HasPrefix(errOut, "usage"), "errors go to stderr with a tidemark: prefix, got %q", errOut)
			}
			if tc.code == 0 {
				assert.Empty(t, errOut)
			}
		})
	}
}

// TestRunWorkBudget: a scenario that would pass the work budget is refused
// at its line, with exit 2, before it takes the machine's memory; a key
// range at the edge of int64 runs instead of hanging; --max-events sets the
// budget.
func TestRunWorkBudget(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		return path
	}
	head := "scenario t/budget \"Budget\"\nsource orders key=order_id\ntarget fct_orders sink=merge key=order_id\npipeline extract from=orders to=fct_orders\n"
	huge := write("huge.tdm", head+"workload txns=10000000 from=10:00:00 every=1ms\n")

	code, out, errOut := tidemark(t, "run", huge)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "tidemark: "+huge+":5:1: this scenario would schedule more than 10000000 events, rows, keys, partitions and runs; the limit here is 10000000\n", errOut)

	code, _, errOut = tidemark(t, "run", huge, "--max-events", "12000000")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "the limit here is 12000000", "--max-events raises the budget")

	code, _, errOut = tidemark(t, "run", "hwm/visibility-gap", "--max-events", "10")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "hwm/visibility-gap.tdm:")
	assert.Contains(t, errOut, "the limit here is 10\n")

	for _, bad := range []string{"0", "-5", "many"} {
		code, _, errOut = tidemark(t, "run", "hwm/visibility-gap", "--max-events", bad)
		assert.Equal(t, 2, code, bad)
		assert.Contains(t, errOut, "max-events", bad)
	}

	// check takes the same budget for each of its runs.
	code, _, errOut = tidemark(t, "check", "hwm/visibility-gap", "--max-events", "10")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "visibility-gap.tdm:15:1: this scenario would schedule more than 10 events")
	code, _, errOut = tidemark(t, "check", "hwm/visibility-gap", "--max-events", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "check: expected --max-events to be a positive whole number, found 0")
	code, out, errOut = tidemark(t, "check", "hwm/visibility-gap", "--max-events", "100000")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "passed, 0 failed")

	edge := write("edge.tdm", head+"txn T1 begin=10:00:00 commit=10:00:00 insert order_id=9223372036854775807..9223372036854775807\nrun extract at=10:00:01\n")
	code, out, errOut = tidemark(t, "run", edge)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "9223372036854775807")
}

// The WINDOWS section lists a late record that fell between a sliding
// window's windows apart from the window before the gap, which does not
// hold it.
func TestWindowsListLateBetweenWindowsApart(t *testing.T) {
	path := writeFile(t, "gap.tdm", `scenario t/gap "A late record between windows"
topic sales partitions=1
producer till1 to=sales key=sale_id
target out sink=merge key=minute
traffic till1 records=10 from=10:00:00 every=10s keys=3 amount=1..5
produce till1 at=10:03:00 key=1 event=10:00:45
stream tills from=sales
watermark tills bound=0s
key-by tills none
window w from=tills sliding size=30s slide=1m to=out
`)
	code, out, _ := tidemark(t, "run", path)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "    [10:00:00, 10:00:30)  truth 3, emitted 3; late, between this window and the next: 1 dropped\n")
}

// check runs every knob value, not only builds it: a value that makes the
// simulation refuse a line while running (here two open transactions
// writing one row) fails the check, though no claim names it.
func TestCheckRunsEveryKnobValue(t *testing.T) {
	path := writeFile(t, "knob.tdm", `scenario t/knob "A knob value that refuses a line"
knob second = 10:00:05 | 10:00:01
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
txn T1 begin=10:00:00 commit=10:00:04 update order_id=1
txn T0 begin=09:59:00 commit=09:59:00 insert order_id=1
txn T2 begin=$second commit=10:00:06 update order_id=1
run extract at=10:00:07
expect missing=none
`)
	code, _, errOut := tidemark(t, "check", path)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "knob.tdm:8:38: T2's update of order_id=1 in orders at 10:00:01 comes while T1, still open, has written that row")
	assert.Contains(t, errOut, "(with knob second=10:00:01)")
}
