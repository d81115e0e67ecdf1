package engine_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// world is a small valid world the error cases below add one line to.
const world = `scenario test/build "Build errors"
knob mark = timestamp | lsn
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=$mark
`

// TestBuildErrors: each malformed input is refused with the exact
// file:line:column and a message saying what was expected. Line 6 is the
// first line after world.
func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		set  map[string]string
		pos  string // "" when the error has no position (knob values)
		msg  string
	}{
		{"note without a step", world + "note \"Ask the room\"\n", nil, "b.tdm:6:1", `expected note at-step=N "text"`},
		{"note with a bad step", world + "note at-step=-1 \"Ask\"\n", nil, "b.tdm:6:14", "expected a step number, 0 or more, for at-step=, found \"-1\""},
		{"note without text", world + "note at-step=3\n", nil, "b.tdm:6:1", `expected note at-step=N "text"`},
		{"note with a bare word", world + "note at-step=3 ask\n", nil, "b.tdm:6:16", `expected note at-step=N "text"`},
		{"note with another argument", world + "note at-step=3 \"a\" when=x\n", nil, "b.tdm:6:20", `expected note at-step=N "text"`},
		{"two notes at a step", world + "note at-step=3 \"a\"\nnote at-step=3 \"b\"\n", nil, "b.tdm:7:1", "step 3 already has a note at b.tdm:6:1"},
		{"unknown command", world + "sourse x key=id\n", nil, "b.tdm:6:1", `unknown command "sourse"; did you mean source?`},
		{"unknown command, far from any", world + "colour x key=id\n", nil, "b.tdm:6:1", `unknown command "colour"; expected one of clock, target, check, expect, jump, note, source, pipeline`},
		{"a source run as a pipeline", world + "run orders at=10:00:02\n", nil, "b.tdm:6:5", `"orders" is not a pipeline: it names the source declared at b.tdm:3:8`},
		{"a clock no mark reads", "scenario test/b \"B\"\nclock app\nsource orders key=order_id\ntarget t sink=merge key=order_id\npipeline p from=orders to=t mark=lsn clock=app\n", nil, "b.tdm:5:44", "clock= is the clock a mark=timestamp pipeline reads at each run"},
		{"a check named twice", world + "check rate stall=2\ncheck rate stall=5\n", nil, "b.tdm:7:7", "check rate-of-change is already on; give its settings on one check line"},
		{"a check in its family twice", world + "check reconciliation\ncheck reconciliation-closed-interval closed=10:00:00..10:00:05\n", nil, "b.tdm:7:7", "check reconciliation-closed-interval is already on"},
		{"a setting of another check", world + "check gap-scan closed=10:00:00..10:00:05\n", nil, "b.tdm:6:16", "closed= is a setting of reconciliation-closed-interval; put it on that check's line"},
		{"stall= on another check", world + "check uniqueness stall=2\n", nil, "b.tdm:6:18", "stall= is a setting of rate-of-change"},
		{"misspelt pipeline", world + "run extrct at=10:00:02\n", nil, "b.tdm:6:5", `unknown pipeline "extrct"; did you mean extract?`},
		{"misspelt argument", world + "run extract at=10:00:02 wirte=10:00:03\n", nil, "b.tdm:6:25", "unknown argument wirte= for run; did you mean write=?"},
		{"misspelt check", world + "check gap-scna\n", nil, "b.tdm:6:7", `unknown check "gap-scna"; did you mean gap-scan?`},
		{"alter of an unknown table", world + "alter ordres at=10:00:05 updated_at=statement\n", nil, "b.tdm:6:7", `unknown source table "ordres"; declare it first with ` + "`source ordres key=...`"},
		{"alter to an unknown rule", world + "alter orders at=10:00:05 updated_at=now\n", nil, "b.tdm:6:37", `expected updated_at= to be one of txn-start, statement or commit, found "now"`},
		{"alter without a rule", world + "alter orders at=10:00:05\n", nil, "b.tdm:6:1", "alter needs updated_at=txn-start, statement or commit"},
		{"alter without a time", world + "alter orders updated_at=commit\n", nil, "b.tdm:6:1", "alter needs at=HH:MM:SS"},
		{"alters out of order", world + "alter orders at=10:00:05 updated_at=statement\nalter orders at=10:00:03 updated_at=commit\n", nil, "b.tdm:7:17",
			"alter of orders at 10:00:03 comes before its alter at 10:00:05; expected a table's alters in time order"},
		{"commit before begin", world + "begin T1 at=10:00:05\ncommit T1 at=10:00:01\n", nil, "b.tdm:7:14", "T1 commits at 10:00:01, before it begins at 10:00:05"},
		{"commit of unknown txn", world + "commit T9 at=10:00:01\n", nil, "b.tdm:6:8", `unknown transaction "T9"`},
		{"statement after commit", world + "txn T1 begin=10:00:00 commit=10:00:01 insert order_id=1\ninsert T1 at=10:00:02 order_id=2\n", nil, "b.tdm:7:8", "transaction T1 already ended at 10:00:01 (b.tdm:6:23); nothing can insert in it"},
		{"second commit", world + "begin T1 at=10:00:00\ncommit T1 at=10:00:01\nrollback T1 at=10:00:02\n", nil, "b.tdm:8:13", "transaction T1 already ended"},
		{"statement before begin", world + "begin T1 at=10:00:05\ninsert T1 at=10:00:01 order_id=1\n", nil, "b.tdm:7:8", "comes before T1 begins at 10:00:05"},
		{"commit and rollback", world + "txn T1 begin=10:00:00 commit=10:00:01 rollback=10:00:02\n", nil, "b.tdm:6:39", "give commit= or rollback=, not both"},
		{"a key column named as a statement's word", "scenario test/b \"B\"\nsource orders key=amount\n", nil, "b.tdm:2:19", "key=amount is a word of the statements (amount=)"},
		{"a statement that is not one", world + "txn T1 begin=10:00:00 commit=10:00:01 upsert order_id=1\n", nil, "b.tdm:6:39", `unexpected word "upsert" in txn; its statements are insert, update and delete`},
		{"duplicate txn name", world + "txn T1 begin=10:00:00 commit=10:00:01 insert\ntxn T1 begin=10:00:02 commit=10:00:03 insert\n", nil, "b.tdm:7:5", `transaction name "T1" is already used: it is the transaction declared at b.tdm:6:5`},
		{"duplicate target name", world + "target fct_orders sink=append\n", nil, "b.tdm:6:8", `target name "fct_orders" is already used: it is the target declared at b.tdm:4:8`},
		{"duplicate source and pipeline name", world + "pipeline orders from=orders to=fct_orders\n", nil, "b.tdm:6:10", `pipeline name "orders" is already used: it is the source declared at b.tdm:3:8`},
		{"bad time literal", world + "run extract at=10:0:02\n", nil, "b.tdm:6:16", `expected a time such as 10:00:02 for at=, found "10:0:02"`},
		{"initial mark past the day", "scenario test/b \"B\"\nsource orders\ntarget t\npipeline extract from=orders to=t initial=25:00:00\n", nil, "b.tdm:4:43", "initial=25:00:00 is past the end of the day"},
		{"reset past the day", world + "reset extract at=10:00:05 to=24:00:00\n", nil, "b.tdm:6:30", "to=24:00:00 is past the end of the day"},
		{"bad minutes", world + "run extract at=10:61:00\n", nil, "b.tdm:6:16", `found "10:61:00"`},
		{"bad duration", world + "jump source at=10:00:00 by=3 seconds\n", nil, "b.tdm:6:28", "expected a duration such as 2s"},
		{"unknown argument", world + "run extract at=10:00:02 colour=red\n", nil, "b.tdm:6:25", "unknown argument colour= for run; expected one of at=, crash=, interval=, only=, store=, worker=, write="},
		{"argument given twice", world + "run extract at=10:00:02 at=10:00:03\n", nil, "b.tdm:6:25", "at= is given twice"},
		{"stray word", world + "run extract at=10:00:02 now\n", nil, "b.tdm:6:25", `unexpected word "now" in run`},
		{"bad choice", world + "target t2 sink=replace\n", nil, "b.tdm:6:16", `expected sink= to be one of append, merge, overwrite or upsert, found "replace"`},
		{"unknown pipeline", world + "run extrakt at=10:00:02\n", nil, "b.tdm:6:5", `unknown pipeline "extrakt"`},
		{"renamed check", world + "check reconciliation-same-column\n", nil, "b.tdm:6:7", `check "reconciliation-same-column" is now called reconciliation-same-window`},
		{"overlap under a literal lsn mark", "scenario t/x \"X\"\nsource o\ntarget t\npipeline p from=o to=t mark=lsn overlap=5s\n", nil, "b.tdm:4:41", "overlap= re-reads a span of time behind a timestamp mark, and mark=lsn is a log position"},
		{"unknown source table", "scenario t/x \"X\"\ntarget t\npipeline p from=nope to=t\n", nil, "b.tdm:3:17", `unknown source table "nope"`},
		{"unknown target", "scenario t/x \"X\"\nsource o\npipeline p from=o to=nope\n", nil, "b.tdm:3:22", `unknown target "nope"`},
		{"required argument", world + "run extract\n", nil, "b.tdm:6:1", "run needs at=HH:MM:SS"},
		{"no pipeline", "scenario t/x \"X\"\nsource o\n", nil, "b.tdm:1:1", "the scenario declares no pipeline"},
		{"phase order", world + "run extract at=10:00:05 write=10:00:04\n", nil, "b.tdm:6:31", "expected at= <= write= <= store="},
		{"phase order, store", world + "run extract at=10:00:05 write=10:00:06 store=10:00:05\n", nil, "b.tdm:6:46", "expected at= <= write= <= store="},
		{"atomic with two times", strings.Replace(world, "mark=$mark", "mark=$mark advance=atomic", 1) + "run extract at=10:00:02 write=10:00:03 store=10:00:04\n", nil, "b.tdm:6:46", "with advance=atomic a run writes its rows and stores the mark in one transaction, so write= and store= are one time"},
		{"jump of NaN", world + "check rate jump=NaNx\n", nil, "b.tdm:6:17", "expected jump= to be a factor above 1"},
		{"jump of Inf", world + "check rate jump=Infx\n", nil, "b.tdm:6:17", "expected jump= to be a factor above 1"},
		{"clock a day off", world + "clock source skew=-13h\n", nil, "b.tdm:6:19", `expected skew= to be within 12h either way, found "-13h"`},
		{"a clock finer than the simulation", world + "clock source resolution=0s\n", nil, "b.tdm:6:25", `expected resolution= to be between 1ms and 1h, found "0s"`},
		{"a clock coarser than an hour", world + "clock source resolution=2h\n", nil, "b.tdm:6:25", `expected resolution= to be between 1ms and 1h, found "2h"`},
		{"jump a day off", world + "jump reader at=10:00:01 by=24h\n", nil, "b.tdm:6:28", `expected by= to be within 12h either way, found "24h"`},
		{"runs without every", world + "runs extract from=10:00:00 until=10:00:10\n", nil, "b.tdm:6:1", "runs needs every="},
		{"runs every zero", world + "runs extract from=10:00:00 until=10:00:10 every=0s\n", nil, "b.tdm:6:49", "runs needs every="},
		{"runs until before from", world + "runs extract from=10:00:12 until=10:00:10 every=2s\n", nil, "b.tdm:6:34", "runs needs from= at or before until="},
		{"workload without txns", world + "workload from=10:00:00\n", nil, "b.tdm:6:1", "workload needs txns=N"},
		{"key range too big", world + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1..1000000\n", nil, "b.tdm:6:55", "at most 100000 keys"},
		{"knob value via Resolve", world, map[string]string{"mark": "sundial"}, "", `knob mark cannot be "sundial"; expected one of timestamp | lsn`},
		{"unknown knob via Resolve", world, map[string]string{"colour": "red"}, "", `scenario test/build has no knob "colour" (knobs: mark)`},
		{"a table's own clock", world + "clock app skew=-500ms\nsource items key=item_id clock=app updated_at=statement\n", nil, "b.tdm:7:32", "a table has no clock of its own: now(), statement times and commit times all come from the database server's clock; set its skew with `clock source skew=...` and drop clock= here"},
		{"knob value bound into a bad place", world + "knob crash = none | sometimes\nrun extract at=10:00:02 crash=$crash\n", map[string]string{"crash": "sometimes"}, "b.tdm:7:31", `expected crash= to be one of none, after-mark`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenario.Parse("b.tdm", []byte(tc.src))
			require.NoError(t, err, "the parser should accept it; the engine refuses it")
			tr, err := engine.Run(f, tc.set, 1, worlds.All())
			require.Error(t, err)
			assert.Nil(t, tr)
			var se *scenario.Error
			if tc.pos == "" {
				assert.False(t, errors.As(err, &se), "a knob error has no position in the file")
				assert.Equal(t, tc.msg, err.Error())
				return
			}
			require.True(t, errors.As(err, &se), "want *scenario.Error, got %T: %v", err, err)
			assert.Equal(t, tc.pos, se.Pos.String(), "position of: %v", err)
			assert.Contains(t, se.Msg, tc.msg)
		})
	}
	// The base world itself builds.
	f, err := scenario.Parse("b.tdm", []byte(world))
	require.NoError(t, err)
	_, err = engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	// An overlap under a mark a knob sets to lsn has nothing to do there,
	// and is no mistake: the knob's other values use it.
	f, err = scenario.Parse("b.tdm", []byte(world+"pipeline extract2 from=orders to=fct_orders mark=$mark overlap=5s\n"))
	require.NoError(t, err)
	_, err = engine.Run(f, map[string]string{"mark": "lsn"}, 1, worlds.All())
	require.NoError(t, err)
}

