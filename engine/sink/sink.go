// Package sink holds the target tables an extractor writes into, and the
// three ways of writing them: append, a keyed merge, and interval overwrite.
//
// A target keeps every row it ever held with the step it arrived at and the
// step it was removed at, so the table as it stood at any step can be read
// back without replaying the run.
//
// A row has two identities. Its key is what the target holds, what a merge
// matches on and what a team sees: the business key, or the event id a
// record carried. Its source is the row of the source (a table's row, or an
// event a producer meant to send) that it copies, which only the simulator
// knows: two tables' rows with one key are two sources, and an event resent
// under a new id is one source under two keys. A write reports how many
// rows copy each source, which is what the engine's truth counts.
package sink

import (
	"math"
	"slices"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Mode is how a write lands in the target.
type Mode uint8

// Write modes.
const (
	Append    Mode = iota // INSERT every row read: a re-read becomes a duplicate
	Merge                 // MERGE on the business key: a re-read replaces the row
	Overwrite             // DELETE the run's interval, then INSERT it: a re-read replaces the slice
	Upsert                // UPSERT on the business key, last write wins: an older version arriving late replaces a newer one
)

// ParseMode reads append, merge, overwrite or upsert.
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "append":
		return Append, true
	case "merge":
		return Merge, true
	case "overwrite":
		return Overwrite, true
	case "upsert":
		return Upsert, true
	}
	return 0, false
}

func (m Mode) String() string { return [...]string{"append", "merge", "overwrite", "upsert"}[m] }

// Verb is how narration tells a write into a table of mode m: "merges".
func (m Mode) Verb() string { return [...]string{"appends", "merges", "writes", "upserts"}[m] }

// Live is the removal step of a row still in the table.
const Live = math.MaxInt32

// Row is one row of a target table. It names its key by the id its writer
// gave it (In.ID) and holds no pointers, so a target of millions of rows
// costs the garbage collector nothing to trace; Table.KeyOf spells the key.
//
// Invariant: AddedStep < RemovedStep; RemovedStep is Live while the row is present.
type Row struct {
	UpdatedAt   vtime.Time // copied from the source
	LSN         int64      // the source commit position it copies
	Amount      int64
	Seq         int32 // the source version it copies
	Run         int32 // the extractor run that wrote it, or -1
	KeyID       int32 // the key, as In.ID named it
	Src         int32 // the source row it copies, as In.Source resolves it
	AddedStep   int32
	RemovedStep int32
}

// In is a row to write.
type In struct {
	_         nocmp.NoCompare
	ID        int32 // the key's dense id, given by the caller: equal keys, equal ids
	Src       int32 // 1 + the caller's id of the source row it copies; 0 (the usual case) when that is the key's own id, ID
	Key       string
	Seq       int
	UpdatedAt vtime.Time
	LSN       int64
	Amount    int64
	Delete    bool // a change event saying the key's row was deleted at the source (Debezium's op "d")
}

// Source is the id of the source row in copies (see Src).
func (in *In) Source() int32 {
	if in.Src == 0 {
		return in.ID
	}
	return in.Src - 1
}

// Result counts what a write did.
type Result struct {
	Inserted  int
	Replaced  int   // rows an incoming newer version replaced (merge) or the interval removed (overwrite)
	Collapsed int   // incoming rows identical to a present row, absorbed by the merge
	Deleted   int   // present rows a delete event removed (merge, upsert)
	Unapplied int   // delete events a table that only inserts (append, overwrite) could not apply
	Removed   []Row // overwrite: the rows the interval removed, by key id and each key's in the order written
}

// Table is a target table.
//
// Keys are addressed by the dense ids the caller gives them (In.ID), not by
// their text: a write then finds a key's rows without hashing it.
//
// Invariant: (*Keys)[id] is the text of the key with that id, for every id
// written. Under Append and Overwrite, live[id] lists the indexes in rows
// of every present row of the key with that id, oldest first. Under Merge
// and Upsert a key has at most one present row, so the table keeps it in a
// dense array instead: one[id].row is 1 + its index in rows (0: none) and
// one[id].seq its version, which lets a merge decide without touching the row.
// Both halves sit together so that a write reads one cache line per key.
type Table struct {
	Name      string
	Key       string
	Mode      Mode
	Keys      *[]string // the text of each key id: the table's own, or a writer's shared table (as the engine shares its key table)
	rows      []Row
	live      [][]int32
	one       []present
	replaced  []int32 // scratch: rows a write's merges replace, marked removed once the write is done
	collapsed int
}

