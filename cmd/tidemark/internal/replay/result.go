package replay

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Result is one scenario's replay beside the engine's trace.
type Result struct {
	Scenario, Title string
	Knobs           string // the knob settings, as name=value in the file's order
	Seed            uint64
	Server          string // the PostgreSQL that answered
	Schema          string // the schema the replay created and dropped
	// NotReplayable says why the replay could not play the scenario
	// faithfully; nothing else is set then.
	NotReplayable string
	Runs          []RunResult
	Engine        Truth
	Postgres      Truth
	Marks         []MarkResult
	Notes         []string // other disagreements: ids a sequence drew, the order commits were decoded in
}

// RunResult is what one extractor run read, by the engine and by PostgreSQL.
type RunResult struct {
	Run              int // from 1, as the CLI's timeline numbers runs
	Actor            string
	At               vtime.Time
	EngineRead       bool
	Engine           []string // keys read, in read order
	EngineConflict   bool     // its conditional mark update found another value
	PostgresRead     bool
	Postgres         []string
	PostgresConflict bool
}

// Agrees reports whether the run went the same way in both.
func (r *RunResult) Agrees() bool {
	return r.EngineRead == r.PostgresRead && sameKeys(r.Engine, r.Postgres) && r.EngineConflict == r.PostgresConflict
}

// Truth is the final state of the targets against the source: keys
// missing, duplicated (as KEYxCOUNT) and stale, each sorted.
type Truth struct {
	Missing, Duplicated, Stale []string
}

func (t Truth) sorted() Truth {
	for _, l := range []*[]string{&t.Missing, &t.Duplicated, &t.Stale} {
		slices.SortFunc(*l, mvcc.CompareKeys)
	}
	return t
}

// MarkResult is a stored mark's final value, as the engine prints it and as
// PostgreSQL holds it (a log position counted in commits, as the engine's are).
type MarkResult struct {
	Name, Engine, Postgres string
	Position               string // for a log-position mark, the WAL position PostgreSQL stored
}

// newResult fills in the engine's side.
func newResult(t *engine.Trace) *Result {
	h := hwm.Of(t)
	res := &Result{Scenario: t.File.ID, Title: t.File.Title, Seed: t.Seed}
	var knobs []string
	for _, k := range t.File.Knobs {
		knobs = append(knobs, k.Name+"="+t.Settings[k.Name])
	}
	res.Knobs = strings.Join(knobs, " ")
	var runs []hwm.RunRecord // none in a scenario of the log alone, which the replay refuses
	if h != nil {
		runs = h.Runs
	}
	for i := range runs {
		rr := &runs[i]
		actor := rr.Pipeline
		if rr.Worker != "" {
			actor += "/" + rr.Worker
		}
		keys := rr.Keys
		if keys == nil {
			keys = []string{}
		}
		res.Runs = append(res.Runs, RunResult{Run: i + 1, Actor: actor, At: rr.At, EngineRead: rr.ReadStep > 0, Engine: keys, EngineConflict: rr.Aborted})
	}
	final := t.Final()
	e := Truth{Missing: slices.Clone(final.Missing), Stale: slices.Clone(final.Stale), Duplicated: []string{}}
	for _, k := range slices.Sorted(maps.Keys(final.Duplicated)) {
		e.Duplicated = append(e.Duplicated, fmt.Sprintf("%sx%d", k, final.Duplicated[k]))
	}
	if e.Missing == nil {
		e.Missing = []string{}
	}
	if e.Stale == nil {
		e.Stale = []string{}
	}
	res.Engine = e.sorted()
	if h != nil {
		for _, m := range h.Marks {
			p, _ := h.MarkAt(m, t.Steps())
			res.Marks = append(res.Marks, MarkResult{Name: m.Name, Engine: p.Display})
		}
	}
	return res
}

