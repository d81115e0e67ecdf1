// Package mvcc is Tidemark's source database: a small multi-version store
// that behaves the way PostgreSQL does where it matters to an incremental
// pipeline.
//
// What it models faithfully:
//   - now() is the transaction's start time; statement_timestamp() is the
//     statement's; a table chooses which one fills updated_at (or commit time,
//     as a log that stamps at commit would).
//   - A transaction's writes are invisible to every other reader until it
//     commits, and a reader sees exactly what had committed before its
//     statement began.
//   - Each commit that changed a row gets the next log position (LSN) in
//     commit order. A transaction that changed nothing takes none: PostgreSQL
//     gives a transaction an id, and logs its commit, only once it writes.
//   - An update or a delete changes the rows it finds: one of a key with no
//     row (none committed, none written by the transaction itself) matches
//     nothing and changes nothing.
//   - nextval() is not transactional: a rolled-back insert burns its id, and a
//     sequence with CACHE n hands each session a block of n ids, so ids are
//     unique but not dense.
//
// What it simplifies: one database, one row per key per table, no waiting
// (Holder finds the open transaction that has written a row, and the caller
// refuses a second writer where PostgreSQL would make it wait), LSNs are
// small integers rather than byte positions, and a commit takes its log
// position and becomes visible at one instant.
package mvcc

