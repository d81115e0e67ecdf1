package mvcc_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/vtime"
)

func at(s int) vtime.Time { return vtime.Time(36_000_000 + s*1000) } // 10:00:00 + s seconds

func keys(vs []*mvcc.Version) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Key
	}
	return out
}

func all() mvcc.Range { return mvcc.Range{} }

func TestVisibleOnlyAfterCommit(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 1, 1)
	tx := db.Begin("T1", "s1", at(0), at(0))
	db.Write(tx, tb, mvcc.Insert, "1", idOf("1"), 10, at(1), nil)
	assert.Empty(t, tb.SelectStamp(all()), "an uncommitted insert is invisible")
	assert.Empty(t, live(tb.SelectLSN(0, db.LastLSN(), false)))
	assert.Nil(t, tb.Live("1"))
	assert.Equal(t, 0, tb.Len())
	assert.Equal(t, mvcc.FirstLSN-1, db.LastLSN())

	db.Commit(tx, at(4), at(4))
	assert.Equal(t, []string{"1"}, keys(tb.SelectStamp(all())))
	v := tb.Live("1")
	require.NotNil(t, v)
	assert.Equal(t, at(0), v.UpdatedAt, "updated_at = now() is the transaction's start, not its commit")
	assert.Equal(t, mvcc.FirstLSN, v.LSN)
	assert.Equal(t, 1, v.Seq)

	// A rolled-back transaction never becomes visible.
	tx2 := db.Begin("T2", "s1", at(5), at(5))
	db.Write(tx2, tb, mvcc.Insert, "2", idOf("2"), 10, at(5), nil)
	db.Rollback(tx2, at(6))
	assert.Equal(t, []string{"1"}, keys(tb.SelectStamp(all())))
	assert.Equal(t, mvcc.RolledBack, tx2.State)
	assert.Equal(t, mvcc.FirstLSN, db.LastLSN(), "a rollback takes no log position")
	assert.Panics(t, func() { db.Commit(tx2, at(7), at(7)) }, "committing a rolled-back transaction is a broken invariant")
}

func TestLSNOrderIsCommitOrder(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 1, 1)
	// Begin in order A, B, C; commit in order C, A, B.
	txs := map[string]*mvcc.Txn{}
	for i, name := range []string{"A", "B", "C"} {
		txs[name] = db.Begin(name, name, at(i), at(i))
		db.Write(txs[name], tb, mvcc.Insert, name, idOf(name), 1, at(i), nil)
	}
	for i, name := range []string{"C", "A", "B"} {
		db.Commit(txs[name], at(10+i), at(10+i))
		assert.Equal(t, mvcc.FirstLSN+mvcc.LSN(i), txs[name].LSN, "commit %d gets the next LSN", i)
		assert.Equal(t, txs[name].LSN, db.LastLSN())
	}
	assert.Equal(t, []string{"C", "A", "B"}, keys(live(tb.SelectLSN(0, db.LastLSN(), false))), "SelectLSN returns commit order")
	assert.Equal(t, []string{"A", "B", "C"}, keys(tb.SelectStamp(all())), "SelectStamp returns updated_at order")
	// (lo, hi] and [lo, hi].
	assert.Equal(t, []string{"A", "B"}, keys(live(tb.SelectLSN(mvcc.FirstLSN, db.LastLSN(), false))))
	assert.Equal(t, []string{"C", "A"}, keys(live(tb.SelectLSN(mvcc.FirstLSN, mvcc.FirstLSN+1, true))))
	// A stamp window: the row whose transaction began at 10:00:00 is outside (10:00:00, 10:00:02].
	assert.Equal(t, []string{"B", "C"}, keys(tb.SelectStamp(mvcc.Range{Lo: at(0), HasLo: true, Hi: at(2), HasHi: true})))
	assert.Equal(t, []string{"A", "B"}, keys(tb.SelectStamp(mvcc.Range{Lo: at(0), HasLo: true, LoInclusive: true, Hi: at(1), HasHi: true})))
}

