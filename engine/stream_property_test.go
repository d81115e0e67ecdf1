package engine_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
	"github.com/tidemark/tidemark/engine/worlds"
)

// Property tests of the stream world over generated scenarios (see
// streamGen). A failure prints the seed and the scenario text, which can be
// saved as a .tdm file and run with `tidemark run FILE --seed N`.

func runStream(t *testing.T, src string, seed uint64) *engine.Trace {
	t.Helper()
	f, err := scenario.Parse("stream.tdm", []byte(src))
	require.NoError(t, err, "seed %d\n%s", seed, src)
	tr, err := engine.Run(f, nil, seed, worlds.All())
	require.NoError(t, err, "seed %d\n%s", seed, src)
	return tr
}

// A watermark never goes backwards: each stream's, each partition's, and
// each join's combined watermark only ever moves forward, whatever the
// stalls, delays, bursts, clock jumps and idleness.
func TestStreamWatermarksNeverGoBack(t *testing.T) {
	for seed := range uint64(seeds()) {
		g := randomStream(rand.New(rand.NewPCG(seed, 31)))
		src := g.Text()
		tr := runStream(t, src, seed)
		st := stream.Of(tr)
		require.NotNil(t, st)
		last := map[[2]int]int64{}
		for _, w := range st.Watermarks {
			k := [2]int{int(w.Stream), int(w.Part)}
			if prev, ok := last[k]; ok {
				require.GreaterOrEqual(t, int64(w.Value), prev, "seed %d: stream %d partition %d went back at step %d\n%s", seed, w.Stream, w.Part, w.Step, src)
			}
			last[k] = int64(w.Value)
		}
		for _, j := range st.Joins {
			for i := 1; i < len(j.Watermarks); i++ {
				require.Greater(t, j.Watermarks[i].Value, j.Watermarks[i-1].Value, "seed %d: join %s went back\n%s", seed, j.Name, src)
			}
		}
		require.NotEmpty(t, st.Watermarks, "seed %d: the end of input is a watermark too", seed)
	}
}

// With an allowed lateness longer than any record's delay, no record is
// dropped or set aside, and every event-time window's final result equals
// the truth: the aggregate of every record of its window.
func TestStreamLatenessAboveTheDelayLosesNothing(t *testing.T) {
	checked := 0
	for seed := range uint64(seeds()) {
		g := randomStream(rand.New(rand.NewPCG(seed, 32)))
		g.Time, g.Map = "event", "" // a processing-time window and a shift are wrong by design
		g.Lateness = (g.MaxDelay + g.MaxDelay).String()
		src := g.Text()
		tr := runStream(t, src, seed)
		st := stream.Of(tr)
		accepted := 0
		for _, l := range st.Late {
			// A join has no allowed lateness; only the window's count here.
			if !l.Join {
				require.Equal(t, window.Accepted, window.Fate(l.Fate), "seed %d: a record past the lateness\n%s", seed, src)
				accepted++
			}
		}
		for _, r := range st.Results(0, tr.Steps()) {
			require.Equal(t, r.Truth, r.Final, "seed %d: window %s of key %d (%d late records accepted)\n%s", seed, r.Window, r.Key, accepted, src)
		}
		require.Empty(t, st.WrongStarts(tr.Steps()), "seed %d\n%s", seed, src)
		// The core's truth agrees: no window's row is missing or stale. (A
		// session that grew after it fired keeps its smaller row in a
		// table keyed by session, which the truth rightly finds stale.)
		if g.Sink == "merge" && !strings.HasPrefix(g.Window, "session") {
			tt := tr.Final()
			for _, k := range append(tt.Missing, tt.Stale...) {
				require.False(t, strings.HasPrefix(k, "results:"), "seed %d: the truth reports %s\n%s", seed, k, src)
			}
		}
		checked++
	}
	require.Positive(t, checked)
}

// Emitting the watermark after every record instead of periodically moves
// when windows fire, but not what they finally hold, when no record is late
// either way.
func TestStreamEmissionChangesTimesNotResults(t *testing.T) {
	compared, differed := 0, 0
	for seed := range uint64(seeds()) {
		g := randomStream(rand.New(rand.NewPCG(seed, 33)))
		g.Time, g.Map = "event", ""
		g.Emit = "periodic"
		periodic := runStream(t, g.Text(), seed)
		g.Emit = "per-record"
		perRecord := runStream(t, g.Text(), seed)
		a, b := stream.Of(periodic), stream.Of(perRecord)
		if lateForAWindow(periodic) || lateForAWindow(perRecord) {
			continue
		}
		compared++
		final := func(tr *engine.Trace, st *stream.Trace) []window.Result {
			var fs []window.Firing
			for _, f := range st.Firings {
				fs = append(fs, window.Firing{Key: f.Key, Window: f.Window, Acc: f.Acc, N: f.N})
			}
			return window.Final(fs)
		}
		require.Equal(t, final(periodic, a), final(perRecord, b), "seed %d\n%s", seed, g.Text())
		at := func(st *stream.Trace) []string {
			var s []string
			for _, f := range st.Firings {
				s = append(s, f.At.String())
			}
			return s
		}
		if !slices.Equal(at(a), at(b)) {
			differed++
		}
	}
	require.Positive(t, compared, "some generated scenarios have no late record")
	assert.Positive(t, differed, "per-record emission should fire some windows at other watermarks")
}

// Every step of a stream scenario is narrated, and the sentence ends; the
// end of input is the last thing each stream does.
func TestStreamNarrationAndEnd(t *testing.T) {
	for seed := range uint64(min(seeds(), 60)) {
		g := randomStream(rand.New(rand.NewPCG(seed, 34)))
		tr := runStream(t, g.Text(), seed)
		for i, n := range tr.Narrations() {
			require.NotContains(t, n, "%!", "seed %d step %d", seed, i+1)
			require.True(t, strings.HasSuffix(n, ".") || strings.HasSuffix(n, ")"), "seed %d step %d: %q", seed, i+1, n)
		}
		st := stream.Of(tr)
		for i := range st.Streams {
			w, _ := st.Watermark(i, -1, tr.Steps())
			require.Equal(t, watermark.End, w, "seed %d: stream %d ends", seed, i)
		}
		for k := range st.Late {
			why := st.WhyLate(k)
			require.True(t, strings.HasSuffix(why, "."), why)
		}
	}
}

// lateForAWindow reports whether any record reached the window operator
// after one of its windows had passed its cleanup time: late, whether or
// not it was counted (Flink skips a sliding window already cleared and
// counts the record only when every one of its windows was).
func lateForAWindow(tr *engine.Trace) bool {
	st := stream.Of(tr)
	if len(st.Late) > 0 {
		return true
	}
	wh := st.Windows[0]
	si := slices.IndexFunc(st.Streams, func(s *stream.StreamHistory) bool { return s.Name == wh.Stream })
	sh := st.Streams[si]
	var ws []window.Window
	for i, a := range st.Arrivals {
		if int(a.Stream) != si {
			continue
		}
		r, _ := st.Record(st.ArrivalID(int32(i)))
		wm, _ := st.Watermark(si, -1, int(a.Step)-1)
		ws = wh.Config.Assigner.Assign(r.UpdatedAt.Add(sh.Shift), ws[:0])
		for _, w := range ws {
			if wm != watermark.None && w.MaxTimestamp().Add(wh.Config.Lateness) <= wm {
				return true
			}
		}
	}
	return false
}
