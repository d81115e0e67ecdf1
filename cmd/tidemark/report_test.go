package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cdcScenario is a source transaction captured into a topic that a stream
// sinks into a target: no pipeline, no window, no join.
const cdcScenario = `scenario t/x "X"
source orders key=order_id
topic t partitions=1
cdc c from=orders to=t
target fct sink=merge key=order_id
txn T1 begin=10:00:00 commit=10:00:01 insert order_id=1
stream s from=t
sink k from=s to=fct
`

// section returns the lines of the report's section named head, up to the
// blank line that ends it.
func section(t *testing.T, out, head string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "\n"+head+"\n")
	require.True(t, ok, "no %s section in:\n%s", head, out)
	body, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(body, "\n")
}

// A source transaction's steps are never folded, and no folded line is
// without a summary.
func TestTimelineFoldsNoTransaction(t *testing.T) {
	code, out, errOut := tidemark(t, "run", writeFile(t, "x.tdm", cdcScenario))
	require.Equal(t, 0, code, errOut)
	timeline := section(t, out, "TIMELINE")
	for _, l := range timeline {
		assert.False(t, strings.HasSuffix(strings.TrimRight(l, " "), "…"), "a folded line with nothing after its ellipsis: %q", l)
	}
	assert.Contains(t, out, "  1  10:00:00  T1     T1 begins at 10:00:00")
	assert.Contains(t, out, "  2  10:00:00  T1     T1 inserts order 1")
	assert.Contains(t, out, "  3  10:00:01  T1     T1 commits")
	assert.NotContains(t, out, "transaction committed")

	// The lesson's upgrade of every customer's tier is a line of its own.
	code, out, errOut = tidemark(t, "run", "stream/nondeterministic-replay")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `\n +\d+  10:00:25  UPGRADE +UPGRADE updates customers 1, 2, 3, 4, 5`, out)
	assert.Regexp(t, `\n +\d+  10:00:25  UPGRADE +UPGRADE commits`, out)
	assert.NotContains(t, out, "transaction committed")
}

// The time column is as wide as the widest time, so the actor and text
// columns stay in line when some times carry milliseconds.
func TestTimelineTimeColumnFitsMilliseconds(t *testing.T) {
	code, out, errOut := tidemark(t, "run", writeFile(t, "ms.tdm", `scenario t/ms "Milliseconds"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
txn T1 begin=10:00:00 commit=10:00:00.500 insert order_id=1
run extract at=10:00:02
`))
	require.Equal(t, 0, code, errOut)
	timeline := section(t, out, "TIMELINE")
	require.Greater(t, len(timeline), 3)
	assert.Contains(t, out, "10:00:00.500")
	col := strings.Index(timeline[0], "actor")
	require.Positive(t, col)
	for _, l := range timeline[1:] {
		require.Greater(t, len(l), col, l)
		assert.Equal(t, "  ", l[col-2:col], "the actor column should start where its header does: %q", l)
		assert.NotEqual(t, byte(' '), l[col], "the actor column should start where its header does: %q", l)
	}
	assert.Contains(t, timeline[0], "  time          actor", "the time column is as wide as 10:00:00.500")
}

