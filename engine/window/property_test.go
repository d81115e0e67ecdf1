package window_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// arrival is a record as a stream operator reads it: from a partition, at
// a processing time no earlier than its event time.
type arrival struct {
	part int
	at   vtime.Time
	rec  window.Record
}

// arrivals makes n records over parts partitions and keys keys. Each
// partition's producer stamps event times that move forward at a random
// pace from 10:00:00; each record reaches the operator between 0 and
// maxDelay later. They come back in the order the operator reads them.
func arrivals(r *rand.Rand, parts, keys, n int, maxDelay vtime.Duration) []arrival {
	clock := make([]vtime.Time, parts)
	for p := range clock {
		clock[p] = at("10:00:00")
	}
	out := make([]arrival, n)
	for i := range out {
		p := r.IntN(parts)
		clock[p] = clock[p].Add(vtime.Duration(r.IntN(2000)))
		delay := vtime.Duration(0)
		if maxDelay > 0 {
			delay = vtime.Duration(r.Int64N(int64(maxDelay) + 1))
		}
		out[i] = arrival{part: p, at: clock[p].Add(delay), rec: window.Record{ID: int64(i), Key: int32(r.IntN(keys)), Time: clock[p], Value: int64(r.IntN(100))}}
	}
	slices.SortStableFunc(out, func(a, b arrival) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return out
}

func records(arrs []arrival) []window.Record {
	out := make([]window.Record, len(arrs))
	for i, a := range arrs {
		out[i] = a.rec
	}
	return out
}

// run feeds arrivals to a watermark source and a window operator as a
// stream job would: ticks every interval of processing time, each record
// to the operator before the watermark it may move, and at the end the
// watermark that closes everything.
func run(t testing.TB, arrs []arrival, parts int, wc watermark.Config, oc window.Config) (*window.Operator, *window.Output) {
	src, err := watermark.New(wc, parts)
	require.NoError(t, err)
	o, err := window.New(oc)
	require.NoError(t, err)
	out := &window.Output{}
	next := vtime.Time(0)
	if len(arrs) > 0 {
		next = arrs[0].at
	}
	for _, a := range arrs {
		for ; next <= a.at; next = next.Add(wc.Interval) {
			o.AdvanceProcessingTime(next, out)
			if u := src.Tick(next); u.Advanced {
				o.AdvanceWatermark(u.Watermark, out)
			}
		}
		o.Add(a.rec, a.at, out)
		if u := src.Record(a.part, a.rec.Time); u.Advanced {
			o.AdvanceWatermark(u.Watermark, out)
		}
	}
	o.AdvanceWatermark(watermark.End, out)
	o.AdvanceProcessingTime(watermark.End, out)
	return o, out
}

func randomAssigner(r *rand.Rand) window.Assigner {
	switch r.IntN(3) {
	case 0:
		return window.Assigner{Kind: window.Tumbling, Size: vtime.Duration(1+r.IntN(20)) * vtime.Second, Offset: vtime.Duration(r.IntN(1000))}
	case 1:
		slide := vtime.Duration(1+r.IntN(5)) * vtime.Second
		return window.Assigner{Kind: window.Sliding, Size: slide * vtime.Duration(1+r.IntN(4)), Slide: slide, Offset: -vtime.Duration(r.IntN(1000))}
	}
	return window.Assigner{Kind: window.Session, Gap: vtime.Duration(500 + r.IntN(5000))}
}

func randomWatermarks(r *rand.Rand) watermark.Config {
	return watermark.Config{
		Bound:    vtime.Duration(r.IntN(3000)),
		Emission: watermark.Emission(r.IntN(2)),
		Interval: vtime.Duration(50 + r.IntN(1000)),
		Idleness: vtime.Duration(r.IntN(2)) * vtime.Duration(1000+r.IntN(5000)),
		Scope:    watermark.Scope(r.IntN(2)),
	}
}

// With an allowed lateness larger than the largest delay, nothing is ever
// too late: no record is dropped, and every window's last result equals
// the truth over all records, for every kind of window and watermark.
func TestPropertyLatenessAboveDelayLosesNothing(t *testing.T) {
	neededLateness := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 2))
		parts := 1 + r.IntN(4)
		maxDelay := vtime.Duration(r.IntN(20_000))
		arrs := arrivals(r, parts, 1+r.IntN(5), 50+r.IntN(300), maxDelay)
		a := randomAssigner(r)
		oc := window.Config{Assigner: a, Lateness: maxDelay + 1 + vtime.Duration(r.IntN(1000))}
		o, out := run(t, arrs, parts, randomWatermarks(r), oc)
		for _, l := range out.Late {
			require.Equal(t, window.Accepted, l.Fate, "seed %d: %s", seed, l.Why())
		}
		if len(out.Late) > 0 {
			neededLateness++
		}
		require.Zero(t, o.LateRecordsDropped(), "seed %d", seed)
		require.Empty(t, window.Compare(window.Final(out.Firings), window.Truth(a, records(arrs))), "seed %d: %s", seed, a.Kind)
		require.Equal(t, window.Size{}, o.Size(), "seed %d: the final watermark clears everything", seed)
	}
	require.Greater(t, neededLateness, 50, "records should often arrive after their window fired, or the property says little")
}

