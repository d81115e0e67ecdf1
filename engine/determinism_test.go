package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/internal/wasmnode"
	"github.com/tidemark/tidemark/lessons"
)

// Native and wasm, byte for byte. The browser runs the engine compiled to
// WebAssembly; the server, the CLI and every other test run it natively. The
// engine promises that the same scenario, knobs and seed give the same trace
// everywhere, so TestWasmTraceMatchesNative runs a fixed set of scenarios
// both ways and compares the JSON reports byte for byte: every bundled
// scenario under every combination of its knobs, and seeded generated
// scenarios of every world. The wasm side is this package's own test binary,
// built for js/wasm and run once under node (TestWasmTraceWorker), so the
// whole set costs one build and one process.

// Environment variables that turn TestWasmTraceWorker on: the file to read
// the cases from and the file to write their traces to.
const (
	detInEnv  = "TIDEMARK_DETERMINISM_IN"
	detOutEnv = "TIDEMARK_DETERMINISM_OUT"
)

// detCanary names the one case whose "trace" is the platform itself
// (GOOS/GOARCH). It differs between the two runs by construction, so the
// comparison must report it and only it: proof that the test compares what
// the wasm process wrote, not the native results with themselves.
const detCanary = "canary/platform"

// How many generated scenarios of each world the set holds. Each is small
// (a few hundred events); together they cover knob values and event kinds
// the bundled scenarios do not.
const (
	detGeneratedHWM    = 200
	detGeneratedLog    = 200
	detGeneratedStream = 200
	detGeneratedState  = 200
)

// detLarge are scenarios of the benchmarks' shape at a few thousand events
// each: large enough for the truth log's snapshots, rollbacks and sessions,
// retention and many partitions, which small scenarios barely reach.
var detLarge = []detCase{
	{Name: "large/hwm", Seed: 7, Source: `scenario large/hwm "5k transactions, runs every 3.6 s"
knob mark = lsn | timestamp
source orders key=order_id updated_at=txn-start cache=20
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark advance=after
workload orders txns=5000 from=10:00:00 every=36ms duration=0s..2s sessions=16 rollback=5
runs extract from=10:00:00 until=10:03:30 every=3.6s
`},
	{Name: "large/log", Seed: 7, Source: `scenario large/log "30k records, 16 partitions, 4 consumers"
topic orders partitions=16 retention=20s segment=5s
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=09:59:59
member billing c2 at=09:59:59
member billing c3 at=09:59:59
member billing c4 at=09:59:59
traffic shop records=30000 from=10:00:00 every=1ms keys=3000
polls billing from=10:00:00 until=10:00:40 every=100ms max=1000
`},
	{Name: "large/stream", Seed: 7, Source: `scenario large/stream "8k records, 8 partitions, sliding windows and a join"
topic events partitions=8
topic payments partitions=2
target per_key sink=merge key=window
target paid sink=merge key=user_id
producer shop to=events key=user_id
producer bank to=payments key=user_id
traffic shop records=8000 from=10:00:00 every=5ms keys=300 event-lag=0s..4s amount=1..100
traffic bank records=2000 from=10:00:00 every=20ms keys=300 event-lag=0s..9s
stream orders from=events
stream payers from=payments
watermark orders bound=2s idleness=5s
watermark payers bound=1s emit=per-record
window sums from=orders sliding size=10s slide=5s agg=sum lateness=1s to=per_key
join matched left=orders right=payers between=-5s..5s to=paid
stall orders partition=3 at=10:00:10 until=10:00:20
delay payers partition=1 from=10:00:05 until=10:00:30 by=8s
`},
	{Name: "large/state", Seed: 7, Source: `scenario large/state "8k records, 8 partitions, checkpoints, failures, buffers, a two-phase sink"
topic events partitions=8
target per_key sink=merge key=window
target loaded sink=append key=event_id
target counts sink=upsert key=user_id
producer shop to=events key=user_id
traffic shop records=8000 from=10:00:00 every=5ms keys=300 event-lag=0s..4s amount=1..100
stream orders from=events parallelism=4 rate=500/s
watermark orders bound=2s
checkpoint every=5s
window sums from=orders tumbling size=10s agg=sum to=per_key rate=1000/s buffer=200 overflow=block
sink load from=orders to=loaded commit=two-phase dedup=event ttl=10s
aggregate per_user from=orders agg=count ttl=20s to=counts rate=900/s buffer=100 overflow=drop
fail load at=10:00:12 point=snapshot restart=2s
fail sums at=10:00:31 restart=0s
read counts at=10:00:35 as=report
`},
}

