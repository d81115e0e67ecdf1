package window_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/window"
)

func at(s string) vtime.Time {
	t, err := vtime.ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

func sec(n float64) vtime.Time { return vtime.Time(n * 1000) }

func win(start, end vtime.Time) window.Window { return window.Window{Start: start, End: end} }

func op(t *testing.T, cfg window.Config) *window.Operator {
	t.Helper()
	o, err := window.New(cfg)
	require.NoError(t, err)
	return o
}

func TestStartWithOffset(t *testing.T) {
	for _, c := range []struct {
		t, offset, size int64
		want            int64
	}{
		{7, 0, 5, 5},
		{5, 0, 5, 5},
		{4, 0, 5, 0},
		{0, 0, 5, 0},
		{-1, 0, 5, -5}, // rounds toward the past, not toward zero
		{-5, 0, 5, -5},
		{-6, 0, 5, -10},
		{7, 2, 5, 7},
		{6, 2, 5, 2},
		{1, -2, 5, -2},
		{-3, 2, 5, -3},
		{-4, 2, 5, -8},
	} {
		got := window.StartWithOffset(vtime.Time(c.t), vtime.Duration(c.offset), vtime.Duration(c.size))
		assert.Equal(t, vtime.Time(c.want), got, "start of %d with offset %d and size %d", c.t, c.offset, c.size)
	}
	// A 1-minute window shifted by 15 s: windows start at :15.
	assert.Equal(t, at("10:00:15"), window.StartWithOffset(at("10:00:30"), 15*vtime.Second, vtime.Minute))
	assert.Equal(t, at("09:59:15"), window.StartWithOffset(at("10:00:14.999"), 15*vtime.Second, vtime.Minute))
}

func TestWindowBounds(t *testing.T) {
	w := win(at("10:00:00"), at("10:01:00"))
	assert.Equal(t, at("10:00:59.999"), w.MaxTimestamp())
	assert.True(t, w.Contains(at("10:00:00")), "start is inside")
	assert.True(t, w.Contains(at("10:00:59.999")))
	assert.False(t, w.Contains(at("10:01:00")), "end is outside")
	assert.True(t, w.Intersects(win(at("10:01:00"), at("10:02:00"))), "touching windows intersect, as Flink has it")
	assert.False(t, w.Intersects(win(at("10:01:00.001"), at("10:02:00"))))
	assert.Equal(t, "[10:00:00, 10:01:00)", w.String())
}

func TestAssigners(t *testing.T) {
	tumbling := window.Assigner{Kind: window.Tumbling, Size: 10 * vtime.Second}
	assert.Equal(t, []window.Window{win(sec(10), sec(20))}, tumbling.Assign(sec(12), nil))
	assert.Equal(t, []window.Window{win(sec(-10), sec(0))}, tumbling.Assign(sec(-0.001), nil))

	sliding := window.Assigner{Kind: window.Sliding, Size: 10 * vtime.Second, Slide: 5 * vtime.Second}
	assert.Equal(t, []window.Window{win(sec(10), sec(20)), win(sec(5), sec(15))}, sliding.Assign(sec(12), nil), "latest start first")
	assert.Equal(t, []window.Window{win(sec(10), sec(20)), win(sec(5), sec(15))}, sliding.Assign(sec(10), nil))
	assert.Equal(t, []window.Window{win(sec(5), sec(15)), win(sec(0), sec(10))}, sliding.Assign(sec(9.999), nil))

	// A slide that does not divide the size: 4 windows for some times, 3 for others.
	uneven := window.Assigner{Kind: window.Sliding, Size: 10 * vtime.Second, Slide: 3 * vtime.Second}
	assert.Equal(t, []window.Window{win(sec(12), sec(22)), win(sec(9), sec(19)), win(sec(6), sec(16)), win(sec(3), sec(13))}, uneven.Assign(sec(12), nil))
	assert.Len(t, uneven.Assign(sec(13), nil), 3, "[3,13) no longer holds 13")

	offset := window.Assigner{Kind: window.Sliding, Size: 10 * vtime.Second, Slide: 5 * vtime.Second, Offset: vtime.Second}
	assert.Equal(t, []window.Window{win(sec(11), sec(21)), win(sec(6), sec(16))}, offset.Assign(sec(12), nil))

	session := window.Assigner{Kind: window.Session, Gap: 30 * vtime.Second}
	assert.Equal(t, []window.Window{win(sec(12), sec(42))}, session.Assign(sec(12), nil))
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		cfg         window.Config
		field, want string
	}{
		{window.Config{Assigner: window.Assigner{Kind: window.Tumbling}}, "size", "positive size"},
		{window.Config{Assigner: window.Assigner{Kind: window.Tumbling, Size: 10, Offset: -10}}, "offset", "offset must be shorter than its size"},
		{window.Config{Assigner: window.Assigner{Kind: window.Sliding, Size: 10}}, "slide", "positive size and slide"},
		{window.Config{Assigner: window.Assigner{Kind: window.Sliding, Slide: 10}}, "size", "positive size and slide"},
		{window.Config{Assigner: window.Assigner{Kind: window.Sliding, Size: 10, Slide: 5, Offset: 5}}, "offset", "shorter than its slide"},
		{window.Config{Assigner: window.Assigner{Kind: window.Sliding, Size: 10_000, Slide: 1}}, "slide", "more than 1000 windows"},
		{window.Config{Assigner: window.Assigner{Kind: window.Session}}, "gap", "positive gap"},
		{window.Config{Assigner: window.Assigner{Kind: 7}}, "", "unknown window kind"},
		{window.Config{Assigner: window.Assigner{Kind: window.Session, Gap: 1}, Lateness: -1}, "lateness", "cannot be negative"},
		{window.Config{Assigner: window.Assigner{Kind: window.Session, Gap: 1}, Lateness: 1, Domain: window.ProcessingTime}, "lateness", "event-time windows only"},
	} {
		_, err := window.New(c.cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
		var ce *window.ConfigError
		require.ErrorAs(t, err, &ce, c.want)
		assert.Equal(t, c.field, ce.Field, "the setting at fault, for an error that points at its value: %s", c.want)
	}
	_, err := window.New(window.Config{Assigner: window.Assigner{Kind: window.Sliding, Size: 1000, Slide: 1, Offset: -0}})
	assert.NoError(t, err, "exactly 1000 windows per record is allowed")
}

var minute = window.Assigner{Kind: window.Tumbling, Size: vtime.Minute}

// A window fires when the watermark reaches its last instant, End - 1, and
// not a millisecond before.
func TestFiresAtEndMinusOne(t *testing.T) {
	o := op(t, window.Config{Assigner: minute})
	var out window.Output
	o.Add(window.Record{ID: 1, Key: 0, Time: at("10:00:30"), Value: 5}, at("10:00:31"), &out)
	o.AdvanceWatermark(at("10:00:59.998"), &out)
	assert.Empty(t, out.Firings)
	o.AdvanceWatermark(at("10:00:59.999"), &out)
	require.Len(t, out.Firings, 1)
	assert.Equal(t, window.Firing{Key: 0, Window: win(at("10:00:00"), at("10:01:00")), Acc: window.Acc{Count: 1, Sum: 5, Min: 5, Max: 5},
		At: at("10:00:59.999"), N: 1}, out.Firings[0])
	assert.Equal(t, window.Size{}, o.Size(), "with no lateness the state is cleared as it fires")
}

// The lateness boundary: with allowed lateness L a record is accepted while
// the watermark is before End - 1 + L, and the window fires again with
// everything it holds; at End - 1 + L the state is gone and the record is
// dropped and counted.
func TestAllowedLatenessBoundary(t *testing.T) {
	o := op(t, window.Config{Assigner: minute, Lateness: 5 * vtime.Second, Contents: true})
	var out window.Output
	w := win(at("10:00:00"), at("10:01:00"))
	o.Add(window.Record{ID: 1, Time: at("10:00:30"), Value: 5}, at("10:00:31"), &out)
	o.AdvanceWatermark(at("10:01:00.500"), &out)
	require.Len(t, out.Firings, 1)
	assert.Equal(t, int32(1), out.Firings[0].N)
	assert.Equal(t, window.Size{Keys: 1, Windows: 1, Records: 1}, o.Size(), "kept for the allowed lateness")

	out.Reset()
	o.AdvanceWatermark(at("10:01:04.998"), &out) // one millisecond before cleanup at 10:01:04.999
	o.Add(window.Record{ID: 2, Time: at("10:00:10"), Value: 7}, at("10:01:06"), &out)
	require.Len(t, out.Firings, 1, "the late record fires the window again at once")
	assert.Equal(t, window.Firing{Key: 0, Window: w, Acc: window.Acc{Count: 2, Sum: 12, Min: 5, Max: 7},
		At: at("10:01:04.998"), N: 2, Late: true, Records: []int64{1, 2}}, out.Firings[0], "the update carries the whole window")
	require.Len(t, out.Late, 1)
	assert.Equal(t, window.Accepted, out.Late[0].Fate)
	assert.Equal(t, "event time 10:00:10 falls in [10:00:00, 10:01:00), whose last instant is 10:00:59.999; "+
		"the watermark 10:01:04.998 has reached it, but an allowed lateness of 5s keeps the window until the watermark reaches 10:01:04.999, "+
		"so the record is added and the window fires at once with everything it holds", out.Late[0].Why())

	out.Reset()
	o.AdvanceWatermark(at("10:01:04.999"), &out)
	assert.Empty(t, out.Firings, "cleanup fires nothing")
	assert.Equal(t, window.Size{}, o.Size(), "cleared at End - 1 + L")
	o.Add(window.Record{ID: 3, Time: at("10:00:59"), Value: 1}, at("10:01:07"), &out)
	assert.Empty(t, out.Firings)
	require.Len(t, out.Late, 1)
	assert.Equal(t, window.Late{Record: window.Record{ID: 3, Time: at("10:00:59"), Value: 1}, Fate: window.Dropped, Window: w,
		Watermark: at("10:01:04.999"), Lateness: 5 * vtime.Second}, out.Late[0])
	assert.Equal(t, int64(1), o.LateRecordsDropped())
	assert.Equal(t, "event time 10:00:59 falls in [10:00:00, 10:01:00), whose last instant is 10:00:59.999; "+
		"with an allowed lateness of 5s the window is kept only until the watermark reaches 10:01:04.999, and the watermark is already 10:01:04.999, "+
		"so the record is dropped and counted in numLateRecordsDropped", out.Late[0].Why())
	assert.Equal(t, window.Size{}, o.Size(), "a dropped record leaves no state")
}

// With no lateness, a record whose event time is the window's last instant
// is dropped once the watermark has reached it: the window fired and was
// cleared in the same moment.
func TestZeroLatenessDropsAtTheBoundary(t *testing.T) {
	o := op(t, window.Config{Assigner: minute})
	var out window.Output
	o.Add(window.Record{ID: 1, Time: at("10:00:30")}, 0, &out)
	o.AdvanceWatermark(at("10:00:59.998"), &out)
	o.Add(window.Record{ID: 2, Time: at("10:00:59.999")}, 0, &out)
	assert.Empty(t, out.Late, "one millisecond before the end it is on time")
	o.AdvanceWatermark(at("10:00:59.999"), &out)
	require.Len(t, out.Firings, 1)
	assert.Equal(t, int64(2), out.Firings[0].Acc.Count)
	o.Add(window.Record{ID: 3, Time: at("10:00:59.999")}, 0, &out)
	require.Len(t, out.Late, 1)
	assert.Equal(t, window.Dropped, out.Late[0].Fate)
	assert.Equal(t, int64(1), o.LateRecordsDropped())
}

// A late record within the lateness whose window has no state yet opens
// it and fires it at once.
func TestLateRecordOpensAFiredWindow(t *testing.T) {
	o := op(t, window.Config{Assigner: minute, Lateness: vtime.Minute})
	var out window.Output
	o.AdvanceWatermark(at("10:01:30"), &out)
	o.Add(window.Record{ID: 1, Key: 4, Time: at("10:00:10"), Value: 3}, 0, &out)
	require.Len(t, out.Firings, 1)
	assert.Equal(t, window.Firing{Key: 4, Window: win(at("10:00:00"), at("10:01:00")), Acc: window.Acc{Count: 1, Sum: 3, Min: 3, Max: 3},
		At: at("10:01:30"), N: 1, Late: true}, out.Firings[0])
}

func TestSideOutput(t *testing.T) {
	o := op(t, window.Config{Assigner: minute, SideOutput: true})
	var out window.Output
	o.AdvanceWatermark(at("10:05:00"), &out)
	o.Add(window.Record{ID: 9, Time: at("10:00:10")}, 0, &out)
	require.Len(t, out.Late, 1)
	assert.Equal(t, window.SideOutput, out.Late[0].Fate)
	assert.Contains(t, out.Late[0].Why(), "goes to the late-data side output")
	assert.Equal(t, int64(0), o.LateRecordsDropped(), "a side-output record is not counted as dropped")
	assert.Equal(t, int64(1), o.SideOutputs())
}

// Windows due at the same watermark fire in order of their last instant,
// then key, then start.
func TestFiringOrder(t *testing.T) {
	o := op(t, window.Config{Assigner: minute})
	var out window.Output
	for _, r := range []window.Record{
		{Key: 2, Time: at("10:00:01")}, {Key: 1, Time: at("10:01:01")}, {Key: 1, Time: at("10:00:02")}, {Key: 0, Time: at("10:01:03")},
	} {
		o.Add(r, 0, &out)
	}
	o.AdvanceWatermark(at("10:05:00"), &out)
	var got []string
	for _, f := range out.Firings {
		got = append(got, f.Window.Start.String()+"/"+string(rune('0'+f.Key)))
	}
	assert.Equal(t, []string{"10:00:00/1", "10:00:00/2", "10:01:00/0", "10:01:00/1"}, got)
	assert.Equal(t, at("10:05:00"), out.Firings[0].At, "a firing names the watermark that fired it")
}

// Sliding windows overlap: a record counts in each window that holds it.
func TestSlidingOverlap(t *testing.T) {
	a := window.Assigner{Kind: window.Sliding, Size: 10 * vtime.Second, Slide: 5 * vtime.Second}
	o := op(t, window.Config{Assigner: a})
	var out window.Output
	recs := []window.Record{{ID: 1, Time: sec(3), Value: 1}, {ID: 2, Time: sec(7), Value: 10}, {ID: 3, Time: sec(12), Value: 100}}
	for _, r := range recs {
		o.Add(r, 0, &out)
	}
	assert.Equal(t, window.Size{Keys: 1, Windows: 4}, o.Size())
	o.AdvanceWatermark(sec(100), &out)
	var got []window.Result
	for _, f := range out.Firings {
		got = append(got, window.Result{Key: f.Key, Window: f.Window, Acc: f.Acc})
	}
	assert.Equal(t, []window.Result{
		{Window: win(sec(-5), sec(5)), Acc: window.Acc{Count: 1, Sum: 1, Min: 1, Max: 1}},
		{Window: win(sec(0), sec(10)), Acc: window.Acc{Count: 2, Sum: 11, Min: 1, Max: 10}},
		{Window: win(sec(5), sec(15)), Acc: window.Acc{Count: 2, Sum: 110, Min: 10, Max: 100}},
		{Window: win(sec(10), sec(20)), Acc: window.Acc{Count: 1, Sum: 100, Min: 100, Max: 100}},
	}, got)
	assert.Equal(t, got, window.Truth(a, recs))
	assert.Empty(t, window.Compare(window.Final(out.Firings), window.Truth(a, recs)))
}

// A sliding record late for its earlier windows and on time for a later
// one is kept by the later one only, and is not counted as dropped.
func TestSlidingPartlyLate(t *testing.T) {
	a := window.Assigner{Kind: window.Sliding, Size: 10 * vtime.Second, Slide: 5 * vtime.Second}
	o := op(t, window.Config{Assigner: a})
	var out window.Output
	o.AdvanceWatermark(sec(11), &out) // [0,10) is past; [5,15) is not
	o.Add(window.Record{ID: 1, Time: sec(7)}, 0, &out)
	assert.Empty(t, out.Late)
	assert.Equal(t, window.Size{Keys: 1, Windows: 1}, o.Size())
	assert.Equal(t, int64(0), o.LateRecordsDropped())
}

// Session windows: a record opens [t, t+gap) and merges every session of
// its key it overlaps or touches.
func TestSessionMerging(t *testing.T) {
	a := window.Assigner{Kind: window.Session, Gap: 10 * vtime.Second}
	o := op(t, window.Config{Assigner: a, Contents: true})
	var out window.Output
	add := func(id int64, s float64) { o.Add(window.Record{ID: id, Key: 3, Time: sec(s), Value: id}, 0, &out) }
	add(1, 0)
	add(2, 25)
	add(3, 12) // [12,22): touches neither [0,10) nor [25,35)
	assert.Equal(t, window.Size{Keys: 1, Windows: 3, Records: 3}, o.Size())
	assert.Empty(t, out.Merges)
	assert.Equal(t, []window.Merge{{Key: 3, Into: win(sec(0), sec(10))}, {Key: 3, Into: win(sec(25), sec(35))}, {Key: 3, Into: win(sec(12), sec(22))}}, out.Opens,
		"each record touching no session opened one")
	add(4, 10) // [10,20) touches [0,10) and overlaps [12,22)
	require.Len(t, out.Merges, 1)
	assert.Equal(t, window.Merge{Key: 3, Into: win(sec(0), sec(22)), From: []window.Window{win(sec(0), sec(10)), win(sec(12), sec(22))}}, out.Merges[0])
	add(5, 22) // [22,32) touches [0,22) and overlaps [25,35)
	require.Len(t, out.Merges, 2)
	assert.Equal(t, window.Merge{Key: 3, Into: win(sec(0), sec(35)), From: []window.Window{win(sec(0), sec(22)), win(sec(25), sec(35))}}, out.Merges[1])
	add(6, 24) // [24,34) lies inside [0,35): nothing merges
	assert.Len(t, out.Merges, 2)
	assert.Len(t, out.Opens, 3, "nor opens")
	assert.Equal(t, window.Size{Keys: 1, Windows: 1, Records: 6}, o.Size())

	o.AdvanceWatermark(sec(34.998), &out)
	assert.Empty(t, out.Firings)
	o.AdvanceWatermark(sec(34.999), &out)
	require.Len(t, out.Firings, 1, "the merged-away sessions' timers were deleted")
	assert.Equal(t, window.Firing{Key: 3, Window: win(sec(0), sec(35)), Acc: window.Acc{Count: 6, Sum: 21, Min: 1, Max: 6},
		At: sec(34.999), N: 1, Records: []int64{1, 3, 4, 2, 5, 6}}, out.Firings[0], "merged contents: by window start, then the record that merged them")
}

// A late record that would have joined a session already cleared starts a
// session of its own, which is not late: Flink keeps it, and the emitted
// sessions then differ from the truth.
func TestSessionCutByALateRecord(t *testing.T) {
	a := window.Assigner{Kind: window.Session, Gap: 10 * vtime.Second}
	o := op(t, window.Config{Assigner: a})
	var out window.Output
	recs := []window.Record{{ID: 1, Time: sec(0), Value: 1}, {ID: 2, Time: sec(5), Value: 1}}
	o.Add(recs[0], 0, &out)
	o.AdvanceWatermark(sec(9.999), &out)
	require.Len(t, out.Firings, 1)
	o.Add(recs[1], 0, &out)
	assert.Empty(t, out.Late, "its own session [5,15) is not late, so nothing reports it")
	o.AdvanceWatermark(sec(14.999), &out)
	require.Len(t, out.Firings, 2)
	assert.Equal(t, win(sec(5), sec(15)), out.Firings[1].Window)

	mm := window.Compare(window.Final(out.Firings), window.Truth(a, recs))
	require.Len(t, mm, 3)
	assert.True(t, mm[1].Missing(), "the true session [0,15) with both records was never emitted")
	assert.Equal(t, win(sec(0), sec(15)), mm[1].Window)
	assert.True(t, mm[0].Extra() && mm[2].Extra(), "two fragments were emitted instead")
	assert.Equal(t, []window.Window{win(sec(0), sec(10)), win(sec(5), sec(15))}, []window.Window{mm[0].Window, mm[2].Window})
}

// In processing time, records fall in the window of their arrival, whatever
// their event time, and a window fires once the clock has passed its last
// instant: at its end, as Flink's processing-time timers fire 1 ms after
// the time they are set for (FLINK-9857). A record read at the window's
// last millisecond is in it.
func TestProcessingTimeWindows(t *testing.T) {
	o := op(t, window.Config{Assigner: minute, Domain: window.ProcessingTime})
	var out window.Output
	o.Add(window.Record{ID: 1, Time: at("09:00:00")}, at("10:00:10"), &out)
	o.Add(window.Record{ID: 2, Time: at("10:00:20")}, at("10:00:20"), &out)
	o.AdvanceWatermark(at("11:00:00"), &out)
	assert.Empty(t, out.Firings, "the watermark does not fire processing-time windows")
	next, ok := o.NextTimer()
	require.True(t, ok)
	assert.Equal(t, at("10:01:00"), next, "the timer for 10:00:59.999 fires once the clock is past it")
	o.AdvanceProcessingTime(at("10:00:59.999"), &out)
	assert.Empty(t, out.Firings, "at the window's last instant the timer has not fired")
	o.Add(window.Record{ID: 3, Time: at("10:00:59.999")}, at("10:00:59.999"), &out)
	o.AdvanceProcessingTime(at("10:01:00"), &out)
	require.Len(t, out.Firings, 1)
	assert.Equal(t, window.Firing{Window: win(at("10:00:00"), at("10:01:00")), Acc: window.Acc{Count: 3}, At: at("10:01:00"), N: 1}, out.Firings[0])
	assert.Equal(t, window.Size{}, o.Size())
	// A record arriving later still lands in the window of its arrival: never late.
	o.Add(window.Record{ID: 4, Time: at("10:00:30")}, at("10:03:00"), &out)
	assert.Empty(t, out.Late)
	o.AdvanceProcessingTime(at("10:04:00"), &out)
	assert.Equal(t, win(at("10:03:00"), at("10:04:00")), out.Firings[1].Window)
}

// A processing-time session and a record read at its last instant are one
// session: the session's timer has not fired yet, so the two merge.
func TestProcessingTimeSessionTakesARecordAtItsLastInstant(t *testing.T) {
	o := op(t, window.Config{Assigner: window.Assigner{Kind: window.Session, Gap: 10 * vtime.Second}, Domain: window.ProcessingTime})
	var out window.Output
	o.Add(window.Record{ID: 1, Time: sec(0)}, sec(0), &out)
	o.AdvanceProcessingTime(sec(9.999), &out)
	o.Add(window.Record{ID: 2, Time: sec(9.999)}, sec(9.999), &out)
	o.AdvanceProcessingTime(sec(30), &out)
	require.Len(t, out.Firings, 1)
	assert.Equal(t, win(sec(0), sec(19.999)), out.Firings[0].Window)
	assert.Equal(t, int64(2), out.Firings[0].Acc.Count)
}

// The truth of a session is formed from all of a key's records at once;
// touching windows belong to one session.
func TestTruthSessions(t *testing.T) {
	a := window.Assigner{Kind: window.Session, Gap: 10 * vtime.Second}
	recs := []window.Record{{Key: 1, Time: sec(10)}, {Key: 1, Time: sec(0)}, {Key: 0, Time: sec(50)}, {Key: 1, Time: sec(20.001)}}
	assert.Equal(t, []window.Result{
		{Key: 0, Window: win(sec(50), sec(60)), Acc: window.Acc{Count: 1}},
		{Key: 1, Window: win(sec(0), sec(20)), Acc: window.Acc{Count: 2}},
		{Key: 1, Window: win(sec(20.001), sec(30.001)), Acc: window.Acc{Count: 1}},
	}, window.Truth(a, recs))
	assert.Equal(t, window.Acc{Count: 2}, window.Recount(recs, 1, win(sec(0), sec(20))))
}

func TestCompare(t *testing.T) {
	one := window.Acc{Count: 1, Sum: 2, Min: 2, Max: 2}
	two := window.Acc{Count: 2, Sum: 4, Min: 2, Max: 2}
	got := []window.Result{{Key: 0, Window: win(0, 10), Acc: one}, {Key: 1, Window: win(0, 10), Acc: one}}
	want := []window.Result{{Key: 0, Window: win(0, 10), Acc: two}, {Key: 0, Window: win(10, 20), Acc: one}}
	assert.Equal(t, []window.Mismatch{
		{Key: 0, Window: win(0, 10), Want: two, Got: one},
		{Key: 0, Window: win(10, 20), Want: one},
		{Key: 1, Window: win(0, 10), Got: one},
	}, window.Compare(got, want))
	assert.Empty(t, window.Compare(want, want))
}

func TestFinalKeepsTheLastFiring(t *testing.T) {
	w := win(0, 10)
	fs := []window.Firing{{Key: 1, Window: w, Acc: window.Acc{Count: 1}}, {Key: 0, Window: w, Acc: window.Acc{Count: 5}}, {Key: 1, Window: w, Acc: window.Acc{Count: 2}}}
	assert.Equal(t, []window.Result{{Key: 0, Window: w, Acc: window.Acc{Count: 5}}, {Key: 1, Window: w, Acc: window.Acc{Count: 2}}}, window.Final(fs))
}

func TestAccAndAgg(t *testing.T) {
	var a window.Acc
	for _, v := range []int64{4, -2, 9} {
		a.Add(v)
	}
	assert.Equal(t, window.Acc{Count: 3, Sum: 11, Min: -2, Max: 9}, a)
	b := a
	b.Merge(window.Acc{})
	assert.Equal(t, a, b)
	var c window.Acc
	c.Merge(a)
	assert.Equal(t, a, c)
	c.Merge(window.Acc{Count: 1, Sum: 20, Min: 20, Max: 20})
	assert.Equal(t, window.Acc{Count: 4, Sum: 31, Min: -2, Max: 20}, c)
	for s, want := range map[string]int64{"count": 3, "sum": 11, "min": -2, "max": 9} {
		g, ok := window.ParseAgg(s)
		require.True(t, ok)
		assert.Equal(t, want, g.Of(a), s)
		assert.Equal(t, s, g.String())
	}
}

// A session result that a later firing covers is replaced by it; one that
// fired after the larger window stays.
func TestFinalSupersedesGrownSessions(t *testing.T) {
	one, two := window.Acc{Count: 1}, window.Acc{Count: 2}
	fs := []window.Firing{
		{Key: 1, Window: win(0, 10), Acc: one},
		{Key: 1, Window: win(0, 15), Acc: two},  // grew after firing: replaces [0,10)
		{Key: 1, Window: win(20, 30), Acc: one}, // fired after [15,35) below: stays
		{Key: 1, Window: win(15, 35), Acc: two},
		{Key: 2, Window: win(3, 10), Acc: one},
		{Key: 2, Window: win(0, 10), Acc: two}, // starts earlier and covers [3,10)
	}
	assert.Equal(t, []window.Result{
		{Key: 1, Window: win(0, 15), Acc: two},
		{Key: 1, Window: win(15, 35), Acc: two},
		{Key: 2, Window: win(0, 10), Acc: two},
	}, window.Final(fs))
	fs[2], fs[3] = fs[3], fs[2]
	assert.Len(t, window.Final(fs), 4, "a smaller window that fired last is not superseded")
}

// A record that arrives when the watermark stands exactly at its window's
// last instant, within the lateness, fires the window again at once: the
// on-time firing has already happened at that watermark.
func TestLateAtExactlyTheEnd(t *testing.T) {
	o := op(t, window.Config{Assigner: minute, Lateness: 5 * vtime.Second})
	var out window.Output
	o.Add(window.Record{ID: 1, Time: at("10:00:01")}, 0, &out)
	o.AdvanceWatermark(at("10:00:59.999"), &out)
	require.Len(t, out.Firings, 1)
	o.Add(window.Record{ID: 2, Time: at("10:00:02")}, 0, &out)
	require.Len(t, out.Firings, 2, "fired by the record, not by a later watermark")
	assert.Equal(t, window.Firing{Window: win(at("10:00:00"), at("10:01:00")), Acc: window.Acc{Count: 2}, At: at("10:00:59.999"), N: 2, Late: true}, out.Firings[1])
	require.Len(t, out.Late, 1)
	assert.Equal(t, window.Accepted, out.Late[0].Fate)
}

// A session record whose own window is already past cleanup, with no open
// session to join, is dropped and leaves no state.
func TestSessionRecordTooLate(t *testing.T) {
	o := op(t, window.Config{Assigner: window.Assigner{Kind: window.Session, Gap: 10 * vtime.Second}, Lateness: vtime.Second})
	var out window.Output
	o.AdvanceWatermark(sec(16), &out)
	o.Add(window.Record{ID: 1, Time: sec(5.001)}, 0, &out) // [5.001, 15.001): cleanup 16.000, at the watermark
	require.Len(t, out.Late, 1)
	assert.Equal(t, window.Dropped, out.Late[0].Fate)
	assert.Equal(t, win(sec(5.001), sec(15.001)), out.Late[0].Window)
	assert.Equal(t, window.Size{}, o.Size())
	o.Add(window.Record{ID: 2, Time: sec(5.002)}, 0, &out) // cleanup 16.001: kept, and fired at once
	assert.Len(t, out.Late, 2)
	assert.Equal(t, window.Accepted, out.Late[1].Fate)
	require.Len(t, out.Firings, 1)
	assert.Equal(t, int64(1), o.LateRecordsDropped())
}