func TestExpectationErrors(t *testing.T) {
	tests := []struct{ name, line, pos, msg string }{
		{"unknown claim", "expect lost=3", "b.tdm:6:8", `unknown claim "lost"`},
		{"unknown check", "expect check gap=fail", "b.tdm:6:14", `unknown check "gap"`},
		{"check family", "expect check reconciliation=fail", "b.tdm:6:14", "`check reconciliation` runs two checks, and an expectation names one verdict: expect check reconciliation-same-window=fail or expect check reconciliation-closed-interval=fail"},
		{"renamed check", "expect check reconciliation-independent=fail", "b.tdm:6:14", `check "reconciliation-independent" is now called reconciliation-closed-interval: expect check reconciliation-closed-interval=fail`},
		{"bad status", "expect check gap-scan=broken", "b.tdm:6:23", "expected pass, fail or not-run"},
		{"unknown when knob", "expect missing=none when colour=red", "b.tdm:6:26", `unknown knob "colour" after when; declared knobs: mark`},
		{"mistyped when knob", "expect missing=none when mrk=lsn", "b.tdm:6:26", `unknown knob "mrk" after when; did you mean mark?; declared knobs: mark`},
		{"bad when value", "expect missing=none when mark=sundial", "b.tdm:6:31", `knob mark cannot be "sundial"`},
		{"bad duplicated", "expect duplicated=3", "b.tdm:6:19", "expected duplicated=KEYxCOUNT"},
		{"duplicated once", "expect duplicated=5x2,1x1", "b.tdm:6:19", `expected a duplicated key's COUNT to be 2 or more, the times the target holds it; found "1x1" in "5x2,1x1"`},
		{"no claim", "expect", "b.tdm:6:1", "expect needs at least one claim"},
		{"nothing after when", "expect missing=none when", "b.tdm:6:21", "expected knob=value after when"},
		{"knob twice after when", "expect missing=none when mark=lsn mark=timestamp", "b.tdm:6:35", "knob mark is named twice after when"},
		{"claim twice", "expect missing=1 duplicated=none missing=2", "b.tdm:6:34", "missing= is claimed twice on this line (first at b.tdm:6:8)"},
		{"knob reference", "expect mark extract=$mark", "b.tdm:6:21", "an expectation states a literal value, not a knob reference"},
		{"knob reference inside", "expect missing=3,$mark", "b.tdm:6:18", "an expectation states a literal value, not a knob reference"},
		{"malformed mark value", "expect mark extract=10:00:6", "b.tdm:6:21", `expected a mark's value: a time such as 10:00:02.5, a log position such as 1004 (or "lsn 1004" in quotes), or none; found "10:00:6"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenario.Parse("b.tdm", []byte(world+tc.line+"\n"))
			require.NoError(t, err)
			_, err = engine.Expectations(f)
			var se *scenario.Error
			require.True(t, errors.As(err, &se), "want *scenario.Error, got %v", err)
			assert.Equal(t, tc.pos, se.Pos.String(), "%v", err)
			assert.Contains(t, se.Msg, tc.msg)
		})
	}
}

// TestExpectCheckShortName: a check line's short name for a family of one
// check (rate, overlap) names one verdict, so an expectation may use it too.
func TestExpectCheckShortName(t *testing.T) {
	src := world + `check rate
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
run extract at=10:00:02
expect check rate=not-run
expect check overlap=pass
`
	f, err := scenario.Parse("b.tdm", []byte(src))
	require.NoError(t, err)
	outs, err := engine.CheckExpectations(f, 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, outs, 2)
	assert.NoError(t, outs[0].Err)
	assert.EqualError(t, outs[1].Err, "b.tdm:10:14: expected check overlap=pass, but the scenario does not run check overlap-reread; add a `check` line for it")
}

func TestCheckExpectations(t *testing.T) {
	src := world + `txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:00 commit=10:00:04 insert order_id=2
run extract at=10:00:02
run extract at=10:00:06
expect missing=2
expect missing=none when mark=lsn
expect missing=1
expect mark extract=10:00:06
expect mark extract=1002 when mark=lsn
expect check uniqueness=fail
expect mark extract=10:00:06.000 when mark=timestamp
expect mark extract="lsn 1002" when mark=lsn
expect mark extract=10:00:06.5 when mark=timestamp
`
	f, err := scenario.Parse("b.tdm", []byte(src))
	require.NoError(t, err)
	outs, err := engine.CheckExpectations(f, 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, outs, 9)
	assert.NoError(t, outs[6].Err, "10:00:06.000 is 10:00:06")
	assert.NoError(t, outs[7].Err, "a position with its lsn prefix")
	assert.ErrorContains(t, outs[8].Err, "expected mark extract=10:00:06.5 when mark=timestamp, got mark extract=10:00:06")
	assert.NoError(t, outs[0].Err)
	assert.NoError(t, outs[1].Err)
	assert.EqualError(t, outs[2].Err, "b.tdm:12:8: expected missing=1, got missing=2")
	assert.NoError(t, outs[3].Err)
	assert.NoError(t, outs[4].Err)
	assert.ErrorContains(t, outs[5].Err, "b.tdm:15:14: expected check uniqueness=fail, got check uniqueness=pass")
}

// TestStatementStampsUseTheServerClock: a statement's updated_at comes from
// the database server's clock, the `source` clock, like now() and commit
// times; `clock=source` on a table says only that and is accepted.
func TestStatementStampsUseTheServerClock(t *testing.T) {
	src := `scenario test/clock "Statement stamps"
clock source skew=2s
source orders key=order_id updated_at=statement
source items key=item_id clock=source updated_at=statement
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
begin T1 at=10:00:00
insert T1 at=10:00:00 orders order_id=1
insert T1 at=10:00:03 items item_id=1
commit T1 at=10:00:05
`
	f, err := scenario.Parse("c.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, tr.Versions, 2)
	assert.Equal(t, "10:00:02", tr.Versions[0].UpdatedAt.String(), "the statement at 10:00:00 on a clock 2s ahead")
	assert.Equal(t, "10:00:05", tr.Versions[1].UpdatedAt.String(), "the statement at 10:00:03 on a clock 2s ahead")
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == engine.KindInsert {
			assert.Contains(t, tr.Narration(e), "with updated_at = statement_timestamp() = 10:00:02, the statement's time on the source clock")
			break
		}
	}
}

// LiveAt lists every live key once per target it reaches, in key order; the
// same key text in two tables that feed two targets is two entries, ordered
// the same way every time.
func TestLiveAtOrderIsStable(t *testing.T) {
	f, err := scenario.Parse("live.tdm", []byte(`scenario test/live "Two tables, two targets"
source orders key=id
source refunds key=id
target fct_orders sink=merge key=id
target fct_refunds sink=merge key=id
pipeline a from=orders to=fct_orders mark=lsn
pipeline b from=refunds to=fct_refunds mark=lsn
txn T1 begin=10:00:00 commit=10:00:01 insert orders id=1..3
txn T2 begin=10:00:00 commit=10:00:02 insert refunds id=2..4
`))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	spell := func() []string {
		var out []string
		for _, v := range tr.LiveAt(tr.Steps()) {
			out = append(out, tr.VersionTable(&v)+":"+tr.VersionKey(&v))
		}
		return out
	}
	first := spell()
	assert.Equal(t, []string{"orders:1", "orders:2", "refunds:2", "orders:3", "refunds:3", "refunds:4"}, first)
	for range 20 {
		require.Equal(t, first, spell())
	}
}

// TestNotes: notes are kept by step, whatever order the file gives them in,
// and change nothing in the run.
func TestNotes(t *testing.T) {
	run := func(src string) *engine.Trace {
		f, err := scenario.Parse("n.tdm", []byte(src))
		require.NoError(t, err)
		tr, err := engine.Run(f, nil, 1, worlds.All())
		require.NoError(t, err)
		return tr
	}
	plain := world + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1\nrun extract at=10:00:02\n"
	noted := plain + "note at-step=3 \"Three\"\nnote at-step=0 \"  Before anything  \"\n"
	tr, bare := run(noted), run(plain)
	assert.Equal(t, "Before anything", tr.NoteAt(0))
	assert.Equal(t, "Three", tr.NoteAt(3))
	assert.Equal(t, "", tr.NoteAt(1))
	require.Len(t, tr.Notes, 2)
	assert.Equal(t, 0, tr.Notes[0].Step, "notes are in step order")
	assert.Equal(t, bare.Steps(), tr.Steps())
	for n := 0; n <= bare.Steps(); n++ {
		assert.Equal(t, bare.CountsAt(n), tr.CountsAt(n), "a note changes nothing in the run: step %d", n)
	}
	assert.Empty(t, bare.Notes)
}

// TestExpectKeyRanges: a claim's key list may hold ranges, as the scenario
// format's key lists do, and is compared as a set of keys, not as text.
func TestExpectKeyRanges(t *testing.T) {
	src := world + `txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:00 commit=10:00:04 insert order_id=90..94,97
run extract at=10:00:02
run extract at=10:00:06
expect missing=90..94,97
expect missing=97,92..94,90..91
expect missing=90..95
expect missing=none when mark=lsn
`
	f, err := scenario.Parse("r.tdm", []byte(src))
	require.NoError(t, err)
	outs, err := engine.CheckExpectations(f, 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, outs, 4)
	assert.NoError(t, outs[0].Err, "a range matches the keys it spans")
	assert.NoError(t, outs[1].Err, "ranges and keys in any order")
	assert.EqualError(t, outs[2].Err, "r.tdm:12:8: expected missing=90..95, got missing=90,91,92,93,94,97 (95 is no key of this scenario)")
	assert.NoError(t, outs[3].Err)

	for _, bad := range []string{"expect missing=9..1", "expect stale=1..x", "expect missing=1,,2"} {
		f, err := scenario.Parse("r.tdm", []byte(world+bad+"\n"))
		require.NoError(t, err)
		_, err = engine.Expectations(f)
		var se *scenario.Error
		require.True(t, errors.As(err, &se), "%s: want *scenario.Error, got %v", bad, err)
		assert.Equal(t, 6, se.Pos.Line, bad)
		assert.Contains(t, se.Msg, "expected", bad)
	}
}

// TestExpectKeyRangesAtTheEdgeOfInt64: a claim's key range is read as a
// statement's is (issue 9): one ending at math.MaxInt64 names its keys and
// ends, one spanning all of int64 is refused by its size, which used to
// overflow, and a claim whose ranges add up to more keys than one range may
// hold is refused before any is spelled. Each of these used to hang
// `tidemark check` and the sandbox's expect lines, taking gigabytes.
func TestExpectKeyRangesAtTheEdgeOfInt64(t *testing.T) {
	within(t, 10*time.Second, func() {
		src := world + `txn T1 begin=10:00:00 commit=10:00:04 insert order_id=9223372036854775806..9223372036854775807
run extract at=10:00:02
run extract at=10:00:06
expect missing=9223372036854775806..9223372036854775807
expect duplicated=9223372036854775807..9223372036854775807x2
expect stale=-9223372036854775808..-9223372036854775807
`
		f, err := scenario.Parse("r.tdm", []byte(src))
		require.NoError(t, err)
		outs, err := engine.CheckExpectations(f, 1, worlds.All())
		require.NoError(t, err)
		require.Len(t, outs, 3)
		assert.NoError(t, outs[0].Err, "the two keys at the top of int64 are missing")
		assert.EqualError(t, outs[1].Err, "r.tdm:10:8: expected duplicated=9223372036854775807..9223372036854775807x2, got duplicated=none")
		assert.EqualError(t, outs[2].Err, "r.tdm:11:8: expected stale=-9223372036854775808..-9223372036854775807, got stale=none (-9223372036854775808 is no key of this scenario)")

		ranges := strings.TrimSuffix(strings.Repeat("1..99999,", 5000), ",")
		for _, tc := range []struct{ line, msg string }{
			{"expect missing=-9223372036854775808..9223372036854775807", `expected a key range such as 90..94 (whole numbers, at most 100000 keys), found "-9223372036854775808..9223372036854775807"`},
			{"expect stale=fct:-1..9223372036854775807", `at most 100000 keys), found "fct:-1..9223372036854775807"`},
			{"expect duplicated=-9223372036854775808..9223372036854775807x2", `at most 100000 keys), found "-9223372036854775808..9223372036854775807"`},
			{"expect missing=" + ranges, "expected at most 100000 keys in one claim, ranges counted key by key; missing= names more"},
			{"expect duplicated=" + strings.ReplaceAll(ranges, "99999", "99999x2"), "expected at most 100000 keys in one claim, ranges counted key by key; duplicated= names more"},
			{"expect missing=1..50000,50001..100000,7", "expected at most 100000 keys in one claim"},
		} {
			f, err := scenario.Parse("r.tdm", []byte(world+tc.line+"\n"))
			require.NoError(t, err)
			_, err = engine.Expectations(f)
			var se *scenario.Error
			require.True(t, errors.As(err, &se), "want *scenario.Error, got %v", err)
			assert.Equal(t, "r.tdm:6:", se.Pos.String()[:len("r.tdm:6:")], tc.line[:30])
			assert.Contains(t, se.Msg, tc.msg, tc.line[:30])
		}
		f, err = scenario.Parse("r.tdm", []byte(world+"expect missing=1..50000,50001..100000\n"))
		require.NoError(t, err)
		_, err = engine.Expectations(f)
		assert.NoError(t, err, "a claim of exactly the most keys is read")
	})
}

// With two targets the truth names a key by its target and its text, and
// with one by its text alone; the second table writing a key the first
// wrote is a row of its own with the same name.
func TestTruthNamesKeysByTargetOnlyWhenThereAreSeveral(t *testing.T) {
	two, err := scenario.Parse("two.tdm", []byte(`scenario test/two "Two tables, two targets, nothing copied"
source orders key=id
source refunds key=id
target fct_orders sink=merge key=id
target fct_refunds sink=merge key=id
pipeline a from=orders to=fct_orders mark=lsn
pipeline b from=refunds to=fct_refunds mark=lsn
txn T1 begin=10:00:00 commit=10:00:01 insert orders id=1..2
txn T2 begin=10:00:00 commit=10:00:02 insert refunds id=2..3
`))
	require.NoError(t, err)
	tr, err := engine.Run(two, nil, 1, worlds.All())
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"fct_orders:1", "fct_orders:2", "fct_refunds:2", "fct_refunds:3"}, tr.Final().Missing)

	one, err := scenario.Parse("one.tdm", []byte(`scenario test/one "Two tables, one target, nothing copied"
source orders key=id
source refunds key=id
target fct_orders sink=merge key=id
pipeline a from=orders to=fct_orders mark=lsn
pipeline b from=refunds to=fct_orders mark=lsn
txn T1 begin=10:00:00 commit=10:00:01 insert orders id=1..2
txn T2 begin=10:00:00 commit=10:00:02 insert refunds id=2..3
`))
	require.NoError(t, err)
	tr, err = engine.Run(one, nil, 1, worlds.All())
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"1", "2", "2", "3"}, tr.Final().Missing)
	assert.Equal(t, tr.Final(), tr.TruthAt(tr.Steps()))
}

// TestClaimOfSeveralTargetsNamesEachKeysTarget: with several targets a
// claim's key without its target fails, and the failure says why.
func TestClaimOfSeveralTargetsNamesEachKeysTarget(t *testing.T) {
	src := `scenario test/two "Two tables, two targets, nothing copied"
source orders key=id
source refunds key=id
target fct_orders sink=merge key=id
target fct_refunds sink=merge key=id
pipeline a from=orders to=fct_orders mark=lsn
pipeline b from=refunds to=fct_refunds mark=lsn
txn T1 begin=10:00:00 commit=10:00:01 insert orders id=1..2
txn T2 begin=10:00:00 commit=10:00:02 insert refunds id=2..3
expect missing=fct_orders:1,2,fct_refunds:2,3
expect missing=fct_orders:1,fct_orders:2,fct_refunds:2,fct_refunds:3
`
	f, err := scenario.Parse("two.tdm", []byte(src))
	require.NoError(t, err)
	outs, err := engine.CheckExpectations(f, 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, outs, 2)
	require.Error(t, outs[0].Err)
	assert.Equal(t, "two.tdm:10:8: expected missing=fct_orders:1,2,fct_refunds:2,3, got missing=fct_orders:1,fct_orders:2,fct_refunds:2,fct_refunds:3 (with several targets each key is written TARGET:KEY, so 2 needs one too)", outs[0].Err.Error())
	assert.NoError(t, outs[1].Err)
}

// TestClaimOfAKeyTheScenarioNeverHad: a claim naming a key the scenario
// never had fails with that key named, and a misspelt none is pointed at.
func TestClaimOfAKeyTheScenarioNeverHad(t *testing.T) {
	src := `scenario test/keys "Keys"
source orders key=id
target fct_orders sink=merge key=id
pipeline a from=orders to=fct_orders mark=lsn
txn T1 begin=10:00:00 commit=10:00:01 insert orders id=1..2
expect missing=nnoe
expect missing=1,7
expect duplicated=9x2
expect missing=1,2
`
	f, err := scenario.Parse("k.tdm", []byte(src))
	require.NoError(t, err)
	outs, err := engine.CheckExpectations(f, 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, outs, 4)
	assert.EqualError(t, outs[0].Err, "k.tdm:6:8: expected missing=nnoe, got missing=1,2 (nnoe is no key of this scenario; did you mean none?)")
	assert.EqualError(t, outs[1].Err, "k.tdm:7:8: expected missing=1,7, got missing=1,2 (7 is no key of this scenario)")
	assert.EqualError(t, outs[2].Err, "k.tdm:8:8: expected duplicated=9x2, got duplicated=none (9 is no key of this scenario)")
	assert.NoError(t, outs[3].Err)
}

// TestExpectUnknownMark: a claim about a mark the scenario does not keep
// names the nearest, or the marks there are.
func TestExpectUnknownMark(t *testing.T) {
	f, err := scenario.Parse("b.tdm", []byte(world+"run extract at=10:00:06\nexpect mark extrac=none\nexpect mark zzz=none\n"))
	require.NoError(t, err)
	outs, err := engine.CheckExpectations(f, 1, worlds.All())
	require.NoError(t, err)
	require.Len(t, outs, 2)
	assert.EqualError(t, outs[0].Err, "b.tdm:7:13: expected mark extrac=none, but there is no mark named extrac; did you mean extract?")
	assert.EqualError(t, outs[1].Err, "b.tdm:8:13: expected mark zzz=none, but there is no mark named zzz; the marks are extract")
}
