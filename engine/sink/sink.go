// Package sink holds the target tables an extractor writes into, and the
// three ways of writing them: append, a keyed merge, and interval overwrite.
//
// A target keeps every row it ever held with the step it arrived at and the
// step it was removed at, so the table as it stood at any step can be read
// back without replaying the run.
package sink

import (
	"math"
	"slices"

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

// Live is the removal step of a row still in the table.
const Live = math.MaxInt32

// Row is one row of a target table.
//
// Invariant: AddedStep < RemovedStep; RemovedStep is Live while the row is present.
type Row struct {
	Key         string
	Seq         int        // the source version it copies
	UpdatedAt   vtime.Time // copied from the source
	LSN         int64      // the source commit position it copies
	Amount      int64
	Run         int // the extractor run that wrote it
	AddedStep   int32
	RemovedStep int32
}

// In is a row to write.
type In struct {
	Key       string
	Seq       int
	UpdatedAt vtime.Time
	LSN       int64
	Amount    int64
}

// Result counts what a write did.
type Result struct {
	Inserted  int
	Replaced  int // rows an incoming newer version replaced (merge) or the interval removed (overwrite)
	Collapsed int // incoming rows identical to a present row, absorbed by the merge
}

// Table is a target table.
//
// Invariant: live[key] lists the indexes in rows of every present row with
// that key, oldest first; under Merge it never lists more than one.
type Table struct {
	Name      string
	Key       string
	Mode      Mode
	rows      []Row
	live      map[string][]int32
	collapsed int
}

// New returns an empty target table.
func New(name, key string, mode Mode) *Table {
	return &Table{Name: name, Key: key, Mode: mode, live: map[string][]int32{}}
}

// Write applies rows as one statement at step. inInterval, used by Overwrite
// only, says which present rows the run's interval covers and so deletes.
// onChange is called with each key whose presence or version changed, with
// how many rows of it are now present and the newest version among them.
func (t *Table) Write(rows []In, run int, step int32, inInterval func(Row) bool, onChange func(key string, count, newest int)) Result {
	var res Result
	if t.Mode == Overwrite && inInterval != nil {
		var doomed []string
		for key, idxs := range t.live {
			for _, i := range idxs {
				if inInterval(t.rows[i]) {
					doomed = append(doomed, key)
					break
				}
			}
		}
		slices.Sort(doomed)
		for _, key := range doomed {
			kept := t.live[key][:0]
			for _, i := range t.live[key] {
				if inInterval(t.rows[i]) {
					t.rows[i].RemovedStep = step
					res.Replaced++
				} else {
					kept = append(kept, i)
				}
			}
			t.setLive(key, kept)
			onChange(key, len(kept), t.newest(kept))
		}
	}
	for _, in := range rows {
		if t.Mode == Merge || t.Mode == Upsert {
			if idxs := t.live[in.Key]; len(idxs) > 0 {
				cur := &t.rows[idxs[0]]
				if t.Mode == Merge && cur.Seq >= in.Seq {
					res.Collapsed++
					t.collapsed++
					continue
				}
				cur.RemovedStep = step
				res.Replaced++
				// The new row takes the old one's place in live: the map's
				// slice is this one, so no map write is needed.
				t.rows = append(t.rows, Row{Key: in.Key, Seq: in.Seq, UpdatedAt: in.UpdatedAt, LSN: in.LSN,
					Amount: in.Amount, Run: run, AddedStep: step, RemovedStep: Live})
				idxs[0] = int32(len(t.rows) - 1)
				res.Inserted++
				onChange(in.Key, 1, in.Seq)
				continue
			}
		}
		t.rows = append(t.rows, Row{Key: in.Key, Seq: in.Seq, UpdatedAt: in.UpdatedAt, LSN: in.LSN,
			Amount: in.Amount, Run: run, AddedStep: step, RemovedStep: Live})
		idxs := append(t.live[in.Key], int32(len(t.rows)-1))
		t.live[in.Key] = idxs
		res.Inserted++
		onChange(in.Key, len(idxs), t.newest(idxs))
	}
	return res
}

func (t *Table) setLive(key string, idxs []int32) {
	if len(idxs) == 0 {
		delete(t.live, key)
		return
	}
	t.live[key] = idxs
}

// Reserve makes room for n keys in an empty table.
func (t *Table) Reserve(n int) {
	if len(t.live) == 0 {
		t.live = make(map[string][]int32, n)
	}
}

// ReserveRows makes room for n more rows, for a writer that knows roughly
// how many it will send.
func (t *Table) ReserveRows(n int) { t.rows = slices.Grow(t.rows, n) }

// Count is the number of present rows with key.
func (t *Table) Count(key string) int { return len(t.live[key]) }

// Newest is the highest source version present for key, or 0.
func (t *Table) Newest(key string) int { return t.newest(t.live[key]) }

func (t *Table) newest(idxs []int32) int {
	n := 0
	for _, i := range idxs {
		n = max(n, t.rows[i].Seq)
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
	n, _ := slices.BinarySearchFunc(history, step, func(r Row, s int32) int {
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
