package check

import (
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/vtime"
)

// StreamView is what a team running stream jobs can see: each operator's
// metrics (Flink's late-records counter), each stream's watermark as its
// monitoring sampled it, the tables windows and joins write, and what a
// batch query over the topics (as retention still holds them) counts.
type StreamView struct {
	Operators []StreamOperator
	Lags      []WatermarkLag
	Windows   []WindowCount
	Joins     []JoinCount
}

// StreamOperator is one window or join as its metrics show it.
type StreamOperator struct {
	Name       string
	Join       bool
	EventTime  bool  // it measures event time, so it can find records late
	Dropped    int64 // numLateRecordsDropped
	SideOutput int64 // late records sent to the side output, which the counter leaves out
}

// WatermarkLag is one operator's watermark lag (processing time minus the
// watermark it works to: its stream's for a window, the combined one of
// its inputs for a join), as a monitoring system sampling it at every step
// saw it.
type WatermarkLag struct {
	Operator string
	Max      vtime.Duration // the largest lag sampled
	At       vtime.Time     // when it was sampled
	Sampled  bool           // the operator had a watermark at some step
}

// WindowCount is one window's result as the team can see it: the values
// its row in the target held over time, and, once the window has closed, the
// same aggregate counted again from the topic.
type WindowCount struct {
	Operator string
	Key      string  // the row's key in the target: KEY@START, or START for a window over every key
	Window   string  // its bounds, [10:01:00, 10:02:00)
	Agg      string  // count, sum, min or max
	Written  []int64 // the values written for it, oldest first; empty when nothing was
	Closed   bool    // its end (plus the allowed lateness) is behind the watermark, or the clock for processing time
	Recount  int64   // the aggregate over its records still in the topic, by event time
	Counted  bool    // Recount was computed: the window is closed and of a kind a batch query can recount
}

// JoinCount is one join's target beside a batch join of its two topics.
type JoinCount struct {
	Operator string
	Expected int // pairs the batch join finds among the records retention still holds
	Absent   int // of those, pairs the join's target does not have
}

func isStreamCheck(name string) bool {
	switch name {
	case "late-records", "watermark-lag", "recount", "window-counts", "join-recount":
		return true
	}
	return false
}

func init() {
	About["late-records"] = [2]string{
		"records a window or a join dropped for arriving after the watermark passed their window (Flink's numLateRecordsDropped)",
		"late records sent to a side output, which the counter leaves out; and every record a processing-time window put in the wrong window, which is never late",
	}
	About["watermark-lag"] = [2]string{
		"a watermark held back: a quiet partition, a stalled fetch, a slow input of a join; results come late",
		"a watermark that runs ahead of the data, which keeps the lag small while it drops the slower partitions' records",
	}
	About["recount"] = [2]string{
		"a closed window whose published value differs from its records counted again from the topic: dropped late data, wrong windows",
		"windows not closed yet, and records retention has already deleted, which the recount cannot see either",
	}
	About["window-counts"] = [2]string{
		"a window whose published value changed after it was first written: the first report was wrong",
		"a window that was short and never corrected, which keeps the one value it was given",
	}
	About["join-recount"] = [2]string{
		"pairs a batch join of the two topics finds that the stream join never emitted: rows that silently never joined",
		"pairs whose records retention has already deleted",
	}
}

// evaluateStream runs one of the stream checks.
func evaluateStream(name string, cfg Config, o Observation) Result {
	if o.Stream == nil {
		return Result{Status: NotRun, Detail: "the scenario has no stream job"}
	}
	switch name {
	case "late-records":
		return lateRecords(cfg, o)
	case "watermark-lag":
		return watermarkLag(cfg, o)
	case "recount":
		return recount(o)
	case "window-counts":
		return windowCounts(o)
	}
	return joinRecount(cfg, o)
}

func lateRecords(cfg Config, o Observation) Result {
	var measured, over, aside []string
	for _, op := range o.Stream.Operators {
		// A processing-time window has the counter too; it is never late,
		// so it stays at zero.
		measured = append(measured, op.Name)
		if op.Dropped > int64(cfg.MaxLate) {
			over = append(over, prose.F("%s dropped %s", op.Name, plural(int(op.Dropped), "late record", "late records")))
		}
		if op.SideOutput > 0 {
			aside = append(aside, prose.F("%s sent %d to its side output, which the counter leaves out", op.Name, op.SideOutput))
		}
	}
	if len(measured) == 0 {
		return Result{Status: NotRun, Detail: "no window or join runs, so no operator counts late records"}
	}
	tail := ""
	if len(aside) > 0 {
		tail = "; " + strings.Join(aside, "; ")
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
	for _, w := range o.Stream.Windows {
		written = written || len(w.Written) > 0
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
	case counted == 0:
		return Result{Status: NotRun, Detail: "no window that a batch query can recount has closed yet"}
	case len(wrong) > 0:
		return Result{Status: Fail, Detail: prose.F("%d of %s differ from the topic: %s", len(wrong), plural(counted, "closed window", "closed windows"), strings.Join(limit(wrong, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s, each as the topic counts it", plural(counted, "closed window", "closed windows"))}
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
		return Result{Status: Fail, Detail: prose.F("%s changed after first published: %s", plural(len(changed), "window's value", "windows' values"), strings.Join(limit(changed, 4), "; "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s written, none changed afterwards", plural(written, "window", "windows"))}
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
