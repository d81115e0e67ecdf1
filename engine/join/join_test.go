package join_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
)

func at(s string) vtime.Time {
	t, err := vtime.ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

func newJoin(t *testing.T, cfg join.Config) *join.Operator {
	t.Helper()
	o, err := join.New(cfg)
	require.NoError(t, err)
	return o
}

func rec(id int64, key int32, s string) join.Record {
	return join.Record{ID: id, Key: key, Time: at(s)}
}

func ids(pairs []join.Pair) [][2]int64 {
	var out [][2]int64
	for _, p := range pairs {
		out = append(out, [2]int64{p.Left.ID, p.Right.ID})
	}
	return out
}

// The interval is inclusive at both ends unless made exclusive, which
// moves each bound by 1 ms.
func TestIntervalBounds(t *testing.T) {
	for _, c := range []struct {
		lowerEx, upperEx bool
		want             [][2]int64
	}{
		{false, false, [][2]int64{{1, 11}, {1, 12}, {1, 13}}},
		{true, false, [][2]int64{{1, 12}, {1, 13}}},
		{false, true, [][2]int64{{1, 11}, {1, 12}}},
		{true, true, [][2]int64{{1, 12}}},
	} {
		o := newJoin(t, join.Config{Lower: -2 * vtime.Second, Upper: vtime.Second, LowerExclusive: c.lowerEx, UpperExclusive: c.upperEx})
		var out join.Output
		for _, r := range []join.Record{rec(10, 0, "10:00:07.999"), rec(11, 0, "10:00:08"), rec(12, 0, "10:00:09"), rec(13, 0, "10:00:11"), rec(14, 0, "10:00:11.001")} {
			o.Add(join.Right, r, &out)
		}
		o.Add(join.Left, rec(1, 0, "10:00:10"), &out)
		o.Add(join.Left, rec(2, 1, "10:00:10"), &out) // another key: no partners
		assert.Equal(t, c.want, ids(out.Pairs), "lower exclusive %v, upper exclusive %v", c.lowerEx, c.upperEx)
	}
	p := join.Pair{}
	o := newJoin(t, join.Config{Lower: -2 * vtime.Second, Upper: vtime.Second})
	var out join.Output
	o.Add(join.Left, rec(1, 0, "10:00:10"), &out)
	o.Add(join.Right, rec(2, 0, "10:00:10.500"), &out)
	require.Len(t, out.Pairs, 1)
	p = out.Pairs[0]
	assert.Equal(t, join.Pair{Left: rec(1, 0, "10:00:10"), Right: rec(2, 0, "10:00:10.500"), Time: at("10:00:10.500")}, p, "a pair carries the later time")
	_, err := join.New(join.Config{Lower: vtime.Second, Upper: 0})
	assert.ErrorContains(t, err, "lower bound 1s is above its upper bound 0s")
	var ce *join.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "between", ce.Field, "the setting at fault, named as the join line's argument")
	_, err = join.New(join.Config{Lower: 0, Upper: 0, LowerExclusive: true, UpperExclusive: true})
	assert.NoError(t, err, "Flink checks the bounds before making them exclusive")
	assert.True(t, join.Config{LowerExclusive: true, UpperExclusive: true}.Empty(), "0..0 without its bounds holds no instant")
	assert.True(t, join.Config{Lower: -1, UpperExclusive: true, LowerExclusive: true}.Empty(), "-1ms..0 without its bounds holds no instant")
	assert.False(t, join.Config{Lower: -2, UpperExclusive: true, LowerExclusive: true}.Empty(), "-2ms..0 without its bounds holds -1ms")
	assert.False(t, join.Config{}.Empty(), "0..0 with its bounds holds 0")
}

