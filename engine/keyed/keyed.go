// Package keyed is a stream operator's keyed state with an optional time
// to live, modelled on Flink's keyed ValueState and its StateTtlConfig: a
// running aggregate per key (count, sum, minimum, maximum, and how many
// times it was written), or, for a deduplication, only the fact that a key
// was seen.
//
// Time to live follows Flink's defaults: the clock is processing time; an
// entry's timestamp is set when it is created and every time it is
// written (UpdateType.OnCreateAndWrite); an entry older than the TTL is
// never returned (StateVisibility.NeverReturnExpired), so a record for an
// expired key starts from empty state. Flink removes expired entries when
// they are read and, in the background, a few at a time; here every entry
// that has expired is removed whenever the state is touched (Expire), so the
// size a panel shows is the live size. Without a TTL nothing is ever
// removed: the state holds every key ever seen.
//
// Snapshot writes the whole state as canonical bytes (equal states, equal
// bytes), and Restore rebuilds it exactly, so a checkpoint's size is the
// snapshot's length and a restore gives back the state the checkpoint took.
package keyed

import (
	"errors"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/varint"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Entry is one key's state.
//
// Invariant: an entry in the state has N >= 1; Min <= Max once N >= 1.
type Entry struct {
	_                    nocmp.NoCompare
	Count, Sum, Min, Max int64
	N                    int32      // how many times it was written since it was created
	Written              vtime.Time // processing time of its last write: its TTL runs from here
}

// Add folds a value into the entry, as a record of the key would.
func (e *Entry) Add(v int64) {
	if e.Count == 0 {
		e.Min, e.Max = v, v
	} else {
		e.Min, e.Max = min(e.Min, v), max(e.Max, v)
	}
	e.Count++
	e.Sum += v
}

// State is the keyed state of one operator.
//
// Invariants: byKey holds every live key once, at its entry's index in
// entries; fifo lists (written, key) pairs in order of written, one for
// every write still possibly the key's latest, so the head is the next
// entry to expire; free lists indexes of entries that were removed.
type State struct {
	ttl     vtime.Duration
	byKey   map[int64]int32
	entries []slot
	free    []int32
	fifo    []stamp
	head    int
	expired int64
}

type slot struct {
	_    nocmp.NoCompare
	key  int64
	e    Entry
	live bool
}

type stamp struct {
	at  vtime.Time
	key int64
}

// New returns empty state whose entries expire ttl after their last write;
// ttl 0 means they never expire.
func New(ttl vtime.Duration) *State {
	return &State{ttl: ttl, byKey: map[int64]int32{}}
}

// TTL is the state's time to live, 0 for none.
func (s *State) TTL() vtime.Duration { return s.ttl }

// Len is the number of keys the state holds.
func (s *State) Len() int { return len(s.byKey) }

// Expired counts the entries that expired so far.
func (s *State) Expired() int64 { return s.expired }

// Expire removes every entry whose TTL has run out by processing time now
// and returns how many it removed.
func (s *State) Expire(now vtime.Time) int {
	if s.ttl <= 0 {
		return 0
	}
	n := 0
	for s.head < len(s.fifo) && s.fifo[s.head].at.Add(s.ttl) <= now {
		st := s.fifo[s.head]
		s.head++
		i, ok := s.byKey[st.key]
		if !ok || s.entries[i].e.Written != st.at {
			continue // written again since: a later stamp stands for it
		}
		s.remove(st.key, i)
		n++
	}
	if s.head > 1024 && s.head*2 > len(s.fifo) {
		s.fifo = append(s.fifo[:0], s.fifo[s.head:]...)
		s.head = 0
	}
	s.expired += int64(n)
	return n
}

func (s *State) remove(key int64, i int32) {
	delete(s.byKey, key)
	s.entries[i] = slot{}
	s.free = append(s.free, i)
}

// Get returns key's entry as of processing time now, and false when the
// key has none or its entry has expired (which removes it).
func (s *State) Get(key int64, now vtime.Time) (Entry, bool) {
	s.Expire(now)
	i, ok := s.byKey[key]
	if !ok {
		return Entry{}, false
	}
	return s.entries[i].e, true
}

// Put writes key's entry at processing time now: its write count goes up
// by one and its TTL starts again. It returns the entry as stored.
func (s *State) Put(key int64, e Entry, now vtime.Time) Entry {
	e.N++
	e.Written = now
	i, ok := s.byKey[key]
	if !ok {
		if n := len(s.free); n > 0 {
			i = s.free[n-1]
			s.free = s.free[:n-1]
		} else {
			s.entries = append(s.entries, slot{})
			i = int32(len(s.entries) - 1)
		}
		s.byKey[key] = i
	}
	s.entries[i] = slot{key: key, e: e, live: true}
	if s.ttl > 0 {
		s.fifo = append(s.fifo, stamp{at: now, key: key})
	}
	return e
}

// Keys lists the live keys in ascending order.
func (s *State) Keys() []int64 {
	keys := make([]int64, 0, len(s.byKey))
	for k := range s.byKey {
		keys = append(keys, k)
	}
	sorted.Sort(keys)
	return keys
}

// snapshotMagic starts every snapshot, with its format version.
const snapshotMagic = "TMK1"

// Snapshot appends the whole state to dst and returns the result: the TTL,
// the count of expired entries, and every live entry in order of key.
// Equal states give equal bytes, however they were reached.
func (s *State) Snapshot(dst []byte) []byte {
	dst = append(dst, snapshotMagic...)
	dst = varint.AppendVarint(dst, int64(s.ttl))
	dst = varint.AppendUvarint(dst, uint64(s.expired))
	keys := s.Keys()
	dst = varint.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		e := &s.entries[s.byKey[k]].e
		dst = varint.AppendVarint(dst, k)
		dst = varint.AppendVarint(dst, e.Count)
		dst = varint.AppendVarint(dst, e.Sum)
		dst = varint.AppendVarint(dst, e.Min)
		dst = varint.AppendVarint(dst, e.Max)
		dst = varint.AppendUvarint(dst, uint64(e.N))
		dst = varint.AppendVarint(dst, int64(e.Written))
	}
	return dst
}