func TestUpdatesAndDeletes(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampStatement, "source", 1, 1)
	commit := func(name string, s int, op mvcc.Op, key string, amount int64) *mvcc.Version {
		tx := db.Begin(name, name, at(s), at(s))
		v := db.Write(tx, tb, op, key, idOf(key), amount, at(s), nil)
		db.Commit(tx, at(s), at(s))
		return v
	}
	commit("T1", 0, mvcc.Insert, "1", 10)
	v2 := commit("T2", 5, mvcc.Update, "1", mvcc.KeepAmount)
	assert.Equal(t, 2, v2.Seq)
	assert.Equal(t, int64(10), v2.Amount, "an update that sets nothing keeps the amount")
	assert.Equal(t, at(5), v2.UpdatedAt)
	assert.Len(t, tb.SelectStamp(all()), 1, "one live row per key")
	assert.Empty(t, tb.SelectStamp(mvcc.Range{Hi: at(4), HasHi: true}), "the old version left the stamp index")
	assert.Equal(t, []string{"1"}, keys(live(tb.SelectLSN(0, db.LastLSN(), false))), "the superseded version is not returned")
	commit("T3", 6, mvcc.Delete, "1", 0)
	assert.Empty(t, tb.SelectStamp(all()))
	got, deleted := tb.SelectLSN(0, db.LastLSN(), false)
	assert.Empty(t, got, "deleted rows are left out")
	assert.Equal(t, []string{"1"}, deleted, "and named as deletes the query cannot see")
	assert.Equal(t, 0, tb.Len())

	// A backdated write keeps its value even on a commit-stamped table.
	ct := db.AddTable("events", "id", mvcc.StampCommit, "source", 1, 1)
	tx := db.Begin("T4", "s", at(10), at(10))
	back := at(1)
	v := db.Write(tx, ct, mvcc.Insert, "e", idOf("e"), 0, at(10), &back)
	w := db.Write(tx, ct, mvcc.Insert, "f", idOf("f"), 0, at(10), nil)
	db.Commit(tx, at(12), at(12))
	assert.Equal(t, at(1), v.UpdatedAt)
	assert.True(t, v.Backdated)
	assert.Equal(t, at(12), w.UpdatedAt, "a commit-stamped table takes the commit time")
}

func TestNextValBurnsOnRollback(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 1, 100)
	tx := db.Begin("T1", "s1", at(0), at(0))
	id := tb.NextVal("s1")
	db.Write(tx, tb, mvcc.Insert, "100", idOf("100"), 0, at(0), nil)
	db.Rollback(tx, at(1))
	assert.Equal(t, int64(100), id)
	assert.Equal(t, int64(101), tb.NextVal("s1"), "the rolled-back id is not handed out again")
	db.Write(db.Begin("T2", "s2", at(2), at(2)), tb, mvcc.Insert, "102", idOf("102"), 0, at(2), nil)
	assert.Equal(t, int64(102), tb.NextVal("s2"), "a key inserted explicitly does not move the sequence on, as in PostgreSQL")
}

func TestCacheBlocksPerSession(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 10, 1)
	assert.Equal(t, int64(1), tb.NextVal("a"))
	assert.Equal(t, int64(11), tb.NextVal("b"), "session b takes the next block of 10")
	assert.Equal(t, int64(2), tb.NextVal("a"), "session a keeps drawing from its own block")
	for want := int64(3); want <= 10; want++ {
		require.Equal(t, want, tb.NextVal("a"))
	}
	assert.Equal(t, int64(21), tb.NextVal("a"), "a used-up block is replaced by a fresh one after b's")
	tb.EndSession("b")
	assert.Equal(t, int64(31), tb.NextVal("b"), "ids cached by an ended session are lost for good")

	nc := db.AddTable("plain", "id", mvcc.StampTxnStart, "source", 0, 1)
	assert.Equal(t, 1, nc.Cache, "cache below 1 is taken as 1")
	assert.Equal(t, int64(1), nc.NextVal("a"))
	assert.Equal(t, int64(2), nc.NextVal("b"))
	assert.Equal(t, int64(3), nc.NextVal("a"))
}