// A left record stays until the watermark reaches t + Upper, a right one
// until t - Lower; bounds on the other side of zero release at t.
func TestReleaseTimes(t *testing.T) {
	o := newJoin(t, join.Config{Lower: -2 * vtime.Second, Upper: vtime.Second})
	var out join.Output
	o.Add(join.Left, rec(1, 0, "10:00:10"), &out)
	o.Add(join.Right, rec(2, 0, "10:00:10"), &out)
	o.Add(join.Right, rec(3, 5, "10:00:10"), &out)
	assert.Equal(t, join.Size{Keys: 2, Left: 1, Right: 2}, o.Size())
	o.AdvanceWatermark(at("10:00:10.999"), &out)
	assert.Empty(t, out.Expired)
	o.AdvanceWatermark(at("10:00:11"), &out)
	assert.Equal(t, []join.Expired{{Side: join.Left, Record: rec(1, 0, "10:00:10"), Matches: 1, Watermark: at("10:00:11")}}, out.Expired)
	o.AdvanceWatermark(at("10:00:11.999"), &out)
	assert.Len(t, out.Expired, 1)
	o.AdvanceWatermark(at("10:00:12"), &out)
	assert.Equal(t, []join.Expired{
		{Side: join.Left, Record: rec(1, 0, "10:00:10"), Matches: 1, Watermark: at("10:00:11")},
		{Side: join.Right, Record: rec(2, 0, "10:00:10"), Matches: 1, Watermark: at("10:00:12")},
		{Side: join.Right, Record: rec(3, 5, "10:00:10"), Matches: 0, Watermark: at("10:00:12")},
	}, out.Expired, "the unmatched one is released without ever joining")
	assert.Equal(t, join.Size{}, o.Size())

	// Both bounds below zero: a left record is released at its own time.
	neg := newJoin(t, join.Config{Lower: -5 * vtime.Second, Upper: -vtime.Second})
	out.Reset()
	neg.Add(join.Left, rec(1, 0, "10:00:10"), &out)
	neg.Add(join.Right, rec(2, 0, "10:00:10"), &out)
	neg.AdvanceWatermark(at("10:00:10"), &out)
	require.Len(t, out.Expired, 1)
	assert.Equal(t, join.Left, out.Expired[0].Side)
	neg.AdvanceWatermark(at("10:00:15"), &out)
	assert.Len(t, out.Expired, 2, "the right one waits until t - Lower = 10:00:15")
}

// A record behind the watermark is late: dropped, never joined, though its
// partner may still be buffered.
func TestLateRecordsNeverJoin(t *testing.T) {
	o := newJoin(t, join.Config{Lower: -10 * vtime.Second, Upper: 10 * vtime.Second})
	var out join.Output
	o.Add(join.Left, rec(1, 0, "10:00:15"), &out)
	o.AdvanceWatermark(at("10:00:20"), &out)
	o.Add(join.Right, rec(2, 0, "10:00:19.999"), &out)
	assert.Empty(t, out.Pairs, "its partner is still buffered, but a late record is not looked at")
	require.Len(t, out.Late, 1)
	assert.Equal(t, join.Late{Side: join.Right, Record: rec(2, 0, "10:00:19.999"), Fate: join.Dropped, Watermark: at("10:00:20")}, out.Late[0])
	assert.Equal(t, "the right record at event time 10:00:19.999 arrived behind the join's watermark 10:00:20; "+
		"the join may already have released the records it should meet, so it does not try: the record is dropped and never joins", out.Late[0].Why())
	assert.Equal(t, int64(1), o.Dropped(join.Right))
	o.Add(join.Right, rec(3, 0, "10:00:20"), &out)
	assert.Equal(t, [][2]int64{{1, 3}}, ids(out.Pairs), "at the watermark itself a record is on time")

	side := newJoin(t, join.Config{Upper: vtime.Second, SideOutput: true})
	out.Reset()
	side.AdvanceWatermark(at("10:00:20"), &out)
	side.Add(join.Left, rec(4, 0, "10:00:00"), &out)
	require.Len(t, out.Late, 1)
	assert.Equal(t, join.SideOutput, out.Late[0].Fate)
	assert.Contains(t, out.Late[0].Why(), "goes to the late-data side output")
	assert.Equal(t, int64(1), side.SideOutputs(join.Left))
	assert.Zero(t, side.Dropped(join.Left))
}

