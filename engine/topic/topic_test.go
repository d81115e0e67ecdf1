package topic

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/vtime"
)

// Kafka's own vectors, from UtilsTest.testMurmur2 in the Kafka clients.
func TestMurmur2KafkaVectors(t *testing.T) {
	for in, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
		// Further published values (the same function as others port it).
		"1": -1993445489, "12": 126087238, "123": -267702483, "1234": -1614185708, "12345": -1188365604,
	} {
		assert.Equal(t, want, Murmur2([]byte(in)), "murmur2(%q)", in)
	}
}

func TestPositiveIsNotAbs(t *testing.T) {
	assert.Equal(t, int32(0), Positive(-2147483648))
	assert.Equal(t, int32(2147483647), Positive(-1))
	assert.Equal(t, int32(5), Positive(5))
}

func TestPartitionForMatchesFormula(t *testing.T) {
	// "foobar" hashes to -790332482; made positive 1357151166; mod 3 = 0, mod 6 = 0, mod 4 = 2.
	assert.Equal(t, int(int32(-790332482)&0x7fffffff%3), PartitionFor("foobar", 3))
	assert.Equal(t, 1357151166%4, PartitionFor("foobar", 4))
	for n := 1; n <= 64; n++ {
		p := PartitionFor("abc", n)
		assert.True(t, p >= 0 && p < n)
	}
}

func rec(tp *Topic, key string, at string) Record {
	tm, err := vtime.ParseTime(at)
	if err != nil {
		panic(err)
	}
	id := slices.Index(*tp.Keys, key)
	if id < 0 {
		id = len(*tp.Keys)
		*tp.Keys = append(*tp.Keys, key)
	}
	return Record{KeyID: int32(id), Keyed: true, Time: tm}
}

func TestDenseOffsetsAndGrowMovesNothing(t *testing.T) {
	tp := New("orders", 2, 0, 0)
	for i := range 5 {
		o, dup := tp.Append(0, rec(tp, "k", "10:00:00"), 0, 0, false)
		require.False(t, dup)
		assert.Equal(t, int64(i), o)
	}
	tp.Grow(4)
	require.Len(t, tp.Parts, 4)
	assert.Equal(t, int64(5), tp.Parts[0].End())
	assert.Equal(t, int64(0), tp.Parts[3].End())
	tp.Grow(3) // never shrinks
	assert.Len(t, tp.Parts, 4)
}

func TestRetentionDeletesWholeSegmentsByNewestTimestamp(t *testing.T) {
	tp := New("orders", 1, 60*vtime.Second, 10*vtime.Second)
	for _, at := range []string{"10:00:00", "10:00:05", "10:00:09", "10:00:10", "10:00:10.001", "10:00:30"} {
		tp.Append(0, rec(tp, "k", at), 0, 0, false)
	}
	p := tp.Parts[0]
	// A segment rolls once a record is more than segment.ms after its
	// first (Kafka's LogSegment.shouldRoll compares with >), so 10:00:10
	// stays in the first. Segments: [0,4) newest 10:00:10, [4,5) newest
	// 10:00:10.001, [5,6) newest 10:00:30.
	at := func(s string) vtime.Time { x, _ := vtime.ParseTime(s); return x }
	assert.Empty(t, tp.Expire(at("10:01:10"), 1), "exactly the retention old is kept")
	d := tp.Expire(at("10:01:10.001"), 2)
	require.Len(t, d, 1)
	assert.Equal(t, Segment{Base: 0, End: 4, First: at("10:00:00"), Newest: at("10:00:10")}, d[0].Segment)
	assert.Equal(t, int64(4), p.Start())
	assert.Equal(t, int32(2), p.DeletedAt(0))
	assert.Equal(t, int32(2), p.DeletedAt(3))
	assert.Equal(t, int32(Live), p.DeletedAt(4))
	assert.Equal(t, int64(0), p.StartAt(1))
	assert.Equal(t, int64(4), p.StartAt(2))
	tp.Expire(at("10:05:00"), 3)
	assert.Equal(t, int32(3), p.DeletedAt(4), "a later deletion is its own step")
	assert.Equal(t, int32(3), p.DeletedAt(5))
	assert.Equal(t, int64(6), p.Start(), "an empty partition starts at its end")
	o, _ := tp.Append(0, rec(tp, "k", "10:05:00"), 0, 0, false)
	assert.Equal(t, int64(6), o, "offsets never restart")
	assert.Equal(t, int64(6), p.Start())
}

func TestIdempotentAppendDropsARetriedSequence(t *testing.T) {
	tp := New("orders", 1, 0, 0)
	r := rec(tp, "7", "10:00:00")
	_, dup := tp.Append(0, r, 1, 0, true)
	assert.False(t, dup)
	_, dup = tp.Append(0, r, 1, 0, true)
	assert.True(t, dup, "same producer id and sequence: a broker-level retry")
	_, dup = tp.Append(0, r, 1, 1, true)
	assert.False(t, dup, "a new sequence: an application-level resend")
	_, dup = tp.Append(0, r, 2, 0, true)
	assert.False(t, dup, "a new producer session")
	assert.Equal(t, int64(3), tp.Parts[0].End())
}