// detCase is one run: a scenario file's text, knob settings and a seed.
type detCase struct {
	Name   string            `json:"name"`
	Source string            `json:"source"`
	Knobs  map[string]string `json:"knobs,omitempty"`
	Seed   uint64            `json:"seed"`
}

// detResult is what one run gave: the JSON report, or the error that stopped
// the run.
type detResult struct {
	Name  string `json:"name"`
	Trace []byte `json:"trace,omitempty"`
	Error string `json:"error,omitempty"`
}

// detCorpus returns the fixed set of cases, in a fixed order.
func detCorpus(t testing.TB) []detCase {
	t.Helper()
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	require.NotEmpty(t, all, "no bundled scenarios")
	cases := []detCase{{Name: detCanary}}
	for _, s := range all {
		for _, set := range s.File.KnobSettings() {
			cases = append(cases, detCase{Name: s.ID + "?" + settingsText(s.File.Knobs, set), Source: string(s.Source), Knobs: set, Seed: 1})
		}
	}
	for _, c := range detLarge {
		f, err := scenario.Parse(c.Name+".tdm", []byte(c.Source))
		require.NoError(t, err)
		for _, set := range f.KnobSettings() {
			c.Knobs = set
			if len(set) > 0 {
				c.Name = f.ID + "?" + settingsText(f.Knobs, set)
			}
			cases = append(cases, c)
		}
	}
	for seed := range uint64(detGeneratedHWM) {
		g := randomGen(rand.New(rand.NewPCG(seed, 90)))
		cases = append(cases, detCase{Name: fmt.Sprintf("generated/hwm/%d", seed), Source: g.Text(), Seed: seed})
	}
	for seed := range uint64(detGeneratedLog) {
		g := randomLog(rand.New(rand.NewPCG(seed, 91)))
		cases = append(cases, detCase{Name: fmt.Sprintf("generated/log/%d", seed), Source: g.Text(), Seed: seed})
	}
	for seed := range uint64(detGeneratedStream) {
		g := randomStream(rand.New(rand.NewPCG(seed, 92)))
		cases = append(cases, detCase{Name: fmt.Sprintf("generated/stream/%d", seed), Source: g.Text(), Seed: seed})
	}
	for seed := range uint64(detGeneratedState) {
		g := randomState(rand.New(rand.NewPCG(seed, 94)), anyState)
		cases = append(cases, detCase{Name: fmt.Sprintf("generated/state/%d", seed), Source: g.Text(), Seed: seed})
	}
	return cases
}

// settingsText spells settings in the knobs' order: "mark=lsn&sink=merge".
func settingsText(knobs []scenario.Knob, set map[string]string) string {
	var parts []string
	for _, k := range knobs {
		parts = append(parts, k.Name+"="+set[k.Name])
	}
	return strings.Join(parts, "&")
}

// runDetCase runs one case where this code runs, natively or in wasm.
func runDetCase(c detCase) detResult {
	if c.Name == detCanary {
		return detResult{Name: c.Name, Trace: []byte(runtime.GOOS + "/" + runtime.GOARCH)}
	}
	f, err := scenario.Parse(c.Name+".tdm", []byte(c.Source))
	if err != nil {
		return detResult{Name: c.Name, Error: err.Error()}
	}
	tr, err := engine.Run(f, c.Knobs, c.Seed, worlds.All())
	if err != nil {
		return detResult{Name: c.Name, Error: err.Error()}
	}
	b, err := json.Marshal(report.Build(tr))
	if err != nil {
		return detResult{Name: c.Name, Error: "report: " + err.Error()}
	}
	// The consumers' station draws each group's assignments, which the
	// report leaves out: they are compared too.
	if l := logs.Of(tr); l != nil {
		for _, g := range l.Groups {
			a, err := json.Marshal(g.Assignments)
			if err != nil {
				return detResult{Name: c.Name, Error: "assignments: " + err.Error()}
			}
			b = append(b, a...)
		}
	}
	return detResult{Name: c.Name, Trace: b}
}

