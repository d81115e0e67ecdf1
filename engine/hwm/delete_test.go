package hwm_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestDeletes: a commit that only deletes says the rows are gone, one that
// inserts and deletes says which is which, and a deleted row is never
// reported missing at any step: one the target never held is fine, one it
// holds is stale (deletes are not extracted).
func TestDeletes(t *testing.T) {
	const src = `scenario test/delete "Deletes"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2
run extract at=10:00:02
txn T2 begin=10:00:03 commit=10:00:03 delete order_id=1
txn T3 begin=10:00:04 commit=10:00:04 insert order_id=3
txn T4 begin=10:00:05 commit=10:00:05 delete order_id=3
txn T5 begin=10:00:06 commit=10:00:06 insert order_id=4 delete order_id=2
run extract at=10:00:08
`
	tr := runSource(t, src)

	commits := map[string]string{}
	gone := map[string]int{} // key: the step its delete committed
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == engine.KindCommit {
			commits[tr.Actor(e)] = tr.Narration(e)
			switch tr.Actor(e) {
			case "T2":
				gone["1"] = i + 1
			case "T4":
				gone["3"] = i + 1
			case "T5":
				gone["2"] = i + 1
			}
		}
	}
	assert.Equal(t, "T2 commits at 10:00:03 as lsn 1002; order 1 is now gone for new readers.", commits["T2"])
	assert.Equal(t, "T4 commits at 10:00:05 as lsn 1004; order 3 is now gone for new readers.", commits["T4"])
	assert.Equal(t, "T5 commits at 10:00:06 as lsn 1005; order 4 is now visible to new readers and order 2 gone.", commits["T5"])

	require.Len(t, gone, 3)
	for key, step := range gone {
		for n := step; n <= tr.Steps(); n++ {
			assert.NotContains(t, tr.TruthAt(n).Missing, key, "order %s, deleted at step %d, at step %d", key, step, n)
		}
	}
	assert.Contains(t, tr.TruthAt(gone["3"]-1).Missing, "3", "order 3 was missing until its delete committed")
	final := tr.Final()
	assert.Empty(t, final.Missing)
	assert.Equal(t, []string{"1", "2"}, slices.Sorted(slices.Values(final.Stale)), "deleted rows the target still holds")
}

// TestDeleteOfOwnInsert: a row a transaction inserts and deletes itself was
// never seen by another session, and its commit shows neither; a row
// committed before and deleted in the same statement is still seen until
// the commit.
func TestDeleteOfOwnInsert(t *testing.T) {
	const src = `scenario test/delete-own "A transaction deletes its own insert"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=lsn
txn T0 begin=10:00:00 commit=10:00:00 insert order_id=5
txn T1 begin=10:00:01 commit=10:00:03 insert order_id=1,2 delete order_id=1,5
txn T2 begin=10:00:04 commit=10:00:05 insert order_id=7 delete order_id=7
run extract at=10:00:06
`
	tr := runSource(t, src)
	var deletes []string
	commits := map[string]string{}
	for i := range tr.Events {
		e := &tr.Events[i]
		switch text := tr.Narration(e); {
		case e.Kind == engine.KindCommit:
			commits[tr.Actor(e)] = text
		case strings.Contains(text, " deletes "):
			deletes = append(deletes, text)
		}
	}
	require.Len(t, deletes, 2)
	assert.Equal(t, "T1 deletes orders 1, 5 from orders. Other sessions still see order 5 until T1 commits, and then it is gone (only change capture sees a delete); as for order 1, T1 inserted it itself, so no other session ever saw it, and no reader will.", deletes[0])
	assert.Equal(t, "T2 deletes order 7 from orders: T2 inserted it itself, so no other session ever saw it, and no reader will.", deletes[1])
	assert.Equal(t, "T1 commits at 10:00:03 as lsn 1002; order 2 is now visible to new readers and order 5 gone. Order 1, inserted and deleted inside T1, was never visible to any reader.", commits["T1"])
	assert.Equal(t, "T2 commits at 10:00:05 as lsn 1003; order 7, inserted and deleted inside T2, was never visible to any reader.", commits["T2"])
	assert.Empty(t, tr.Final().Missing)
	assert.Empty(t, tr.Final().Stale)
}

// runSource runs a scenario given as text with every world.
func runSource(t *testing.T, src string) *engine.Trace {
	t.Helper()
	tr := runText(t, "d.tdm", src)
	return tr
}

// TestDeleteOfOtherTablesRow: a transaction that inserts a key into one
// table and deletes the same key from another has not deleted its own
// insert: one row becomes visible and the other is gone.
func TestDeleteOfOtherTablesRow(t *testing.T) {
	tr := runSource(t, `scenario test/two-tables "One key, two tables"
source orders key=order_id updated_at=txn-start
source items key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
txn T0 begin=10:00:00 commit=10:00:00 insert items order_id=1
txn T2 begin=10:00:06 commit=10:00:06 insert orders order_id=1 delete items order_id=1
run extract at=10:00:08
`)
	var commit, del string
	for i := range tr.Events {
		e := &tr.Events[i]
		switch text := tr.Narration(e); {
		case e.Kind == engine.KindCommit && tr.Actor(e) == "T2":
			commit = text
		case strings.Contains(text, "T2 deletes"):
			del = text
		}
	}
	assert.Equal(t, "T2 commits at 10:00:06 as lsn 1002; order 1 is now visible to new readers and order 1 gone.", commit)
	assert.Contains(t, del, "other sessions still see it until T2 commits")
	assert.Empty(t, tr.Final().Missing)
}