// present is where a key's one present row is, under Merge and Upsert.
type present struct {
	row int32 // 1 + its index in rows; 0: the key has no present row
	seq int32 // the version the row holds
	src int32 // the source row it copies
}

// single reports whether a key has at most one present row.
func (t *Table) single() bool { return t.Mode == Merge || t.Mode == Upsert }

// New returns an empty target table.
func New(name, key string, mode Mode) *Table {
	return &Table{Name: name, Key: key, Mode: mode, Keys: new([]string)}
}

// OnChange is told what a write did to the rows copying one source row
// (src, an In.Source): how many more of them are present (negative: fewer),
// and by how much the sum of their versions changed. Sums wrap around like
// any int32, which keeps them exact where they matter: with one row
// present, the sum is that row's version.
type OnChange func(src, rows, seqs int32)

// Write applies rows as one statement at step. inInterval, used by Overwrite
// only, says which present rows the run's interval covers and so deletes.
// onChange is called for every source row whose copies changed.
func (t *Table) Write(rows []In, run int, step int32, inInterval func(Row) bool, onChange OnChange) Result {
	var res Result
	if t.Mode == Overwrite && inInterval != nil {
		for id, idxs := range t.live {
			hit := false
			for _, i := range idxs {
				hit = hit || inInterval(t.rows[i])
			}
			if !hit {
				continue
			}
			kept := idxs[:0]
			for _, i := range idxs {
				if r := &t.rows[i]; inInterval(*r) {
					r.RemovedStep = step
					res.Replaced++
					res.Removed = append(res.Removed, *r)
					onChange(r.Src, -1, int32(-r.Seq))
				} else {
					kept = append(kept, i)
				}
			}
			t.live[id] = kept
		}
	}
	for _, in := range rows {
		if in.Delete {
			t.delete(in, &res, onChange)
			continue
		}
		if t.single() {
			t.writeOne(in, run, step, &res, onChange)
			continue
		}
		if n := int(in.ID) + 1; n > len(t.live) {
			t.live = append(t.live, make([][]int32, n-len(t.live))...)
		}
		if len(t.live[in.ID]) == 0 {
			t.name(in)
		}
		src := in.Source()
		t.rows = append(t.rows, Row{KeyID: in.ID, Src: src, Seq: int32(in.Seq), UpdatedAt: in.UpdatedAt, LSN: in.LSN,
			Amount: in.Amount, Run: int32(run), AddedStep: step, RemovedStep: Live})
		t.live[in.ID] = append(t.live[in.ID], int32(len(t.rows)-1))
		res.Inserted++
		onChange(src, 1, int32(in.Seq))
	}
	// Marking the replaced rows in one tight loop lets the processor fetch
	// the scattered rows together rather than one per written row.
	for _, i := range t.replaced {
		t.rows[i].RemovedStep = step
	}
	t.replaced = t.replaced[:0]
	return res
}

// writeOne lands one row under Merge or Upsert: a merge absorbs a version
// no newer than the present one, whichever source it copies, as a MERGE
// comparing the version column would; otherwise the row replaces the
// present one.
func (t *Table) writeOne(in In, run int, step int32, res *Result, onChange OnChange) {
	if n := int(in.ID) + 1; n > len(t.one) {
		t.one = append(t.one, make([]present, n-len(t.one))...)
	}
	p := &t.one[in.ID]
	src := in.Source()
	if cur := p.row; cur > 0 {
		if t.Mode == Merge && int(p.seq) >= in.Seq {
			res.Collapsed++
			t.collapsed++
			return
		}
		t.replaced = append(t.replaced, cur-1)
		res.Replaced++
		if p.src != src {
			onChange(p.src, -1, -p.seq)
			onChange(src, 1, int32(in.Seq))
		} else {
			onChange(src, 0, int32(in.Seq)-p.seq)
		}
	} else {
		t.name(in)
		onChange(src, 1, int32(in.Seq))
	}
	t.rows = append(t.rows, Row{KeyID: in.ID, Src: src, Seq: int32(in.Seq), UpdatedAt: in.UpdatedAt, LSN: in.LSN,
		Amount: in.Amount, Run: int32(run), AddedStep: step, RemovedStep: Live})
	*p = present{row: int32(len(t.rows)), seq: int32(in.Seq), src: src}
	res.Inserted++
}