// A record exactly at the watermark is not late, yet a partner released
// at that same watermark is gone: the pair silently never forms.
func TestPartnerReleasedAtTheSameWatermark(t *testing.T) {
	cfg := join.Config{Lower: 0, Upper: vtime.Second}
	o := newJoin(t, cfg)
	var out join.Output
	left := rec(1, 0, "10:00:10")
	right := rec(2, 0, "10:00:11")
	o.Add(join.Left, left, &out)
	o.AdvanceWatermark(at("10:00:11"), &out) // releases the left record (10:00:10 + 1s)
	o.Add(join.Right, right, &out)
	assert.Empty(t, out.Pairs)
	assert.Empty(t, out.Late, "nothing reports it")
	missing, extra := join.Diff(join.Matches(out.Pairs), join.Truth(cfg, []join.Record{left}, []join.Record{right}))
	assert.Equal(t, []join.Match{{Key: 0, Left: 1, Right: 2}}, missing, "only the truth shows it")
	assert.Empty(t, extra)
}

// Skew: when the slow input is marked idle, the join's watermark follows
// the fast one alone, the buffered fast records are released, and the slow
// input's records come back late.
func TestSkewDropsTheSlowSide(t *testing.T) {
	cfg := join.Config{Lower: -30 * vtime.Second, Upper: 30 * vtime.Second}
	o := newJoin(t, cfg)
	inputs := watermark.NewCombiner(2)
	var out join.Output
	var lefts, rights []join.Record
	for i := range 10 {
		l := join.Record{ID: int64(i), Key: int32(i), Time: at("10:00:00").Add(vtime.Duration(i) * vtime.Minute)}
		lefts = append(lefts, l)
		o.Add(join.Left, l, &out)
		if inputs.Emit(int(join.Left), l.Time.Add(-1)) {
			o.AdvanceWatermark(inputs.Watermark(), &out)
		}
		if i == 1 {
			o.AdvanceWatermark(inputs.Watermark(), &out)
			inputs.MarkIdle(int(join.Right)) // payments stop arriving
		}
	}
	o.AdvanceWatermark(inputs.Watermark(), &out)
	assert.Equal(t, at("10:08:59.999"), o.Watermark())
	// The payments arrive at last, each 10 s after its order.
	for i := range 10 {
		r := join.Record{ID: 100 + int64(i), Key: int32(i), Time: lefts[i].Time.Add(10 * vtime.Second)}
		rights = append(rights, r)
		o.Add(join.Right, r, &out)
	}
	missing, _ := join.Diff(join.Matches(out.Pairs), join.Truth(cfg, lefts, rights))
	assert.Len(t, out.Pairs, 1, "only the last order's payment is ahead of the watermark")
	assert.Len(t, missing, 9)
	assert.Equal(t, int64(9), o.Dropped(join.Right))
}

func TestTruthAndDiff(t *testing.T) {
	cfg := join.Config{Lower: -vtime.Second, Upper: vtime.Second}
	l := []join.Record{rec(1, 0, "10:00:10"), rec(2, 1, "10:00:10"), rec(3, 0, "10:00:20")}
	r := []join.Record{rec(9, 0, "10:00:11"), rec(8, 0, "10:00:09"), rec(7, 1, "10:00:12"), rec(6, 0, "10:00:19")}
	want := []join.Match{{0, 1, 8}, {0, 1, 9}, {0, 3, 6}}
	assert.Equal(t, want, join.Truth(cfg, l, r))
	missing, extra := join.Diff([]join.Match{{0, 1, 9}, {0, 3, 6}, {1, 2, 7}}, want)
	assert.Equal(t, []join.Match{{0, 1, 8}}, missing)
	assert.Equal(t, []join.Match{{1, 2, 7}}, extra)
}

