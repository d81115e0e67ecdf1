// Package check holds the checks a real team can run against a pipeline.
//
// A check sees only an Observation: the mark's stored history, the runs'
// own logs, the target table, and counts the source answers when asked. It
// never sees the simulator's truth, which is how a learner gets to watch a
// check agree with a bug.
package check

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// Status is a check's verdict.
type Status string

// Verdicts.
const (
	Pass   Status = "pass"
	Fail   Status = "fail"
	NotRun Status = "not-run"
)

// Result is what one check found.
type Result struct {
	_       nocmp.NoCompare
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Detail  string `json:"detail"`
	Catches string `json:"-"`
	Misses  string `json:"-"`
}

// MarkPoint is one value a mark held, as the state table's audit log shows it.
type MarkPoint struct {
	_       nocmp.NoCompare
	Step    int
	At      vtime.Time
	Value   int64
	Set     bool
	Display string
	Reset   bool // an explicit reset by an operator, not a run
	Run     int  // the run that stored it, or -1
}

// MarkSeries is the history of one stored mark.
type MarkSeries struct {
	Name      string
	Timestamp bool // the mark holds a time; otherwise a log position
	Points    []MarkPoint
}

// Run is what a run's own log says about it.
type Run struct {
	_            nocmp.NoCompare
	ID           int
	Pipeline     string
	Worker       string
	At           vtime.Time
	Finished     bool
	Crashed      bool
	Aborted      bool // the conditional mark update found another value and gave up
	MarkBefore   string
	MarkAfter    string
	Advanced     bool // this run moved a mark forward
	Stored       bool // this run reached its mark update: it claims its window as processed
	Read         int  // rows the query returned
	Written      int  // rows sent to the target
	SourceCount  int  // the source's count for the same predicate, asked in the same snapshot
	OverlapRows  int  // rows read from the overlap window behind the mark
	OverlapKnown int  // of those, rows the target already held
	// OverlapDepth is how far behind the mark the furthest of the new
	// overlap rows (those the target did not hold) was stamped, and
	// Overlap the window's width: a team reads both from its own query.
	// OverlapDepth <= Overlap; both are 0 in a run with no new row.
	OverlapDepth, Overlap vtime.Duration
}

// TargetRow is a row present in the target.
type TargetRow struct {
	_         nocmp.NoCompare
	Key       string
	UpdatedAt vtime.Time
	Table     string // the target it is a row of; "" when there is one
}

// Observation is everything a team could look at, at one moment.
type Observation struct {
	Started   bool // some event has happened: Now is a time of the run
	Now       vtime.Time
	Marks     []MarkSeries
	Runs      []Run
	Target    []TargetRow
	Collapsed int         // duplicates the merge reported absorbing
	Overlap   bool        // some pipeline reads an overlap window
	Pipelines bool        // the scenario has a pipeline: the checks of marks and runs apply
	KeysInt   bool        // the business key is a whole number
	Source    Asker       // answers count queries on the source as it is now
	Log       *LogView    // the partitioned log as its tools show it; nil when there is none
	Stream    *StreamView // stream jobs as their metrics and tables show them; nil when there are none
}

// Asker answers queries a team can send to the source system.
type Asker interface {
	// CountUpdatedBetween counts the source rows whose updated_at lies in
	// [from, to], as committed now.
	CountUpdatedBetween(from, to vtime.Time) int
}

// Config selects checks and sets their parameters.
type Config struct {
	Enabled      map[string]bool // empty means every check
	ClosedFrom   vtime.Time      // reconciliation-closed-interval's interval
	ClosedTo     vtime.Time
	HasClosed    bool
	StallRuns    int            // rate of change: this many runs in a row without an advance is a stall
	JumpFactor   float64        // rate of change: an advance this many times the median is a jump
	GapScanLimit int            // gap scan: how many holes to name
	MaxLag       int            // consumer lag: the most records a partition may be behind
	MaxLate      int            // late records: the most an operator may drop
	WatermarkLag vtime.Duration // watermark lag: the most a stream's watermark may trail its processing time
	MaxUnjoined  int            // join recount: the most expected pairs a join's table may lack
	// The stream job's checks.
	CheckpointDuration vtime.Duration // checkpoint duration: the longest a checkpoint may take (0: 30s)
	MaxPartitionLag    int            // partition lag: the most records one partition may be behind
	MaxAverageLag      int            // average lag: the most records the average over partitions may be
	MaxDropped         int            // dropped records: the most an operator's buffer may drop
}

