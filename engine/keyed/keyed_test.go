package keyed_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/keyed"
	"github.com/tidemark/tidemark/engine/vtime"
)

const s = vtime.Second

func at(sec int) vtime.Time { return vtime.Time(36000*s + vtime.Duration(sec)*s) } // 10:00:00 + sec

// The TTL runs from the last write (OnCreateAndWrite) in processing time,
// and an expired entry is never returned (NeverReturnExpired): a count
// that restarts, by hand.
func TestTTLRunsFromTheLastWrite(t *testing.T) {
	st := keyed.New(60 * s)
	put := func(key int64, sec int) keyed.Entry {
		e, _ := st.Get(key, at(sec))
		e.Add(1)
		return st.Put(key, e, at(sec))
	}
	assert.Equal(t, int64(1), put(7, 0).Count)
	assert.Equal(t, int64(2), put(7, 30).Count, "within the TTL of the last write")
	assert.Equal(t, int64(3), put(7, 89).Count, "59 s after the write at :30: still live")
	_, ok := st.Get(7, at(148))
	assert.True(t, ok, "59 s after the write at 1:29")
	_, ok = st.Get(7, at(149))
	assert.False(t, ok, "60 s after the last write it has expired: Flink expires at last write + TTL, inclusive")
	e := put(7, 150)
	assert.Equal(t, int64(1), e.Count, "a record for an expired key starts from empty state")
	assert.Equal(t, int32(1), e.N)
	assert.Equal(t, int64(1), st.Expired())
}

// Without a TTL nothing expires: the state holds every key ever seen.
func TestNoTTLKeepsEverything(t *testing.T) {
	st := keyed.New(0)
	for k := range int64(1000) {
		st.Put(k, keyed.Entry{}, at(0))
	}
	assert.Zero(t, st.Expire(at(100000)))
	assert.Equal(t, 1000, st.Len())
}

// Expiry removes what has expired whenever the state is touched, so the
// state a panel shows is its live size, bounded with a TTL.
func TestTTLBoundsTheState(t *testing.T) {
	st := keyed.New(10 * s)
	for sec := range 600 {
		st.Get(int64(sec), at(sec))
		st.Put(int64(sec), keyed.Entry{}, at(sec))
		assert.LessOrEqual(t, st.Len(), 10, "second %d", sec)
	}
	assert.Equal(t, int64(590), st.Expired())
}

// Entry.Add keeps count, sum, minimum and maximum.
func TestEntryAdd(t *testing.T) {
	var e keyed.Entry
	for _, v := range []int64{5, -2, 9} {
		e.Add(v)
	}
	assert.Equal(t, keyed.Entry{Count: 3, Sum: 12, Min: -2, Max: 9}, e)
}

// Equal states give equal bytes however they were reached, and a restore
// gives back the state byte for byte, behaving as the original after it.
func TestSnapshotRestoreIsExact(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		ttl := []vtime.Duration{0, 3 * s, 20 * s}[r.IntN(3)]
		a := keyed.New(ttl)
		now := at(0)
		ops := func(st *keyed.State, r *rand.Rand, n int, now vtime.Time) vtime.Time {
			for range n {
				now = now.Add(vtime.Duration(r.IntN(2000)) * vtime.Millisecond)
				k := int64(r.IntN(30) - 10)
				e, _ := st.Get(k, now)
				e.Add(int64(r.IntN(100) - 50))
				st.Put(k, e, now)
			}
			return now
		}
		now = ops(a, r, r.IntN(200), now)
		snap := a.Snapshot(nil)
		b, err := keyed.Restore(snap)
		require.NoError(t, err, "seed %d", seed)
		require.Equal(t, snap, b.Snapshot(nil), "seed %d: a restore snapshots to the same bytes", seed)
		// Both go on identically.
		r1, r2 := rand.New(rand.NewPCG(seed, 2)), rand.New(rand.NewPCG(seed, 2))
		n1, n2 := ops(a, r1, 100, now), ops(b, r2, 100, now)
		require.Equal(t, n1, n2)
		require.Equal(t, a.Snapshot(nil), b.Snapshot(nil), "seed %d: restored state behaves as the original", seed)
		require.Equal(t, a.Len(), b.Len())
	}
}

// Snapshots that are not of keyed state, or damaged, are refused with an
// error, never a panic.
func TestRestoreRefusesDamage(t *testing.T) {
	st := keyed.New(5 * s)
	for k := range int64(5) {
		st.Put(k, keyed.Entry{Count: 1}, at(int(k)))
	}
	good := st.Snapshot(nil)
	for _, b := range [][]byte{nil, []byte("TMW1"), good[:len(good)-1], append(append([]byte{}, good...), 0)} {
		_, err := keyed.Restore(b)
		require.ErrorIs(t, err, keyed.ErrSnapshot)
	}
}

func FuzzRestore(f *testing.F) {
	st := keyed.New(5 * s)
	st.Put(1, keyed.Entry{Count: 1}, at(0))
	f.Add(st.Snapshot(nil))
	f.Add([]byte("TMK1\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := keyed.Restore(b)
		if err != nil {
			return
		}
		again, err := keyed.Restore(st.Snapshot(nil))
		require.NoError(t, err)
		require.Equal(t, st.Snapshot(nil), again.Snapshot(nil))
	})
}