// ErrSnapshot is wrapped by every error Restore returns.
var ErrSnapshot = errors.New("keyed state snapshot")

// snapshotError says what is wrong with a snapshot, and wraps ErrSnapshot.
type snapshotError string

func (e snapshotError) Error() string { return "keyed state snapshot: " + string(e) }
func (e snapshotError) Unwrap() error { return ErrSnapshot }

// Restore rebuilds state from a snapshot. Entries expire again in the
// order of their last writes, as they would have.
func Restore(b []byte) (*State, error) {
	if len(b) < len(snapshotMagic) || string(b[:len(snapshotMagic)]) != snapshotMagic {
		return nil, snapshotError("it is not a keyed state snapshot")
	}
	r := reader{b: b[len(snapshotMagic):]}
	ttl := vtime.Duration(r.varint())
	expired := r.uvarint()
	n := r.uvarint()
	if r.err == nil && (ttl < 0 || n > uint64(len(r.b))) {
		r.fail("a count is out of range")
	}
	s := New(ttl)
	s.expired = int64(expired)
	var prev int64
	for j := uint64(0); j < n && r.err == nil; j++ {
		k := r.varint()
		e := Entry{Count: r.varint(), Sum: r.varint(), Min: r.varint(), Max: r.varint()}
		wn := r.uvarint()
		e.Written = vtime.Time(r.varint())
		if r.err != nil {
			break
		}
		if j > 0 && k <= prev || wn < 1 || wn > 1<<31-1 || e.Count < 0 {
			r.fail("an entry is out of order or out of range")
			break
		}
		prev = k
		e.N = int32(wn)
		s.byKey[k] = int32(len(s.entries))
		s.entries = append(s.entries, slot{key: k, e: e, live: true})
		if ttl > 0 {
			s.fifo = append(s.fifo, stamp{at: e.Written, key: k})
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("bytes left over after the last entry")
	}
	if r.err != nil {
		return nil, r.err
	}
	sorted.Stable(s.fifo, func(i, j int32) int {
		a, b := &s.fifo[i], &s.fifo[j]
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return s, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = snapshotError(what)
	}
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := varint.Uvarint(r.b)
	if n <= 0 {
		r.fail("a number is cut short or too long")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}
