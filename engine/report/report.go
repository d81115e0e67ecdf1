// Package report turns a trace into the forms people read: a JSON document
// for tools and a text timeline for terminals, docs and golden files.
package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
)

// Report is the JSON form of a run. Keys are business keys as strings.
type Report struct {
	Scenario string            `json:"scenario"`
	Title    string            `json:"title"`
	Knobs    map[string]string `json:"knobs"`
	Seed     uint64            `json:"seed"`
	Steps    int               `json:"steps"`
	Truth    engine.Truth      `json:"truth"`
	Checks   []check.Result    `json:"checks"`
	Marks    []Mark            `json:"marks"`
	// Processed lists, for each pipeline keeping one mark per table, the
	// smallest of its marks at the end: what it can claim to have processed.
	Processed []Processed `json:"processed_through,omitempty"`
	Events    []Event     `json:"events"`
	Target    []TargetRow `json:"target"`
	Log       *Log        `json:"log,omitempty"` // the partitioned log, when the scenario has one
	// The stream world's sections, when the scenario has a stream: every
	// key's window of every window operator, every operator's watermark
	// history, and every join's pairs.
	Windows    []Window             `json:"windows,omitempty"`
	Watermarks []OperatorWatermarks `json:"watermarks,omitempty"`
	Joins      []Join               `json:"joins,omitempty"`
	// The stream job's checkpoints, failures, buffers, transactions, lag,
	// reads and replays, when the scenario has any of them.
	Job *Job `json:"job,omitempty"`
}

// Mark is one stored mark and every value it held.
type Mark struct {
	Pipeline string      `json:"pipeline"`
	Mark     string      `json:"mark"`
	Kind     string      `json:"kind"`
	History  []MarkPoint `json:"history"`
}

// Processed is a pipeline's honest "processed through" value.
type Processed struct {
	Pipeline string `json:"pipeline"`
	Value    string `json:"value"`
	Marks    int    `json:"marks"`
}

// MarkPoint is one stored value of a mark.
type MarkPoint struct {
	Step  int    `json:"step"`
	At    string `json:"at"`
	Value string `json:"value"`
	Reset bool   `json:"reset,omitempty"`
}

// Event is one step of the timeline.
type Event struct {
	Step      int    `json:"step"`
	At        string `json:"at"`
	Actor     string `json:"actor"`
	Kind      string `json:"kind"`
	Narration string `json:"narration"`
}

// TargetRow is a row present in a target at the end.
type TargetRow struct {
	Table     string `json:"table"`
	Key       string `json:"key"`
	UpdatedAt string `json:"updated_at"`
	Version   int    `json:"version"`
	// Amount is the row's amount (the value a stream sink or aggregate
	// writes), given for every row of a target when one of them has one.
	Amount *int64 `json:"amount,omitempty"`
}

// Build assembles the report of a finished trace.
func Build(t *engine.Trace) Report {
	r := Report{
		Scenario: t.File.ID, Title: t.File.Title, Knobs: map[string]string(t.Settings), Seed: t.Seed,
		Steps: t.Steps(), Truth: t.Final(), Checks: t.Checks(),
		Marks: []Mark{}, Events: make([]Event, len(t.Events)), Target: []TargetRow{},
	}
	if r.Knobs == nil {
		r.Knobs = map[string]string{}
	}
	for i, e := range t.Events {
		r.Events[i] = Event{Step: i + 1, At: e.At.String(), Actor: t.Actor(&t.Events[i]), Kind: e.Kind.String(), Narration: t.Narration(&t.Events[i])}
	}
	r.Log = buildLog(t)
	buildStream(&r, t)
	buildJob(&r, t)
	if ht := hwm.Of(t); ht != nil {
		for _, h := range ht.Marks {
			m := Mark{Pipeline: h.Pipeline, Mark: h.Name, Kind: h.Kind.String(), History: []MarkPoint{}}
			for _, p := range h.Points {
				m.History = append(m.History, MarkPoint{Step: p.Step, At: p.At.String(), Value: p.Display, Reset: p.Reset})
			}
			r.Marks = append(r.Marks, m)
		}
		for _, p := range ht.Pipes {
			if pt, n, ok := ht.ProcessedThrough(p.Name, t.Steps()); ok {
				r.Processed = append(r.Processed, Processed{Pipeline: p.Name, Value: pt.Display, Marks: n})
			}
		}
	}
	for _, h := range t.Targets {
		rows := t.TargetAt(h.Name, t.Steps())
		amounts := amountWidth(rows) > 0
		for _, row := range rows {
			tr := TargetRow{Table: h.Name, Key: t.RowKey(&row), UpdatedAt: row.UpdatedAt.String(), Version: int(row.Seq)}
			if amounts {
				tr.Amount = &row.Amount
			}
			r.Target = append(r.Target, tr)
		}
	}
	return r
}

