package window

import (
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
)

// Result is one key's aggregate over one window.
type Result struct {
	_      nocmp.NoCompare
	Key    int32
	Window Window
	Acc    Acc
}

// compareResults orders results by key, then window start, then end.
func compareResults(a, b Result) int {
	switch {
	case a.Key != b.Key:
		return int(a.Key - b.Key)
	case a.Window.Start != b.Window.Start:
		return cmpTime(a.Window.Start, b.Window.Start)
	}
	return cmpTime(a.Window.End, b.Window.End)
}

// Truth is what the windows should say: the aggregate over every record of
// each key and each window its event time falls into, whenever and
// however late the record arrived. Sessions are formed from all of a key's
// records at once. It is what the simulator knows and no operator can; the
// results come in order of key, window start and end.
func Truth(a Assigner, recs []Record) []Result {
	byKey := append([]Record(nil), recs...)
	sorted.Stable(byKey, func(i, j int32) int {
		x, y := &byKey[i], &byKey[j]
		if x.Key != y.Key {
			return int(x.Key - y.Key)
		}
		return cmpTime(x.Time, y.Time)
	})
	var out []Result
	if a.Merging() {
		for i := 0; i < len(byKey); {
			r := byKey[i]
			cur := Result{Key: r.Key, Window: Window{Start: r.Time, End: r.Time.Add(a.Gap)}}
			cur.Acc.Add(r.Value)
			for i++; i < len(byKey) && byKey[i].Key == r.Key && byKey[i].Time <= cur.Window.End; i++ {
				// The next record's window [t, t+gap) touches or overlaps the session.
				cur.Window.End = max(cur.Window.End, byKey[i].Time.Add(a.Gap))
				cur.Acc.Add(byKey[i].Value)
			}
			out = append(out, cur)
		}
		return out
	}
	idx := map[winKey]int{}
	var ws []Window
	for _, r := range byKey {
		ws = a.Assign(r.Time, ws[:0])
		for _, w := range ws {
			k := winKey{r.Key, w.Start, w.End}
			j, ok := idx[k]
			if !ok {
				j = len(out)
				idx[k] = j
				out = append(out, Result{Key: r.Key, Window: w})
			}
			out[j].Acc.Add(r.Value)
		}
	}
	sortResults(out)
	return out
}

// Final is what a sink holding the latest result of each key and window
// shows after the given firings: the last firing of each, in order of key,
// window start and end — except a session result that a later firing of
// the same key covers. A session that fired and then grew by a late
// record within the allowed lateness is emitted again as a new, larger
// window; Final keeps the larger one, as a sink that replaces a session
// by the session that absorbed it would. (A sink keyed by the window
// keeps both, and the smaller one is then a stale row the truth does not
// have.)
func Final(firings []Firing) []Result {
	type last struct {
		Result
		at   int // index of its last firing
		gone bool
	}
	idx := map[winKey]int{}
	var rs []last
	for n, f := range firings {
		k := winKey{f.Key, f.Window.Start, f.Window.End}
		if j, ok := idx[k]; ok {
			rs[j].Acc, rs[j].at = f.Acc, n
			continue
		}
		idx[k] = len(rs)
		rs = append(rs, last{Result: Result{Key: f.Key, Window: f.Window, Acc: f.Acc}, at: n})
	}
	sorted.Stable(rs, func(i, j int32) int { return compareResults(rs[i].Result, rs[j].Result) })
	// A covering window starts no later than the one it covers: look
	// forward from each result over the results that start inside it.
	for i := range rs {
		b := &rs[i]
		for j := i + 1; j < len(rs) && rs[j].Key == b.Key && rs[j].Window.Start < b.Window.End; j++ {
			if a := &rs[j]; a.Window.End <= b.Window.End && a.at < b.at {
				a.gone = true
			}
		}
		for j := i - 1; j >= 0 && rs[j].Key == b.Key && rs[j].Window.Start == b.Window.Start; j-- {
			if a := &rs[j]; a.Window.End <= b.Window.End && a.at < b.at {
				a.gone = true // same start, shorter: sorted before b
			}
		}
	}
	out := make([]Result, 0, len(rs))
	for _, r := range rs {
		if !r.gone {
			out = append(out, r.Result)
		}
	}
	return out
}

// Mismatch is one key and window where the emitted result and the truth differ.
type Mismatch struct {
	Key    int32
	Window Window
	Want   Acc // the truth; zero when the window should not exist
	Got    Acc // what was emitted; zero when nothing was
}

// Missing reports whether nothing was emitted for a window that has records.
func (m Mismatch) Missing() bool { return m.Got.Count == 0 }

// Extra reports whether a window was emitted that the truth does not have
// (a session cut in two by a late record, or a processing-time window).
func (m Mismatch) Extra() bool { return m.Want.Count == 0 }

// Compare lists where got (as Final gives it) and want (as Truth gives it)
// differ, in order of key, window start and end.
func Compare(got, want []Result) []Mismatch {
	var out []Mismatch
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		var c int
		switch {
		case i == len(got):
			c = 1
		case j == len(want):
			c = -1
		default:
			c = compareResults(got[i], want[j])
		}
		switch {
		case c < 0:
			out = append(out, Mismatch{Key: got[i].Key, Window: got[i].Window, Got: got[i].Acc})
			i++
		case c > 0:
			out = append(out, Mismatch{Key: want[j].Key, Window: want[j].Window, Want: want[j].Acc})
			j++
		default:
			if got[i].Acc != want[j].Acc {
				out = append(out, Mismatch{Key: got[i].Key, Window: got[i].Window, Want: want[j].Acc, Got: got[i].Acc})
			}
			i++
			j++
		}
	}
	return out
}

// Recount is the check a team can run on a closed window: count the
// records of key whose event time falls in w among those it can still
// read at the source.
func Recount(recs []Record, key int32, w Window) Acc {
	var a Acc
	for _, r := range recs {
		if r.Key == key && w.Contains(r.Time) {
			a.Add(r.Value)
		}
	}
	return a
}

// sortResults orders results by key, window start and end.
func sortResults(rs []Result) {
	sorted.Stable(rs, func(i, j int32) int { return compareResults(rs[i], rs[j]) })
}
