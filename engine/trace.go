package engine

import (
	"slices"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Kind names what an event did.
type Kind string

// Event kinds.
const (
	KindBegin     Kind = "begin"
	KindInsert    Kind = "insert"
	KindUpdate    Kind = "update"
	KindDelete    Kind = "delete"
	KindCommit    Kind = "commit"
	KindRollback  Kind = "rollback"
	KindClockJump Kind = "clock-jump"
	KindRead      Kind = "read"
	KindWrite     Kind = "write"
	KindMark      Kind = "mark"
	KindAtomic    Kind = "write+mark"
	KindConflict  Kind = "conflict"
	KindCrash     Kind = "crash"
	KindReset     Kind = "reset"
)

// Event is one step of a trace.
type Event struct {
	Step      int        // 1-based position in the trace
	At        vtime.Time // true virtual time
	Actor     string     // who acted: a transaction, a pipeline worker, a clock, an operator
	Kind      Kind
	Narration string // one sentence naming the cause
	Run       int    // the extractor run this event belongs to, or -1
	Keys      []string
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
	Keys      []string   // business keys it wrote, in statement order
	Stamp     vtime.Time // updated_at of its last statement (the source clock), if it wrote any
	HasStamp  bool
}

// VersionRecord is one committed row version.
type VersionRecord struct {
	Table      string
	Key        string
	Op         mvcc.Op
	Seq        int
	UpdatedAt  vtime.Time
	LSN        mvcc.LSN
	Txn        string
	CommitAt   vtime.Time
	CommitStep int
	Backdated  bool
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
	checks   check.Config
	noun     map[string]string
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
		if v.CommitStep <= s {
			return -1
		}
		return 1
	})
	return t.Versions[:i]
}

// LiveAt returns the latest committed, undeleted version of every source key
// at step n, in key order.
func (t *Trace) LiveAt(n int) []VersionRecord {
	latest := map[string]VersionRecord{}
	for _, v := range t.VersionsAt(n) {
		latest[t.truthKey(v.Table, v.Key)] = v
	}
	out := make([]VersionRecord, 0, len(latest))
	for _, v := range latest {
		if v.Op != mvcc.Delete {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b VersionRecord) int { return mvcc.CompareKeys(a.Key, b.Key) })
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
	return ""
}

// truthKey is the key truth reports: the business key alone when there is one
// target, prefixed by the target's name otherwise.
func (t *Trace) truthKey(table, key string) string {
	if len(t.Targets) <= 1 {
		return key
	}
	return t.targetOf(table) + ":" + key
}

// TruthAt computes the truth after step n from the histories.
func (t *Trace) TruthAt(n int) Truth {
	tr := Truth{Missing: []string{}, Duplicated: map[string]int{}, Stale: []string{}}
	type tally struct {
		count, newest int
	}
	seen := map[string]*tally{}
	for _, h := range t.Targets {
		for _, r := range sink.At(h.Rows, int32(t.clampStep(n))) {
			k := r.Key
			if len(t.Targets) > 1 {
				k = h.Name + ":" + k
			}
			tl := seen[k]
			if tl == nil {
				tl = &tally{}
				seen[k] = tl
			}
			tl.count++
			tl.newest = max(tl.newest, r.Seq)
		}
	}
	live := map[string]bool{}
	for _, v := range t.LiveAt(n) {
		if t.targetOf(v.Table) == "" {
			continue
		}
		k := t.truthKey(v.Table, v.Key)
		live[k] = true
		tl := seen[k]
		switch {
		case tl == nil:
			tr.Missing = append(tr.Missing, k)
		case tl.newest < v.Seq:
			tr.Stale = append(tr.Stale, k)
		}
	}
	for k, tl := range seen {
		if tl.count > 1 {
			tr.Duplicated[k] = tl.count
		}
		if !live[k] {
			tr.Stale = append(tr.Stale, k)
		}
	}
	slices.SortFunc(tr.Missing, mvcc.CompareKeys)
	slices.SortFunc(tr.Stale, mvcc.CompareKeys)
	tr.Stale = slices.Compact(tr.Stale)
	return tr
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
		o.Now = t.Events[n-1].At
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
			o.Target = append(o.Target, check.TargetRow{Key: r.Key, UpdatedAt: r.UpdatedAt})
			if !isInt(r.Key) {
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
	o.Source = sourceAsker{t.LiveAt(n), t}
	return o
}

type sourceAsker struct {
	live []VersionRecord
	t    *Trace
}

func (s sourceAsker) CountUpdatedBetween(from, to vtime.Time) int {
	c := 0
	for _, v := range s.live {
		if s.t.targetOf(v.Table) != "" && v.UpdatedAt >= from && v.UpdatedAt <= to {
			c++
		}
	}
	return c
}

// Checks are the checks' verdicts after the last step.
func (t *Trace) Checks() []check.Result { return t.ChecksAt(len(t.Events)) }

// Noun is how narration names a row of table: "order" for order_id.
func (t *Trace) Noun(table string) string { return t.noun[table] }