// Text writes the run as a timeline table followed by the marks, the
// target, the truth, the checks and a one-line verdict.
func Text(w io.Writer, t *engine.Trace) error {
	var b strings.Builder
	f := t.File
	fmt.Fprintf(&b, "%s — %s\n", f.ID, f.Title)
	if len(f.Knobs) > 0 {
		var ks []string
		for _, k := range f.Knobs {
			ks = append(ks, k.Name+"="+t.Settings[k.Name])
		}
		fmt.Fprintf(&b, "knobs: %s   seed: %d\n", strings.Join(ks, " "), t.Seed)
	}
	b.WriteString("\nTIMELINE\n")
	actorW, timeW := len("actor"), len("time")
	for i := range t.Events {
		actorW = max(actorW, len(t.Actor(&t.Events[i])))
		timeW = max(timeW, len(t.Events[i].At.String()))
	}
	stepW := len(fmt.Sprint(len(t.Events)))
	fold := foldable(t)
	netZero := loadsRows(t)
	if fold != nil {
		stepW = 2*stepW + 1 // a folded run prints its steps as a range
	}
	fmt.Fprintf(&b, "  %*s  %-*s  %-*s  %s\n", stepW, "#", timeW, "time", actorW, "actor", "what happened")
	for i := 0; i < len(t.Events); i++ {
		e := t.Events[i]
		c := t.CountsAt(i + 1)
		flag := ""
		if c != t.CountsAt(i) {
			flag = fmt.Sprintf("   [truth: %d not in target, %d duplicated, %d stale]", c.Missing, c.Duplicated, c.Stale)
		}
		// In a stream scenario, routine steps in the same second whose
		// truth does not change fold into one line that counts them. A
		// job that loads rows one by one (sinks, aggregates) moves the
		// truth at every record: there, a run folds whatever the truth
		// does, and shows the truth after it.
		if fold != nil && (flag == "" || netZero) && fold(i) {
			j := i + 1
			for j < len(t.Events) && t.Events[j].At/1000 == e.At/1000 && (netZero || t.CountsAt(j+1) == t.CountsAt(j)) && fold(j) {
				j++
			}
			if sum := foldSummary(t, t.Events[i:j], j); j-i > 1 && sum != "" {
				tail := ""
				if c := t.CountsAt(j); c != t.CountsAt(i) {
					tail = fmt.Sprintf("   [truth: %d not in target, %d duplicated, %d stale]", c.Missing, c.Duplicated, c.Stale)
				}
				fmt.Fprintf(&b, "  %*s  %-*s  %-*s  %s%s\n", stepW, fmt.Sprintf("%d–%d", i+1, j), timeW, e.At, actorW, "", sum, tail)
				i = j - 1
				continue
			}
		}
		fmt.Fprintf(&b, "  %*d  %-*s  %-*s  %s%s\n", stepW, i+1, timeW, e.At, actorW, t.Actor(&t.Events[i]), t.Narration(&t.Events[i]), flag)
	}
	marksText(&b, t)
	b.WriteString("\nTARGET\n")
	for _, h := range t.Targets {
		rows := t.TargetAt(h.Name, t.Steps())
		unwritten := ""
		if t.IsUnwritten(h.Name) {
			unwritten = "; " + engine.UnwrittenNote
		}
		fmt.Fprintf(&b, "  %s (%s on %s): %s%s\n", h.Name, h.Mode, h.Key, prose.Count(len(rows), "row", "rows"), unwritten)
		amountW := amountWidth(rows)
		for _, r := range rows {
			amount := ""
			if amountW > 0 {
				amount = fmt.Sprintf("amount=%-*d  ", amountW, r.Amount)
			}
			fmt.Fprintf(&b, "    %s=%-6s %supdated_at=%s  version %d\n", h.Key, t.RowKey(&r), amount, r.UpdatedAt, r.Seq)
		}
	}
	logText(&b, t)
	streamText(&b, t)
	jobText(&b, t)
	truth := t.Final()
	b.WriteString("\nTRUTH (what the simulator knows; no check sees this)\n")
	fmt.Fprintf(&b, "  missing:    %s\n", list(truth.Missing))
	var dups []string
	for k, n := range truth.Duplicated {
		dups = append(dups, fmt.Sprintf("%s×%d", k, n))
	}
	slices.SortFunc(dups, func(a, b string) int {
		return mvcc.CompareKeys(strings.Split(a, "×")[0], strings.Split(b, "×")[0])
	})
	fmt.Fprintf(&b, "  duplicated: %s\n", list(dups))
	fmt.Fprintf(&b, "  stale:      %s\n", list(truth.Stale))
	b.WriteString("\nCHECKS (what a team could see)\n")
	nameW := 0
	checks := t.Checks()
	for _, c := range checks {
		nameW = max(nameW, len(c.Name))
	}
	for _, c := range checks {
		fmt.Fprintf(&b, "  %-7s  %-*s  %s\n", strings.ToUpper(string(c.Status)), nameW, c.Name, c.Detail)
	}
	fmt.Fprintf(&b, "\nVERDICT: %s\n", t.VerdictOf(truth, checks))
	_, err := io.WriteString(w, b.String())
	return err
}

