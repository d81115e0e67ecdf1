package sink_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
)

func rows(keys ...string) []sink.In {
	out := make([]sink.In, len(keys))
	for i, k := range keys {
		out[i] = sink.In{ID: kid(k), Key: k, Seq: 1, UpdatedAt: vtime.Time(i * 1000), LSN: int64(1001 + i)}
	}
	return out
}

// presentKeys spells the keys of rows of tb.
func presentKeys(tb *sink.Table, rs []sink.Row) []string {
	out := make([]string, len(rs))
	for i := range rs {
		out[i] = tb.KeyOf(&rs[i])
	}
	return out
}

func TestAppendDuplicates(t *testing.T) {
	tb := sink.New("t", "id", sink.Append)
	var changed []string
	on := func(src, _, _ int32) { changed = append(changed, strconv.Itoa(int(src))) }
	res := tb.Write(rows("1", "2"), 0, 3, nil, on)
	assert.Equal(t, sink.Result{Inserted: 2}, res)
	res = tb.Write(rows("2", "3"), 1, 7, nil, on)
	assert.Equal(t, sink.Result{Inserted: 2}, res, "append never matches")
	assert.Equal(t, 2, tb.Count("2"), "a re-read row is appended again")
	assert.Equal(t, 1, tb.Count("1"))
	assert.Equal(t, []string{"1", "2", "2", "3"}, changed)
	assert.Equal(t, 0, tb.Collapsed())
	assert.Equal(t, []string{"1", "2", "2", "3"}, presentKeys(tb, sink.At(tb.History(), 7)))
	assert.Equal(t, []string{"1", "2"}, presentKeys(tb, sink.At(tb.History(), 6)), "the table as it stood before the second write")
	assert.Empty(t, sink.At(tb.History(), 2))
}

func TestMergeCollapsesAndCounts(t *testing.T) {
	tb := sink.New("t", "id", sink.Merge)
	noop := func(int32, int32, int32) {}
	tb.Write(rows("1", "2"), 0, 3, nil, noop)
	res := tb.Write(rows("2", "3"), 1, 7, nil, noop)
	assert.Equal(t, sink.Result{Inserted: 1, Collapsed: 1}, res, "the same version of 2 is absorbed")
	assert.Equal(t, 1, tb.Count("2"))
	assert.Equal(t, 1, tb.Collapsed())

	// A newer version replaces the row; an older one is absorbed.
	res = tb.Write([]sink.In{{ID: kid("2"), Key: "2", Seq: 2, UpdatedAt: 5000}}, 2, 9, nil, noop)
	assert.Equal(t, sink.Result{Inserted: 1, Replaced: 1}, res)
	assert.Equal(t, 2, tb.Newest("2"))
	assert.Equal(t, 1, tb.Count("2"))
	res = tb.Write([]sink.In{{ID: kid("2"), Key: "2", Seq: 1}}, 3, 11, nil, noop)
	assert.Equal(t, sink.Result{Collapsed: 1}, res, "an older version never overwrites a newer one")
	assert.Equal(t, 2, tb.Newest("2"))
	assert.Equal(t, 2, tb.Collapsed())

	// History: version 1 of key 2 was present until step 9.
	at8 := sink.At(tb.History(), 8)
	require.Len(t, at8, 3)
	for _, r := range at8 {
		if tb.KeyOf(&r) == "2" {
			assert.EqualValues(t, 1, r.Seq)
		}
	}
	for _, r := range sink.At(tb.History(), 9) {
		if tb.KeyOf(&r) == "2" {
			assert.EqualValues(t, 2, r.Seq)
		}
	}
}

func TestOverwriteReplacesItsInterval(t *testing.T) {
	tb := sink.New("t", "id", sink.Overwrite)
	noop := func(int32, int32, int32) {}
	first := []sink.In{{ID: kid("1"), Key: "1", Seq: 1, UpdatedAt: 1000}, {ID: kid("2"), Key: "2", Seq: 1, UpdatedAt: 2000}, {ID: kid("3"), Key: "3", Seq: 1, UpdatedAt: 3000}}
	tb.Write(first, 0, 3, nil, noop)
	// The second run covers (1s, 3s]: it deletes 2 and 3 and writes 2 and 4.
	in := func(r sink.Row) bool { return r.UpdatedAt > 1000 && r.UpdatedAt <= 3000 }
	var changed []string
	res := tb.Write([]sink.In{{ID: kid("2"), Key: "2", Seq: 1, UpdatedAt: 2000}, {ID: kid("4"), Key: "4", Seq: 1, UpdatedAt: 2500}}, 1, 7, in, func(src, _, _ int32) { changed = append(changed, strconv.Itoa(int(src))) })
	assert.Equal(t, 2, res.Inserted)
	assert.Equal(t, 2, res.Replaced)
	assert.Equal(t, []string{"2", "3"}, presentKeys(tb, res.Removed), "the rows the interval removed are named")
	assert.EqualValues(t, 0, res.Removed[0].Run, "with the run that wrote them")
	assert.Equal(t, []string{"1", "2", "4"}, presentKeys(tb, sink.At(tb.History(), 7)), "row 3, inside the interval and not re-read, is gone")
	assert.Equal(t, 1, tb.Count("2"), "re-reading an interval does not duplicate")
	assert.Equal(t, 0, tb.Count("3"))
	assert.Equal(t, 1, tb.Count("1"), "rows outside the interval are kept")
	assert.Equal(t, []string{"2", "3", "2", "4"}, changed, "deleted rows are reported in key order, then the written ones")
	assert.Equal(t, []string{"1", "2", "3"}, presentKeys(tb, sink.At(tb.History(), 6)))

	// Without an interval, overwrite behaves as append.
	res = tb.Write([]sink.In{{ID: kid("1"), Key: "1", Seq: 1}}, 2, 9, nil, noop)
	assert.Equal(t, sink.Result{Inserted: 1}, res)
	assert.Equal(t, 2, tb.Count("1"))
}

