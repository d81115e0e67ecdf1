//go:build !tm_stream

package hwm

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/prose"
)

// The parts of Explain that read the high-water-mark world's pipelines,
// marks and runs. The build of the log and stream worlds runs no such
// world, so it has explain_nopipes.go in their place.

// readBy names the first run that read table's row with key after v
// committed, by step n, or "".
func (t *Trace) readBy(key, table string, v engine.VersionRecord, n int) string {
	for _, r := range t.Runs {
		if r.ReadStep == 0 || r.ReadStep > n || r.ReadStep < int(v.CommitStep) || !slices.Contains(r.Keys, key) {
			continue
		}
		p := t.pipeFor(table)
		if p != nil && p.Name == r.Pipeline {
			return prose.F("the run at %s", r.At)
		}
	}
	return ""
}

func compared(p *extract.Config, v engine.VersionRecord) int64 {
	if p.Mark.IsTimestamp() {
		return int64(v.UpdatedAt)
	}
	return int64(v.LSN)
}

func (t *Trace) pipeFor(table string) *extract.Config {
	for i := range t.Pipes {
		if slices.Contains(t.Pipes[i].From, table) {
			return &t.Pipes[i]
		}
	}
	return nil
}

// passedBy returns a pipeline reading table whose stored mark, just before
// v committed, was already past v, and that mark; ok is false when no
// pipeline reads the table or one of them can still read v (a second
// pipeline whose mark is behind reads it in its turn).
func (t *Trace) passedBy(table string, v engine.VersionRecord) (p *extract.Config, m extract.Mark, ok bool) {
	for i := range t.Pipes {
		q := &t.Pipes[i]
		if !slices.Contains(q.From, table) {
			continue
		}
		qm, known := t.markBefore(q, table, int(v.CommitStep))
		if !known || !q.Unreachable(qm, compared(q, v)) {
			return nil, extract.Mark{}, false
		}
		if p == nil {
			p, m = q, qm
		}
	}
	return p, m, p != nil
}

// markBefore is the value of the mark governing table just before step s.
func (t *Trace) markBefore(p *extract.Config, table string, s int) (extract.Mark, bool) {
	name := p.MarkFor(table)
	for _, h := range t.Marks {
		if h.Name == name {
			pt, ok := t.MarkAt(h, s-1)
			if !ok {
				return extract.Mark{}, false
			}
			return extract.Mark{Set: pt.Set, V: pt.Value}, pt.Set
		}
	}
	return extract.Mark{}, false
}

// lostBy finds a run that read key but lost it: a crash after the mark moved.
func (t *Trace) lostBy(key string, v engine.VersionRecord, n int) string {
	for _, r := range t.Runs {
		if r.ReadStep == 0 || r.ReadStep > n || r.ReadStep < int(v.CommitStep) || !slices.Contains(r.Keys, key) {
			continue
		}
		if r.Crashed && r.EndStep <= n && r.MarkStep > 0 && r.MarkStep <= n {
			return prose.F("the run at %s read it, then crashed before writing it, after the mark had moved to %s; nothing will read it again.", r.At, r.MarkAfter)
		}
	}
	return ""
}

// readBefore says, for a version v of table that committed after runs of
// an interval pipeline had read the interval holding its updated_at, which
// runs did (a crash's retry reads it again) and that only a run of that
// interval again copies it; "" when no run did.
func (t *Trace) readBefore(table string, v engine.VersionRecord) string {
	p := t.pipeFor(table)
	if p == nil || p.Interval == 0 {
		return ""
	}
	var first *RunRecord
	var at []string
	for i := range t.Runs {
		r := &t.Runs[i]
		if r.Pipeline == p.Name && r.ReadStep > 0 && r.ReadStep < int(v.CommitStep) && r.From <= v.UpdatedAt && v.UpdatedAt < r.To {
			if first == nil {
				first = r
			}
			at = append(at, r.At.String())
		}
	}
	if first == nil {
		return ""
	}
	runs := "the run at " + at[0]
	if n := len(at); n > 1 {
		runs = "the runs at " + strings.Join(at[:n-1], ", ") + " and " + at[n-1]
	}
	return prose.F("its updated_at lies in %s..%s, which %s read before this commit, so only a run of that interval again copies it", first.From, first.To, runs)
}