// Emitting the watermark per record or periodically changes when windows
// fire, but not what they finally say, when nothing is late.
func TestPropertyEmissionChangesTimingNotResults(t *testing.T) {
	timingDiffered := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 3))
		parts := 1 + r.IntN(4)
		maxDelay := vtime.Duration(r.IntN(5000))
		arrs := arrivals(r, parts, 1+r.IntN(5), 50+r.IntN(300), maxDelay)
		a := randomAssigner(r)
		oc := window.Config{Assigner: a, Lateness: maxDelay + 1}
		wc := randomWatermarks(r)
		wc.Emission = watermark.Periodic
		_, periodic := run(t, arrs, parts, wc, oc)
		wc.Emission = watermark.PerRecord
		_, perRecord := run(t, arrs, parts, wc, oc)
		require.Equal(t, window.Final(periodic.Firings), window.Final(perRecord.Firings), "seed %d", seed)
		if !slices.EqualFunc(periodic.Firings, perRecord.Firings, func(x, y window.Firing) bool { return x.At == y.At && x.Window == y.Window }) {
			timingDiffered++
		}
	}
	require.Greater(t, timingDiffered, 100, "the two emissions should usually fire at different watermarks")
}

// Every record of a tumbling window is counted once: in the window's last
// result, or as dropped, or in the side output — whatever the lateness.
func TestPropertyTumblingConservesRecords(t *testing.T) {
	lost := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 4))
		parts := 1 + r.IntN(4)
		arrs := arrivals(r, parts, 1+r.IntN(5), 50+r.IntN(300), vtime.Duration(r.IntN(30_000)))
		a := window.Assigner{Kind: window.Tumbling, Size: vtime.Duration(1+r.IntN(10)) * vtime.Second}
		oc := window.Config{Assigner: a, Lateness: vtime.Duration(r.IntN(3)) * vtime.Duration(r.IntN(5000)), SideOutput: r.IntN(2) == 0}
		o, out := run(t, arrs, parts, randomWatermarks(r), oc)
		total := o.LateRecordsDropped() + o.SideOutputs()
		if total > 0 {
			lost++
		}
		for _, res := range window.Final(out.Firings) {
			total += res.Acc.Count
		}
		require.Equal(t, int64(len(arrs)), total, "seed %d", seed)
	}
	require.Greater(t, lost, 50, "records should often be too late, or the property says little")
}

