package logs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// schemaBody: a shop that moves to schema version 2 at 10:00:10, between
// orders 2 and 3, and a group whose code reads version 2 only from 10:00:30.
const schemaBody = `knob compat = backward | forward | full
knob on-error = stop | skip
topic orders partitions=1 compatibility=$compat
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest on-error=$on-error
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:02 key=2
deploy shop at=10:00:10 schema=2
produce shop at=10:00:11 key=3
produce shop at=10:00:12 key=4
poll billing c1 at=10:00:05 max=1
poll billing c1 at=10:00:15
poll billing c1 at=10:00:20
deploy billing at=10:00:30 schema=2
poll billing c1 at=10:00:35
`

// committedAt is billing's committed offset on orders-0 at step n.
func committedAt(tr *engine.Trace, n int) int64 {
	for _, p := range logs.Of(tr).LogAt(n) {
		for _, g := range p.Groups {
			return g.Committed
		}
	}
	return -1
}

// stepOf is the step of the first event whose narration holds text, or 0.
func stepOf(tr *engine.Trace, text string) int {
	for i := range tr.Events {
		if strings.Contains(tr.Narration(&tr.Events[i]), text) {
			return i + 1
		}
	}
	return 0
}

func TestSchemaVersions(t *testing.T) {
	t.Run("records carry the version their producer wrote", func(t *testing.T) {
		tr := runLog(t, schemaBody, nil)
		var got []int
		for _, r := range recordsOf(tr)[0] {
			got = append(got, r.SchemaVersion())
		}
		assert.Equal(t, []int{1, 1, 2, 2}, got)
	})
	t.Run("stop: the poll returns what comes before, the next raises, the deploy restarts", func(t *testing.T) {
		tr := runLog(t, schemaBody, nil)
		// The poll of 10:00:15 returns order 2, the last of version 1, and
		// not the records after it.
		_, polls := eventsOf(tr, engine.KindPoll)
		require.GreaterOrEqual(t, len(polls), 3)
		assert.Contains(t, polls[1], "c1 polls orders-0 offset 1 (2).")
		raised := stepOf(tr, "c1's poll raises RecordDeserializationException at offset 2 of orders-0")
		require.NotZero(t, raised, "the poll of 10:00:20 raises on order 3")
		assert.Contains(t, tr.Narration(&tr.Events[raised-1]), "written with schema version 2, which its code (version 1) cannot read; its position stays on that record")
		assert.Equal(t, int64(2), committedAt(tr, raised), "the position stays on the record it cannot read")
		exits := stepOf(tr, "c1's application exits on its RecordDeserializationException")
		require.NotZero(t, exits)
		deploy := stepOf(tr, "billing's code is deployed reading schema version 2; its consumers that exited on a record the old code could not read start again.")
		require.NotZero(t, deploy)
		assert.Greater(t, deploy, exits)
		assert.Equal(t, int64(2), committedAt(tr, deploy), "nothing was committed past the record while c1 was down")
		// Restarted, it reads from its committed offset: late, but whole.
		assert.Equal(t, []string{"1", "2", "3", "4"}, targetKeys(tr, "fct_orders"))
		assert.Empty(t, tr.Final().Missing)
		assert.Equal(t, int64(4), committedAt(tr, tr.Steps()))
	})
	t.Run("skip: the handler logs, the batch commits past, the rows never arrive", func(t *testing.T) {
		tr := runLog(t, schemaBody, map[string]string{"on-error": "skip"})
		skipped := stepOf(tr, "its error handler logs and skips orders 3, 4, of a schema version its code (version 1) cannot deserialize, and the batch counts them as processed")
		require.NotZero(t, skipped, "the poll of 10:00:15 reads orders 2, 3 and 4 and skips the last two")
		assert.Equal(t, 0, stepOf(tr, "RecordDeserializationException"))
		assert.Equal(t, []string{"1", "2"}, targetKeys(tr, "fct_orders"))
		assert.Equal(t, []string{"3", "4"}, tr.Final().Missing)
		// The committed offset is past them: the lag says nothing is owed.
		assert.Equal(t, int64(4), committedAt(tr, tr.Steps()))
		for _, c := range tr.Checks() {
			if c.Name == "consumer-lag" || c.Name == "offset-gap" {
				assert.Equal(t, check.Pass, c.Status, "%s: %s", c.Name, c.Detail)
			}
		}
	})
	t.Run("forward and full: old code reads the new records", func(t *testing.T) {
		for _, compat := range []string{"forward", "full"} {
			tr := runLog(t, schemaBody, map[string]string{"compat": compat})
			assert.Equal(t, 0, stepOf(tr, "RecordDeserializationException"), compat)
			assert.Equal(t, []string{"1", "2", "3", "4"}, targetKeys(tr, "fct_orders"), compat)
			assert.NotZero(t, stepOf(tr, "shop is deployed writing its records with schema version 2, and the registry accepts it: "+compat+" compatibility promises"), compat)
		}
	})
	t.Run("the producer's deploy says what the registry promises", func(t *testing.T) {
		tr := runLog(t, schemaBody, nil)
		assert.NotZero(t, stepOf(tr, "shop is deployed writing its records with schema version 2, and the registry accepts it: backward compatibility (the registry's default) promises that newer readers read older records, not the reverse."))
	})
}