// checkNames runs a scenario file with --json and returns the names of its
// checks, after checking that the text report lists the same ones.
func checkNames(t *testing.T, path string) []string {
	t.Helper()
	code, js, errOut := tidemark(t, "run", path, "--json")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Checks []struct{ Name string } `json:"checks"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	var names []string
	for _, c := range doc.Checks {
		names = append(names, c.Name)
	}
	code, out, _ := tidemark(t, "run", path)
	require.Equal(t, 0, code)
	var text []string
	for _, l := range section(t, out, "CHECKS (what a team could see)") {
		text = append(text, strings.Fields(l)[1])
	}
	assert.Equal(t, names, text, "the text and the JSON list the same checks")
	return names
}

// Without a pipeline, the checks of marks and runs are not listed; a check
// line still runs its check.
func TestChecksOnlyThoseThatApply(t *testing.T) {
	markChecks := []string{"monotonicity", "rate-of-change", "reconciliation-same-window", "reconciliation-closed-interval", "zero-advance", "overlap-reread"}
	logOnly := `scenario t/log "Log only"
topic orders partitions=1
producer shop to=orders key=order_id
target fct sink=merge key=order_id
group billing topic=orders to=fct reset=earliest
traffic shop records=3 from=10:00:00 every=1s
member billing c1 at=10:00:04
poll billing c1 at=10:00:05
`
	for name, src := range map[string]string{"cdc": cdcScenario, "log": logOnly} {
		names := checkNames(t, writeFile(t, name+".tdm", src))
		require.NotEmpty(t, names, name)
		for _, c := range markChecks {
			assert.NotContains(t, names, c, "%s: a scenario without a pipeline has no marks or runs to check", name)
		}
		assert.Contains(t, names, "uniqueness", name)
	}
	names := checkNames(t, writeFile(t, "named.tdm", cdcScenario+"check monotonicity\n"))
	assert.Equal(t, []string{"monotonicity"}, names, "a check line runs the check it names")
	names = checkNames(t, writeFile(t, "ok.tdm", okScenario))
	assert.Subset(t, names, markChecks, "a scenario with a pipeline lists every check of marks and runs")
}

// The end of a stream's input names the windows and joins only when some
// read the stream.
func TestEndOfInputNamesOnlyWhatTheJobHas(t *testing.T) {
	code, out, errOut := tidemark(t, "run", writeFile(t, "x.tdm", cdcScenario))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "s has read everything t holds: its input ends (the run reads the topic as bounded input; an unbounded Kafka source never ends), and its watermark jumps to the end of time.\n")

	code, out, errOut = tidemark(t, "run", writeFile(t, "w.tdm", `scenario t/w "A window"
topic sales partitions=1
producer till1 to=sales key=sale_id
target out sink=merge key=minute
traffic till1 records=3 from=10:00:00 every=10s keys=3 amount=1..5
stream tills from=sales
key-by tills none
window w from=tills tumbling size=1m to=out
`))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "tills has read everything sales holds: its input ends (the run reads the topic as bounded input; an unbounded Kafka source never ends, and would keep its last windows open), and its watermark jumps to the end of time, so every window left open fires.\n")

	code, out, errOut = tidemark(t, "run", "stream/join-skew")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "and its watermark jumps to the end of time, so every join releases what it buffers.\n")
	assert.NotContains(t, out, "every window left open fires")
}

// A read says what its numbers are, and the target shows its rows' amounts
// (text and JSON) when they carry any.
func TestReadsAndTargetShowAmounts(t *testing.T) {
	code, out, errOut := tidemark(t, "run", "stream/serving-publish")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "sees 8 rows (region=amount): 3=12, 1=10,")
	assert.Contains(t, out, "  before at 10:00:50 (read-committed on region_totals, rows as region=amount): 3=12 1=10 ")
	assert.Contains(t, section(t, out, "TARGET"), "    region=6      amount=15  updated_at=10:00:58.700  version 15")

	code, out, errOut = tidemark(t, "run", "stream/nondeterministic-replay")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, section(t, out, "TARGET"), "    customer_id=4      amount=2  updated_at=10:00:27  version 5", "value=lookup's result is in the target")
	code, js, errOut := tidemark(t, "run", "stream/nondeterministic-replay", "--json")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Target []map[string]any `json:"target"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	require.NotEmpty(t, doc.Target)
	for _, r := range doc.Target {
		assert.EqualValues(t, 2, r["amount"], "row %v", r)
	}

	// A target whose rows carry no amount shows none.
	code, out, errOut = tidemark(t, "run", writeFile(t, "x.tdm", cdcScenario))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, section(t, out, "TARGET"), "    order_id=1      updated_at=10:00:00  version 1")
	code, js, _ = tidemark(t, "run", writeFile(t, "x.tdm", cdcScenario), "--json")
	require.Equal(t, 0, code)
	assert.NotContains(t, js, `"amount"`)
}