func TestCompareKeys(t *testing.T) {
	assert.Equal(t, -1, mvcc.CompareKeys("2", "10"))
	assert.Equal(t, 1, mvcc.CompareKeys("10", "2"))
	assert.Equal(t, 0, mvcc.CompareKeys("7", "7"))
	assert.Equal(t, -1, mvcc.CompareKeys("99", "a"), "numbers before words")
	assert.Equal(t, 1, mvcc.CompareKeys("b", "a"))
	// Words with numbers in them order as a reader does.
	words := []string{"phone-10", "phone-9", "phone-12", "app-2", "phone-11", "phone-09", "phone-1a", "phone-", "phone-10x"}
	slices.SortFunc(words, mvcc.CompareKeys)
	assert.Equal(t, []string{"app-2", "phone-", "phone-1a", "phone-09", "phone-9", "phone-10", "phone-10x", "phone-11", "phone-12"}, words)
	assert.Equal(t, -1, mvcc.CompareKeys("phone-09", "phone-9"), "equal numbers fall back to the bytes")
	assert.Equal(t, 0, mvcc.CompareKeys("phone-9", "phone-9"))
	vs := []*mvcc.Version{{Key: "10"}, {Key: "x"}, {Key: "2"}}
	mvcc.SortVersions(vs)
	assert.Equal(t, []string{"2", "10", "x"}, keys(vs))
}

// ids numbers keys the way the engine does: the same key, the same id.
var ids = map[string]int32{}

func idOf(key string) int32 {
	id, ok := ids[key]
	if !ok {
		id = int32(len(ids))
		ids[key] = id
	}
	return id
}

// TestChangesOnlyRowsThatExist: an UPDATE or DELETE in PostgreSQL changes
// the rows it finds. A key with no row, committed or written by the
// transaction itself, is matched by nothing: no version, no commit position.
func TestChangesOnlyRowsThatExist(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 1, 1)
	t1 := db.Begin("T1", "a", at(0), at(0))
	require.NotNil(t, db.Write(t1, tb, mvcc.Insert, "1", idOf("1"), 0, at(0), nil))
	db.Commit(t1, at(0), at(0))

	t2 := db.Begin("T2", "b", at(1), at(1))
	assert.Nil(t, db.Write(t2, tb, mvcc.Update, "4", idOf("4"), 5, at(1), nil), "no order 4 exists: the update matches nothing")
	assert.Nil(t, db.Write(t2, tb, mvcc.Delete, "4", idOf("4"), 0, at(1), nil), "nor does a delete")
	assert.Empty(t, t2.Writes)
	db.Commit(t2, at(1), at(1))
	assert.Equal(t, mvcc.LSN(0), t2.LSN, "a transaction that changed nothing takes no log position")
	assert.Equal(t, mvcc.FirstLSN, db.LastLSN())
	assert.Nil(t, tb.Live("4"))

	// A transaction sees its own writes: an insert then an update of the same
	// key changes it twice; a delete then an update finds nothing.
	t3 := db.Begin("T3", "c", at(2), at(2))
	require.NotNil(t, db.Write(t3, tb, mvcc.Insert, "7", idOf("7"), 0, at(2), nil))
	assert.NotNil(t, db.Write(t3, tb, mvcc.Update, "7", idOf("7"), 3, at(2), nil), "its own insert is there to update")
	assert.NotNil(t, db.Write(t3, tb, mvcc.Delete, "1", idOf("1"), 0, at(2), nil), "the committed row is there to delete")
	assert.Nil(t, db.Write(t3, tb, mvcc.Update, "1", idOf("1"), 0, at(2), nil), "after its own delete, the row is gone for it")
	// Another transaction's uncommitted insert is invisible to an update.
	t4 := db.Begin("T4", "d", at(2), at(2))
	assert.Nil(t, db.Write(t4, tb, mvcc.Update, "7", idOf("7"), 0, at(2), nil))
	db.Commit(t3, at(3), at(3))
	assert.Equal(t, mvcc.FirstLSN+1, t3.LSN)
	// Many writes are looked up through an index rather than a scan, with the same answers.
	t5 := db.Begin("T5", "e", at(4), at(4))
	for i := range 40 {
		k := strconv.Itoa(100 + i)
		require.NotNil(t, db.Write(t5, tb, mvcc.Insert, k, idOf(k), 0, at(4), nil))
	}
	assert.NotNil(t, db.Write(t5, tb, mvcc.Update, "120", idOf("120"), 0, at(4), nil))
	assert.NotNil(t, db.Write(t5, tb, mvcc.Delete, "139", idOf("139"), 0, at(4), nil))
	assert.Nil(t, db.Write(t5, tb, mvcc.Update, "139", idOf("139"), 0, at(4), nil))
	assert.Nil(t, db.Write(t5, tb, mvcc.Update, "999", idOf("999"), 0, at(4), nil))
	assert.NotNil(t, db.Write(t5, tb, mvcc.Update, "7", idOf("7"), 0, at(4), nil), "a committed row is found past the index")
}