func TestParseMode(t *testing.T) {
	for _, m := range []sink.Mode{sink.Append, sink.Merge, sink.Overwrite, sink.Upsert} {
		got, ok := sink.ParseMode(m.String())
		require.True(t, ok)
		assert.Equal(t, m, got)
	}
	_, ok := sink.ParseMode("replace")
	assert.False(t, ok)
}

// An upsert keeps whatever arrived last, even an older version: the table a
// consumer builds by arrival order.
func TestUpsertLastWriteWins(t *testing.T) {
	tb := sink.New("t", "id", sink.Upsert)
	noop := func(int32, int32, int32) {}
	tb.Write([]sink.In{{ID: kid("1"), Key: "1", Seq: 2}}, 0, 1, nil, noop)
	res := tb.Write([]sink.In{{ID: kid("1"), Key: "1", Seq: 1}}, 0, 2, nil, noop)
	assert.Equal(t, 1, res.Replaced)
	assert.Equal(t, 1, tb.Count("1"))
	assert.Equal(t, 1, tb.Newest("1"), "the older version replaced the newer")
}

// kid numbers keys as the engine does: the same key, the same id.
func kid(key string) int32 {
	n, err := strconv.Atoi(key)
	if err != nil {
		panic("sink tests use numeric keys: " + key)
	}
	return int32(n)
}

// A batch that carries several versions of one key leaves one present row:
// each version replaces the one before, and every replaced row is marked
// removed at the batch's step, even one the same batch added.
func TestMergeBatchWithSeveralVersionsOfAKey(t *testing.T) {
	tb := sink.New("t", "id", sink.Merge)
	noop := func(int32, int32, int32) {}
	tb.Write(rows("1"), 0, 3, nil, noop)
	batch := []sink.In{
		{ID: kid("1"), Key: "1", Seq: 2},
		{ID: kid("2"), Key: "2", Seq: 1},
		{ID: kid("1"), Key: "1", Seq: 3},
	}
	res := tb.Write(batch, 1, 5, nil, noop)
	assert.Equal(t, sink.Result{Inserted: 3, Replaced: 2}, res)
	assert.Equal(t, 3, tb.Newest("1"))
	hist := tb.History()
	require.Len(t, hist, 4)
	assert.Equal(t, int32(5), hist[0].RemovedStep, "version 1 is replaced at the batch's step")
	assert.Equal(t, int32(5), hist[1].RemovedStep, "version 2 came and went within the batch")
	assert.Equal(t, int32(sink.Live), hist[2].RemovedStep)
	assert.Equal(t, int32(sink.Live), hist[3].RemovedStep)
	present := sink.At(hist, 5)
	assert.ElementsMatch(t, []string{"1", "2"}, presentKeys(tb, present))

	// The next batch starts with nothing left over from this one.
	res = tb.Write([]sink.In{{ID: kid("2"), Key: "2", Seq: 2}}, 2, 7, nil, noop)
	assert.Equal(t, sink.Result{Inserted: 1, Replaced: 1}, res)
	assert.Equal(t, int32(sink.Live), tb.History()[3].RemovedStep, "key 1's present row is untouched")
	assert.Equal(t, int32(7), tb.History()[2].RemovedStep)
}

