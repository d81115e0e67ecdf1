package replay

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestParseChange(t *testing.T) {
	tests := []struct {
		line string
		want Change
	}{
		{`table tidemark_1a.orders: INSERT: order_id[bigint]:3 updated_at[timestamp without time zone]:'2000-01-01 10:00:00.5' version[integer]:1`,
			Change{Schema: "tidemark_1a", Table: "orders", Op: "INSERT", Columns: map[string]string{"order_id": "3", "updated_at": "2000-01-01 10:00:00.5", "version": "1"}}},
		{`table "tdm x"."Order": UPDATE: k[text]:'a''b c' "user"[integer]:null`,
			Change{Schema: "tdm x", Table: "Order", Op: "UPDATE", Columns: map[string]string{"k": "a'b c"}}},
		{`table s.t: DELETE: id[bigint]:1`,
			Change{Schema: "s", Table: "t", Op: "DELETE", Columns: map[string]string{"id": "1"}}},
		{`table s.t: DELETE: (no-tuple-data)`,
			Change{Schema: "s", Table: "t", Op: "DELETE", Columns: map[string]string{}}},
		{`table s.t: UPDATE: old-key: id[bigint]:1 new-tuple: id[bigint]:2 v[integer]:5`,
			Change{Schema: "s", Table: "t", Op: "UPDATE", Columns: map[string]string{"id": "2", "v": "5"}}},
	}
	for _, tc := range tests {
		got, err := parseChange(tc.line)
		require.NoError(t, err, tc.line)
		assert.Equal(t, tc.want, got, tc.line)
	}
	for _, bad := range []string{"BEGIN 3", "table s.t INSERT", "table s.t: TRUNCATE: x", `table s.t: INSERT: k[text]:'open`, `table "s.t: INSERT: k[text]:1`} {
		_, err := parseChange(bad)
		assert.Error(t, err, bad)
	}
}

func TestDecodeRows(t *testing.T) {
	txns, err := decodeRows([][3]string{
		{"0/15286D8", "727", "BEGIN 727"},
		{"0/15286D8", "727", "table s.o: INSERT: id[bigint]:1 v[integer]:1"},
		{"0/1528850", "727", "COMMIT 727"},
		{"0/1528850", "728", "BEGIN 728"},
		{"0/1528900", "728", "COMMIT 728"},
	})
	require.NoError(t, err)
	require.Len(t, txns, 2)
	assert.Equal(t, uint32(727), txns[0].XID)
	assert.Equal(t, "0/1528850", txns[0].Commit.String())
	assert.Len(t, txns[0].Changes, 1)
	assert.Less(t, txns[0].Commit, txns[1].Commit, "commits decode in order")

	_, err = decodeRows([][3]string{{"0/1", "5", "BEGIN 5"}})
	assert.ErrorContains(t, err, "no COMMIT")
	_, err = decodeRows([][3]string{{"0/1", "5", "table s.o: INSERT: id[bigint]:1"}})
	assert.ErrorContains(t, err, "outside its transaction")
}

func TestParseLSN(t *testing.T) {
	l, err := ParseLSN("1A/2B3C")
	require.NoError(t, err)
	assert.Equal(t, LSN(0x1A<<32|0x2B3C), l)
	assert.Equal(t, "1A/2B3C", l.String())
	for _, bad := range []string{"", "12", "x/1", "1/"} {
		_, err := ParseLSN(bad)
		assert.Error(t, err, bad)
	}
}