// TestStampIndexStaysOrdered commits random inserts, updates and deletes of
// a few dozen keys, stamped backdated by random amounts (some at equal
// instants, some far back), and checks after every commit that the rows by
// updated_at are every live, undeleted row in (updated_at, key) order.
func TestStampIndexStaysOrdered(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 1, 1)
	live := map[string]bool{}
	for i := range 3000 {
		tx := db.Begin("T"+strconv.Itoa(i), "s1", at(i), at(i))
		k := strconv.Itoa(r.IntN(40))
		if r.IntN(3) == 0 {
			k = "k" + k // keys that are words sort after numbers
		}
		stamp := at(i - r.IntN(3)*r.IntN(100))
		op := mvcc.Insert
		if live[k] {
			op = []mvcc.Op{mvcc.Update, mvcc.Delete}[r.IntN(2)]
		}
		require.NotNil(t, db.Write(tx, tb, op, k, idOf(k), 1, at(i), &stamp))
		db.Commit(tx, at(i), at(i))
		live[k] = op != mvcc.Delete
		rows := tb.Rows()
		n := 0
		for _, ok := range live {
			if ok {
				n++
			}
		}
		require.Len(t, rows, n, "commit %d", i)
		for j := 1; j < len(rows); j++ {
			a, b := rows[j-1], rows[j]
			require.True(t, a.UpdatedAt < b.UpdatedAt || a.UpdatedAt == b.UpdatedAt && mvcc.CompareKeys(a.Key, b.Key) < 0,
				"commit %d: %s@%s before %s@%s", i, a.Key, a.UpdatedAt, b.Key, b.UpdatedAt)
		}
		for _, v := range rows {
			require.True(t, live[v.Key], "commit %d: %s is deleted", i, v.Key)
		}
	}
}

// TestHolderIsTheOpenWriterOfARow: a row written by an open transaction is
// held by it until it commits or rolls back; the writer itself, and rows
// nobody open has written, have no other holder.
func TestHolderIsTheOpenWriterOfARow(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 1, 1)
	t1 := db.Begin("T1", "s1", at(0), at(0))
	t2 := db.Begin("T2", "s2", at(0), at(0))
	require.NotNil(t, db.Write(t1, tb, mvcc.Insert, "1", 1, 0, at(0), nil))
	assert.Same(t, t1, db.Holder(t2, tb, 1), "T1 holds the row it inserted")
	assert.Nil(t, db.Holder(t1, tb, 1), "a writer is not held up by itself")
	assert.Nil(t, db.Holder(t2, tb, 2), "nobody holds a row nobody wrote")
	assert.Nil(t, db.Holder(t2, tb, 99), "nor one past every id seen")
	db.Commit(t1, at(1), at(1))
	assert.Nil(t, db.Holder(t2, tb, 1), "a commit releases the row")

	t3 := db.Begin("T3", "s1", at(2), at(2))
	assert.Nil(t, db.Write(t3, tb, mvcc.Update, "2", 2, 0, at(2), nil), "an update of no row writes nothing")
	assert.Nil(t, db.Holder(t2, tb, 2), "and holds nothing")
	require.NotNil(t, db.Write(t3, tb, mvcc.Delete, "1", 1, 0, at(2), nil))
	assert.Same(t, t3, db.Holder(t2, tb, 1))
	db.Rollback(t3, at(3))
	assert.Nil(t, db.Holder(t2, tb, 1), "a rollback releases the row")
}

