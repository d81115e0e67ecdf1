package engine

import (
	"cmp"
	"slices"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Kind names what an event did.
type Kind uint8

// Event kinds. The statement kinds follow mvcc.Op's order.
const (
	KindBegin Kind = iota
	KindInsert
	KindUpdate
	KindDelete
	KindCommit
	KindRollback
	KindClockJump
	KindRead
	KindWrite
	KindMark
	KindAtomic
	KindConflict
	KindCrash
	KindReset
	KindProduce     // a producer's send, a retry, or change capture appending to the log
	KindPoll        // a consumer's poll
	KindOffset      // an offset commit, or a refused one
	KindRebalance   // a member joins or leaves, or partitions are added
	KindRetention   // retention deletes segments
	KindOffsetReset // auto.offset.reset moves a position, or refuses to
	KindPause       // a consumer pauses or resumes
	KindLost        // an event that never reaches the log
)

var kindNames = [...]string{"begin", "insert", "update", "delete", "commit", "rollback", "clock-jump",
	"read", "write", "mark", "write+mark", "conflict", "crash", "reset",
	"produce", "poll", "offset-commit", "rebalance", "retention", "offset-reset", "pause", "lost"}

// String is the kind's name as the JSON trace and the widget's classes spell it.
func (k Kind) String() string { return kindNames[k] }

// Event is one step of a trace.
//
// Source events (begin, statements, commit, rollback) keep no sentence: they
// point at their transaction's record and are narrated from it on demand,
// which keeps a large trace small and fast to build. Other events keep the
// sentence they were given when they happened.
//
// Invariant: for a source event (src), a indexes Trace.Txns and b the
// transaction's Stmts (or -1); otherwise a indexes Trace.actors and b
// Trace.texts. The struct is kept to 32 bytes because a trace holds one per step.
type Event struct {
	At   vtime.Time // true virtual time
	Step int32      // 1-based position in the trace
	Run  int32      // the extractor run this event belongs to, or -1
	a, b int32
	Kind Kind
	src  bool
}

// Actor names who acted: a transaction, a pipeline worker, a clock, an operator.
func (t *Trace) Actor(e *Event) string {
	if e.src {
		return t.Txns[e.a].Name
	}
	return t.actors[e.a]
}

// TxnRecord is a source transaction as the trace shows it.
//
// Invariant: BeginStep < EndStep when the transaction ended; EndStep is 0
// while it is still open at the end of the trace.
type TxnRecord struct {
	Name      string
	Session   string
	BeginAt   vtime.Time
	EndAt     vtime.Time
	BeginStep int
	EndStep   int
	State     mvcc.TxnState
	LSN       mvcc.LSN
	BeginNow  vtime.Time // the source clock's reading at begin: now() inside the transaction
	Stmts     []StmtRecord
}

// Keys lists the business keys the transaction wrote, in statement order.
func (r *TxnRecord) Keys() []string {
	if len(r.Stmts) == 1 {
		return r.Stmts[0].Keys
	}
	var out []string
	for _, s := range r.Stmts {
		out = append(out, s.Keys...)
	}
	return out
}

// Stamp is the updated_at its last statement wrote, and false when no
// statement has written one yet (or the table stamps at commit).
func (r *TxnRecord) Stamp() (vtime.Time, bool) {
	for i := len(r.Stmts) - 1; i >= 0; i-- {
		if s := r.Stmts[i]; s.Backdated || s.Mode != mvcc.StampCommit {
			return s.Stamp, true
		}
	}
	return 0, false
}

// StmtRecord is one statement of a source transaction.
type StmtRecord struct {
	Op        mvcc.Op
	Table     string
	Keys      []string
	Stamp     vtime.Time // the updated_at it wrote; meaningless when Mode is StampCommit and not Backdated
	Mode      mvcc.Stamp
	Backdated bool
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
func (t *Trace) TruthKey(id int32) string { return t.truth.keys[id] }

// KeyCount is the number of key ids: every id is below it.
func (t *Trace) KeyCount() int { return len(t.keyText) }

// KeyOrder lists every key id in the truth's key order (the order TruthAt
// lists keys in), ranked once when the run ended.
func (t *Trace) KeyOrder() []int32 {
	_, order := t.truth.ranks()
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

// MarkHistory is every value one stored mark held.
type MarkHistory struct {
	Name     string
	Pipeline string
	Kind     extract.MarkKind
	Points   []check.MarkPoint
}

// RunRecord is one extractor run and the step each of its phases happened at
// (0 for a phase that did not happen).
type RunRecord struct {
	check.Run
	ReadStep, WriteStep, MarkStep, EndStep int
	Keys                                   []string // keys read
	Lower, Upper                           string   // the window read, as printed
	Collapsed                              int      // rows the merge absorbed in this run's write
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
	File     *scenario.File
	Settings scenario.Settings
	Seed     uint64
	Events   []Event
	Txns     []TxnRecord
	Versions []VersionRecord // in commit order
	Targets  []TargetHistory
	Marks    []*MarkHistory
	Runs     []RunRecord
	Counts   []Counts // Counts[n] is the truth after step n; Counts[0] is before any event
	Pipes    []extract.Config
	Faults   []Fault // injected by a learner, in step order
	Tables   []SourceTable
	Feeds    []Feed    // tables and producers that reach a target through the log
	Log      *LogTrace // the partitioned log's history; nil when the scenario has no topic
	Notes    []Note    // the presenter's notes, by step
	checks   check.Config
	noun     map[string]string
	truth    truthLog
	keyText  []string // the text of each key id, unprefixed; the log's topics read it (topic.Topic.Keys)
	tables   []string // the names VersionRecord.TableID indexes
	actors   []string // names of the actors of non-source events, each once
	texts    []string // narrations of non-source events, by Event.b
}

// Note is a line the scenario's author wrote for whoever presents it, to be
// read at one step (the note command). The engine keeps it and does nothing
// with it; the widget shows it in the presenter's notes window.
type Note struct {
	Step int
	Text string
	Pos  scenario.Pos
}

// NoteAt is the note for step n, or "".
func (t *Trace) NoteAt(n int) string {
	i, found := slices.BinarySearchFunc(t.Notes, n, func(x Note, n int) int { return x.Step - n })
	if !found {
		return ""
	}
	return t.Notes[i].Text
}

// SourceTable describes a source table in the trace.
type SourceTable struct {
	Name, Key string
	Stamp     mvcc.Stamp
	Clock     string
	Cache     int
}

// Steps is the number of events.
func (t *Trace) Steps() int { return len(t.Events) }

// clampStep keeps n within [0, Steps].
func (t *Trace) clampStep(n int) int { return max(0, min(n, len(t.Events))) }

// VersionsAt returns the versions committed by step n (a prefix of Versions).
func (t *Trace) VersionsAt(n int) []VersionRecord {
	n = t.clampStep(n)
	i, _ := slices.BinarySearchFunc(t.Versions, n, func(v VersionRecord, s int) int {
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
	slices.SortFunc(out, func(a, b VersionRecord) int {
		return cmp.Or(mvcc.CompareKeys(t.keyText[a.KeyID], t.keyText[b.KeyID]), cmp.Compare(a.KeyID, b.KeyID))
	})
	return out
}

// TargetAt returns the rows of the named target present after step n.
func (t *Trace) TargetAt(name string, n int) []sink.Row {
	for _, h := range t.Targets {
		if h.Name == name {
			return sink.At(h.Rows, int32(t.clampStep(n)))
		}
	}
	return nil
}

// MarkAt returns the value of a mark after step n, and whether it was ever set.
func (t *Trace) MarkAt(h *MarkHistory, n int) (check.MarkPoint, bool) {
	n = t.clampStep(n)
	i, _ := slices.BinarySearchFunc(h.Points, n, func(p check.MarkPoint, s int) int {
		if p.Step <= s {
			return -1
		}
		return 1
	})
	if i == 0 {
		return check.MarkPoint{Display: "none"}, false
	}
	return h.Points[i-1], true
}

// targetOf names the target a source table feeds, or "" if none does.
func (t *Trace) targetOf(table string) string {
	for _, p := range t.Pipes {
		if slices.Contains(p.From, table) {
			return p.To
		}
	}
	return t.feedTarget(table)
}

// TruthAt returns the truth after step n. It starts from the nearest
// snapshot of the truth log at or before n and replays at most a snapshot
// interval of changes, so it costs the size of the truth, not of the trace.
// A key is reported once: duplicated takes precedence over stale.
func (t *Trace) TruthAt(n int) Truth {
	return t.truth.at(int32(t.clampStep(n))).truth()
}

// Final is the truth after the last step.
func (t *Trace) Final() Truth { return t.TruthAt(len(t.Events)) }

// ChecksAt runs the scenario's checks against what a team could see after step n.
func (t *Trace) ChecksAt(n int) []check.Result {
	return check.Evaluate(t.checks, t.ObserveAt(n))
}

// ObserveAt builds the observation a team would have after step n.
func (t *Trace) ObserveAt(n int) check.Observation {
	n = t.clampStep(n)
	o := check.Observation{KeysInt: true}
	if n > 0 {
		o.Now, o.Started = t.Events[n-1].At, true
	}
	for _, p := range t.Pipes {
		if p.Overlap > 0 && p.Mark.IsTimestamp() {
			o.Overlap = true
		}
	}
	for _, h := range t.Marks {
		s := check.MarkSeries{Name: h.Name, Timestamp: h.Kind.IsTimestamp()}
		for _, p := range h.Points {
			if p.Step <= n {
				s.Points = append(s.Points, p)
			}
		}
		o.Marks = append(o.Marks, s)
	}
	for _, r := range t.Runs {
		if r.ReadStep == 0 || r.ReadStep > n {
			continue
		}
		run := r.Run
		if r.WriteStep == 0 || r.WriteStep > n {
			run.Written = 0
		}
		if r.MarkStep == 0 || r.MarkStep > n {
			run.Advanced = false
			run.MarkAfter = run.MarkBefore
		}
		if r.EndStep == 0 || r.EndStep > n {
			run.Finished, run.Crashed, run.Aborted = false, false, false
		}
		o.Runs = append(o.Runs, run)
	}
	for _, h := range t.Targets {
		for _, r := range sink.At(h.Rows, int32(n)) {
			key := t.RowKey(&r)
			o.Target = append(o.Target, check.TargetRow{Key: key, UpdatedAt: r.UpdatedAt})
			if !isInt(key) {
				o.KeysInt = false
			}
		}
		if h.Mode == sink.Merge {
			for _, r := range t.Runs {
				if r.WriteStep > 0 && r.WriteStep <= n {
					o.Collapsed += r.Collapsed
				}
			}
		}
	}
	o.Source = &sourceAsker{t: t, step: n}
	o.Log = t.logView(n)
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
		if s.t.targetOf(s.t.VersionTable(&v)) != "" && v.UpdatedAt >= from && v.UpdatedAt <= to {
			c++
		}
	}
	return c
}

// Checks are the checks' verdicts after the last step.
func (t *Trace) Checks() []check.Result { return t.ChecksAt(len(t.Events)) }

// Noun is how narration names a row of table: "order" for order_id.
func (t *Trace) Noun(table string) string { return t.noun[table] }