// marksText writes the MARKS section: every value each stored mark held,
// and what a pipeline keeping several marks can claim to have processed.
// A scenario of the log alone has no pipeline and so no marks.
func marksText(b *strings.Builder, t *engine.Trace) {
	ht := hwm.Of(t)
	if ht == nil || len(ht.Marks) == 0 && len(ht.Pipes) == 0 {
		return
	}
	b.WriteString("\nMARKS\n")
	for _, h := range ht.Marks {
		var vals []string
		for _, p := range h.Points {
			v := p.Display
			if p.Reset {
				v += " (reset)"
			}
			vals = append(vals, fmt.Sprintf("%s @%s", v, p.At))
		}
		if len(vals) == 0 {
			vals = []string{"never stored"}
		}
		fmt.Fprintf(b, "  %s (%s): %s\n", h.Name, h.Kind, strings.Join(vals, " → "))
	}
	for _, p := range ht.Pipes {
		if pt, n, ok := ht.ProcessedThrough(p.Name, t.Steps()); ok {
			fmt.Fprintf(b, "  %s processed through: %s (the smallest of its %d marks)\n", p.Name, pt.Display, n)
		}
		if p.Interval > 0 {
			settle := ""
			if p.Settle > 0 {
				settle = " " + p.Settle.String()
			}
			fmt.Fprintf(b, "  %s keeps none: each run overwrites one interval of updated_at, the last %s to have ended%s before it unless its line names another\n", p.Name, p.Interval, settle)
		}
	}
}

// amountWidth is the width of the widest amount among a target's rows, or
// 0 when no row carries one (every amount is 0).
func amountWidth(rows []sink.Row) int {
	w, any := 0, false
	for _, r := range rows {
		w, any = max(w, len(fmt.Sprint(r.Amount))), any || r.Amount != 0
	}
	if !any {
		return 0
	}
	return w
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