// TestSchemaForwardStopsNewCodeOnOldRecords: under forward compatibility
// it is the group that deploys first whose new code cannot read the
// records still written with the old version.
func TestSchemaForwardStopsNewCodeOnOldRecords(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1 compatibility=forward
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders reset=earliest schema=2
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02
deploy billing at=10:00:03 schema=1
poll billing c1 at=10:00:04
`, nil)
	raised := stepOf(tr, "c1's poll raises RecordDeserializationException at offset 0 of orders-0, written with schema version 1, which its code (version 2) cannot read")
	require.NotZero(t, raised)
	// Rolled back to the old code, the group reads it.
	assert.NotZero(t, stepOf(tr, "billing's code is deployed reading schema version 1; its consumers that exited on a record the old code could not read start again."))
	assert.Equal(t, []string{"1"}, targetKeys(tr, "fct_orders"))
}

// TestSchemaStopOfAStaticMember: a member of a group whose polls crash one
// is static, and its close sends no LeaveGroup: it keeps its partitions,
// and the deploy lets it read on from the record it stopped at.
func TestSchemaStopOfAStaticMember(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02 crash=before-commit
deploy shop at=10:00:03 schema=2
produce shop at=10:00:04 key=2
poll billing c1 at=10:00:05
poll billing c1 at=10:00:06
poll billing c1 at=10:00:06.500
deploy billing at=10:00:07 schema=2
poll billing c1 at=10:00:08
`, nil)
	raised := stepOf(tr, "c1's poll raises RecordDeserializationException at offset 1 of orders-0")
	require.NotZero(t, raised)
	assert.Contains(t, tr.Narration(&tr.Events[raised-1]), "a static member's close sends no LeaveGroup")
	assert.NotZero(t, stepOf(tr, "c1 stays stopped on its RecordDeserializationException; nothing is read until code that reads the record's schema version is deployed."))
	assert.NotZero(t, stepOf(tr, "billing's code is deployed reading schema version 2; its consumers that stopped on a record the old code could not read, keeping their partitions, read on from it at their next poll."))
	assert.Equal(t, []string{"1", "2"}, targetKeys(tr, "fct_orders"))
	assert.Empty(t, tr.Final().Missing)
}

