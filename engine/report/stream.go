package report

import (
	"fmt"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/window"
)

// Window is one key's window of a window operator: every firing with its
// contents, every late record that fell in it, and the truth.
type Window struct {
	Operator string       `json:"operator"`
	Key      string       `json:"key,omitempty"`
	Start    string       `json:"start"`
	End      string       `json:"end"`
	Firings  []Firing     `json:"firings"`
	Late     []LateRecord `json:"late"`
	Truth    *Aggregate   `json:"truth"` // null when the truth has no such window
	Wrong    bool         `json:"wrong"` // its final result differs from the truth
}

// Aggregate is a window's count, sum, min and max.
type Aggregate struct {
	Count int64 `json:"count"`
	Sum   int64 `json:"sum"`
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
}

// Firing is one result a window emitted.
type Firing struct {
	Step int    `json:"step"`
	At   string `json:"at"` // the watermark (or the clock) that fired it
	N    int32  `json:"n"`  // 1, then 2 and on for each update
	Aggregate
	Late    bool     `json:"late"`              // fired at once by a late record within the allowed lateness
	Records []string `json:"records,omitempty"` // the records it held, with contents=on
}

// LateRecord is a record that arrived after its window's end.
type LateRecord struct {
	Step      int    `json:"step"`
	Record    string `json:"record"`
	Fate      string `json:"fate"` // accepted, dropped or side output
	Watermark string `json:"watermark"`
	Why       string `json:"why"`
}

// OperatorWatermarks is one operator's watermark history: a stream's (the
// source operator's), its partitions' and their idleness, or a join's
// combined watermark. A window works to its stream's.
type OperatorWatermarks struct {
	Operator string           `json:"operator"`
	History  []WatermarkPoint `json:"history"`
}

// WatermarkPoint is a watermark from a step on: the operator's (partition
// -1) or one partition's, and whether it is idle.
type WatermarkPoint struct {
	Step      int    `json:"step"`
	Partition int    `json:"partition"`
	Value     string `json:"value"`
	Idle      bool   `json:"idle,omitempty"`
}

// Join is one join's pairs: how many the truth has, how many it emitted,
// the pairs that never joined, by record, and the records it found late
// (the reason pairs go missing when one side's watermark runs ahead).
type Join struct {
	Operator string       `json:"operator"`
	Truth    int          `json:"truth_pairs"`
	Emitted  int          `json:"emitted_pairs"`
	Unjoined []string     `json:"unjoined"`
	Late     []LateRecord `json:"late"`
}

func aggregate(a window.Acc) Aggregate {
	return Aggregate{Count: a.Count, Sum: a.Sum, Min: a.Min, Max: a.Max}
}

// lateRecord is late record k of the trace, a window's or a join's.
func lateRecord(st *stream.Trace, k int) LateRecord {
	l := &st.Late[k]
	return LateRecord{Step: int(l.Step), Record: st.RecordName(st.ArrivalID(l.Arrival)), Fate: window.Fate(l.Fate).String(),
		Watermark: stream.Time(l.Watermark), Why: st.WhyLate(k)}
}

// buildStream fills the stream world's sections of the report.
func buildStream(r *Report, t *engine.Trace) {
	st := stream.Of(t)
	if st == nil {
		return
	}
	n := t.Steps()
	r.Windows = []Window{}
	for i, wh := range st.Windows {
		sh := st.StreamNamed(wh.Stream)
		for _, res := range st.Results(i, n) {
			w := Window{Operator: wh.Name, Key: sh.KeyName(res.Key), Start: res.Window.Start.String(), End: res.Window.End.String(),
				Firings: []Firing{}, Late: []LateRecord{}, Wrong: res.Mismatch}
			if res.Truth.Count > 0 {
				a := aggregate(res.Truth)
				w.Truth = &a
			}
			for k := range res.Firings {
				f := &res.Firings[k]
				x := Firing{Step: int(f.Step), At: stream.Time(f.At), N: f.N, Aggregate: aggregate(f.Acc), Late: f.Late}
				for _, id := range st.Contents(f) {
					x.Records = append(x.Records, st.RecordName(id))
				}
				w.Firings = append(w.Firings, x)
			}
			for _, k := range res.Late {
				w.Late = append(w.Late, lateRecord(st, k))
			}
			r.Windows = append(r.Windows, w)
		}
	}
	r.Watermarks = []OperatorWatermarks{}
	for i, sh := range st.Streams {
		o := OperatorWatermarks{Operator: sh.Name, History: []WatermarkPoint{}}
		for _, w := range st.Watermarks {
			if int(w.Stream) == i {
				o.History = append(o.History, WatermarkPoint{Step: int(w.Step), Partition: int(w.Part), Value: stream.Time(w.Value), Idle: w.Idle})
			}
		}
		r.Watermarks = append(r.Watermarks, o)
	}
	for _, jh := range st.Joins {
		o := OperatorWatermarks{Operator: jh.Name, History: []WatermarkPoint{}}
		for _, w := range jh.Watermarks {
			o.History = append(o.History, WatermarkPoint{Step: int(w.Step), Partition: -1, Value: stream.Time(w.Value)})
		}
		r.Watermarks = append(r.Watermarks, o)
	}
	for i, jh := range st.Joins {
		want, got := st.JoinTruth(i, n)
		j := Join{Operator: jh.Name, Truth: len(want), Emitted: len(got), Unjoined: []string{}, Late: []LateRecord{}}
		for _, m := range stream.Unmatched(got, want) {
			j.Unjoined = append(j.Unjoined, st.RecordName(m.Left)+"+"+st.RecordName(m.Right))
		}
		for k := range st.Late {
			if l := &st.Late[k]; l.Join && int(l.Op) == i {
				j.Late = append(j.Late, lateRecord(st, k))
			}
		}
		r.Joins = append(r.Joins, j)
	}
}

