package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// alterScenario changes how two tables stamp updated_at while a
// transaction that writes them is open: orders from the statement's time to
// now(), events from the commit's time to the statement's.
const alterScenario = `scenario test/alter "A deploy changes the stamping rule"
knob rule = txn-start | statement
source orders key=order_id updated_at=statement
source events key=event_id updated_at=commit
target fct sink=merge key=id
pipeline extract from=orders,events to=fct
begin T1 at=10:00:00
insert T1 orders at=10:00:01 order_id=1
insert T1 events at=10:00:01 event_id=1
alter orders at=10:00:02 updated_at=$rule
alter events at=10:00:02 updated_at=statement
insert T1 orders at=10:00:03 order_id=2
insert T1 events at=10:00:03 event_id=2
commit T1 at=10:00:04
run extract at=10:00:05
`

// stamps returns the updated_at each committed version got, by table and key.
func stamps(tr *engine.Trace) map[string]vtime.Time {
	out := map[string]vtime.Time{}
	for i := range tr.Versions {
		v := &tr.Versions[i]
		out[tr.VersionTable(v)+" "+tr.VersionKey(v)] = v.UpdatedAt
	}
	return out
}

// TestAlterChangesTheRuleForLaterStatements: a statement run before the
// change keeps the rule of its moment though its transaction commits after
// it (a row written under commit stamping still gets the commit's time);
// the statements after it take the new rule. The change is a step of its
// own, narrated and recorded in the trace.
func TestAlterChangesTheRuleForLaterStatements(t *testing.T) {
	tr := runText(t, "a.tdm", alterScenario)
	h := hwm.Of(tr)
	require.NotNil(t, h)
	at := func(s string) vtime.Time { v, err := vtime.ParseTime(s); require.NoError(t, err); return v }
	assert.Equal(t, map[string]vtime.Time{
		"orders 1": at("10:00:01"), // the statement's time, the rule when it ran
		"events 1": at("10:00:04"), // the commit's time, the rule when it ran
		"orders 2": at("10:00:00"), // now(), the transaction's start
		"events 2": at("10:00:03"), // the statement's time
	}, stamps(tr))

	var modes []mvcc.Stamp
	for _, s := range h.Txns[0].Stmts {
		modes = append(modes, s.Mode)
	}
	assert.Equal(t, []mvcc.Stamp{mvcc.StampStatement, mvcc.StampCommit, mvcc.StampTxnStart, mvcc.StampStatement}, modes, "each statement keeps the rule of its moment")

	assert.Equal(t, engine.KindAlter, tr.Events[3].Kind, "the change is a step of its own, between the statements")
	assert.Equal(t, engine.KindAlter, tr.Events[4].Kind)
	assert.Equal(t, mvcc.StampStatement, h.Tables[0].Stamp, "a table's declared rule is the one it starts with")
	said := sentences(tr, engine.KindAlter)
	assert.Equal(t, []string{
		"At 10:00:02 a deploy changes how orders.updated_at is filled: from now on it is now(), the transaction's start, where it was statement_timestamp(), the statement's time. " +
			"The schema is unchanged and nothing announces it; a row already written keeps the value it got, and an open transaction's next statement takes the new rule.",
		"At 10:00:02 a deploy changes how events.updated_at is filled: from now on it is statement_timestamp(), the statement's time, where it was the commit time. " +
			"The schema is unchanged and nothing announces it; a row already written still gets its commit's time, and an open transaction's next statement takes the new rule.",
	}, said)
	assert.Equal(t, "deploy", tr.Actor(&tr.Events[3]))
	assert.Equal(t, "alter", engine.KindAlter.String())
	assert.Contains(t, tr.Narration(&tr.Events[5]), "with updated_at = now() = 10:00:00, the transaction's start")
}

// TestAlterToTheSameRuleDoesNothing: an alter that keeps the rule the
// table has by then is no step at all, so a knob can switch a deploy off.
func TestAlterToTheSameRuleDoesNothing(t *testing.T) {
	f, err := scenario.Parse("a.tdm", []byte(alterScenario))
	require.NoError(t, err)
	tr, err := engine.Run(f, map[string]string{"rule": "statement"}, 1, worlds.All())
	require.NoError(t, err)
	said := sentences(tr, engine.KindAlter)
	require.Len(t, said, 1)
	assert.Contains(t, said[0], "how events.updated_at is filled")
	assert.Equal(t, vtime.Time(36_003_000), stamps(tr)["orders 2"], "still the statement's time")
}