// DefaultConfig is the configuration used when a scenario sets nothing.
func DefaultConfig() Config {
	return Config{StallRuns: 3, JumpFactor: 5, GapScanLimit: 8, WatermarkLag: vtime.Minute, MaxPartitionLag: 100, MaxAverageLag: 100}
}

// Names lists every check, in the order they are reported; the first six
// look at the marks and runs of pipelines.
var Names = []string{
	"monotonicity", "rate-of-change", "reconciliation-same-window", "reconciliation-closed-interval",
	"zero-advance", "overlap-reread", "gap-scan", "uniqueness",
	"consumer-lag", "version-order", "offset-gap",
	"late-records", "watermark-lag", "recount", "window-counts", "join-recount",
	"checkpoint-duration", "checkpoint-size", "partition-lag", "average-lag", "dropped-records",
}

// OnACleanRun says what a failure of check name means when the target
// ends up matching the source: most checks then raised a false alarm, but
// a check of freshness saw results held back, window-counts saw a result
// published wrong and corrected later, and checkpoint-size saw state that
// only grows; none of those is a row lost or doubled, and none is nothing.
func OnACleanRun(name string) string {
	switch name {
	case "watermark-lag", "consumer-lag", "partition-lag", "average-lag", "checkpoint-duration":
		return "a delay, not a loss"
	case "window-counts":
		return "a result wrong until it was corrected"
	case "checkpoint-size":
		return "state that only grows, not a loss yet"
	}
	return "a false alarm"
}

// Renamed maps a check's former name to its name now. The reconciliations
// were named for the column they count by, which they share; they differ
// in when they count: in the run's own window as it reads, or after the
// interval has closed.
var Renamed = map[string]string{
	"reconciliation-same-column": "reconciliation-same-window",
	"reconciliation-independent": "reconciliation-closed-interval",
}

// Family maps the name used in a scenario's check line to the checks it enables.
func Family(name string) []string {
	switch name {
	case "reconciliation":
		return []string{"reconciliation-same-window", "reconciliation-closed-interval"}
	case "rate":
		return []string{"rate-of-change"}
	case "overlap":
		return []string{"overlap-reread"}
	}
	if slices.Contains(Names, name) {
		return []string{name}
	}
	return nil
}

// About holds what each check catches and what it still misses, in Tidemark's words.
var About = map[string][2]string{
	"monotonicity": {
		"the mark going down, because a clock was stepped back, a second job wrote over the first one's value, or an old copy of the state was restored",
		"a mark that runs ahead of the data, which is the direction in which rows are lost",
	},
	"rate-of-change": {
		"a source or consumer that has stopped, and a single jump far bigger than usual after an outage",
		"losses that are small and steady: a run a few rows short still moves the mark by a normal-looking amount",
	},
	"reconciliation-same-window": {
		"a run that claimed its window and wrote fewer rows than the source counted in it, such as a crash after the mark moved and before the write",
		"every row the visibility gap drops: counted by the pipeline's own column over the pipeline's own window as the run reads, the source cannot see those rows either, and agrees",
	},
	"reconciliation-closed-interval": {
		"whatever the mark let slip: rows caught in the visibility gap, backdated inserts, whole skipped ranges (a correction to a row the target holds changes no count), once their interval has closed and late commits have landed",
		"an interval still open, and rows that commit into an interval after it was counted: with updated_at taken from now(), an interval has closed only once no transaction that began before its end is still open (in PostgreSQL, once the oldest xact_start in pg_stat_activity is later than its end and pg_prepared_xacts lists no prepared transaction still waiting to commit)",
	},
	"zero-advance": {
		"a run that moved the mark yet read no rows, which is the trace a skip leaves",
		"a source that really was idle looks no different, so without the source count it settles nothing",
	},
	"overlap-reread": {
		"rows that committed late and were saved by the overlap; when their number climbs, the window needs widening",
		"rows that commit later than the window reaches back, which are precisely the ones lost",
	},
	"gap-scan": {
		"lost rows themselves, found without consulting any clock, when the source hands out ids densely",
		"nothing it can tell apart from legitimate holes: rolled-back inserts and cached sequence blocks raise false alarms",
	},
	"uniqueness": {
		"duplicate rows of one business key in the target",
		"duplicates a merge absorbed (they only show as its matched-row count), and every missing row",
	},
}