// TestSchemaStopIsNoCaseForAResnapshot: the runbook's re-snapshot is for a
// consumer with no usable offset; one stopped on a record it cannot read
// needs new code, and a re-snapshot leaves it alone.
func TestSchemaStopIsNoCaseForAResnapshot(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders reset=earliest
member billing c1 at=10:00:00
deploy shop at=10:00:00 schema=2
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:02
resnapshot billing at=10:00:03
poll billing c1 at=10:00:04
`, nil)
	assert.NotZero(t, stepOf(tr, "c1's application exits on its RecordDeserializationException"))
	assert.NotZero(t, stepOf(tr, "none has, so the operator does nothing"))
	assert.NotZero(t, stepOf(tr, "c1 does not poll: its application exited on its RecordDeserializationException, and nothing reads for it until code that reads the record's schema version is deployed and starts it again."))
	assert.Equal(t, []string{"1"}, tr.Final().Missing)
}

func TestSchemaLineErrors(t *testing.T) {
	head := "scenario test/log \"A log test\"\ntopic orders partitions=1\nproducer shop to=orders key=order_id\ngroup billing topic=orders\n"
	for _, c := range []struct{ line, want string }{
		{"deploy shopp at=10:00:00 schema=2", `log.tdm:5:8: deploy names a producer or a consumer group declared before it; "shopp" is neither; did you mean shop?`},
		{"deploy shop at=10:00:00", "log.tdm:5:1: deploy needs schema=N"},
		{"deploy shop schema=2", "log.tdm:5:1: deploy needs at="},
		{"deploy shop at=10:00:00 schema=0", "log.tdm:5:32: expected a whole number from 1 to 100 for schema=, found \"0\""},
		{"deploy shop at=10:00:00 schema=2 to=orders", "log.tdm:5:34"},
		{"group analytics topic=orders on-error=retry", "log.tdm:5:39: expected on-error= to be one of stop or skip, found \"retry\""},
		{"group analytics topic=orders schema=101", "log.tdm:5:37: expected a whole number from 1 to 100 for schema=, found \"101\""},
		{"producer till to=orders schema=x", "log.tdm:5:32: expected a whole number from 1 to 100 for schema=, found \"x\""},
		{"topic clicks partitions=1 compatibility=none", "log.tdm:5:41: expected compatibility= to be one of backward, forward or full, found \"none\""},
	} {
		f, err := scenario.Parse("log.tdm", []byte(head+c.line+"\n"))
		require.NoError(t, err, c.line)
		_, err = engine.Run(f, nil, 1, worlds.All())
		require.Error(t, err, c.line)
		assert.Contains(t, err.Error(), c.want, c.line)
	}
}

// TestSchemaDeployDuringABatch: a consumer deserializes in poll, so a batch
// polled before its group's deploy is judged by the code that polled it,
// and one polled after by the new code, whatever happens while it is in
// hand.
func TestSchemaDeployDuringABatch(t *testing.T) {
	body := `topic orders partitions=1 compatibility=forward
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders reset=earliest on-error=skip
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
produce shop at=10:00:02 key=2
poll billing c1 at=10:00:10 process=30s
deploy billing at=10:00:20 schema=2
produce shop at=10:00:50 key=3
poll billing c1 at=10:01:00
`
	tr := runLog(t, body, nil)
	// Version 1 records polled by version 1 code are written, though the
	// code is version 2 by the time the batch is done; the next poll's
	// version 2 code is not promised version 1 records under forward.
	assert.Equal(t, 0, stepOf(tr, "its error handler logs and skips orders 1"))
	assert.Equal(t, []string{"1", "2"}, targetKeys(tr, "fct_orders"))
	assert.NotZero(t, stepOf(tr, "its error handler logs and skips order 3, of a schema version its code (version 2) cannot deserialize"), "order 3, written with version 1, meets the new code")
	assert.Equal(t, []string{"3"}, tr.Final().Missing)
}

// TestSchemaRollbackIsAlreadyRegistered: a producer moved back to a version
// it wrote before asks the registry for nothing new.
func TestSchemaRollbackIsAlreadyRegistered(t *testing.T) {
	tr := runLog(t, `topic orders partitions=1
producer shop to=orders key=order_id
deploy shop at=10:00:01 schema=2
deploy shop at=10:00:02 schema=1
deploy shop at=10:00:03 schema=2
`, nil)
	_, texts := eventsOf(tr, engine.KindProduce)
	require.Len(t, texts, 3)
	assert.Contains(t, texts[0], "shop is deployed writing its records with schema version 2, and the registry accepts it: backward compatibility")
	assert.Equal(t, "shop is deployed writing its records with schema version 1, a version the registry holds already, so it checks nothing.", texts[1])
	assert.Equal(t, "shop is deployed writing its records with schema version 2, a version the registry holds already, so it checks nothing.", texts[2])
}