// arrival is a record reaching the join from one side.
type arrival struct {
	side join.Side
	at   vtime.Time
	rec  join.Record
}

func arrivals(r *rand.Rand, n, keys int, maxDelay vtime.Duration) []arrival {
	clock := [2]vtime.Time{at("10:00:00"), at("10:00:00")}
	out := make([]arrival, n)
	for i := range out {
		s := join.Side(r.IntN(2))
		clock[s] = clock[s].Add(vtime.Duration(r.IntN(3000)))
		d := vtime.Duration(0)
		if maxDelay > 0 {
			d = vtime.Duration(r.Int64N(int64(maxDelay) + 1))
		}
		out[i] = arrival{side: s, at: clock[s].Add(d), rec: join.Record{ID: int64(i), Key: int32(r.IntN(keys)), Time: clock[s]}}
	}
	slices.SortStableFunc(out, func(a, b arrival) int { return int(a.at - b.at) })
	return out
}

func split(arrs []arrival) (left, right []join.Record) {
	for _, a := range arrs {
		if a.side == join.Left {
			left = append(left, a.rec)
		} else {
			right = append(right, a.rec)
		}
	}
	return left, right
}

func randomConfig(r *rand.Rand) join.Config {
	lo := vtime.Duration(r.IntN(20_000) - 15_000)
	return join.Config{Lower: lo, Upper: lo + vtime.Duration(r.IntN(20_000)), LowerExclusive: r.IntN(2) == 0, UpperExclusive: r.IntN(2) == 0, SideOutput: r.IntN(2) == 0}
}

// runJoin drives a join from two bounded-out-of-orderness generators, one
// per input, combined by their minimum, emitting per record.
func runJoin(arrs []arrival, cfg join.Config, bound vtime.Duration) (*join.Operator, *join.Output) {
	o, _ := join.New(cfg)
	gens := [2]watermark.Generator{watermark.NewGenerator(bound), watermark.NewGenerator(bound)}
	inputs := watermark.NewCombiner(2)
	out := &join.Output{}
	for _, a := range arrs {
		o.Add(a.side, a.rec, out)
		gens[a.side].OnEvent(a.rec.Time)
		if inputs.Emit(int(a.side), gens[a.side].Current()) {
			o.AdvanceWatermark(inputs.Watermark(), out)
		}
	}
	o.AdvanceWatermark(watermark.End, out)
	return o, out
}

// With a watermark bound at least the largest delay, nothing is late and
// the join emits exactly the truth; every record is released in the end,
// having joined as often as the truth says.
func TestPropertyBoundAboveDelayJoinsEverything(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		maxDelay := vtime.Duration(r.IntN(10_000))
		arrs := arrivals(r, 20+r.IntN(300), 1+r.IntN(6), maxDelay)
		cfg := randomConfig(r)
		o, out := runJoin(arrs, cfg, maxDelay+vtime.Duration(r.IntN(1000)))
		left, right := split(arrs)
		require.Empty(t, out.Late, "seed %d", seed)
		missing, extra := join.Diff(join.Matches(out.Pairs), join.Truth(cfg, left, right))
		require.Empty(t, missing, "seed %d", seed)
		require.Empty(t, extra, "seed %d", seed)
		require.Len(t, out.Expired, len(arrs), "seed %d", seed)
		matched := 0
		for _, e := range out.Expired {
			matched += e.Matches
		}
		require.Equal(t, 2*len(out.Pairs), matched, "seed %d: each pair counts once on each side", seed)
		require.Equal(t, join.Size{}, o.Size())
	}
}