// Evaluate runs the enabled checks against o. With none enabled, it runs
// those that apply to what o has: the pipelines', the log's, the stream's
// and the stream job's checks only with pipelines, a log, a stream and a job.
func Evaluate(cfg Config, o Observation) []Result {
	var out []Result
	for i, name := range Names {
		if len(cfg.Enabled) == 0 && (!o.Pipelines && i < 6 || o.Log == nil && isLogCheck(name) || o.Stream == nil && isStreamCheck(name) ||
			isJobCheck(name) && (o.Stream == nil || o.Stream.Job == nil) || o.Stream != nil && !o.Stream.has(name)) {
			continue
		}
		if len(cfg.Enabled) > 0 && !cfg.Enabled[name] {
			continue
		}
		var r Result
		switch name {
		case "monotonicity":
			r = monotonicity(o)
		case "rate-of-change":
			r = rateOfChange(cfg, o)
		case "reconciliation-same-window":
			r = reconcileSameWindow(o)
		case "reconciliation-closed-interval":
			r = reconcileClosedInterval(cfg, o)
		case "zero-advance":
			r = zeroAdvance(o)
		case "overlap-reread":
			r = overlapReread(o)
		case "gap-scan":
			r = gapScan(cfg, o)
		case "uniqueness":
			r = uniqueness(o)
		case "consumer-lag":
			r = consumerLag(cfg, o)
		case "version-order":
			r = versionOrder(o)
		case "offset-gap":
			r = offsetGap(o)
		default:
			r = evaluateStream(name, cfg, o)
		}
		r.Name = name
		r.Catches, r.Misses = About[name][0], About[name][1]
		out = append(out, r)
	}
	return out
}

// nothingToJudge is what the check of marks or runs called name answers
// when it has nothing to judge: no stored mark, no finished run, no
// overlap window. Every observation of the build without the
// high-water-mark world is such (hwm_none.go), and the checks themselves
// (hwm_run.go) answer so through it.
func nothingToJudge(name string, o Observation) Result {
	d := "the pipeline reads no overlap window"
	switch name {
	case "monotonicity":
		d = noMarkYet(o, "no mark has been stored yet")
	case "rate-of-change":
		d = noMarkYet(o, "needs a mark with at least two stored values to measure a rate")
	case "reconciliation-same-window":
		d = "no run has claimed a window yet"
	case "zero-advance":
		d = noMarkYet(o, "no run has finished yet")
	}
	return Result{Status: NotRun, Detail: d}
}

// keepsNoMark reports whether the scenario's pipelines all read intervals
// and keep no mark, which the checks of marks then say (noMarkKept) rather
// than wait for one: a mark pipeline has a series from its start, stored
// or not.
func keepsNoMark(o Observation) bool { return o.Pipelines && len(o.Marks) == 0 }

// noMarkKept is the checks of marks' detail when keepsNoMark.
const noMarkKept = "no pipeline keeps a mark: each run reads an interval that has ended, so there is none to watch"

// noMarkYet is why a check of marks has nothing to read: yet, or never
// (keepsNoMark).
func noMarkYet(o Observation, yet string) string {
	if keepsNoMark(o) {
		return noMarkKept
	}
	return yet
}

// hasHave is "has" for one and "have" for more.
func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// reconcileClosedInterval counts the source's rows stamped in an interval
// that has closed, and the target's, once late commits have had time to
// land: the same column as the pipeline's, counted after the window closed.
func reconcileClosedInterval(cfg Config, o Observation) Result {
	if !cfg.HasClosed {
		return Result{Status: NotRun, Detail: "no closed interval was given to reconcile (check reconciliation closed=FROM..TO)"}
	}
	if !o.Started {
		return Result{Status: NotRun, Detail: prose.F("the interval %s..%s has not closed: nothing has happened yet", cfg.ClosedFrom, cfg.ClosedTo)}
	}
	if o.Now <= cfg.ClosedTo {
		return Result{Status: NotRun, Detail: prose.F("the interval %s..%s is still open at %s", cfg.ClosedFrom, cfg.ClosedTo, o.Now)}
	}
	src := o.Source.CountUpdatedBetween(cfg.ClosedFrom, cfg.ClosedTo)
	tgt := 0
	for _, r := range o.Target {
		if r.UpdatedAt >= cfg.ClosedFrom && r.UpdatedAt <= cfg.ClosedTo {
			tgt++
		}
	}
	d := prose.F("counted at %s, after the interval closed, the source has %s with updated_at in %s..%s and the target %d", o.Now, prose.Count(src, "row", "rows"), cfg.ClosedFrom, cfg.ClosedTo, tgt)
	if src != tgt {
		return Result{Status: Fail, Detail: d}
	}
	return Result{Status: Pass, Detail: d}
}

