//go:build !tm_hwm && !tm_log

package check

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/vtime"
)

// The stream checks themselves. The builds of the browser module without
// the stream world (tags tm_hwm and tm_log, see wasm/worlds_*.go) have
// stream_none.go instead: no observation they make has a stream.

// evaluateStreamOf runs the stream check name on o, which has a stream.
func evaluateStreamOf(name string, cfg Config, o Observation) Result {
	switch name {
	case "late-records":
		return lateRecords(cfg, o)
	case "watermark-lag":
		return watermarkLag(cfg, o)
	case "recount":
		return recount(o)
	case "window-counts":
		return windowCounts(o)
	case "join-recount":
		return joinRecount(cfg, o)
	}
	return evaluateJob(name, cfg, o)
}

func lateRecords(cfg Config, o Observation) Result {
	var measured, over, aside, uncounted []string
	for _, op := range o.Stream.Operators {
		if op.SideOutput > 0 {
			aside = append(aside, prose.F("%s sent %d to its side output, which the counter leaves out", op.Name, op.SideOutput))
		}
		if op.Join {
			// Flink's interval join returns on a late record without
			// counting it: there is no metric to alert on.
			uncounted = append(uncounted, op.Name)
			continue
		}
		// A processing-time window has the counter too; it is never late,
		// so it stays at zero.
		measured = append(measured, op.Name)
		if op.Dropped > int64(cfg.MaxLate) {
			over = append(over, prose.F("%s dropped %s", op.Name, prose.Count(int(op.Dropped), "late record", "late records")))
		}
	}
	if len(uncounted) > 0 {
		aside = append(aside, prose.F("%s, an interval join, drops late records without counting them: Flink's has no such metric", strings.Join(uncounted, " and ")))
	}
	tail := ""
	if len(aside) > 0 {
		tail = "; " + strings.Join(aside, "; ")
	}
	if len(measured) == 0 {
		if len(uncounted) > 0 {
			return Result{Status: NotRun, Detail: "no window runs, so no operator counts late records" + tail}
		}
		return Result{Status: NotRun, Detail: "no window or join runs, so no operator counts late records"}
	}
	if len(over) > 0 {
		limit := ""
		if cfg.MaxLate > 0 {
			limit = prose.F(" (the alert allows %d)", cfg.MaxLate)
		}
		return Result{Status: Fail, Detail: prose.F("numLateRecordsDropped: %s%s%s", strings.Join(over, "; "), limit, tail)}
	}
	return Result{Status: Pass, Detail: prose.F("numLateRecordsDropped is within the alert for %s%s", strings.Join(measured, ", "), tail)}
}

