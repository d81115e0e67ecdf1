package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// runText runs the scenario src, read as file, with its knobs' defaults.
func runText(t *testing.T, file, src string) *engine.Trace {
	t.Helper()
	f, err := scenario.Parse(file, []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	return tr
}

// sentences returns the narration of every event of kind in tr, in order.
func sentences(tr *engine.Trace, kind engine.Kind) []string {
	var out []string
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == kind {
			out = append(out, tr.Narration(e))
		}
	}
	return out
}

// TestReadNarrationSaysItsPredicate: a log-position read with >= reads the
// stored position's own commit again, and says so.
func TestReadNarrationSaysItsPredicate(t *testing.T) {
	const src = `scenario test/gte "A log-position mark with >="
knob predicate = gt | gte
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=lsn predicate=$predicate
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:01 commit=10:00:01 insert order_id=2
run extract at=10:00:02
txn T3 begin=10:00:03 commit=10:00:03 insert order_id=3
run extract at=10:00:04
`
	f, err := scenario.Parse("g.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, map[string]string{"predicate": "gte"}, 1, worlds.All())
	require.NoError(t, err)
	reads := sentences(tr, engine.KindRead)
	require.Len(t, reads, 2)
	assert.Equal(t, "extract reads orders for changes at or after lsn 1002 up to lsn 1003 and finds orders 2, 3.", reads[1])
	tr, err = engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, "extract reads orders for changes after lsn 1002 up to lsn 1003 and finds order 3.", sentences(tr, engine.KindRead)[1])
}

// TestOverwriteNarrationNamesWhatItDeletes: an overwrite's delete says which
// rows it removed and which runs had written them.
func TestOverwriteNarrationNamesWhatItDeletes(t *testing.T) {
	const src = `scenario test/overwrite "An overwrite's delete"
source orders key=order_id
target fct sink=overwrite key=order_id
pipeline extract from=orders to=fct mark=max-seen predicate=gte
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2
run extract at=10:00:01 worker=A
txn T2 begin=10:00:01 commit=10:00:01 insert order_id=3
run extract at=10:00:02
txn T3 begin=10:00:03 commit=10:00:03 insert order_id=4
run extract at=10:00:04
`
	tr := runText(t, "o.tdm", src)
	writes := sentences(tr, engine.KindWrite)
	require.Len(t, writes, 3)
	assert.Equal(t, "extract/A overwrites its interval of fct with orders 1, 2.", writes[0])
	assert.Equal(t, "extract overwrites its interval of fct with orders 1, 2, 3; it first deletes what the target already holds in that interval: orders 1, 2 (written by A's run at 10:00:01).", writes[1])
	assert.Equal(t, "extract overwrites its interval of fct with orders 3, 4; it first deletes what the target already holds in that interval: order 3 (written by the run at 10:00:02).", writes[2])
}

// TestWriteAndDeleteNarrationAgreeInNumber holds a merge that absorbs one row
// to the singular, and a delete to what it does: it writes no updated_at, it
// removes the row.
func TestWriteAndDeleteNarrationAgreeInNumber(t *testing.T) {
	const src = `scenario test/merge-one "A merge that absorbs one row"
source orders key=order_id
target fct sink=merge key=order_id
pipeline extract from=orders to=fct mark=lsn predicate=gte
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
run extract at=10:00:01
txn T2 begin=10:00:02 commit=10:00:02 insert order_id=2
txn T3 begin=10:00:03 commit=10:00:03 delete order_id=2
run extract at=10:00:04
`
	tr := runText(t, "m.tdm", src)
	writes := sentences(tr, engine.KindWrite)
	require.Len(t, writes, 2)
	assert.Equal(t, "extract merges order 1 into fct; the merge matches 1 already present and absorbs it.", writes[1])
	deletes := sentences(tr, engine.KindDelete)
	require.Len(t, deletes, 1)
	assert.Equal(t, "T3 deletes order 2 from orders; other sessions still see it until T3 commits, and then it is gone: no query of changed rows can return it (only change capture sees a delete).", deletes[0])
}