// live is the rows SelectLSN returns, without the deletes it names.
func live(rows []*mvcc.Version, _ []string) []*mvcc.Version { return rows }

// TestStampRuleChangesPerStatement: a change of a table's rule (a trigger
// replaced, an application's new default) applies to the statements after
// it, not to versions already written, even those whose transaction commits
// after the change.
func TestStampRuleChangesPerStatement(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampStatement, "source", 1, 1)
	tx := db.Begin("T1", "s1", at(0), at(0))
	db.Write(tx, tb, mvcc.Insert, "1", idOf("1"), 10, at(2), nil)
	tb.Stamp = mvcc.StampTxnStart // the deploy, while T1 is open
	db.Write(tx, tb, mvcc.Insert, "2", idOf("2"), 10, at(4), nil)
	db.Commit(tx, at(5), at(5))
	assert.Equal(t, at(2), tb.Live("1").UpdatedAt, "written before the change: the statement's time")
	assert.Equal(t, at(0), tb.Live("2").UpdatedAt, "written after it: now(), the transaction's start")
}

// TestCommitStampSurvivesARuleChange: a row written while its table
// stamped at commit gets its commit's time even when the rule has changed
// away from commit before the commit, and a row written after a change to
// commit stamping gets it too, though its transaction began under another.
func TestCommitStampSurvivesARuleChange(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampCommit, "source", 1, 1)
	tx := db.Begin("T1", "s1", at(0), at(0))
	db.Write(tx, tb, mvcc.Insert, "1", idOf("1"), 10, at(1), nil)
	tb.Stamp = mvcc.StampStatement
	db.Write(tx, tb, mvcc.Insert, "2", idOf("2"), 10, at(2), nil)
	backdated := at(-60)
	tb.Stamp = mvcc.StampCommit
	db.Write(tx, tb, mvcc.Insert, "3", idOf("3"), 10, at(3), nil)
	db.Write(tx, tb, mvcc.Insert, "4", idOf("4"), 10, at(3), &backdated)
	tb.Stamp = mvcc.StampTxnStart
	db.Commit(tx, at(6), at(7))
	assert.Equal(t, at(7), tb.Live("1").UpdatedAt, "written under commit stamping: the commit's time, though the table now stamps otherwise")
	assert.Equal(t, at(2), tb.Live("2").UpdatedAt, "written under statement stamping")
	assert.Equal(t, at(7), tb.Live("3").UpdatedAt, "written after a change back to commit stamping")
	assert.Equal(t, backdated, tb.Live("4").UpdatedAt, "a value set by hand is kept")
	assert.Equal(t, []string{"4", "2", "1", "3"}, keys(tb.SelectStamp(all())), "the stamp index holds the commit's stamps")
}

// An UPDATE that sets the amount to zero writes zero; only one that leaves
// the column out keeps the old value.
func TestUpdateToZeroSetsZero(t *testing.T) {
	db := mvcc.New()
	tb := db.AddTable("orders", "order_id", mvcc.StampTxnStart, "source", 1, 1)
	commit := func(name string, s int, op mvcc.Op, amount int64) *mvcc.Version {
		tx := db.Begin(name, name, at(s), at(s))
		v := db.Write(tx, tb, op, "1", idOf("1"), amount, at(s), nil)
		db.Commit(tx, at(s), at(s))
		return v
	}
	commit("T1", 0, mvcc.Insert, 10)
	assert.Equal(t, int64(0), commit("T2", 1, mvcc.Update, 0).Amount, "SET amount = 0 writes 0")
	assert.Equal(t, int64(0), commit("T3", 2, mvcc.Update, mvcc.KeepAmount).Amount, "a later update without the column keeps the 0")
}
