package join

import (
	"sort"

	"github.com/tidemark/tidemark/engine/sorted"
)

// Match names one joined pair by its records' ids.
type Match struct {
	Key         int32
	Left, Right int64
}

func compareMatches(a, b Match) int {
	switch {
	case a.Key != b.Key:
		return int(a.Key - b.Key)
	case a.Left != b.Left:
		return cmpInt(a.Left, b.Left)
	}
	return cmpInt(a.Right, b.Right)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Truth is every pair the join should emit: each left and right record of
// one key whose times fall in the interval, however late either arrived.
// It is what the simulator knows and the operator cannot; the matches come
// in order of key, left id and right id.
func Truth(cfg Config, left, right []Record) []Match {
	lower, upper := cfg.bounds()
	rs := append([]Record(nil), right...)
	sorted.Stable(rs, func(i, j int32) int {
		a, b := &rs[i], &rs[j]
		if a.Key != b.Key {
			return int(a.Key - b.Key)
		}
		return cmpInt(int64(a.Time), int64(b.Time))
	})
	var out []Match
	for _, l := range left {
		lo, hi := l.Time.Add(lower), l.Time.Add(upper)
		i := sort.Search(len(rs), func(i int) bool { return rs[i].Key > l.Key || rs[i].Key == l.Key && rs[i].Time >= lo })
		for ; i < len(rs) && rs[i].Key == l.Key && rs[i].Time <= hi; i++ {
			out = append(out, Match{Key: l.Key, Left: l.ID, Right: rs[i].ID})
		}
	}
	sortMatches(out)
	return out
}

// Matches names the given pairs by their ids, in order of key, left id and
// right id.
func Matches(pairs []Pair) []Match {
	out := make([]Match, len(pairs))
	for i, p := range pairs {
		out[i] = Match{Key: p.Left.Key, Left: p.Left.ID, Right: p.Right.ID}
	}
	sortMatches(out)
	return out
}

// sortMatches orders matches by key, left id and right id.
func sortMatches(ms []Match) {
	sorted.Stable(ms, func(i, j int32) int { return compareMatches(ms[i], ms[j]) })
}

// Diff compares emitted matches with the truth, both sorted as Matches and
// Truth sort them: missing are the pairs that never joined, extra the ones
// emitted that should not have been (or emitted twice).
func Diff(got, want []Match) (missing, extra []Match) {
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j == len(want) || i < len(got) && compareMatches(got[i], want[j]) < 0:
			extra = append(extra, got[i])
			i++
		case i == len(got) || compareMatches(got[i], want[j]) > 0:
			missing = append(missing, want[j])
			j++
		default:
			i++
			j++
		}
	}
	return missing, extra
}
