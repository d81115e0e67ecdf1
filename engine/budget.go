package engine

import (
	"strconv"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
)

// DefaultBudget is the work budget of Build and Run: generous, for a person
// running their own scenario on their own machine (the CLI raises it with
// --max-events). A caller that runs scenarios on others' behalf passes a
// smaller one to BuildWithBudget; docs/scenarios.md lists the limits in use.
// At the engine's size per unit of work, the default is a trace of the order
// of a gigabyte.
const DefaultBudget = 10_000_000

// sentenceUnit is the length of narration that counts as one more unit of
// work: a sentence kept in the trace costs memory in proportion to the
// names and keys it repeats, which a scenario may make as long as it likes.
const sentenceUnit = 128

// budget bounds the work one world does, so that a scenario written by
// somebody else (a visitor's post, a pasted file) cannot take all of a
// process's memory or time. A unit of work is one scheduled event, one row
// (a source version written, a record sent to a topic, a row read or written
// by a pipeline or a consumer), one key named for the first time, or one
// run; and a sentence kept in the trace counts one more per sentenceUnit
// bytes. The builder charges what each line schedules and reserves what it can
// foresee the line will cause (a statement's rows and keys, a workload's
// transactions), and stops at the first line that would pass the limit;
// running charges the rest as it happens (retries, polls, rows re-read),
// drawing first on what the builder reserved, and stops the world when it
// would pass the limit.
//
// Invariant: spent <= limit; prepaid <= spent; over is set once a charge
// was refused, and never cleared.
type budget struct {
	_        nocmp.NoCompare
	limit    int
	spent    int  // units charged, including those reserved ahead
	prepaid  int  // units reserved by the builder for work not done yet; running draws on them first
	building bool // while Build reads lines, charges are new work and never draw on prepaid
	over     bool // a charge would have passed the limit: the world does no more
}

// charge counts n units of work. Past the limit it sets over rather than
// failing the work in hand: what one action does is bounded by what was
// charged before it, and the world stops before the next one.
func (w *World) charge(n int) {
	b := &w.budget
	if !b.building {
		if b.prepaid >= n {
			b.prepaid -= n
			return
		}
		n -= b.prepaid
		b.prepaid = 0
	}
	if n > b.limit-b.spent {
		b.over = true
		return
	}
	b.spent += n
}

// reserve charges, while building, n units of work that a line will cause
// when the world runs; running then draws on them instead of charging twice.
func (w *World) reserve(n int) {
	w.charge(n)
	if !w.budget.over {
		w.budget.prepaid += n
	}
}

// room is how many more units the budget allows.
func (w *World) room() int { return w.budget.limit - w.budget.spent }

// Err returns why the world stopped before its end, or nil: the error a
// world refused to go on with (see Refuse), or a *BudgetError when running
// would have passed its work budget. Step reports no further event once
// Err is not nil, and the trace so far is incomplete (its rows are not
// missing, the run just stopped), so a caller shows the error rather than
// the trace.
func (w *World) Err() error {
	if w.refused != nil {
		return w.refused
	}
	if !w.budget.over {
		return nil
	}
	return &BudgetError{
		Pos:     scenario.Pos{File: w.trace.File.Name},
		Limit:   w.budget.limit,
		Running: true,
		At:      w.now,
		Step:    len(w.trace.Events),
	}
}

// BudgetError reports a scenario that needs more work than the budget of the
// world running it allows. Build returns one naming the first line that
// would pass the limit; World.Err and Run return one without a line when
// running would have passed it, through work no line could announce
// (retries, polls, rows read again).
type BudgetError struct {
	_       nocmp.NoCompare
	Pos     scenario.Pos // the line that would pass the limit; Line is 0 when running passed it
	Limit   int          // the budget, in units of work
	Running bool         // the limit was reached while running, not while building
	At      vtime.Time   // when running: the virtual time the world stopped at
	Step    int          // when running: the last step completed
}

// Error says what the limit is and where it was reached, as
// file:line:col: this scenario would schedule more than N …; the limit here is N.
func (e *BudgetError) Error() string {
	n := strconv.Itoa(e.Limit)
	what := "this scenario would schedule more than " + n + " events, rows, keys, partitions and runs"
	if !e.Running {
		return e.Pos.String() + ": " + what + "; the limit here is " + n
	}
	return prose.F("%s: running stopped at %s after step %d: %s (retries, polls and rows read again count as they happen); the limit here is %s",
		e.Pos.File, e.At, e.Step, what, n)
}

// budgetError returns the error of a budget passed while building the line at pos.
func (w *World) budgetError(pos scenario.Pos) *BudgetError {
	return &BudgetError{Pos: pos, Limit: w.budget.limit}
}