// TestLostClauseLeavesOutRowsNeverVisible: a commit whose visible row a
// timestamp mark has already passed says no later run will read it; the
// row the transaction inserted and deleted itself is not counted with it.
func TestLostClauseLeavesOutRowsNeverVisible(t *testing.T) {
	tr := runSource(t, `scenario test/lost-own "A lost row beside one never visible"
source orders key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
txn T0 begin=10:00:00 commit=10:00:00 insert order_id=5
begin T1 at=10:00:01
insert T1 at=10:00:01 order_id=1,2
delete T1 at=10:00:01 order_id=1
run extract at=10:00:03
commit T1 at=10:00:04
run extract at=10:00:06
`)
	var commit string
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == engine.KindCommit && tr.Actor(e) == "T1" {
			commit = tr.Narration(e)
		}
	}
	assert.Equal(t, "T1 commits at 10:00:04 as lsn 1002, making order 2 visible; its updated_at 10:00:01 is already at or below extract's stored mark 10:00:03, so no later run will read it unless the mark is moved back. Order 1, inserted and deleted inside T1, was never visible to any reader.", commit)
}

// TestWritesPostgreSQLWouldNotLetThrough: an insert of a key that has a row,
// and a write of a row another open transaction has written, stop the run
// with an error at the statement: PostgreSQL would refuse the first
// (unique_violation) and make the second wait, and the simulation models
// neither an aborted transaction nor a wait.
func TestWritesPostgreSQLWouldNotLetThrough(t *testing.T) {
	const head = `scenario test/refused "Writes PostgreSQL would not let through"
source orders key=order_id updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
txn T1 begin=10:00:00 commit=10:00:01 insert order_id=1
`
	cases := []struct {
		name, line, err string
	}{
		{"a committed key inserted again", "txn T2 begin=10:00:02 commit=10:00:03 insert order_id=1",
			"d.tdm:6:39: T2's insert of order_id=1 in orders at 10:00:02 finds that row already there: PostgreSQL refuses a duplicate key (unique_violation) and aborts T2"},
		{"a transaction's own key inserted twice", "txn T2 begin=10:00:02 commit=10:00:03 insert order_id=2 insert order_id=2",
			"d.tdm:6:57: T2's insert of order_id=2 in orders at 10:00:02 finds that row already there"},
		{"a row another open transaction updated", "txn T2 begin=10:00:02 commit=10:00:05 update order_id=1\ntxn T3 begin=10:00:03 commit=10:00:04 delete order_id=1",
			"d.tdm:7:39: T3's delete of order_id=1 in orders at 10:00:03 comes while T2, still open, has written that row: PostgreSQL would make T3 wait until T2 ends (a row lock)"},
		{"an id drawn from the sequence that a key inserted explicitly holds", "txn T2 begin=10:00:02 commit=10:00:03 insert count=1",
			"d.tdm:6:39: T2's insert draws order_id=1 from orders's sequence at 10:00:02, but a row with that key was inserted explicitly: PostgreSQL's sequence does not skip ids inserted by hand"},
		{"a key another open transaction inserted", "txn T2 begin=10:00:02 commit=10:00:05 insert order_id=2\ntxn T3 begin=10:00:03 commit=10:00:04 insert order_id=2",
			"d.tdm:7:39: T3's insert of order_id=2 in orders at 10:00:03 comes while T2, still open, has written that row"},
	}
	f, err := scenario.Parse("d.tdm", []byte(head+"txn T2 begin=10:00:02 commit=10:00:03 insert order_id=2,3..5,2\n"))
	require.NoError(t, err)
	_, err = engine.Run(f, nil, 1, worlds.All())
	require.EqualError(t, err, "d.tdm:6:55: order_id=2,3..5,2 names 2 twice; expected each row once in a statement", "a key twice in one statement is refused as it is read")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := scenario.Parse("d.tdm", []byte(head+c.line+"\nrun extract at=10:00:06\n"))
			require.NoError(t, err)
			_, err = engine.Run(f, nil, 1, worlds.All())
			var se *scenario.Error
			require.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), c.err)
		})
	}
	// An id drawn from the sequence that an open transaction inserted by
	// hand: PostgreSQL waits for that transaction, and fails the insert
	// only if it commits.
	f, err = scenario.Parse("d.tdm", []byte(strings.Replace(head, "order_id=1\n", "order_id=7\n", 1)+
		"txn T2 begin=10:00:02 commit=10:00:05 insert order_id=1\ntxn T3 begin=10:00:03 commit=10:00:04 insert count=1\n"))
	require.NoError(t, err)
	_, err = engine.Run(f, nil, 1, worlds.All())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "d.tdm:7:39: T3's insert draws order_id=1 from orders's sequence at 10:00:03, but T2, still open, has inserted that key explicitly: "+
		"PostgreSQL's sequence does not skip ids inserted by hand, so the insert waits until T2 ends and then fails with a duplicate key (unique_violation) if T2 commits")

	// What PostgreSQL lets through runs: a key deleted and inserted again,
	// a row updated after its writer ended, an update that matches no row
	// while another transaction's insert of it is open.
	runSource(t, head+`txn T2 begin=10:00:02 commit=10:00:03 delete order_id=1 insert order_id=1
txn T3 begin=10:00:04 commit=10:00:05 update order_id=1
txn T4 begin=10:00:04 commit=10:00:06 insert order_id=3
txn T5 begin=10:00:05 commit=10:00:05 update order_id=3
run extract at=10:00:07
`)
}