// TestSourcesAndKeys: a row's key is what the target matches on; its
// source is the row it copies, which the write reports. Two sources with
// one key share one merged row, so the source the merge absorbs has no
// copy; one source under two keys (an event resent with a new id) has two.
func TestSourcesAndKeys(t *testing.T) {
	type tally struct{ rows, seqs int32 }
	got := map[int32]*tally{}
	on := func(src, rows, seqs int32) {
		if got[src] == nil {
			got[src] = &tally{}
		}
		got[src].rows += rows
		got[src].seqs += seqs
	}
	// Key 1 of table A (source 1) and of table B (source 101), merged on key 1.
	tb := sink.New("t", "id", sink.Merge)
	tb.Write([]sink.In{{ID: 1, Key: "1", Seq: 1}}, 0, 1, nil, on)
	res := tb.Write([]sink.In{{ID: 1, Src: 101 + 1, Key: "1", Seq: 1}}, 1, 2, nil, on)
	assert.Equal(t, 1, res.Collapsed, "the merge takes B's row 1 for the row it holds")
	assert.Equal(t, tally{1, 1}, *got[1])
	assert.Nil(t, got[101], "B's row 1 has no copy")
	res = tb.Write([]sink.In{{ID: 1, Src: 101 + 1, Key: "1", Seq: 2}}, 2, 3, nil, on)
	assert.Equal(t, 1, res.Replaced, "a newer version replaces the row, whichever source it copies")
	assert.Equal(t, tally{0, 0}, *got[1], "A's row lost its copy")
	assert.Equal(t, tally{1, 2}, *got[101])
	assert.Equal(t, int32(101), sink.At(tb.History(), 3)[0].Src)
	res = tb.Write([]sink.In{{ID: 1, Src: 101 + 1, Key: "1", Seq: 3}}, 3, 4, nil, on)
	assert.Equal(t, tally{1, 3}, *got[101], "a newer version of the same source moves its version")

	// Event 7 sent twice, the second time as key 8: two keys, one source.
	clear(got)
	ap := sink.New("e", "event_id", sink.Append)
	ap.Write([]sink.In{{ID: 7, Key: "7", Seq: 1}, {ID: 8, Src: 7 + 1, Key: "8", Seq: 1}}, 0, 1, nil, on)
	assert.Equal(t, 1, ap.Count("7"))
	assert.Equal(t, 1, ap.Count("8"), "the target holds the key the second copy carried")
	assert.Equal(t, tally{2, 2}, *got[7], "both rows copy event 7")
	assert.Nil(t, got[8])
}

// TestDeleteEvents: a delete event removes the key's present row under
// merge and upsert, unless a merge holds a newer version; a table that only
// inserts keeps its rows and counts the delete as unapplied; and nothing
// remembers a delete, so an older version read again is inserted anew.
func TestDeleteEvents(t *testing.T) {
	del := func(k string, seq int) []sink.In { return []sink.In{{ID: kid(k), Key: k, Seq: seq, Delete: true}} }
	type change struct{ src, rows, seqs int32 }
	for _, mode := range []sink.Mode{sink.Merge, sink.Upsert} {
		tb := sink.New("t", "id", mode)
		var changes []change
		on := func(src, rows, seqs int32) { changes = append(changes, change{src, rows, seqs}) }
		tb.Write(rows("1", "2"), 0, 1, nil, on)
		changes = nil
		res := tb.Write(del("1", 2), 0, 2, nil, on)
		assert.Equal(t, sink.Result{Deleted: 1}, res, mode)
		assert.Equal(t, []change{{kid("1"), -1, -1}}, changes, "%v: the truth hears the row go", mode)
		assert.Equal(t, 0, tb.Count("1"), mode)
		assert.Equal(t, []string{"2"}, presentKeys(tb, sink.At(tb.History(), 2)), mode)
		assert.Equal(t, []string{"1", "2"}, presentKeys(tb, sink.At(tb.History(), 1)), "%v: the table as it stood before the delete", mode)
		assert.Equal(t, sink.Result{}, tb.Write(del("1", 2), 0, 3, nil, on), "%v: a delete read again finds nothing", mode)
		assert.Equal(t, sink.Result{}, tb.Write(del("9", 2), 0, 3, nil, on), "%v: nor does one for a key never written", mode)
		res = tb.Write(rows("1"), 0, 4, nil, on)
		assert.Equal(t, sink.Result{Inserted: 1}, res, "%v: the insert read again comes back: nothing remembers the delete", mode)
	}

	tb := sink.New("t", "id", sink.Merge)
	on := func(int32, int32, int32) {}
	tb.Write([]sink.In{{ID: kid("1"), Key: "1", Seq: 3}}, 0, 1, nil, on)
	assert.Equal(t, sink.Result{}, tb.Write(del("1", 2), 0, 2, nil, on), "a merge keeps a row newer than the delete")
	assert.Equal(t, 1, tb.Count("1"))

	for _, mode := range []sink.Mode{sink.Append, sink.Overwrite} {
		tb := sink.New("t", "id", mode)
		tb.Write(rows("1"), 0, 1, nil, on)
		res := tb.Write(append(rows("2"), del("1", 2)...), 0, 2, nil, on)
		assert.Equal(t, sink.Result{Inserted: 1, Unapplied: 1}, res, mode)
		assert.Equal(t, 1, tb.Count("1"), "%v: a table that only inserts keeps the row", mode)
	}
}