// Agrees reports whether PostgreSQL did what the engine says in every
// respect the replay compares. A scenario that was not replayed does not agree.
func (r *Result) Agrees() bool {
	if r.NotReplayable != "" || len(r.Notes) > 0 {
		return false
	}
	for i := range r.Runs {
		if !r.Runs[i].Agrees() {
			return false
		}
	}
	for _, m := range r.Marks {
		if m.Engine != m.Postgres {
			return false
		}
	}
	return slices.Equal(r.Engine.Missing, r.Postgres.Missing) &&
		slices.Equal(r.Engine.Duplicated, r.Postgres.Duplicated) &&
		slices.Equal(r.Engine.Stale, r.Postgres.Stale)
}

// Disagrees reports whether the scenario was replayed and PostgreSQL
// disagreed with the engine.
func (r *Result) Disagrees() bool { return r.NotReplayable == "" && !r.Agrees() }

// ExitCode is the replay command's exit status over the results of one
// invocation: 1 when PostgreSQL disagreed with the engine on any of them,
// 3 when none disagreed but some scenario or knob setting was not
// replayable, and 0 when every one was replayed and agreed.
func ExitCode(results []*Result) int {
	code := 0
	for _, r := range results {
		switch {
		case r.Disagrees():
			return 1
		case r.NotReplayable != "":
			code = 3
		}
	}
	return code
}

// Text prints the replay: per run the rows each side read, then the final
// truth and marks side by side. A line where the two differ starts with ≠.
func (r *Result) Text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s\n", r.Scenario, r.Title)
	knobs := r.Knobs
	if knobs == "" {
		knobs = "none"
	}
	fmt.Fprintf(&b, "knobs: %s   seed: %d\n", knobs, r.Seed)
	if r.NotReplayable != "" {
		fmt.Fprintf(&b, "NOT REPLAYABLE: %s\n\n", r.NotReplayable)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "postgres: %s\n", r.Server)
	width := len("duplicated")
	for _, run := range r.Runs {
		width = max(width, len(runLabel(run)))
	}
	for _, m := range r.Marks {
		width = max(width, len("mark "+m.Name))
	}
	col := 16
	for _, run := range r.Runs {
		col = max(col, len(readCell(run.EngineRead, run.Engine, run.EngineConflict))+2)
	}
	line := func(same bool, label, engine, pg string) {
		mark := "  "
		if !same {
			mark = "≠ "
		}
		fmt.Fprintf(&b, "%s%-*s  %-*s  %s\n", mark, width, label, col, engine, pg)
	}
	line(true, "run", "engine read", "postgres read")
	for _, run := range r.Runs {
		line(run.Agrees(), runLabel(run), readCell(run.EngineRead, run.Engine, run.EngineConflict), readCell(run.PostgresRead, run.Postgres, run.PostgresConflict))
	}
	line(true, "final", "engine", "postgres")
	for _, f := range []struct {
		name   string
		e, pgs []string
	}{{"missing", r.Engine.Missing, r.Postgres.Missing}, {"duplicated", r.Engine.Duplicated, r.Postgres.Duplicated}, {"stale", r.Engine.Stale, r.Postgres.Stale}} {
		line(slices.Equal(f.e, f.pgs), f.name, keyList(f.e), keyList(f.pgs))
	}
	for _, m := range r.Marks {
		pg := m.Postgres
		if m.Position != "" {
			pg += " = " + m.Position
		}
		line(m.Engine == m.Postgres, "mark "+m.Name, m.Engine, pg)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "≠ %s\n", n)
	}
	if r.Agrees() {
		b.WriteString("AGREE: PostgreSQL returned the same rows to every run and ends with the same target and marks.\n\n")
	} else {
		b.WriteString("DIFFER: PostgreSQL and the engine disagree on the lines marked ≠.\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func runLabel(r RunResult) string {
	return fmt.Sprintf("%d %s %s", r.Run, r.Actor, r.At)
}

// readCell spells what a run read: its keys, "-" when it never read, and a
// note when its conditional mark update gave up.
func readCell(read bool, keys []string, conflict bool) string {
	if !read {
		return "-"
	}
	s := keyList(keys)
	if conflict {
		s += " (mark conflict)"
	}
	return s
}