// With a smaller bound some records are late; every record is still
// accounted for once — late, or released — and what was emitted is part
// of the truth.
func TestPropertyEveryRecordAccounted(t *testing.T) {
	lateSeen := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 2))
		arrs := arrivals(r, 20+r.IntN(300), 1+r.IntN(6), vtime.Duration(r.IntN(20_000)))
		cfg := randomConfig(r)
		o, out := runJoin(arrs, cfg, vtime.Duration(r.IntN(3000)))
		left, right := split(arrs)
		require.Equal(t, len(arrs), len(out.Late)+len(out.Expired), "seed %d", seed)
		require.Equal(t, int64(len(out.Late)), o.Dropped(join.Left)+o.Dropped(join.Right)+o.SideOutputs(join.Left)+o.SideOutputs(join.Right))
		_, extra := join.Diff(join.Matches(out.Pairs), join.Truth(cfg, left, right))
		require.Empty(t, extra, "seed %d: a pair the truth does not have", seed)
		if len(out.Late) > 0 {
			lateSeen++
		}
	}
	require.Greater(t, lateSeen, 50, "late records should be common, or the property says little")
}

// Snapshot then restore gives the same bytes, and the restored join goes
// on exactly as the original.
func TestPropertySnapshotRestore(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 3))
		arrs := arrivals(r, 20+r.IntN(200), 1+r.IntN(6), vtime.Duration(r.IntN(10_000)))
		cfg := randomConfig(r)
		bound := vtime.Duration(r.IntN(3000))
		cut := r.IntN(len(arrs))
		a, _ := join.New(cfg)
		gens := [2]watermark.Generator{watermark.NewGenerator(bound), watermark.NewGenerator(bound)}
		inputs := watermark.NewCombiner(2)
		var outA, outB join.Output
		step := func(ops []*join.Operator, outs []*join.Output, ar arrival) {
			gens[ar.side].OnEvent(ar.rec.Time)
			inputs.Emit(int(ar.side), gens[ar.side].Current())
			for i, o := range ops {
				o.Add(ar.side, ar.rec, outs[i])
				o.AdvanceWatermark(inputs.Watermark(), outs[i])
			}
		}
		for _, ar := range arrs[:cut] {
			step([]*join.Operator{a}, []*join.Output{&outA}, ar)
		}
		snap := a.Snapshot(nil)
		b, err := join.Restore(cfg, snap)
		require.NoError(t, err, "seed %d", seed)
		require.True(t, bytes.Equal(snap, b.Snapshot(nil)), "seed %d", seed)
		outA = join.Output{}
		for _, ar := range arrs[cut:] {
			step([]*join.Operator{a, b}, []*join.Output{&outA, &outB}, ar)
		}
		a.AdvanceWatermark(watermark.End, &outA)
		b.AdvanceWatermark(watermark.End, &outB)
		require.Equal(t, outA, outB, "seed %d", seed)
		require.True(t, bytes.Equal(a.Snapshot(nil), b.Snapshot(nil)), "seed %d", seed)
	}
}

func TestRestoreRefusesBadInput(t *testing.T) {
	cfg := join.Config{Lower: -vtime.Second, Upper: vtime.Second}
	o := newJoin(t, cfg)
	var out join.Output
	o.Add(join.Left, rec(1, 3, "10:00:00"), &out)
	o.Add(join.Right, rec(2, 3, "10:00:00.500"), &out)
	snap := o.Snapshot(nil)
	_, err := join.Restore(join.Config{Upper: vtime.Second}, snap)
	require.ErrorIs(t, err, join.ErrSnapshot)
	for n := 4; n < len(snap); n++ {
		_, err := join.Restore(cfg, snap[:n])
		require.ErrorIs(t, err, join.ErrSnapshot, "cut at %d", n)
	}
	_, err = join.Restore(cfg, append(snap, 1))
	require.ErrorContains(t, err, "left over")
	back, err := join.Restore(cfg, snap)
	require.NoError(t, err)
	assert.Equal(t, join.Size{Keys: 1, Left: 1, Right: 1}, back.Size())
	assert.Equal(t, int64(1), back.Pairs())
}