// delete applies a delete event for in's key. Under Merge and Upsert the
// key's present row goes, unless a merge finds it newer than the delete
// (its version column says so); nothing remembers the delete, so an older
// version read again later is inserted anew, as a MERGE with nothing to
// match inserts. A table written by Append or Overwrite only ever inserts:
// it keeps its rows and counts the delete as unapplied.
func (t *Table) delete(in In, res *Result, onChange OnChange) {
	if !t.single() {
		res.Unapplied++
		return
	}
	if int(in.ID) >= len(t.one) || t.one[in.ID].row == 0 {
		return
	}
	p := &t.one[in.ID]
	if t.Mode == Merge && int(p.seq) >= in.Seq {
		return
	}
	t.replaced = append(t.replaced, p.row-1)
	onChange(p.src, -1, -p.seq)
	*p = present{}
	res.Deleted++
}

// name records the text of in's key unless Keys has it already (a shared
// table names every id before it is written). A write calls it only for a
// key with no present row, so a key that stays present costs no lookup.
func (t *Table) name(in In) {
	k := t.Keys
	if n := int(in.ID) + 1; n > len(*k) {
		*k = append(*k, make([]string, n-len(*k))...)
	}
	if (*k)[in.ID] == "" {
		(*k)[in.ID] = in.Key
	}
}

// KeyOf is the key of r, a row of t.
func (t *Table) KeyOf(r *Row) string { return (*t.Keys)[r.KeyID] }

// Reserve makes room for n keys in an empty table.
func (t *Table) Reserve(n int) {
	switch {
	case t.single() && len(t.one) == 0:
		t.one = make([]present, 0, n)
	case !t.single() && len(t.live) == 0:
		t.live = make([][]int32, 0, n)
	}
}

// ReserveRows makes room for n more rows, for a writer that knows roughly
// how many it will send.
func (t *Table) ReserveRows(n int) { t.rows = slices.Grow(t.rows, n) }

// Count is the number of present rows with key.
// It looks the key up among the present rows, so it is for tests and
// tools, not for a hot path.
func (t *Table) Count(key string) int { return len(t.idxsOf(key)) }

func (t *Table) idxsOf(key string) []int32 {
	for id, p := range t.one {
		if p.row > 0 && (*t.Keys)[id] == key {
			return []int32{p.row - 1}
		}
	}
	for id, idxs := range t.live {
		if len(idxs) > 0 && (*t.Keys)[id] == key {
			return idxs
		}
	}
	return nil
}

// Newest is the highest source version present for key, or 0.
func (t *Table) Newest(key string) int { return t.newest(t.idxsOf(key)) }

// NewestID is Newest for the key with the given id.
func (t *Table) NewestID(id int32) int {
	if t.single() {
		if int(id) >= len(t.one) || t.one[id].row == 0 {
			return 0
		}
		return int(t.one[id].seq)
	}
	if int(id) >= len(t.live) {
		return 0
	}
	return t.newest(t.live[id])
}

func (t *Table) newest(idxs []int32) int {
	n := 0
	for _, i := range idxs {
		n = max(n, int(t.rows[i].Seq))
	}
	return n
}

// Collapsed is how many incoming rows the merge has absorbed so far: the
// duplicates the target never shows. A MERGE reports them as matched rows.
func (t *Table) Collapsed() int { return t.collapsed }

// History returns every row the table ever held, in arrival order. The
// slice is the table's own: callers must not change it.
func (t *Table) History() []Row { return t.rows }

// At returns the rows present after step, in arrival order.
func At(history []Row, step int32) []Row {
	// Rows arrive in step order, so the rows added by step are a prefix.
	n, _ := sorted.Search(len(history), func(k int) int {
		r, s := history[k], step
		if r.AddedStep <= s {
			return -1
		}
		return 1
	})
	var out []Row
	for _, r := range history[:n] {
		if r.RemovedStep > step {
			out = append(out, r)
		}
	}
	return out
}