import (
	"cmp"
	"strings"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// LSN is a log sequence number: the position of a commit in the source's own
// commit order. Positions are dense and increase by one per commit.
type LSN int64

// Int64 is the position as a number, for %d in the engine's sentences.
func (l LSN) Int64() int64 { return int64(l) }

// FirstLSN is the position given to the first commit.
const FirstLSN LSN = 1001

// Stamp says when a table's updated_at column is filled in.
type Stamp uint8

// The moments at which updated_at can be assigned.
const (
	StampTxnStart  Stamp = iota // now(): the transaction's start, PostgreSQL's default
	StampStatement              // statement_timestamp(): when the statement ran
	StampCommit                 // the commit time, as a log that stamps at commit would
)

// ParseStamp reads txn-start, statement or commit.
func ParseStamp(s string) (Stamp, bool) {
	switch s {
	case "txn-start":
		return StampTxnStart, true
	case "statement":
		return StampStatement, true
	case "commit":
		return StampCommit, true
	}
	return 0, false
}

func (s Stamp) String() string {
	return [...]string{"txn-start", "statement", "commit"}[s]
}

// Op is the kind of change a statement makes to one row.
type Op uint8

// Row operations.
const (
	Insert Op = iota
	Update
	Delete
)

func (o Op) String() string { return [...]string{"insert", "update", "delete"}[o] }

// KeepAmount is the amount an update passes to Write when its statement sets
// no amount: the row keeps the one it had, as an UPDATE that leaves a column
// out of its SET list does. Any other amount, zero among them, is the new
// value.
const KeepAmount int64 = -1

// Version is one committed or pending version of one row.
//
// Invariants: LSN is 0 until the writing transaction commits, then it is the
// transaction's commit LSN; Seq increases by one per committed version of the
// same key, starting at 1. The small fields come last, sharing one word: a
// source of a million rows keeps a million versions. Its table's name is
// read from the table (Table), not kept in every version.
type Version struct {
	_         nocmp.NoCompare
	Key       string
	UpdatedAt vtime.Time // the value written into updated_at (source clock)
	LSN       LSN
	Seq       int
	Amount    int64 // a payload column, so updates have something to change
	table     *Table
	ID        int32 // the dense id of this table's row with Key, given by the caller: equal keys of one table, equal ids
	Target    int32 // the caller's id of Key itself, which rows of several tables with one key may share (a target's key); ID unless the caller sets it
	Op        Op
	Backdated bool // updated_at was set explicitly by the statement
	// atCommit is set when the statement wrote the row while its table
	// stamped at commit: its commit fills updated_at, whatever rule the
	// table has by then.
	atCommit bool
	// superseded is set when a later committed version of the key replaces
	// this one, so a read over the commit log skips it without a lookup.
	superseded bool
}

// Table is the name of the table the version is a row of.
func (v *Version) Table() string { return v.table.Name }

// Deleted reports whether this version removes the row.
func (v *Version) Deleted() bool { return v.Op == Delete }

// TxnState is where a transaction is in its life.
type TxnState uint8

// Transaction states.
const (
	Active TxnState = iota
	Committed
	RolledBack
)

// Txn is one source transaction.
type Txn struct {
	Name      string
	Session   string
	BeginAt   vtime.Time // true time
	BeginNow  vtime.Time // the source clock's reading at begin: now()
	State     TxnState
	EndAt     vtime.Time // true time of commit or rollback
	CommitNow vtime.Time // the source clock's reading at commit
	LSN       LSN
	Writes    []*Version
	first     [1]*Version // Writes' first slot, so a one-statement transaction does not allocate it
}

// ownKey names a row a transaction wrote: its table and its id.
type ownKey struct {
	t  *Table
	id int32
}

// ownIndexFrom is how many writes a transaction makes before its lookups of
// its own writes go through an index (DB.own) rather than a scan.
const ownIndexFrom = 16

// written returns tx's latest pending write of the row with id in t, or nil.
func (db *DB) written(tx *Txn, t *Table, id int32) *Version {
	if own := db.own[tx]; own != nil {
		return own[ownKey{t, id}]
	}
	if len(tx.Writes) <= ownIndexFrom {
		for i := len(tx.Writes) - 1; i >= 0; i-- {
			if v := tx.Writes[i]; v.ID == id && v.table == t {
				return v
			}
		}
		return nil
	}
	own := make(map[ownKey]*Version, len(tx.Writes))
	for _, v := range tx.Writes {
		own[ownKey{v.table, v.ID}] = v
	}
	if db.own == nil {
		db.own = map[*Txn]map[ownKey]*Version{}
	}
	db.own[tx] = own
	return own[ownKey{t, id}]
}

// Exists reports whether the row with id in t is there for tx to change: its
// own latest write of it, else the latest committed version, is not a delete.
func (db *DB) Exists(tx *Txn, t *Table, id int32) bool {
	if v := db.written(tx, t, id); v != nil {
		return !v.Deleted()
	}
	return int(id) < len(t.live) && t.live[id] != nil && !t.live[id].Deleted()
}

// Table is a source table whose rows are keyed by an integer-or-string key.
type Table struct {
	Name string
	Key  string // the business key column, e.g. order_id
	// Stamp is the rule that fills updated_at for the table's next
	// statements. Changing it (a trigger replaced, an application's new
	// default) changes no version already written: Write applies the rule
	// of the statement's moment, and a row written under StampCommit still
	// gets its commit's time.
	Stamp  Stamp
	Clock  string // the node clock that fills updated_at
	Cache  int    // sequence cache size per session; 1 means no caching
	next   int64  // next sequence value not yet handed out
	blocks map[string]*block
	live   []*Version // latest committed version per key, by the key's id
	// locks holds, by the key's id, the open transaction that has written
	// the row and not yet ended (PostgreSQL's row lock), or nil. Invariant:
	// a transaction in it is Active.
	locks []*Txn

	// byStamp holds the live, undeleted rows ordered by (UpdatedAt, Key);
	// byLSN holds every committed version in commit order. Both exist so a
	// range read costs the rows it returns, not the size of the table.
	// byStamp names each row by its id (its version is live[id]), so the
	// commits that insert into its middle move no pointers: the browser's
	// collector, marking on the page's only thread, pays for every pointer
	// written while it marks.
	byStamp []stampEntry
	byLSN   []*Version
}

// stampEntry is a live row in the stamp index: its updated_at and its id.
// The id takes the whole word its alignment would leave as padding
// anyway: a struct without padding needs no equality function of its own
// in the browser's module.
type stampEntry struct {
	at vtime.Time
	id int64
}

type block struct{ next, end int64 } // [next, end) still unused in this session's cache

// DB is the source database.
type DB struct {
	tables map[string]*Table
	order  []string
	lsn    LSN // last commit position handed out; FirstLSN-1 before any commit
	// own indexes the writes of an open transaction with many of them, by
	// table and row, for its updates and deletes to find its own writes.
	own map[*Txn]map[ownKey]*Version
	// slab is the block versions are carved from: a source of a million
	// rows allocates a few thousand blocks rather than a million versions.
	slab []Version
}

// versionSlab is how many versions a block holds.
const versionSlab = 256

// New returns an empty database.
func New() *DB { return &DB{tables: map[string]*Table{}, lsn: FirstLSN - 1} }

// AddTable declares a table. cache below 1 is taken as 1.
func (db *DB) AddTable(name, key string, stamp Stamp, clock string, cache int, firstID int64) *Table {
	if cache < 1 {
		cache = 1
	}
	t := &Table{Name: name, Key: key, Stamp: stamp, Clock: clock, Cache: cache, next: firstID,
		blocks: map[string]*block{}}
	db.tables[name] = t
	db.order = append(db.order, name)
	return t
}

// Reserve makes room for n keys in an empty table, so a long run never
// regrows its index. It does nothing once the table holds rows.
func (t *Table) Reserve(n int) {
	if len(t.live) == 0 {
		t.live = make([]*Version, 0, n)
		t.byStamp = make([]stampEntry, 0, n)
		t.byLSN = make([]*Version, 0, n)
		t.locks = make([]*Txn, 0, n)
	}
}

// Table returns the named table or nil.
func (db *DB) Table(name string) *Table { return db.tables[name] }

// Tables lists the tables in declaration order.
func (db *DB) Tables() []*Table {
	out := make([]*Table, len(db.order))
	for i, n := range db.order {
		out[i] = db.tables[n]
	}
	return out
}

// LastLSN is the position of the newest commit, or FirstLSN-1 if none.
func (db *DB) LastLSN() LSN { return db.lsn }

// NextVal hands out the next id for session, taking a new cached block when
// the session's block is used up. Like PostgreSQL's nextval it is never
// rolled back, and a key inserted explicitly does not move it on: the
// sequence hands that id out in its turn, and the insert that draws it
// finds the row there.
func (t *Table) NextVal(session string) int64 {
	b := t.blocks[session]
	if b == nil || b.next >= b.end {
		b = &block{next: t.next, end: t.next + int64(t.Cache)}
		t.next = b.end
		t.blocks[session] = b
	}
	id := b.next
	b.next++
	return id
}

// EndSession drops a session's cached ids; they are never handed out again.
func (t *Table) EndSession(session string) { delete(t.blocks, session) }

// Begin starts a transaction at true time at; now is the source clock's reading.
func (db *DB) Begin(name, session string, at, now vtime.Time) *Txn {
	tx := new(Txn)
	db.BeginInto(tx, name, session, at, now)
	return tx
}

// BeginInto is Begin into memory the caller owns, so a transaction costs no
// allocation of its own.
func (db *DB) BeginInto(tx *Txn, name, session string, at, now vtime.Time) {
	*tx = Txn{Name: name, Session: session, BeginAt: at, BeginNow: now, State: Active}
	tx.Writes = tx.first[:0]
}

// Write records a pending change by tx to the row with key, whose dense id
// the caller keeps (equal keys of one table, equal ids; small numbers, as
// they index a slice). amount is the payload's new value, or KeepAmount.
// stampNow is the source clock's reading at the
// statement; backdate, when set, is written into updated_at instead. An
// update or a delete of a row that is not there for tx (see Txn.Exists)
// matches nothing: Write records nothing and returns nil, as PostgreSQL's
// UPDATE and DELETE report zero rows.
func (db *DB) Write(tx *Txn, t *Table, op Op, key string, id int32, amount int64, stampNow vtime.Time, backdate *vtime.Time) *Version {
	if op != Insert && !db.Exists(tx, t, id) {
		return nil
	}
	if len(db.slab) == 0 {
		db.slab = make([]Version, versionSlab)
	}
	v := &db.slab[0]
	db.slab = db.slab[1:]
	*v = Version{Key: key, ID: id, Target: id, Op: op, Amount: amount, table: t}
	switch {
	case backdate != nil:
		v.UpdatedAt, v.Backdated = *backdate, true
	case t.Stamp == StampTxnStart:
		v.UpdatedAt = tx.BeginNow
	case t.Stamp == StampStatement:
		v.UpdatedAt = stampNow
	case t.Stamp == StampCommit:
		v.atCommit = true
	}
	tx.Writes = append(tx.Writes, v)
	if n := int(id) + 1; n > len(t.locks) {
		t.locks = append(t.locks, make([]*Txn, n-len(t.locks))...)
	}
	t.locks[id] = tx
	if db.own != nil {
		if own := db.own[tx]; own != nil {
			own[ownKey{t, id}] = v
		}
	}
	return v
}

// Live returns the latest committed version of key, or nil if none. It
// searches by the key's text, so it is for tests and tools, not a hot path.
func (t *Table) Live(key string) *Version {
	for _, v := range t.live {
		if v != nil && v.Key == key {
			return v
		}
	}
	return nil
}

// Commit makes tx's writes visible, in statement order, at the next LSN.
// A version written while its table stamped at commit gets updated_at from
// now, even if the table's rule has changed since. A transaction that
// wrote nothing commits at no position (its LSN stays 0): it has nothing
// for the log to carry.
func (db *DB) Commit(tx *Txn, at, now vtime.Time) {
	if tx.State != Active {
		panic(prose.F("mvcc: commit of %s in state %d", tx.Name, tx.State))
	}
	db.unlock(tx)
	tx.State, tx.EndAt, tx.CommitNow = Committed, at, now
	if len(tx.Writes) == 0 {
		return
	}
	db.lsn++
	tx.LSN = db.lsn
	for _, v := range tx.Writes {
		t := v.table
		v.LSN = db.lsn
		if v.atCommit {
			v.UpdatedAt = now
		}
		if n := int(v.ID) + 1; n > len(t.live) {
			t.live = append(t.live, make([]*Version, n-len(t.live))...)
		}
		prev := t.live[v.ID]
		if prev != nil && !prev.Deleted() {
			t.unindex(prev)
		}
		if prev != nil {
			prev.superseded = true
		}
		if prev != nil {
			v.Seq = prev.Seq + 1
			if v.Op == Update && v.Amount == KeepAmount {
				v.Amount = prev.Amount
			}
		} else {
			v.Seq = 1
		}
		t.live[v.ID] = v
		t.byLSN = append(t.byLSN, v)
		if !v.Deleted() {
			t.index(v)
		}
	}
}

// stampLess orders the row of e before or after (at, key).
func (t *Table) stampLess(e stampEntry, at vtime.Time, key string) int {
	if e.at != at {
		if e.at < at {
			return -1
		}
		return 1
	}
	return CompareKeys(t.live[e.id].Key, key)
}

// stampPos returns the position of the first version of byStamp not
// ordered before (at, key), and whether it is at (at, key). A committed
// version's updated_at is most often close to the newest (it was stamped a
// moment ago), so the search starts at the end and steps back, doubling its
// step, before it halves: a commit costs a few comparisons, not a full
// binary search of a large table.
func (t *Table) stampPos(at vtime.Time, key string) (int, bool) {
	hi, step := len(t.byStamp), 1
	for hi-step >= 0 && t.stampLess(t.byStamp[hi-step], at, key) >= 0 {
		hi -= step
		step *= 2
	}
	lo := max(0, hi-step+1)
	// byStamp[:lo] is ordered before (at, key) and byStamp[hi:] is not.
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.stampLess(t.byStamp[m], at, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(t.byStamp) && t.stampLess(t.byStamp[lo], at, key) == 0
}

// index adds v, the live version of its row, to byStamp; live[v.ID] is v
// already.
func (t *Table) index(v *Version) {
	i, _ := t.stampPos(v.UpdatedAt, v.Key)
	t.byStamp = append(t.byStamp, stampEntry{})
	copy(t.byStamp[i+1:], t.byStamp[i:])
	t.byStamp[i] = stampEntry{v.UpdatedAt, int64(v.ID)}
}

// unindex removes v, the live version of its row, from byStamp, before
// live[v.ID] changes.
func (t *Table) unindex(v *Version) {
	i, ok := t.stampPos(v.UpdatedAt, v.Key)
	if !ok || t.byStamp[i].id != int64(v.ID) {
		panic("mvcc: stamp index lost a live version of " + v.Key)
	}
	t.byStamp = t.byStamp[:i+copy(t.byStamp[i:], t.byStamp[i+1:])]
}

// Range bounds a read on updated_at. Lo and Hi are ignored when their Has flag is false.
type Range struct {
	Lo, Hi       vtime.Time
	HasLo, HasHi bool
	LoInclusive  bool // >= rather than >
}

// Contains reports whether at falls inside r.
func (r Range) Contains(at vtime.Time) bool {
	if r.HasLo && (at < r.Lo || at == r.Lo && !r.LoInclusive) {
		return false
	}
	return !r.HasHi || at <= r.Hi
}

// SelectStamp returns the live rows whose updated_at falls inside r, in
// (updated_at, key) order, as a query on the committed state would.
func (t *Table) SelectStamp(r Range) []*Version {
	i := 0
	if r.HasLo {
		for hi := len(t.byStamp); i < hi; {
			if m := int(uint(i+hi) >> 1); t.byStamp[m].at < r.Lo {
				i = m + 1
			} else {
				hi = m
			}
		}
	}
	var out []*Version
	for ; i < len(t.byStamp); i++ {
		e := t.byStamp[i]
		if r.HasHi && e.at > r.Hi {
			break
		}
		if r.Contains(e.at) {
			out = append(out, t.live[e.id])
		}
	}
	return out
}

// SelectLSN returns the live rows last changed by a commit in (lo, hi], in
// commit order, as a query on the commit's position would. Rows deleted
// since are left out; deleted lists the keys of those deleted by a commit in
// the range, which such a query cannot see (only change capture reads a
// delete).
func (t *Table) SelectLSN(lo, hi LSN, loInclusive bool) (out []*Version, deleted []string) {
	i, _ := sorted.Search(len(t.byLSN), func(k int) int {
		e, l := t.byLSN[k], lo
		if e.LSN < l || e.LSN == l && !loInclusive {
			return -1
		}
		return 1
	})
	for ; i < len(t.byLSN) && t.byLSN[i].LSN <= hi; i++ {
		switch v := t.byLSN[i]; {
		case v.superseded:
		case v.Deleted():
			deleted = append(deleted, v.Key)
		default:
			out = append(out, v)
		}
	}
	return out, deleted
}

// Rows returns every live, undeleted row in (updated_at, key) order.
func (t *Table) Rows() []*Version {
	out := make([]*Version, len(t.byStamp))
	for i, e := range t.byStamp {
		out[i] = t.live[e.id]
	}
	return out
}

// Rollback discards tx's writes. Ids it took from sequences stay used.
func (db *DB) Rollback(tx *Txn, at vtime.Time) {
	db.unlock(tx)
	tx.State, tx.EndAt = RolledBack, at
}

// unlock releases the rows tx wrote, and its index of them, as it ends.
func (db *DB) unlock(tx *Txn) {
	if db.own != nil {
		delete(db.own, tx)
	}
	for _, v := range tx.Writes {
		if v.table.locks[v.ID] == tx {
			v.table.locks[v.ID] = nil
		}
	}
}

// Holder returns the open transaction other than tx that has written the
// row with id in t, or nil. PostgreSQL makes a second writer of that row
// wait until the holder ends (and an insert of the holder's new key wait on
// the unique index); the simulation has no waits, so its caller refuses
// such a write rather than let two open transactions write one row.
func (db *DB) Holder(tx *Txn, t *Table, id int32) *Txn {
	if int(id) < len(t.locks) && t.locks[id] != tx {
		return t.locks[id]
	}
	return nil
}

// Len is the number of keys with a live, undeleted row.
func (t *Table) Len() int { return len(t.byStamp) }

// SortVersions orders versions by key, numerically when both keys are numbers.
func SortVersions(vs []*Version) {
	sorted.Stable(vs, func(i, j int32) int { return CompareKeys(vs[i].Key, vs[j].Key) })
}

// ParsedKey is a business key with its number read once, for sorting or
// searching many keys in CompareKeys' order without parsing at every step.
type ParsedKey struct {
	_   nocmp.NoCompare
	S   string // the key as written
	N   int64  // its value, when Num
	Num bool   // the key is a whole number
}

// ParseKey reads a business key once.
func ParseKey(k string) ParsedKey {
	n, ok := whole.Int64(k)
	return ParsedKey{S: k, N: n, Num: ok}
}

// Compare orders parsed keys as CompareKeys orders their text.
func (a ParsedKey) Compare(b ParsedKey) int {
	switch {
	case a.Num && b.Num:
		return cmp.Compare(a.N, b.N)
	case a.Num:
		return -1
	case b.Num:
		return 1
	}
	return compareWords(a.S, b.S)
}

// compareWords orders keys that are not whole numbers as a reader does:
// a run of digits by its number, the rest by its bytes, so phone-9 comes
// before phone-10 (by bytes alone it came after). Keys that compare equal
// so (phone-09, phone-9) fall back to their bytes.
func compareWords(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			// Leading zeros say nothing of the number.
			for i < ei-1 && a[i] == '0' {
				i++
			}
			for j < ej-1 && b[j] == '0' {
				j++
			}
			if c := cmp.Compare(ei-i, ej-j); c != 0 {
				return c // more digits, a larger number
			}
			if c := strings.Compare(a[i:ei], b[j:ej]); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(a[i], b[j])
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsEnd returns the end of the run of digits in s that starts at i.
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// SortKeys sorts business keys as CompareKeys orders them, reading each key
// as a number once rather than at every comparison.
func SortKeys(keys []string) {
	ps := make([]ParsedKey, len(keys))
	for i, k := range keys {
		ps[i] = ParseKey(k)
	}
	for i, p := range sorted.Positions(len(ps), func(i, j int32) int { return ps[i].Compare(ps[j]) }) {
		keys[i] = ps[p].S
	}
}

// CompareKeys orders business keys: numbers numerically and before words,
// words as a reader does, the numbers in them by value (see compareWords).
func CompareKeys(a, b string) int {
	ai, aok := whole.Int64(a)
	bi, bok := whole.Int64(b)
	switch {
	case aok && bok:
		switch {
		case ai < bi:
			return -1
		case ai > bi:
			return 1
		}
		return 0
	case aok:
		return -1
	case bok:
		return 1
	}
	return compareWords(a, b)
}