func gapScan(cfg Config, o Observation) Result {
	if !o.KeysInt {
		return Result{Status: NotRun, Detail: "the business key is not a whole number, so there is no range to scan"}
	}
	present := map[int64]bool{}
	for _, r := range o.Target {
		n, ok := whole.Int64(r.Key)
		if !ok {
			return Result{Status: NotRun, Detail: "the business key is not a whole number, so there is no range to scan"}
		}
		present[n] = true
	}
	if len(present) == 0 {
		return Result{Status: NotRun, Detail: "the target is empty"}
	}
	keys := make([]int64, 0, len(present))
	for k := range present {
		keys = append(keys, k)
	}
	sorted.Sort(keys)
	var holes []string
	// count is a uint64: the holes between keys far apart in a bigint's
	// range number more than an int64 holds, and being disjoint inside
	// that range they never pass 2^64 together.
	var count uint64
	n := max(cfg.GapScanLimit, 1) // holes listed; the ids of the rest are counted
	var listed uint64
	for i := 1; i < len(keys); i++ {
		if keys[i]-1 > keys[i-1] {
			lo, hi := keys[i-1]+1, keys[i]-1
			count += uint64(hi) - uint64(lo) + 1
			if len(holes) < n {
				listed = count
			}
			if lo == hi {
				holes = append(holes, strconv.FormatInt(lo, 10))
			} else {
				holes = append(holes, prose.F("%d–%d", lo, hi))
			}
		}
	}
	if len(holes) == 0 {
		return Result{Status: Pass, Detail: prose.F("ids %d–%d have no holes", keys[0], keys[len(keys)-1])}
	}
	if len(holes) > n {
		rest := "and " + strconv.FormatUint(count-listed, 10) + " more ids"
		if count-listed == 1 {
			rest = "and 1 more id"
		}
		holes = append(holes[:n], rest)
	}
	return Result{Status: Fail, Detail: prose.F("%s missing between %d and %d: %s", ids(count), keys[0], keys[len(keys)-1], strings.Join(holes, ", "))}
}

func uniqueness(o Observation) Result {
	counts := map[string]int{}
	for _, r := range o.Target {
		// A key is unique within its table: the same key in two tables is
		// two rows of two things.
		k := r.Key
		if r.Table != "" {
			k = r.Table + ":" + r.Key
		}
		counts[k]++
	}
	var dups []string
	for k, n := range counts {
		if n > 1 {
			dups = append(dups, k)
		}
	}
	sorted.Stable(dups, func(i, j int32) int { return compareKeys(dups[i], dups[j]) })
	collapsed := ""
	if o.Collapsed > 0 {
		collapsed = "; the merge absorbed " + prose.Count(o.Collapsed, "duplicate write", "duplicate writes")
	}
	if len(counts) == 0 {
		return Result{Status: NotRun, Detail: "the target is empty" + collapsed}
	}
	if len(dups) > 0 {
		named := make([]string, len(dups))
		for i, k := range dups {
			named[i] = prose.F("%s ×%d", k, counts[k])
		}
		return Result{Status: Fail, Detail: prose.F("%s more than once: %s%s", prose.Count(len(dups), "key appears", "keys appear"), strings.Join(limit(named, 6), ", "), collapsed)}
	}
	return Result{Status: Pass, Detail: prose.F("%s, each once%s", prose.Count(len(counts), "key", "keys"), collapsed)}
}

func limit(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(slices.Clone(xs[:n]), prose.F("and %d more", len(xs)-n))
}

// ids counts ids: "1 id", "3 ids".
func ids(n uint64) string {
	if n == 1 {
		return "1 id"
	}
	return strconv.FormatUint(n, 10) + " ids"
}

func compareKeys(a, b string) int {
	ai, aok := whole.Int64(a)
	bi, bok := whole.Int64(b)
	if aok && bok {
		return cmp.Compare(ai, bi)
	}
	return strings.Compare(a, b)
}