func watermarkLag(cfg Config, o Observation) Result {
	var over, within []string
	for _, l := range o.Stream.Lags {
		switch {
		case l.Without > cfg.WatermarkLag:
			over = append(over, prose.F("%s had records but no watermark at all for %s (by %s), which a dashboard shows as Flink's Long.MIN_VALUE watermark, a lag without bound", l.Operator, l.Without, l.WithoutAt))
		case l.Without > 0 && !l.Sampled: // the wait before a first watermark is not worth a word once there is one
			within = append(within, prose.F("%s had records but no watermark for %s (by %s)", l.Operator, l.Without, l.WithoutAt))
		}
		if !l.Sampled {
			continue
		}
		s := prose.F("%s at most %s (at %s)", l.Operator, l.Max, l.At)
		if l.Max > cfg.WatermarkLag {
			over = append(over, s)
		} else {
			within = append(within, s)
		}
	}
	if len(over)+len(within) == 0 {
		return Result{Status: NotRun, Detail: "no window or join has a watermark yet"}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: prose.F("watermark lag above the alert's %s: %s", cfg.WatermarkLag, strings.Join(over, "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("watermark lag within the alert's %s: %s", cfg.WatermarkLag, strings.Join(within, "; "))}
}

func recount(o Observation) Result {
	written, counted := false, 0
	var wrong []string
	one, many := "closed window", "closed windows"
	if j := o.Stream.Job; j != nil && len(j.Tables) > 0 {
		one, many = "closed window or table", "closed windows and tables"
		if len(o.Stream.Windows) == 0 {
			one, many = "table", "tables"
		}
		for _, tc := range j.Tables {
			written = written || tc.Rows > 0
			counted++
			switch {
			case len(tc.Wrong) > 0:
				wrong = append(wrong, prose.F("%s's table %s: %s", tc.Operator, tc.Target, strings.Join(limit(tc.Wrong, 3), "; ")))
			case tc.Rows != tc.Expected:
				s := prose.F("%s has %s for the %s the topic still holds", tc.Target, prose.Count(tc.Rows, "row", "rows"), prose.Count(tc.Expected, "event", "events"))
				if tc.Gone > 0 {
					s += prose.F(", and %s for events retention has deleted", prose.Count(tc.Gone, "row", "rows"))
				}
				wrong = append(wrong, s)
			}
		}
	}
	sessions, others := false, false // windows of either kind that wrote a row
	for _, w := range o.Stream.Windows {
		written = written || len(w.Written) > 0
		sessions = sessions || w.Session && len(w.Written) > 0
		others = others || !w.Session && len(w.Written) > 0
		if !w.Counted {
			continue
		}
		counted++
		got := int64(0)
		if len(w.Written) > 0 {
			got = w.Written[len(w.Written)-1]
		}
		if got != w.Recount || len(w.Written) == 0 && w.Recount != 0 {
			pub := prose.F("%d", got)
			if len(w.Written) == 0 {
				pub = "no row"
			}
			wrong = append(wrong, prose.F("%s %s %s: the table says %s, the topic %d", w.Operator, w.Key, w.Agg, pub, w.Recount))
		}
	}
	switch {
	case !written && counted == 0:
		return Result{Status: NotRun, Detail: "no window has written a result to a table yet"}
	case counted == 0 && sessions && !others:
		return Result{Status: NotRun, Detail: "only session windows have written results, and a session's bounds come from its own records' gaps, which a recount by window bounds cannot redraw; this check recounts tumbling and sliding windows"}
	case counted == 0:
		return Result{Status: NotRun, Detail: "no window that a batch query can recount has closed yet"}
	case len(wrong) > 0:
		verb := "differ"
		if len(wrong) == 1 {
			verb = "differs"
		}
		return Result{Status: Fail, Detail: prose.F("%d of %s %s from the topic: %s", len(wrong), prose.Count(counted, one, many), verb, strings.Join(limit(wrong, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s, each as the topic counts it", prose.Count(counted, one, many))}
}

func windowCounts(o Observation) Result {
	written := 0
	var changed []string
	for _, w := range o.Stream.Windows {
		if len(w.Written) == 0 {
			continue
		}
		written++
		first := w.Written[0]
		for _, v := range w.Written[1:] {
			if v != first {
				vals := make([]string, len(w.Written))
				for i, x := range w.Written {
					vals[i] = prose.F("%d", x)
				}
				changed = append(changed, prose.F("%s %s went %s", w.Operator, w.Key, strings.Join(limit(vals, 6), " → ")))
				break
			}
		}
	}
	switch {
	case written == 0:
		return Result{Status: NotRun, Detail: "no window has written a result to a table yet"}
	case len(changed) > 0:
		return Result{Status: Fail, Detail: prose.F("%s changed after first published: %s", prose.Count(len(changed), "window's value", "windows' values"), strings.Join(limit(changed, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s written, none changed afterwards", prose.Count(written, "window", "windows"))}
}

func joinRecount(cfg Config, o Observation) Result {
	if len(o.Stream.Joins) == 0 {
		return Result{Status: NotRun, Detail: "no join writes a table"}
	}
	var over, ok []string
	for _, j := range o.Stream.Joins {
		s := prose.F("%s lacks %d of the %d pairs a batch join of its topics finds", j.Operator, j.Absent, j.Expected)
		if j.Absent > cfg.MaxUnjoined {
			over = append(over, s)
		} else {
			ok = append(ok, s)
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: strings.Join(over, "; ")}
	}
	return Result{Status: Pass, Detail: strings.Join(ok, "; ")}
}

// evaluateJob runs one of the checks of a job's checkpoints, lag and buffers.
func evaluateJob(name string, cfg Config, o Observation) Result {
	j := o.Stream.Job
	if j == nil {
		return Result{Status: NotRun, Detail: "the stream job takes no checkpoints and has no buffers, sinks or aggregates"}
	}
	switch name {
	case "checkpoint-duration":
		return checkpointDuration(cfg, j)
	case "checkpoint-size":
		return checkpointSize(j)
	case "partition-lag":
		return partitionLag(cfg, j)
	case "average-lag":
		return averageLag(cfg, j)
	}
	return droppedRecords(cfg, j)
}

func checkpointDuration(cfg Config, j *JobView) Result {
	limitD := cfg.CheckpointDuration
	if limitD <= 0 {
		limitD = 30 * vtime.Second
	}
	var slow, failed []string
	done := 0
	var longest vtime.Duration
	for _, c := range j.Checkpoints {
		switch {
		case c.Completed:
			done++
			longest = max(longest, c.Duration)
			if c.Duration > limitD {
				slow = append(slow, prose.F("checkpoint %d took %s", c.ID, c.Duration))
			}
		case c.Running:
			if c.Duration > limitD {
				slow = append(slow, prose.F("checkpoint %d has run for %s", c.ID, c.Duration))
			}
		default:
			failed = append(failed, prose.F("checkpoint %d failed after %s", c.ID, c.Duration))
		}
	}
	if len(j.Checkpoints) == 0 {
		return Result{Status: NotRun, Detail: "no checkpoint has begun"}
	}
	if len(slow)+len(failed) > 0 {
		return Result{Status: Fail, Detail: prose.F("above the alert's %s or failed: %s", limitD, strings.Join(limit(append(failed, slow...), 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s completed, the longest in %s (the alert allows %s)", prose.Count(done, "checkpoint", "checkpoints"), longest, limitD)}
}

// checkpoint-size fails when growthRun completed checkpoints in a row each
// (but the first) are at least growthPercent larger than the one before,
// growthRun-1 growths in a row: a trend, not one large state, nor the few
// bytes larger numbers take. Its words count the growths, not the
// checkpoints: five sizes are four growths.
const (
	growthRun     = 4
	growthPercent = 5
)

func checkpointSize(j *JobView) Result {
	var sizes []int
	for _, c := range j.Checkpoints {
		if c.Completed {
			sizes = append(sizes, c.Size)
		}
	}
	if len(sizes) < 2 {
		return Result{Status: NotRun, Detail: "fewer than two checkpoints have completed"}
	}
	// The longest run of checkpoints each larger than the one before.
	run, best, end := 1, 1, 0
	for i := 1; i < len(sizes); i++ {
		if sizes[i]*100 >= sizes[i-1]*(100+growthPercent) {
			run++
		} else {
			run = 1
		}
		if run > best {
			best, end = run, i
		}
	}
	if best >= growthRun {
		grew := sizes[end-best+1 : end+1]
		shown := make([]string, len(grew))
		for i, x := range grew {
			shown[i] = prose.F("%d", x)
		}
		return Result{Status: Fail, Detail: prose.F("checkpoints grew by %d%% or more %d times in a row: %s bytes; state that is never released", growthPercent, best-1, strings.Join(limit(shown, 8), " → "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s completed, from %d to %d bytes; none grew by %d%% or more %d times in a row", prose.Count(len(sizes), "checkpoint", "checkpoints"), sizes[0], sizes[len(sizes)-1], growthPercent, growthRun-1)}
}

func partitionLag(cfg Config, j *JobView) Result {
	if len(j.Lags) == 0 {
		return Result{Status: NotRun, Detail: "no stream reads a partition"}
	}
	maxLag := cfg.MaxPartitionLag
	var over []string
	var worst PartitionLag
	for _, l := range j.Lags {
		if l.Peak > worst.Peak || worst.Partition == "" {
			worst = l
		}
		if l.Peak > int64(maxLag) {
			over = append(over, prose.F("%s on %s reached %d", l.Stream, l.Partition, l.Peak))
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: prose.F("a partition's lag passed the alert's %s: %s", prose.Count(maxLag, "record", "records"), strings.Join(limit(over, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("every partition's lag stayed within %s; the largest, %s, reached %d", prose.Count(maxLag, "record", "records"), worst.Partition, worst.Peak)}
}

func averageLag(cfg Config, j *JobView) Result {
	if len(j.Averages) == 0 {
		return Result{Status: NotRun, Detail: "no stream reads a partition"}
	}
	maxLag := float64(cfg.MaxAverageLag)
	var over, within []string
	for _, a := range j.Averages {
		s := prose.F("%s's average over %s peaked at %s", a.Stream, prose.Count(a.Partitions, "partition", "partitions"), oneDecimal(a.Peak))
		if a.Peak > maxLag {
			over = append(over, s)
		} else {
			within = append(within, s)
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: prose.F("above the alert's %s: %s", prose.Count(cfg.MaxAverageLag, "record", "records"), strings.Join(over, "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("within the alert's %s: %s", prose.Count(cfg.MaxAverageLag, "record", "records"), strings.Join(within, "; "))}
}

// oneDecimal spells x with one decimal, as a dashboard would, rounded as
// the report's timeline and the widget's readers table round it
// (strconv's 'f' format), so that the three agree on a half such as 15.25.
func oneDecimal(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func droppedRecords(cfg Config, j *JobView) Result {
	if len(j.Buffers) == 0 {
		return Result{Status: NotRun, Detail: "no operator has an input buffer"}
	}
	var over, ok []string
	for _, b := range j.Buffers {
		s := prose.F("%s dropped %s", b.Operator, prose.Count(int(b.Dropped), "record", "records"))
		if b.Dropped > int64(cfg.MaxDropped) {
			over = append(over, s)
		} else {
			ok = append(ok, s)
		}
	}
	if len(over) > 0 {
		return Result{Status: Fail, Detail: strings.Join(over, "; ")}
	}
	return Result{Status: Pass, Detail: strings.Join(ok, "; ")}
}