// traceDiffs compares the wasm results with the native ones and describes
// every difference: a case missing from either side, a different error, or
// a trace that differs, with the first differing byte and what surrounds it
// on each side.
func traceDiffs(native, wasm []detResult) []string {
	var out []string
	byName := make(map[string]detResult, len(wasm))
	for _, r := range wasm {
		if _, dup := byName[r.Name]; dup {
			out = append(out, fmt.Sprintf("%s: wasm reported the case twice", r.Name))
		}
		byName[r.Name] = r
	}
	seen := make(map[string]bool, len(native))
	for _, n := range native {
		seen[n.Name] = true
		w, ok := byName[n.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: no result from wasm", n.Name))
		case n.Error != w.Error:
			out = append(out, fmt.Sprintf("%s: native error %q, wasm error %q", n.Name, n.Error, w.Error))
		case !bytes.Equal(n.Trace, w.Trace):
			out = append(out, fmt.Sprintf("%s: traces differ (%d bytes native, %d wasm); %s", n.Name, len(n.Trace), len(w.Trace), firstDifference(n.Trace, w.Trace)))
		}
	}
	for _, w := range wasm {
		if !seen[w.Name] {
			out = append(out, fmt.Sprintf("%s: wasm reported a case the native run did not have", w.Name))
		}
	}
	return out
}

// firstDifference names the first byte at which a and b differ, with up to
// 60 bytes of each from a little before it.
func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-20)
	window := func(x []byte) string { return string(x[min(from, len(x)):min(from+60, len(x))]) }
	return fmt.Sprintf("first difference at byte %d: native …%q…, wasm …%q…", i, window(a), window(b))
}

// TestWasmTraceWorker is the wasm side of TestWasmTraceMatchesNative: with
// the two environment variables set it runs every case it is given and
// writes the results. Otherwise it has nothing to do.
func TestWasmTraceWorker(t *testing.T) {
	in, out := os.Getenv(detInEnv), os.Getenv(detOutEnv)
	if in == "" || out == "" {
		t.Skipf("the wasm side of TestWasmTraceMatchesNative; runs when %s and %s are set", detInEnv, detOutEnv)
	}
	b, err := os.ReadFile(in)
	require.NoError(t, err)
	var cases []detCase
	require.NoError(t, json.Unmarshal(b, &cases))
	results := make([]detResult, len(cases))
	for i, c := range cases {
		results[i] = runDetCase(c)
	}
	b, err = json.Marshal(results)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, b, 0o644))
}

// TestWasmTraceMatchesNative builds this package's tests for js/wasm, runs
// the fixed set of cases in one node process at the page's collector
// settings, runs the same cases natively, and requires every JSON report to
// match byte for byte. Without node it skips, saying so, unless CI is set.
func TestWasmTraceMatchesNative(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the engine for js/wasm and runs it under node")
	}
	if runtime.GOOS == "js" {
		t.Skip("this is the native side")
	}
	runner := wasmnode.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	cases := detCorpus(t)
	dir := t.TempDir()
	in, out, bin := filepath.Join(dir, "cases.json"), filepath.Join(dir, "results.json"), filepath.Join(dir, "engine.test.wasm")
	b, err := json.Marshal(cases)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, b, 0o644))

	start := time.Now()
	require.NoError(t, wasmnode.BuildTest(ctx, ".", bin))
	built := time.Since(start)

	start = time.Now()
	cmd := wasmnode.Command(ctx, runner, bin, append([]string{detInEnv + "=" + in, detOutEnv + "=" + out}, wasmnode.PageEnv...),
		"-test.run=^TestWasmTraceWorker$", "-test.count=1")
	cmd.Dir = "."
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "the wasm run failed:\n%s", output)
	ran := time.Since(start)
	b, err = os.ReadFile(out)
	require.NoError(t, err, "the wasm run wrote no results:\n%s", output)
	var wasm []detResult
	require.NoError(t, json.Unmarshal(b, &wasm))

	start = time.Now()
	native := make([]detResult, len(cases))
	bytesCompared := 0
	for i, c := range cases {
		native[i] = runDetCase(c)
		bytesCompared += len(native[i].Trace)
	}
	t.Logf("%d cases, %.1f MB of JSON: wasm build %v, wasm run %v, native run %v",
		len(cases), float64(bytesCompared)/1e6, built.Round(time.Millisecond), ran.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	diffs := traceDiffs(native, wasm)
	require.NotEmpty(t, diffs, "the canary case (the platform's name) should differ between native and wasm; the comparison saw no wasm output")
	assert.Contains(t, diffs[0], detCanary+": traces differ", "the first difference should be the canary's")
	assert.Contains(t, diffs[0], "js/wasm", "the canary should carry the wasm side's platform")
	if rest := diffs[1:]; len(rest) > 0 {
		if len(rest) > 20 {
			rest = append(rest[:20:20], fmt.Sprintf("… and %d more", len(rest)-20))
		}
		t.Errorf("native and wasm runs disagree in %d of %d cases:\n  %s", len(diffs)-1, len(cases)-1, strings.Join(rest, "\n  "))
	}
}