// TestCommitNarrationNamesEachRowOnce: a transaction that inserts a row and
// then updates it makes one row visible, and the commit says one.
func TestCommitNarrationNamesEachRowOnce(t *testing.T) {
	const src = `scenario test/twice "A row written twice in one transaction"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=lsn
begin T1 at=10:00:01
insert T1 order_id=1,2 at=10:00:01
update T1 order_id=1 at=10:00:02
commit T1 at=10:00:03
run extract at=10:00:04
`
	tr := runText(t, "t.tdm", src)
	commits := sentences(tr, engine.KindCommit)
	require.Len(t, commits, 1)
	assert.Contains(t, commits[0], "orders 1, 2 are now visible to new readers", "each row once, not orders 1, 2, 1")
}

// TestDeleteOfSeveralRowsReadsRight: a delete of rows other sessions saw
// says "they are gone", for all of them and for those beside a row the
// transaction inserted itself.
func TestDeleteOfSeveralRowsReadsRight(t *testing.T) {
	const src = `scenario test/delete-many "A delete of several rows"
source orders key=order_id
target fct sink=merge key=order_id
pipeline extract from=orders to=fct mark=lsn
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2
txn T2 begin=10:00:01 commit=10:00:01 delete order_id=1,2
begin T3 at=10:00:02
insert T3 order_id=3,4 at=10:00:02
txn T4 begin=10:00:02 commit=10:00:02 insert order_id=5,6
delete T3 order_id=3,5,6 at=10:00:03
commit T3 at=10:00:04
run extract at=10:00:05
`
	deletes := sentences(runText(t, "d.tdm", src), engine.KindDelete)
	require.Len(t, deletes, 2)
	assert.Equal(t, "T2 deletes orders 1, 2 from orders; other sessions still see them until T2 commits, and then they are gone: no query of changed rows can return them (only change capture sees a delete).", deletes[0])
	assert.Contains(t, deletes[1], "Other sessions still see orders 5, 6 until T3 commits, and then they are gone")
}

// TestAbsorbedWritesCountedOnce: with two merge targets, the duplicate
// writes a merge absorbed are counted once each, not once per target.
func TestAbsorbedWritesCountedOnce(t *testing.T) {
	const src = `scenario test/two-merges "Two merge targets"
source orders key=order_id
source refunds key=refund_id
target fct_orders sink=merge key=order_id
target fct_refunds sink=merge key=refund_id
pipeline load_orders from=orders to=fct_orders mark=lsn predicate=gte
pipeline load_refunds from=refunds to=fct_refunds mark=lsn
txn T1 begin=10:00:00 commit=10:00:00 insert orders order_id=1
run load_orders at=10:00:01
run load_orders at=10:00:02
txn R1 begin=10:00:03 commit=10:00:03 insert refunds refund_id=7
run load_refunds at=10:00:04
check uniqueness
`
	tr := runText(t, "u.tdm", src)
	var detail string
	for _, c := range tr.Checks() {
		if c.Name == "uniqueness" {
			detail = c.Detail
		}
	}
	assert.Contains(t, detail, "the merge absorbed 1 duplicate write")
}

// TestLostClauseIsNoPromise: a commit behind a timestamp mark says no later
// run reads the row unless the mark is moved back, and a reset that moves
// it back does read it; a second pipeline whose mark is behind can read the
// row, so the commit claims nothing lost.
func TestLostClauseIsNoPromise(t *testing.T) {
	const head = `scenario test/lost "A row behind the mark"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp
`
	const body = `txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1
txn T2 begin=10:00:00 commit=10:00:04 insert order_id=2
run extract at=10:00:02
`
	tr := runText(t, "l.tdm", head+body+"reset extract at=10:00:05 to=09:59:00\nrun extract at=10:00:06\n")
	commits := sentences(tr, engine.KindCommit)
	require.Len(t, commits, 2)
	assert.Contains(t, commits[1], "so no later run will read it unless the mark is moved back")
	assert.Empty(t, tr.Final().Missing, "the reset's run reads order 2")

	tr = runText(t, "l.tdm", head+"pipeline backfill from=orders to=fct_orders mark=lsn\n"+body+"run backfill at=10:00:06\n")
	commits = sentences(tr, engine.KindCommit)
	require.Len(t, commits, 2)
	assert.Equal(t, "T2 commits at 10:00:04 as lsn 1002; order 2 is now visible to new readers.", commits[1], "backfill's mark is behind: nothing is lost yet")
	assert.Empty(t, tr.Final().Missing)
}