// A record names its key, producer and event id by index; the topic spells
// them, and an event without an id of its own is named by its producer's
// running number.
func TestRecordTextIsKeptOnceByTheTopic(t *testing.T) {
	tp := New("orders", 1, 0, 0)
	shop := tp.NameRef("shop")
	assert.Equal(t, shop, tp.NameRef("shop"), "a name is kept once")
	a := rec(tp, "7", "10:00:00")
	a.ProducerRef, a.Num = shop, 3
	b := rec(tp, "7", "10:00:01")
	b.ProducerRef, b.Num, b.EventRef = shop, 4, tp.EventRefOf("order-7-paid")
	c := rec(tp, "8", "10:00:02")
	c.ProducerRef = -1 // change capture: no producer, no id
	assert.Equal(t, int32(0), tp.EventRefOf(""), "no id")
	for _, r := range []Record{a, b, c} {
		tp.Append(0, r, 0, 0, false)
	}
	recs := tp.Parts[0].Records
	assert.Equal(t, []string{"7", "7", "8"}, []string{tp.Key(&recs[0]), tp.Key(&recs[1]), tp.Key(&recs[2])})
	assert.Equal(t, "shop-3", tp.ID(&recs[0]))
	assert.Equal(t, "order-7-paid", tp.ID(&recs[1]))
	assert.Equal(t, "", tp.ID(&recs[2]))
	assert.Equal(t, "shop", tp.Producer(&recs[1]))
	assert.Equal(t, "", tp.Producer(&recs[2]))
	assert.Equal(t, []string{"order-7-paid"}, tp.IDs)
}

// TestReserveKeyedFitsTheDraw reserves for records drawn from numbered keys
// as a traffic line draws them, appends them where the partitioner places
// them, and finds that no partition had to grow; and for a million records,
// that it keeps far less room unused than Reserve's even spread.
func TestReserveKeyedFitsTheDraw(t *testing.T) {
	reserved := func(tp *Topic) (caps []int, sum int) {
		for _, p := range tp.Parts {
			caps = append(caps, cap(p.Records))
			sum += cap(p.Records)
		}
		return caps, sum
	}
	for _, c := range []struct{ parts, n, keys int }{{64, 200_000, 100_000}, {3, 10_000, 10}, {8, 5_000, 1}} {
		tp := New("orders", c.parts, 0, 0)
		tp.ReserveKeyed(c.n, c.keys)
		caps, _ := reserved(tp)
		r := rand.New(rand.NewPCG(1, 2))
		for range c.n {
			k := strconv.Itoa(1 + r.IntN(c.keys))
			tp.Append(PartitionFor(k, c.parts), Record{}, 0, 0, false)
		}
		for i, p := range tp.Parts {
			assert.Equal(t, caps[i], cap(p.Records), "%+v: partition %d grew past its reservation", c, i)
		}
	}
	keyed, even := New("orders", 64, 0, 0), New("orders", 64, 0, 0)
	keyed.ReserveKeyed(1_000_000, 100_000)
	even.Reserve(1_000_000)
	_, k := reserved(keyed)
	_, e := reserved(even)
	assert.Less(t, k, 1_050_000, "at most 5%% unused for a million records")
	assert.Greater(t, e, 1_120_000, "an even spread keeps an eighth more")
}

// DedupID is a record's event id, or for a change capture record, which
// has none, its commit's position, its row's key and version: two changes
// of one row differ, even in one transaction, and one change read twice
// does not.
func TestDedupID(t *testing.T) {
	tp := New("orders", 1, 0, 0)
	keys := []string{"7", "8"}
	tp.Keys = &keys
	shop := tp.NameRef("shop")
	capture := tp.NameRef("capture")
	sent := Record{KeyID: 0, Keyed: true, ProducerRef: shop, Num: 3}
	given := Record{KeyID: 0, Keyed: true, ProducerRef: shop, EventRef: tp.EventRefOf("order-500")}
	change := Record{KeyID: 0, Keyed: true, ProducerRef: capture, LSN: 1003, Seq: 1}
	assert.Equal(t, "shop-3", tp.DedupID(&sent))
	assert.Equal(t, "order-500", tp.DedupID(&given))
	assert.Empty(t, tp.ID(&change), "a change has no event id")
	assert.Equal(t, "1003/7/1", tp.DedupID(&change))
	other := change
	other.KeyID = 1
	later := change
	later.LSN = 1004
	assert.NotEqual(t, tp.DedupID(&change), tp.DedupID(&other), "another row of the same commit")
	assert.NotEqual(t, tp.DedupID(&change), tp.DedupID(&later), "the same row changed again")
	again := change
	again.Seq = 2
	assert.NotEqual(t, tp.DedupID(&change), tp.DedupID(&again), "the same row changed twice in one transaction")
}
