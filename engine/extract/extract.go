// Package extract describes an incremental extractor: a pipeline that reads
// the rows changed since its stored high-water mark, writes them to a target
// and moves the mark forward.
//
// It holds the pipeline's design choices and the arithmetic of a mark; the
// engine schedules the phases of each run and applies them to the world.
package extract

import (
	"strconv"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// MarkKind is what the stored mark holds.
type MarkKind uint8

// Mark kinds, weakest first.
const (
	ReaderClock MarkKind = iota // the reader's now() at read time (the seed lesson's "obvious build")
	SourceClock                 // the source database's now() at read time
	MaxSeen                     // the largest updated_at among the rows read
	Position                    // the source's log position (LSN) at read time
)

// ParseMarkKind reads timestamp, source-timestamp, max-seen or lsn.
func ParseMarkKind(s string) (MarkKind, bool) {
	switch s {
	case "timestamp", "reader-clock":
		return ReaderClock, true
	case "source-timestamp", "source-clock":
		return SourceClock, true
	case "max-seen":
		return MaxSeen, true
	case "lsn", "position":
		return Position, true
	}
	return 0, false
}

func (k MarkKind) String() string {
	return [...]string{"timestamp", "source-timestamp", "max-seen", "lsn"}[k]
}

// Describe says in words what a mark of this kind stores.
func (k MarkKind) Describe() string {
	return [...]string{
		"the reader's clock at read time",
		"the source database's clock at read time",
		"the largest updated_at the run read",
		"the source's log position (LSN) at read time",
	}[k]
}

// IsTimestamp reports whether the mark compares against updated_at.
func (k MarkKind) IsTimestamp() bool { return k != Position }

// Mark is a stored mark value: milliseconds of virtual time for timestamp
// kinds, an LSN for Position. Set is false before the first run stores one.
type Mark struct {
	Set bool
	V   int64
}

// Format prints m the way the state table would show it.
func (k MarkKind) Format(m Mark) string {
	if !m.Set {
		return "none"
	}
	if k == Position {
		return "lsn " + strconv.FormatInt(m.V, 10)
	}
	return vtime.Time(m.V).String()
}

// ParseMark reads a mark value written in a scenario: a time for timestamp
// kinds, an integer LSN for Position; "none" clears it.
func (k MarkKind) ParseMark(s string) (Mark, error) {
	if s == "none" {
		return Mark{}, nil
	}
	if k == Position {
		n, ok := whole.Int64(s)
		if !ok || n < 0 {
			return Mark{}, prose.Errorf("expected a log position (a whole number) for an lsn mark, found %q", s)
		}
		return Mark{Set: true, V: n}, nil
	}
	t, err := vtime.ParseTime(s)
	if err != nil {
		return Mark{}, prose.Errorf("expected a time such as 10:00:02 for a %s mark, found %q", k, s)
	}
	return Mark{Set: true, V: int64(t)}, nil
}

// Predicate is how the read compares against the mark.
type Predicate uint8

// Predicates.
const (
	GT  Predicate = iota // column > mark
	GTE                  // column >= mark
)

// ParsePredicate reads gt or gte.
func ParsePredicate(s string) (Predicate, bool) {
	switch s {
	case "gt":
		return GT, true
	case "gte":
		return GTE, true
	}
	return 0, false
}

func (p Predicate) String() string { return [...]string{"gt", "gte"}[p] }

// Symbol is the SQL operator.
func (p Predicate) Symbol() string { return [...]string{">", ">="}[p] }

// Advance is the order of writing the output and storing the mark.
type Advance uint8

// Advance orders.
const (
	After  Advance = iota // write, then store the mark: at-least-once
	Before                // store the mark, then write: at-most-once
	Atomic                // write and store in one transaction
)

// ParseAdvance reads after, before or atomic.
func ParseAdvance(s string) (Advance, bool) {
	switch s {
	case "after":
		return After, true
	case "before":
		return Before, true
	case "atomic":
		return Atomic, true
	}
	return 0, false
}

func (a Advance) String() string { return [...]string{"after", "before", "atomic"}[a] }

// Crash is a point inside a run at which the process dies.
type Crash uint8

// Crash points.
const (
	NoCrash    Crash = iota
	AfterMark        // the mark is stored and the write has not happened
	MidWrite         // half of the rows are written
	AfterWrite       // the write is done and the mark is not stored
	Between          // between the run's two durable steps, whichever order they come in
)

// ParseCrash reads none, after-mark, mid-write, after-write or between.
func ParseCrash(s string) (Crash, bool) {
	switch s {
	case "none":
		return NoCrash, true
	case "after-mark":
		return AfterMark, true
	case "mid-write":
		return MidWrite, true
	case "after-write":
		return AfterWrite, true
	case "between":
		return Between, true
	}
	return 0, false
}

func (c Crash) String() string {
	return [...]string{"none", "after-mark", "mid-write", "after-write", "between"}[c]
}

// Scope is how many marks a pipeline reading several tables keeps.
type Scope uint8

// Mark scopes.
const (
	PerTable Scope = iota // one mark per source table; "processed through" is their minimum
	Global                // one mark for every table
)

// ParseScope reads per-table or global.
func ParseScope(s string) (Scope, bool) {
	switch s {
	case "per-table":
		return PerTable, true
	case "global":
		return Global, true
	}
	return 0, false
}

func (s Scope) String() string { return [...]string{"per-table", "global"}[s] }

// Config is one pipeline's design.
type Config struct {
	Name      string
	From      []string // source tables, in declaration order
	To        string   // target table
	Mark      MarkKind
	Predicate Predicate
	Overlap   vtime.Duration // re-read this far behind a timestamp mark
	Advance   Advance
	CAS       bool   // store the mark only if it still holds the value this run read, and only forward
	Clock     string // the node clock the reader's now() comes from
	Scope     Scope
	// Interval, when positive, makes the pipeline keep no mark: each run
	// reads and overwrites one half-open interval of updated_at this wide,
	// the last to have ended Settle or more before the run. (Ended is not
	// closed in the checks' sense: a transaction that began before its end
	// may still commit rows into it.)
	Interval, Settle vtime.Duration
}

// Ended is the interval [from, to) a run at t of an interval pipeline
// takes: the last one to have ended at least Settle before t, counted from
// midnight.
func (c *Config) Ended(t vtime.Time) (from, to vtime.Time) {
	w := int64(c.Interval)
	to = vtime.Time((int64(t) - int64(c.Settle)) / w * w)
	return to - vtime.Time(w), to
}

// MarkNames lists the marks the pipeline keeps: one per table, or one named
// after the pipeline when the scope is Global or there is one table; an
// interval pipeline keeps none.
func (c *Config) MarkNames() []string {
	if c.Interval > 0 {
		return nil
	}
	if c.Scope == Global || len(c.From) == 1 {
		return []string{c.Name}
	}
	out := make([]string, len(c.From))
	for i, t := range c.From {
		out[i] = c.Name + "/" + t
	}
	return out
}

// MarkFor names the mark that governs table.
func (c *Config) MarkFor(table string) string {
	if c.Scope == Global || len(c.From) == 1 {
		return c.Name
	}
	return c.Name + "/" + table
}

// Lower is the lowest value the next read will look at given a stored mark,
// after the overlap. ok is false when the mark is not set (everything is read).
func (c *Config) Lower(m Mark) (lo int64, ok bool) {
	if !m.Set {
		return 0, false
	}
	if c.Mark.IsTimestamp() {
		return m.V - int64(c.Overlap), true
	}
	return m.V, true
}

// Unreachable reports whether a committed row whose compared value is v can
// never be read by a later run while the mark is m and only moves forward.
func (c *Config) Unreachable(m Mark, v int64) bool {
	lo, ok := c.Lower(m)
	if !ok {
		return false
	}
	if c.Predicate == GTE {
		return v < lo
	}
	return v <= lo
}