// streamText writes the WINDOWS section: each window operator's windows,
// their truth beside what was emitted, and their late records.
func streamText(b *strings.Builder, t *engine.Trace) {
	st := stream.Of(t)
	if st == nil || len(st.Windows)+len(st.Joins) == 0 {
		return
	}
	n := t.Steps()
	b.WriteString("\nWINDOWS (the truth beside what was emitted; late records by fate)\n")
	for i, wh := range st.Windows {
		sh := st.StreamNamed(wh.Stream)
		a := wh.Config.Assigner
		kind := a.Kind.String() + " " + a.Size.String()
		switch a.Kind {
		case window.Sliding:
			kind += " every " + a.Slide.String()
		case window.Session:
			kind = "session gap " + a.Gap.String()
		}
		fmt.Fprintf(b, "  %s (%s, %s, %s; allowed lateness %s)\n", wh.Name, kind, wh.Config.Domain, wh.Agg, wh.Config.Lateness)
		for _, res := range st.Results(i, n) {
			key := sh.KeyName(res.Key)
			if key != "" {
				key += " "
			}
			truth := "none"
			if res.Truth.Count > 0 {
				truth = fmt.Sprint(wh.Agg.Of(res.Truth))
			}
			got := "nothing"
			switch {
			case res.Emitted:
				got = fmt.Sprint(wh.Agg.Of(res.Final))
			case len(res.Firings) > 0:
				// Fired, then covered by a later, larger window (only
				// session windows merge so; see window.Final): its row
				// stays in a table keyed by session.
				got = fmt.Sprintf("%v, then merged into a larger session", wh.Agg.Of(res.Firings[len(res.Firings)-1].Acc))
			}
			fires := ""
			if len(res.Firings) > 1 {
				fires = fmt.Sprintf(" (fired %d times)", len(res.Firings))
			}
			// A late record between a sliding window's windows is listed
			// with the window before the gap, apart from the window's own.
			in, after := map[window.Fate]int{}, map[window.Fate]int{}
			for _, k := range res.Late {
				if l := &st.Late[k]; l.Time >= res.Window.End {
					after[window.Fate(l.Fate)]++
				} else {
					in[window.Fate(l.Fate)]++
				}
			}
			late := fateList("; late: ", in) + fateList("; late, between this window and the next: ", after)
			mark := ""
			if res.Mismatch {
				mark = "   WRONG"
			}
			fmt.Fprintf(b, "    %s%s  truth %s, emitted %s%s%s%s\n", key, res.Window, truth, got, fires, late, mark)
		}
	}
	for i, jh := range st.Joins {
		want, got := st.JoinTruth(i, n)
		missing := stream.Unmatched(got, want)
		fmt.Fprintf(b, "  %s (interval join of %s and %s, between %s and %s): %s in the truth, %d emitted, %d never emitted\n",
			jh.Name, jh.Left, jh.Right, jh.Config.Lower, jh.Config.Upper, prose.Count(len(want), "pair", "pairs"), len(got), len(missing))
	}
}

// foldable says which steps of a stream scenario's timeline may fold:
// routine steps (records sent or read on time, ticks that only move a
// watermark) in the same second of time fold into one line that counts
// them. A source transaction's steps never fold.
func foldable(t *engine.Trace) func(i int) bool {
	st := stream.Of(t)
	if st == nil {
		return nil
	}
	return func(i int) bool { return st.Routine(i) }
}

// foldSummary says what a run of routine steps did: evs, the last of which
// is step last, or "" when it finds nothing to count (the run is then
// not folded).
func foldSummary(t *engine.Trace, evs []engine.Event, last int) string {
	st := stream.Of(t)
	sent, read, processed := 0, 0, 0
	ticked := map[int]bool{}
	for i := range evs {
		switch evs[i].Kind {
		case engine.KindProduce:
			sent++
		case engine.KindProcess:
			processed++
		case engine.KindArrive:
			read++
		case engine.KindWatermark:
			ticked[st.TickStream(&evs[i])] = true
		}
	}
	var parts []string
	if sent > 0 {
		parts = append(parts, prose.Count(sent, "record sent", "records sent"))
	}
	if read > 0 {
		parts = append(parts, prose.Count(read, "record read", "records read"))
	}
	if processed > 0 {
		parts = append(parts, prose.Count(processed, "record taken off a buffer", "records taken off buffers"))
	}
	for i, sh := range st.Streams {
		if ticked[i] {
			w, _ := st.Watermark(i, -1, last)
			parts = append(parts, fmt.Sprintf("%s's watermark %s", sh.Name, stream.Time(w)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	// The line is timed by its first step; a run that goes on to a later
	// instant of the second says when it ends, since the watermark it
	// names is the one at its end.
	until := ""
	if end := evs[len(evs)-1].At; end != evs[0].At {
		until = "until " + end.String() + ": "
	}
	return "… " + until + strings.Join(parts, ", ")
}

// fateList says how many late records met each fate, after head, or ""
// for none.
func fateList(head string, counts map[window.Fate]int) string {
	var fates []string
	for _, f := range []window.Fate{window.Accepted, window.Dropped, window.SideOutput} {
		if counts[f] > 0 {
			fates = append(fates, fmt.Sprintf("%d %s", counts[f], f))
		}
	}
	if len(fates) == 0 {
		return ""
	}
	return head + strings.Join(fates, ", ")
}