// TestPositionReadSaysWhichDeletesItCannotSee: a read by commit position
// covering a delete finds no row for it, and says so rather than read as
// if the range held only what it found.
func TestPositionReadSaysWhichDeletesItCannotSee(t *testing.T) {
	const src = `scenario test/delete-in-range "A delete in a position read's range"
source orders key=order_id
target fct sink=merge key=order_id
pipeline extract from=orders to=fct mark=lsn
txn T1 begin=10:00:00 commit=10:00:00 insert order_id=1,2
run extract at=10:00:01
txn T2 begin=10:00:02 commit=10:00:02 insert order_id=3
txn T3 begin=10:00:03 commit=10:00:03 delete order_id=1,2
run extract at=10:00:04
txn T4 begin=10:00:05 commit=10:00:05 insert order_id=4
run extract at=10:00:06
`
	reads := sentences(runText(t, "r.tdm", src), engine.KindRead)
	require.Len(t, reads, 3)
	assert.Equal(t, "extract reads orders for changes after lsn 1001 up to lsn 1003 and finds order 3. The delete of orders 1, 2 in that range leaves no row to read: only change capture sees a delete.", reads[1])
	assert.Equal(t, "extract reads orders for changes after lsn 1003 up to lsn 1004 and finds order 4.", reads[2], "a range with no delete says nothing of one")
}

// TestRollbackNarrationSaysWhatTheSequenceKeeps: a sequence is not rolled
// back, so ids an insert drew from it stay used; an insert that named its
// keys by hand drew none, and its rollback leaves no hole to speak of.
func TestRollbackNarrationSaysWhatTheSequenceKeeps(t *testing.T) {
	const src = `scenario test/rollback "Rollbacks"
source orders key=order_id
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=lsn
txn T1 begin=10:00:00 rollback=10:00:01 insert order_id=7
txn T2 session=s2 begin=10:00:00 rollback=10:00:01 insert
txn T3 session=s3 begin=10:00:00 rollback=10:00:01 insert count=2
run extract at=10:00:02
`
	got := sentences(runText(t, "rollback.tdm", src), engine.KindRollback)
	assert.Equal(t, []string{
		"T1 rolls back at 10:00:01; its writes vanish.",
		"T2 rolls back at 10:00:01; its writes vanish, but the id it drew from the sequence stays used, leaving a hole.",
		"T3 rolls back at 10:00:01; its writes vanish, but the 2 ids it drew from the sequence stay used, leaving holes.",
	}, got)
}

// TestCommitNarrationSpeaksOfTheLastVersion: a row a transaction inserted
// and then updated commits as the update wrote it. Stamped at the
// statement's time, the insert's stamp lies behind the mark when the
// transaction commits, but the update's does not, and the commit says
// nothing of a row the runs will miss.
func TestCommitNarrationSpeaksOfTheLastVersion(t *testing.T) {
	tr := runText(t, "v.tdm", `scenario test/last "The last version"
source orders key=order_id updated_at=statement
target fct sink=merge key=order_id
pipeline extract from=orders to=fct mark=max-seen
begin T1 at=10:00:00
insert T1 at=10:00:01 order_id=1
update T1 at=10:00:05 order_id=1 amount=3
txn T2 begin=10:00:02 commit=10:00:02 insert order_id=2
run extract at=10:00:03
commit T1 at=10:00:06
run extract at=10:00:07
`)
	commits := sentences(tr, engine.KindCommit)
	require.Len(t, commits, 2)
	assert.Equal(t, "T1 commits at 10:00:06 as lsn 1002; order 1 is now visible to new readers.", commits[1])
	assert.Empty(t, tr.Final().Missing)
}