// Snapshot then restore gives the same bytes again, and the restored
// operator goes on exactly as the original: the same firings, late
// records and merges, and the same state at the end.
func TestPropertySnapshotRestore(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 5))
		parts := 1 + r.IntN(3)
		arrs := arrivals(r, parts, 1+r.IntN(6), 20+r.IntN(200), vtime.Duration(r.IntN(10_000)))
		oc := window.Config{Assigner: randomAssigner(r), Domain: window.Domain(r.IntN(2)), SideOutput: r.IntN(2) == 0, Contents: r.IntN(2) == 0}
		if oc.Domain == window.EventTime {
			oc.Lateness = vtime.Duration(r.IntN(3000))
		}
		src, err := watermark.New(randomWatermarks(r), parts)
		require.NoError(t, err)
		a, err := window.New(oc)
		require.NoError(t, err)
		var outA, outB window.Output
		cut := r.IntN(len(arrs))
		feed := func(o *window.Operator, out *window.Output, ar arrival, tick, wm vtime.Time) {
			o.AdvanceProcessingTime(tick, out)
			o.AdvanceWatermark(wm, out)
			o.Add(ar.rec, ar.at, out)
		}
		for _, ar := range arrs[:cut] {
			feed(a, &outA, ar, ar.at, src.Record(ar.part, ar.rec.Time).Watermark)
			src.Tick(ar.at)
		}
		snap := a.Snapshot(nil)
		b, err := window.Restore(oc, snap)
		require.NoError(t, err, "seed %d", seed)
		require.True(t, bytes.Equal(snap, b.Snapshot(nil)), "seed %d: restore then snapshot changed the bytes", seed)
		require.Equal(t, a.Size(), b.Size())
		outA = window.Output{}
		for _, ar := range arrs[cut:] {
			wm := src.Record(ar.part, ar.rec.Time).Watermark
			src.Tick(ar.at)
			feed(a, &outA, ar, ar.at, wm)
			feed(b, &outB, ar, ar.at, wm)
		}
		a.AdvanceWatermark(watermark.End, &outA)
		b.AdvanceWatermark(watermark.End, &outB)
		a.AdvanceProcessingTime(watermark.End, &outA)
		b.AdvanceProcessingTime(watermark.End, &outB)
		require.Equal(t, outA, outB, "seed %d: the restored operator went another way", seed)
		require.True(t, bytes.Equal(a.Snapshot(nil), b.Snapshot(nil)), "seed %d: the two operators ended in different states", seed)
	}
}

// The same records, read in another order before any watermark, leave the
// same state and the same snapshot bytes.
func TestSnapshotIsCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	arrs := arrivals(r, 3, 20, 500, 0)
	cfg := window.Config{Assigner: window.Assigner{Kind: window.Sliding, Size: 10 * vtime.Second, Slide: 2 * vtime.Second}, Lateness: vtime.Second}
	a, b := op(t, cfg), op(t, cfg)
	var out window.Output
	for _, ar := range arrs {
		a.Add(ar.rec, 0, &out)
	}
	for i := len(arrs) - 1; i >= 0; i-- {
		b.Add(arrs[i].rec, 0, &out)
	}
	sa := a.Snapshot(nil)
	require.Equal(t, sa, b.Snapshot(nil))
	require.Greater(t, len(sa), 100)
}

func TestRestoreRefusesBadInput(t *testing.T) {
	cfg := window.Config{Assigner: minute, Contents: true}
	o := op(t, cfg)
	var out window.Output
	o.Add(window.Record{ID: 1, Key: 2, Time: at("10:00:00"), Value: 3}, 0, &out)
	snap := o.Snapshot(nil)
	_, err := window.Restore(window.Config{Assigner: minute}, snap)
	require.ErrorIs(t, err, window.ErrSnapshot)
	require.ErrorContains(t, err, "another window configuration")
	for n := len("TMW1"); n < len(snap); n++ {
		_, err := window.Restore(cfg, snap[:n])
		require.ErrorIs(t, err, window.ErrSnapshot, "cut at %d", n)
	}
	_, err = window.Restore(cfg, append(snap, 0))
	require.ErrorContains(t, err, "left over")
	back, err := window.Restore(cfg, snap)
	require.NoError(t, err)
	require.Equal(t, window.Size{Keys: 1, Windows: 1, Records: 1}, back.Size())
}