func TestParseClock(t *testing.T) {
	for s, want := range map[string]vtime.Time{"10:00:02": 36_002_000, "10:00:04.500": 36_004_500, "-00:00:01.250": -1250, "25:00:00": 90_000_000, "10:00:00.5": 36_000_500} {
		got, err := parseClock(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, bad := range []string{"none", "lsn 1002", "10:00", "10:00:00.1234"} {
		_, err := parseClock(bad)
		assert.Error(t, err, bad)
	}
}

const base = `scenario test/replay "Replay refusals"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
`

// TestNotReplayable: what PostgreSQL would do differently from the engine
// for reasons that are not the scenario's subject is refused with a
// reason, before any database is touched.
func TestNotReplayable(t *testing.T) {
	tests := []struct{ name, src, why string }{
		{"insert after a delete", base + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1\ntxn T2 begin=10:00:01 commit=10:00:02 delete order_id=1\ntxn T3 begin=10:00:03 commit=10:00:04 insert order_id=1\n",
			"T3 inserts order_id 1 again after it was deleted"},
		{"keys and sequence ids", base + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=901\ntxn T2 begin=10:00:01 commit=10:00:02 insert\n",
			"table orders takes both keys written in the scenario and ids from its sequence"},
		{"an initial position", strings.Replace(base, "to=fct_orders\n", "to=fct_orders mark=lsn initial=1003\n", 1),
			"mark extract starts at lsn 1003"},
		{"the partitioned log", `scenario test/log "Log"
source orders key=order_id
topic cdc_orders partitions=1
target fct sink=merge key=order_id
cdc capture from=orders to=cdc_orders
group loader topic=cdc_orders to=fct
`, "it reads through the partitioned log (topic cdc_orders, cdc capture, group loader)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenario.Parse("r.tdm", []byte(tc.src))
			require.NoError(t, err)
			tr, err := engine.Run(f, nil, 1, worlds.All())
			require.NoError(t, err)
			res, err := Replay(context.Background(), "postgres://nowhere.invalid/db", tr)
			require.NoError(t, err, "a refusal needs no database")
			assert.Contains(t, res.NotReplayable, tc.why)
			assert.False(t, res.Agrees())
			assert.False(t, res.Disagrees())
			var b bytes.Buffer
			require.NoError(t, res.Text(&b))
			assert.Contains(t, b.String(), "NOT REPLAYABLE: "+tc.why)
			assert.Equal(t, 3, ExitCode([]*Result{res}), "a refusal is not a pass")
		})
	}
}

// scenarios are the ones the replay is held to: every bundled hwm scenario,
// and the files in testdata, which use what the bundled ones do not (every
// way of stamping updated_at, every sink, advance order and crash point,
// text keys, two targets, initial marks, resets).
func scenarios(t *testing.T) []*scenario.File {
	t.Helper()
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	var out []*scenario.File
	for _, s := range all {
		if strings.HasPrefix(s.ID, "hwm/") {
			out = append(out, s.File)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.tdm"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, p := range files {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := scenario.Parse(p, src)
		require.NoError(t, err)
		out = append(out, f)
	}
	return out
}

// notReplayableScenarios names the scenarios the replay refuses, and why.
var notReplayableScenarios = map[string]string{
	"hwm/interval-bounded":     "reads whole intervals instead of a mark, which the replay does not play",
	"hwm/log-position-mark":    "it reads through the partitioned log",
	"hwm/retention-resnapshot": "it reads through the partitioned log",
	"replay/double-merge":      "run 1 writes order_id 1 from orders_eu and from orders_us in one statement",
}

// knownDisagreements names the scenario and knob settings where PostgreSQL
// and the engine are known to disagree, each with the reason, so that the
// test holds every other combination to agreement. It is empty: on every
// scenario and knob combination replayed they agree. (replay/collision and
// replay/missing-row were here until the engine's truth told two tables'
// rows with one key apart, and until an update of no row matched nothing.)
// A scenario written to show where the engine is wrong goes here, so that
// correcting the engine shows up as a change.
var knownDisagreements = map[string]string{}

// TestReplayAgrees replays every scenario under every combination of its
// knobs on a real PostgreSQL and requires the database to agree with the
// engine: the rows each run read, the final missing, duplicated and stale
// keys, and the stored marks.
func TestReplayAgrees(t *testing.T) {
	url := cluster(t)
	seen := map[string]bool{}
	t.Cleanup(func() {
		for name := range knownDisagreements {
			assert.True(t, seen[name], "knownDisagreements names %q, which no scenario and knob setting is", name)
		}
	})
	for _, f := range scenarios(t) {
		for _, set := range f.KnobSettings() {
			tr, err := engine.Run(f, set, 1, worlds.All())
			require.NoError(t, err)
			name := strings.TrimSpace(f.ID + " " + newResult(tr).Knobs)
			seen[name] = true
			t.Run(name, func(t *testing.T) {
				res, err := Replay(context.Background(), url, tr)
				require.NoError(t, err)
				var b bytes.Buffer
				require.NoError(t, res.Text(&b))
				if why, ok := notReplayableScenarios[f.ID]; ok {
					assert.Contains(t, res.NotReplayable, why)
					return
				}
				require.Empty(t, res.NotReplayable, "every other scenario is replayable")
				if why, ok := knownDisagreements[name]; ok {
					assert.True(t, res.Disagrees(), "a known disagreement (%s) no longer disagrees; if the engine was corrected, take it off knownDisagreements:\n%s", why, b.String())
					return
				}
				assert.True(t, res.Agrees(), "PostgreSQL disagrees with the engine:\n%s", b.String())
				assert.Contains(t, b.String(), "\nAGREE: ")
			})
		}
	}
}

// TestReplayNoticesADifference: the database, not the trace, decides what
// a run reads. Stamping T3's row later than the engine did puts it inside
// the second run's window on PostgreSQL, so the replay reports the second
// run reading it and the row not missing, where the engine has it lost.
func TestReplayNoticesADifference(t *testing.T) {
	url := cluster(t)
	s, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	tr, err := engine.Run(s.File, nil, 1, worlds.All())
	require.NoError(t, err)
	i := slices.IndexFunc(hwm.Of(tr).Txns, func(x hwm.TxnRecord) bool { return x.Name == "T3" })
	require.GreaterOrEqual(t, i, 0)
	hwm.Of(tr).Txns[i].Stmts[0].Stamp = 36_003_000 // 10:00:03, after the first run's mark
	res, err := Replay(context.Background(), url, tr)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, res.Text(&b))
	out := b.String()
	assert.True(t, res.Disagrees(), out)
	assert.Regexp(t, `(?m)^≠ 2 extract 10:00:07 +none +3$`, out)
	assert.Regexp(t, `(?m)^≠ missing +3,4 +4$`, out)
	assert.Contains(t, out, "DIFFER: ")
	assert.Equal(t, 1, ExitCode([]*Result{res}), "tidemark replay exits 1 on a difference")
	differ := res

	// And the rows the engine says a run read are compared, not assumed.
	tr, err = engine.Run(s.File, nil, 1, worlds.All())
	require.NoError(t, err)
	hwm.Of(tr).Runs[0].Keys = []string{"1"}
	res, err = Replay(context.Background(), url, tr)
	require.NoError(t, err)
	assert.False(t, res.Runs[0].Agrees())
	assert.True(t, res.Runs[1].Agrees())

	// The exit status is over every scenario and knob setting replayed: one
	// difference among agreements and refusals makes it 1.
	tr, err = engine.Run(s.File, nil, 1, worlds.All())
	require.NoError(t, err)
	agree, err := Replay(context.Background(), url, tr)
	require.NoError(t, err)
	require.True(t, agree.Agrees())
	refused := &Result{NotReplayable: "it reads through the partitioned log"}
	assert.Equal(t, 0, ExitCode([]*Result{agree}))
	assert.Equal(t, 3, ExitCode([]*Result{agree, refused}), "nothing disagreed, and something was not replayed")
	assert.Equal(t, 1, ExitCode([]*Result{agree, refused, differ, agree}))
	assert.Equal(t, 1, ExitCode([]*Result{differ, refused}))
}

// TestReplayText is the replay's report for two scenarios, as the CLI
// prints it (the server's version line aside), in testdata/*.golden.
func TestReplayText(t *testing.T) {
	url := cluster(t)
	for _, c := range []struct {
		id, golden string
		set        map[string]string
	}{
		{"hwm/visibility-gap", "visibility-gap.golden", nil},
		{"hwm/racing-workers", "racing-workers-cas.golden", map[string]string{"cas": "on"}},
	} {
		s, ok := lessons.Lookup(c.id)
		require.True(t, ok)
		tr, err := engine.Run(s.File, c.set, 1, worlds.All())
		require.NoError(t, err)
		res, err := Replay(context.Background(), url, tr)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, res.Text(&b))
		got := regexp.MustCompile(`(?m)^postgres: .*$`).ReplaceAllString(b.String(), "postgres: PostgreSQL (version)")
		got = regexp.MustCompile(` = [0-9A-F]+/[0-9A-F]+\b`).ReplaceAllString(got, " = X/X")
		path := filepath.Join("testdata", c.golden)
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./cmd/tidemark/internal/replay -update to write it")
		assert.Equal(t, string(want), got)
	}

	// docs/reality.md shows the first of them, as it was printed.
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "reality.md"))
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("testdata", "visibility-gap.golden"))
	require.NoError(t, err)
	shown := regexp.MustCompile(`(?m)^postgres: .*$`).ReplaceAllString(string(doc), "postgres: PostgreSQL (version)")
	assert.Contains(t, shown, strings.TrimSuffix(string(want), "\n"), "docs/reality.md's example is not what the replay prints")
}
