package engine

import (
	"cmp"
	"slices"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Kind names what an event did.
type Kind uint8

// Event kinds, one list for every world, so that a kind's number and name
// are the same whichever worlds a World is composed of; a new world adds
// its kinds at the end, as does a world that gains one later (see
// docs/architecture.md, "Why it is shaped this way"). Some kinds serve several worlds: a write is a run's or a
// consumer's, a crash a run's, an application's or a consumer's.
const (
	// The high-water-mark world's source. The statement kinds follow
	// mvcc.Op's order.
	KindBegin Kind = iota
	KindInsert
	KindUpdate
	KindDelete
	KindCommit
	KindRollback

	// The core's clocks.
	KindClockJump

	// The high-water-mark world's extractor runs and operators.
	KindRead
	KindWrite
	KindMark
	KindAtomic
	KindConflict
	KindCrash
	KindReset

	// The log world.
	KindProduce     // a producer's send, a retry, or change capture appending to the log
	KindPoll        // a consumer's poll
	KindOffset      // an offset commit, or a refused one
	KindRebalance   // a member joins or leaves, or partitions are added
	KindRetention   // retention deletes segments
	KindOffsetReset // auto.offset.reset moves a position, or refuses to
	KindPause       // a consumer pauses or resumes, or a producer goes offline or comes back
	KindLost        // an event that never reaches the log

	// The stream world.
	KindArrive    // a stream reads a record
	KindLate      // a stream reads a record that a window or a join finds late
	KindWatermark // a stream's watermark moves, a partition turns idle or active, or the input ends
	KindFire      // a window operator fires windows
	KindRelease   // a join releases buffered records its watermark has passed

	// The stream world's checkpoints, sinks, buffers and readers.
	KindCheckpoint  // a checkpoint begins, an operator snapshots its state, a checkpoint completes, expires or is abandoned
	KindRestore     // a failed job restarts from a checkpoint, or cannot
	KindTransaction // a two-phase-commit sink commits or aborts a transaction
	KindProcess     // an operator takes a record off its input buffer
	KindShed        // a full buffer drops a record
	KindReport      // a reader reads a target table

	// The high-water-mark world's source, again: a change of the rule that
	// fills a table's updated_at (a deploy, a trigger replaced).
	KindAlter
)

var kindNames = [...]string{"begin", "insert", "update", "delete", "commit", "rollback", "clock-jump",
	"read", "write", "mark", "write+mark", "conflict", "crash", "reset",
	"produce", "poll", "offset-commit", "rebalance", "retention", "offset-reset", "pause", "lost",
	"arrive", "late", "watermark", "fire", "release",
	"checkpoint", "restore", "transaction", "process", "shed", "report",
	"alter"}

// String is the kind's name as the JSON trace and the widget's classes spell it.
func (k Kind) String() string { return kindNames[k] }

// Event is one step of a trace.
//
// Most events keep the sentence they were given when they happened. Events
// a world makes by the million (a source transaction's steps, a producer's
// send, a poll) keep no sentence: they point at the world's records of what
// happened and are narrated from them on demand (see World.EmitLater), which
// keeps a large trace small and fast to build.
//
// An event's step is its position in Trace.Events plus one, and it keeps
// no copy of it.
//
// Invariant: when by is 0, a indexes Trace.actors and b Trace.texts;
// otherwise Trace.histories[by-1], the History of the world that emitted
// the event with EmitLater, names its actor and narrates it from a and b.
// The struct is kept to 24 bytes because a trace holds one per step.
type Event struct {
	_    nocmp.NoCompare
	At   vtime.Time // true virtual time
	Run  int32      // the extractor run this event belongs to, or -1
	a, b int32
	Kind Kind
	by   uint8 // the Narrator of an event narrated on demand; 0 when it keeps its sentence
}

// Ref returns the two numbers the world that emitted e with EmitLater gave
// it, from which its History narrates it.
func (e *Event) Ref() (a, b int32) { return e.a, e.b }

// OnDemand reports whether e keeps no sentence of its own and is narrated
// by its world's History when read: the events worlds make by the million.
func (e *Event) OnDemand() bool { return e.by != 0 }

// Actor names who acted: a transaction, a pipeline worker, a clock, an operator.
func (t *Trace) Actor(e *Event) string {
	if e.by == 0 {
		return t.actors[e.a]
	}
	return t.histories[e.by-1].Actor(e)
}

// VersionRecord is one committed row version, or an event a producer meant
// to send. It holds no pointers, so a trace of millions costs the garbage
// collector nothing to trace: Trace.VersionKey and Trace.VersionTable spell
// its key and table.
type VersionRecord struct {
	UpdatedAt  vtime.Time
	LSN        mvcc.LSN
	Seq        int32
	CommitStep int32
	KeyID      int32 // the key's id: an index of the trace's key texts, and the key's truth
	TableID    int16 // the table, or the producer, as an index of the trace's table names
	Op         mvcc.Op
	Backdated  bool
}

// RowKey is the key of r, a row of one of t's targets (rows name their key
// by the engine's key id).
func (t *Trace) RowKey(r *sink.Row) string { return t.keyText[r.KeyID] }

// Key is the text of the key with id, as a target row holds it.
func (t *Trace) Key(id int32) string { return t.keyText[id] }

// TruthKey names the key with id as the truth does: with its target's name
// in front ("fct_orders:3") when the scenario has several targets.
func (t *Trace) TruthKey(id int32) string { return t.truth.nameOf(id, t.keyText) }

// KeyCount is the number of key ids: every id is below it.
func (t *Trace) KeyCount() int { return len(t.keyText) }

// KeyOrder lists every key id in the truth's key order (the order TruthAt
// lists keys in), ranked once when the run ended.
func (t *Trace) KeyOrder() []int32 {
	_, order := t.truth.ranks(t.keyText)
	return order
}

// VersionKey is the key of v, a version of t.
func (t *Trace) VersionKey(v *VersionRecord) string { return t.keyText[v.KeyID] }

// VersionTable names the table (or producer) v belongs to.
func (t *Trace) VersionTable(v *VersionRecord) string { return t.tables[v.TableID] }

// tableID returns the index of a table's (or producer's) name among the
// trace's table names, adding it on first use. There are a handful.
func (t *Trace) tableID(name string) int16 {
	if i := slices.Index(t.tables, name); i >= 0 {
		return int16(i)
	}
	t.tables = append(t.tables, name)
	return int16(len(t.tables) - 1)
}

// TargetHistory is every row a target ever held.
type TargetHistory struct {
	Name string
	Key  string
	Mode sink.Mode
	Rows []sink.Row
}

// Counts is the truth at one step.
type Counts struct {
	Missing, Duplicated, Stale int32
}

// Truth is what the simulator knows and no check sees: the committed source
// rows missing from the target, duplicated in it, or present in an older version.
type Truth struct {
	Missing    []string       `json:"missing"`
	Duplicated map[string]int `json:"duplicated"`
	Stale      []string       `json:"stale"`
}

// Trace is a complete run of a scenario: every event, plus histories from
// which the state at any step is read without replaying.
type Trace struct {
	File      *scenario.File
	Settings  scenario.Settings
	Seed      uint64
	Events    []Event
	Versions  []VersionRecord // in commit order
	Targets   []TargetHistory
	Faults    []Fault // injected by a learner, in step order
	checks    check.Config
	histories []History // the worlds' parts of the trace, by Narrator - 1
	routes    []Route   // which target each table's rows reach, in the order routed
	noun      map[string]string
	truth     truthLog
	keyText   []string // the text of each key id, unprefixed; the log's topics read it (topic.Topic.Keys)
	tables    []string // the names VersionRecord.TableID indexes
	actors    []string // names of the actors of non-source events, each once
	texts     []string // narrations of non-source events, by Event.b
	Notes     []Note   // the presenter's notes, by step (the core's note command)
	unwritten []string // the targets no line writes as the knobs are set, in declaration order
}

// Unwritten lists the targets that no line of the scenario names as its
// knobs are set, in the order declared: no pipeline, group or stream
// writes them (with to= or side=) and no read line reads them. Such is a
// side output that the knobs turn off, or a target whose writer's to= was
// forgotten. The truth of such a target always finds it matching its
// source, since nothing is sent to it.
func (t *Trace) Unwritten() []string { return t.unwritten }

// UnwrittenNote is how the text report and the widget's target panel mark a
// target that nothing writes (IsUnwritten).
const UnwrittenNote = "nothing writes it with these settings"

// IsUnwritten reports whether target is one of Unwritten.
func (t *Trace) IsUnwritten(target string) bool {
	for _, name := range t.unwritten {
		if name == target {
			return true
		}
	}
	return false
}

// Note is a line the scenario's author wrote for whoever presents it, to be
// read at one step (the note command). The engine keeps it and does nothing
// with it; the widget shows it in the presenter's notes window.
type Note struct {
	_    nocmp.NoCompare
	Step int
	Text string
	Pos  scenario.Pos
}

// NoteAt is the note for step n, or "".
func (t *Trace) NoteAt(n int) string {
	i, found := sorted.Search(len(t.Notes), func(k int) int {
		x := t.Notes[k]
		return x.Step - n
	})
	if !found {
		return ""
	}
	return t.Notes[i].Text
}

// CountsAt returns the truth's counts after step n (before any event at
// n = 0): how many keys are missing, duplicated and stale.
func (t *Trace) CountsAt(n int) Counts { return t.truth.countsAt(int32(t.clampStep(n))) }

// Steps is the number of events.
func (t *Trace) Steps() int { return len(t.Events) }

// TimeAt is when step n happened: 0 before the first step, and the last
// step's time for an n past the end.
func (t *Trace) TimeAt(n int) vtime.Time {
	if n = t.clampStep(n); n == 0 {
		return 0
	}
	return t.Events[n-1].At
}

// clampStep keeps n within [0, Steps].
func (t *Trace) clampStep(n int) int { return max(0, min(n, len(t.Events))) }

// VersionsAt returns the versions committed by step n (a prefix of Versions).
func (t *Trace) VersionsAt(n int) []VersionRecord {
	n = t.clampStep(n)
	i, _ := sorted.Search(len(t.Versions), func(k int) int {
		v, s := t.Versions[k], n
		if int(v.CommitStep) <= s {
			return -1
		}
		return 1
	})
	return t.Versions[:i]
}

// LiveAt returns the latest committed, undeleted version of every source key
// at step n, in key order.
func (t *Trace) LiveAt(n int) []VersionRecord {
	// A key id names a key as the truth does, so it is what sets two
	// versions apart as rows of different keys.
	latest := map[int32]VersionRecord{}
	for _, v := range t.VersionsAt(n) {
		latest[v.KeyID] = v
	}
	out := make([]VersionRecord, 0, len(latest))
	for _, v := range latest {
		if v.Op != mvcc.Delete {
			out = append(out, v)
		}
	}
	// The same key can be a row of two tables that reach different targets:
	// its ids then differ, and order them.
	sorted.Stable(out, func(i, j int32) int {
		a, b := &out[i], &out[j]
		return cmp.Or(mvcc.CompareKeys(t.keyText[a.KeyID], t.keyText[b.KeyID]), cmp.Compare(a.KeyID, b.KeyID))
	})
	return out
}

// TargetNamed returns the history of the target named name, or nil.
func (t *Trace) TargetNamed(name string) *TargetHistory {
	for i := range t.Targets {
		if t.Targets[i].Name == name {
			return &t.Targets[i]
		}
	}
	return nil
}

// TargetAt returns the rows of the named target present after step n.
func (t *Trace) TargetAt(name string, n int) []sink.Row {
	if h := t.TargetNamed(name); h != nil {
		return sink.At(h.Rows, int32(t.clampStep(n)))
	}
	return nil
}

// RouteOf names the target a table's rows (or a producer's events) reach, or "".
func (t *Trace) RouteOf(table string) string {
	for _, r := range t.routes {
		if r.Table == table {
			return r.Target
		}
	}
	return ""
}

// TruthAt returns the truth after step n. It starts from the nearest
// snapshot of the truth log at or before n and replays at most a snapshot
// interval of changes, so it costs the size of the truth, not of the trace.
// A key is reported once: duplicated takes precedence over stale.
func (t *Trace) TruthAt(n int) Truth {
	return t.truth.at(int32(t.clampStep(n)), t.keyText)
}

// Final is the truth after the last step.
func (t *Trace) Final() Truth { return t.TruthAt(len(t.Events)) }

// ChecksAt runs the scenario's checks against what a team could see after step n.
func (t *Trace) ChecksAt(n int) []check.Result {
	return check.Evaluate(t.checks, t.ObserveAt(n))
}

// ObserveAt builds the observation a team would have after step n: the
// targets' rows and the source's counts, and what each world adds (see
// History.Observe).
func (t *Trace) ObserveAt(n int) check.Observation {
	n = t.clampStep(n)
	o := check.Observation{KeysInt: true}
	if n > 0 {
		o.Now, o.Started = t.Events[n-1].At, true
	}
	multi := len(t.Targets) > 1
	for _, h := range t.Targets {
		table := ""
		if multi {
			table = h.Name
		}
		for _, r := range sink.At(h.Rows, int32(n)) {
			key := t.RowKey(&r)
			o.Target = append(o.Target, check.TargetRow{Key: key, UpdatedAt: r.UpdatedAt, Table: table})
			if !isInt(key) {
				o.KeysInt = false
			}
		}
	}
	o.Source = &sourceAsker{t: t, step: n}
	for _, h := range t.histories {
		h.Observe(n, &o)
	}
	return o
}

// sourceAsker answers count queries on the source as it stood at a step. It
// reads the source only when a check asks, since that costs every row.
type sourceAsker struct {
	t    *Trace
	step int
	live []VersionRecord
	read bool
}

func (s *sourceAsker) CountUpdatedBetween(from, to vtime.Time) int {
	if !s.read {
		s.live, s.read = s.t.LiveAt(s.step), true
	}
	c := 0
	for _, v := range s.live {
		if s.t.RouteOf(s.t.VersionTable(&v)) != "" && v.UpdatedAt >= from && v.UpdatedAt <= to {
			c++
		}
	}
	return c
}

// Checks are the checks' verdicts after the last step.
func (t *Trace) Checks() []check.Result { return t.ChecksAt(len(t.Events)) }