// TestDeterminismCorpus pins what the set covers: every bundled scenario
// under every knob combination, generated scenarios of both worlds, and
// names that are unique, so a result can only match its own case.
func TestDeterminismCorpus(t *testing.T) {
	cases := detCorpus(t)
	names := map[string]bool{}
	for _, c := range cases {
		require.False(t, names[c.Name], "case %s appears twice", c.Name)
		names[c.Name] = true
	}
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	want := 1 + 5 + detGeneratedHWM + detGeneratedLog + detGeneratedStream + detGeneratedState // the canary, the large scenarios
	for _, s := range all {
		n := 1
		for _, k := range s.File.Knobs {
			n *= len(k.Values)
		}
		want += n
	}
	require.Len(t, cases, want)
	assert.True(t, names["hwm/visibility-gap?mark=lsn&predicate=gte"], "a bundled scenario with two knobs set")
	assert.True(t, names["dist/producer-retry?idempotence=on&retry=session&sink=merge"], "a bundled scenario of the log world")
	assert.True(t, names["generated/hwm/0"] && names["generated/log/199"] && names["generated/stream/199"] && names["generated/state/199"], "generated scenarios of every world")
	assert.True(t, names["large/hwm?mark=timestamp"] && names["large/log"] && names["large/stream"] && names["large/state"], "the large scenarios")
	assert.True(t, names["stream/checkpoint-two-phase?crash=snapshot&commit=auto"], "a bundled scenario of the stream world's second part")
	assert.True(t, names["stream/late-data?lateness=2m&late=side-output&side=none"], "a bundled scenario of the stream world, three knobs set")

	combos := (&scenario.File{Knobs: []scenario.Knob{{Name: "a", Values: []string{"1", "2"}}, {Name: "b", Values: []string{"x", "y", "z"}}}}).KnobSettings()
	require.Len(t, combos, 6)
	assert.Equal(t, map[string]string{"a": "1", "b": "x"}, combos[0])
	assert.Equal(t, map[string]string{"a": "2", "b": "z"}, combos[5])
}

// TestTraceDiffsCatches injects each kind of disagreement into real native
// results and requires the comparison to name it.
func TestTraceDiffsCatches(t *testing.T) {
	var native []detResult
	for _, c := range detCorpus(t)[1:4] {
		r := runDetCase(c)
		require.Empty(t, r.Error, c.Name)
		require.NotEmpty(t, r.Trace, c.Name)
		native = append(native, r)
	}
	clone := func() []detResult {
		out := make([]detResult, len(native))
		for i, r := range native {
			out[i] = detResult{Name: r.Name, Trace: bytes.Clone(r.Trace), Error: r.Error}
		}
		return out
	}
	assert.Empty(t, traceDiffs(native, clone()), "identical results should compare equal")

	flipped := clone()
	at := len(flipped[1].Trace) / 2
	flipped[1].Trace[at] ^= 0x01
	d := traceDiffs(native, flipped)
	require.Len(t, d, 1)
	assert.Contains(t, d[0], native[1].Name+": traces differ")
	assert.Contains(t, d[0], fmt.Sprintf("first difference at byte %d", at))

	longer := clone()
	longer[0].Trace = append(longer[0].Trace, ' ')
	d = traceDiffs(native, longer)
	require.Len(t, d, 1)
	assert.Contains(t, d[0], fmt.Sprintf("first difference at byte %d", len(native[0].Trace)))

	failed := clone()
	failed[2].Trace, failed[2].Error = nil, "out of memory"
	d = traceDiffs(native, failed)
	require.Len(t, d, 1)
	assert.Contains(t, d[0], `wasm error "out of memory"`)

	d = traceDiffs(native, clone()[:2])
	require.Len(t, d, 1)
	assert.Contains(t, d[0], native[2].Name+": no result from wasm")

	extra := append(clone(), detResult{Name: "stray", Trace: []byte("{}")})
	d = traceDiffs(native, extra)
	require.Len(t, d, 1)
	assert.Contains(t, d[0], "stray: wasm reported a case the native run did not have")

	twice := append(clone(), native[0])
	d = traceDiffs(native, twice)
	require.Len(t, d, 1)
	assert.Contains(t, d[0], "reported the case twice")
}
