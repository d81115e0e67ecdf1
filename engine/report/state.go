package report

import (
	"fmt"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Job is the stream job's second half: its checkpoints, failures and
// restores, each operator's buffer, state and transactions, each
// partition's lag and reader, what readers saw, and what replays changed.
type Job struct {
	CheckpointEvery string              `json:"checkpoint_every,omitempty"`
	Checkpoints     []Checkpoint        `json:"checkpoints"`
	Failures        []Failure           `json:"failures"`
	Restores        []Restore           `json:"restores"`
	Operators       []Operator          `json:"operators"`
	Transactions    []Transaction       `json:"transactions"`
	Partitions      []PartitionLag      `json:"partitions"`
	Reads           []Read              `json:"reads"`
	Replays         []Replay            `json:"replays"`
	Shed            []ShedRecord        `json:"dropped"`
	Readers         []ReaderUtilisation `json:"readers,omitempty"`
}

// Checkpoint is one checkpoint: when it began and ended, what became of
// it, its size and each operator's snapshot.
type Checkpoint struct {
	ID        int            `json:"id"`
	BeginStep int            `json:"begin_step"`
	Begin     string         `json:"begin"`
	EndStep   int            `json:"end_step,omitempty"`
	End       string         `json:"end,omitempty"`
	Status    string         `json:"status"`
	Final     bool           `json:"final,omitempty"`
	Duration  string         `json:"duration"`
	Size      int            `json:"size_bytes"`
	Sizes     map[string]int `json:"operator_bytes"`
	Positions []string       `json:"positions"` // STREAM PARTITION:OFFSET
	Unsaved   int            `json:"unsaved_buffered,omitempty"`
}

// Failure is the job failing.
type Failure struct {
	Step       int    `json:"step"`
	At         string `json:"at"`
	Who        string `json:"who"`
	Point      string `json:"point"` // now, barrier, snapshot, commit, or out-of-memory: who's buffer passed its memory
	Checkpoint int    `json:"checkpoint,omitempty"`
	RestartAt  string `json:"restart_at,omitempty"` // none when the job stays down
	Aborted    int    `json:"rows_aborted"`
	Buffered   int    `json:"records_buffered"`
	StaysDown  bool   `json:"stays_down,omitempty"`
}

// Restore is the job restarting.
type Restore struct {
	Step    int    `json:"step"`
	At      string `json:"at"`
	From    int    `json:"from_checkpoint"` // 0: none, from the beginning
	Failed  bool   `json:"failed"`
	Rewound int64  `json:"records_read_again"`
	Skipped int64  `json:"records_skipped"`
	Lost    int    `json:"records_lost_in_buffers"`
	// Aborted and Committed are the rows of prepared two-phase-commit
	// transactions the restore rolled back and committed.
	Aborted   int    `json:"rows_aborted"`
	Committed int    `json:"rows_committed"`
	Expired   int    `json:"rows_expired"` // prepared rows it would have committed that the broker had aborted (txn-timeout=)
	Exact     bool   `json:"state_exact"`
	Behind    string `json:"checkpoint_age,omitempty"`
}

// Operator is one operator's buffer, state and output over time.
type Operator struct {
	Name      string       `json:"name"`
	Kind      string       `json:"kind"`
	Stream    string       `json:"stream"`
	Target    string       `json:"target,omitempty"`
	Commit    string       `json:"commit,omitempty"`
	Rate      string       `json:"rate,omitempty"`
	Buffer    int          `json:"buffer,omitempty"`
	Overflow  string       `json:"overflow,omitempty"`
	Memory    int          `json:"memory,omitempty"`
	TTL       string       `json:"ttl,omitempty"`
	Queue     []CountPoint `json:"queue,omitempty"`
	State     []CountPoint `json:"state"`
	Pending   []CountPoint `json:"pending,omitempty"`
	Visible   []CountPoint `json:"visible,omitempty"`
	Processed int          `json:"processed"`
	Dropped   int          `json:"dropped"`
	Collapsed int          `json:"collapsed"`
}

// CountPoint is a count from a step on.
type CountPoint struct {
	Step int `json:"step"`
	N    int `json:"n"`
}

// Transaction is a two-phase-commit sink's transaction changing state.
type Transaction struct {
	Step      int    `json:"step"`
	Operator  string `json:"operator"`
	ID        int    `json:"id"`
	State     string `json:"state"`
	Rows      int    `json:"rows"`
	Recovered bool   `json:"recovered,omitempty"`
	Wait      string `json:"visible_after,omitempty"` // committed: how long its oldest row waited
}

// PartitionLag is one partition as a stream reads it: its position and
// lag at the end, and the largest lag it reached. While the job is down
// the lag counts from Committed, the offset its last completed checkpoint
// committed to Kafka, not from Position (stream.Trace.LagAt).
type PartitionLag struct {
	Stream    string `json:"stream"`
	Partition string `json:"partition"`
	Reader    int    `json:"reader"`
	Position  int64  `json:"position"`
	Committed *int64 `json:"committed,omitempty"` // only while the job is down, after a checkpoint committed offsets
	Lag       int64  `json:"lag"`
	PeakLag   int64  `json:"peak_lag"`
}

// ReaderUtilisation is one reader's largest utilisation over ten seconds.
type ReaderUtilisation struct {
	Stream     string  `json:"stream"`
	Reader     int     `json:"reader"`
	Partitions []int   `json:"partitions"`
	Peak       float64 `json:"peak_utilisation"`
}

// Read is what one reader saw, and whether it was ever the table's state.
type Read struct {
	Name      string    `json:"name"`
	Step      int       `json:"step"`
	At        string    `json:"at"`
	Target    string    `json:"target"`
	Isolation string    `json:"isolation"`
	Rows      []ReadRow `json:"rows"`
	Pending   int       `json:"pending_unseen"`
	Existed   bool      `json:"existed"`
	MatchStep int       `json:"matches_step,omitempty"`
	// Unjudged is set when no operator of the stream job writes the table
	// (a consumer group or an extractor does): its states are not followed,
	// and Existed is false without saying it never existed.
	Unjudged bool `json:"unjudged,omitempty"`
}

// ReadRow is a row a reader saw.
type ReadRow struct {
	Key         string `json:"key"`
	Amount      int64  `json:"amount"`
	Version     int    `json:"version"`
	Uncommitted bool   `json:"uncommitted,omitempty"`
}

// Replay is a record a replay wrote differently from the first time: the
// truth keeps both versions.
type Replay struct {
	Operator string `json:"operator"`
	Record   string `json:"record"`
	Key      string `json:"key"`
	First    Output `json:"first"`
	Replayed Output `json:"replayed"`
}

// Output is one row written.
type Output struct {
	Step      int    `json:"step"`
	Amount    int64  `json:"amount"`
	UpdatedAt string `json:"updated_at"`
}

// ShedRecord is a record a full buffer dropped.
type ShedRecord struct {
	Step     int    `json:"step"`
	Operator string `json:"operator"`
	Record   string `json:"record"`
}

func counts(xs []stream.CountPoint) []CountPoint {
	out := make([]CountPoint, len(xs))
	for i, x := range xs {
		out[i] = CountPoint{Step: int(x.Step), N: int(x.N)}
	}
	return out
}

// buildJob fills the job's section, when the scenario has one.
func buildJob(r *Report, t *engine.Trace) {
	st := stream.Of(t)
	if st == nil || st.Job == nil {
		return
	}
	n := t.Steps()
	h := st.Job
	j := &Job{Checkpoints: []Checkpoint{}, Failures: []Failure{}, Restores: []Restore{}, Operators: []Operator{}, Transactions: []Transaction{},
		Partitions: []PartitionLag{}, Reads: []Read{}, Replays: []Replay{}, Shed: []ShedRecord{}}
	if h.Every > 0 {
		j.CheckpointEvery = h.Every.String()
	}
	end := t.TimeAt(t.Steps())
	for _, c := range h.Checkpoints {
		x := Checkpoint{ID: int(c.ID), BeginStep: int(c.Begin), Begin: c.BeginAt.String(), Status: stream.CheckpointStatus(c.Status), Final: c.Final,
			Duration: c.Duration(end).String(), Size: c.Size(), Sizes: map[string]int{}, Unsaved: c.Buffered}
		if c.End > 0 {
			x.EndStep, x.End = int(c.End), c.EndAt.String()
		}
		for oi, z := range c.Sizes {
			if z >= 0 {
				x.Sizes[st.Ops[oi].Name] = z
			}
		}
		for si, ps := range c.Positions {
			for p, o := range ps {
				x.Positions = append(x.Positions, fmt.Sprintf("%s %d:%d", st.Streams[si].Name, p, o))
			}
		}
		j.Checkpoints = append(j.Checkpoints, x)
	}
	for _, f := range h.Failures {
		x := Failure{Step: int(f.Step), At: f.At.String(), Who: f.Who, Point: f.Point, Checkpoint: int(f.Ckpt),
			RestartAt: f.RestartAt.String(), Aborted: int(f.Aborted), Buffered: int(f.Buffered), StaysDown: f.Down}
		if f.Down {
			x.RestartAt = ""
		}
		j.Failures = append(j.Failures, x)
	}
	for _, x := range h.Restores {
		rs := Restore{Step: int(x.Step), At: x.At.String(), From: int(x.From), Failed: x.Failed, Rewound: x.Rewound, Skipped: x.Skipped, Lost: int(x.Lost), Aborted: int(x.Aborted), Committed: int(x.Committed), Expired: int(x.Expired), Exact: x.Exact}
		if x.From > 0 {
			rs.Behind = x.Behind.String()
		}
		j.Restores = append(j.Restores, rs)
	}
	for oi, oh := range st.Ops {
		o := Operator{Name: oh.Name, Kind: oh.Kind, Stream: oh.Stream, Target: oh.Target, Commit: oh.Commit, Buffer: oh.Buffer, Overflow: oh.Overflow, Memory: oh.Memory,
			State: counts(oh.State), Queue: counts(oh.Queue), Pending: counts(oh.Pending), Visible: counts(oh.Written),
			Processed: st.ProcessedBetween(oi, 0, n), Dropped: st.DroppedAt(oi, n)}
		if oh.Cost > 0 {
			o.Rate = fmt.Sprintf("%d/s", int(vtime.Second/oh.Cost))
		}
		if oh.TTL > 0 {
			o.TTL = oh.TTL.String()
		}
		if k := len(oh.Collapsed); k > 0 {
			o.Collapsed = int(oh.Collapsed[k-1].N)
		}
		j.Operators = append(j.Operators, o)
	}
	for _, x := range h.Txns {
		tx := Transaction{Step: int(x.Step), Operator: st.Ops[x.Op].Name, ID: int(x.ID), State: x.State.String(), Rows: int(x.Rows), Recovered: x.Recovered}
		if x.State.String() == "committed" {
			tx.Wait = x.Wait.String()
		}
		j.Transactions = append(j.Transactions, tx)
	}
	for si, sh := range st.Streams {
		for p := range sh.Parts {
			pl := PartitionLag{Stream: sh.Name, Partition: fmt.Sprintf("%s-%d", sh.Topic, p), Reader: p % max(sh.Parallelism, 1),
				Position: st.PositionAt(si, p, n), Lag: st.LagAt(si, p, n), PeakLag: int64(st.PeakLag(si, p, n))}
			if c, down := st.CommittedAt(si, p, n); down && c >= 0 {
				pl.Committed = &c
			}
			j.Partitions = append(j.Partitions, pl)
		}
		if sh.Cost > 0 {
			for sub := range sh.Parallelism {
				u := ReaderUtilisation{Stream: sh.Name, Reader: sub, Partitions: []int{}, Peak: st.PeakUtilisation(si, sub, n)}
				for p := range sh.Parts {
					if p%sh.Parallelism == sub {
						u.Partitions = append(u.Partitions, p)
					}
				}
				j.Readers = append(j.Readers, u)
			}
		}
	}
	for i, x := range h.Reads {
		rd := Read{Name: x.Name, Step: int(x.Step), At: x.At.String(), Target: x.Target, Isolation: isolation(x.Uncommitted), Rows: []ReadRow{}, Pending: x.Pending}
		for _, row := range x.Rows {
			rd.Rows = append(rd.Rows, ReadRow{Key: row.Key, Amount: row.Amount, Version: int(row.Seq), Uncommitted: row.Pending})
		}
		if st.Judged(i) {
			step, ok := st.ReadVerdict(i)
			rd.Existed, rd.MatchStep = ok, int(step)
		} else {
			rd.Unjudged = true
		}
		j.Reads = append(j.Reads, rd)
	}
	for _, d := range st.ReplayDiffs(n) {
		j.Replays = append(j.Replays, Replay{Operator: st.Ops[d.Op].Name, Record: st.RecordName(d.Record), Key: d.Key,
			First:    Output{Step: int(d.First.Step), Amount: d.First.Amount, UpdatedAt: d.First.UpdatedAt.String()},
			Replayed: Output{Step: int(d.Then.Step), Amount: d.Then.Amount, UpdatedAt: d.Then.UpdatedAt.String()}})
	}
	for _, s := range h.Shed {
		j.Shed = append(j.Shed, ShedRecord{Step: int(s.Step), Operator: st.Ops[s.Op].Name, Record: st.RecordName(st.ArrivalID(s.Arrival))})
	}
	r.Job = j
}

func isolation(uncommitted bool) string {
	if uncommitted {
		return "read-uncommitted"
	}
	return "read-committed"
}

// jobText writes the job's sections: CHECKPOINTS, FAILURES, OPERATORS,
// LAG, READS and REPLAYS, each when there is something to say.
func jobText(b *strings.Builder, t *engine.Trace) {
	st := stream.Of(t)
	if st == nil || st.Job == nil {
		return
	}
	n := t.Steps()
	h := st.Job
	end := t.TimeAt(t.Steps())
	if len(h.Checkpoints) > 0 {
		fmt.Fprintf(b, "\nCHECKPOINTS (every %s; size in bytes of state and positions)\n", h.Every)
		for _, c := range h.Checkpoints {
			final := ""
			if c.Final {
				final = ", final"
			}
			fmt.Fprintf(b, "  %3d  %s  %-9s  %6d bytes  took %s%s\n", c.ID, c.BeginAt, stream.CheckpointStatus(c.Status), c.Size(), c.Duration(end), final)
		}
	}
	if len(h.Failures)+len(h.Restores) > 0 {
		b.WriteString("\nFAILURES AND RESTORES\n")
		fi, ri := 0, 0
		for fi < len(h.Failures) || ri < len(h.Restores) {
			if ri >= len(h.Restores) || fi < len(h.Failures) && h.Failures[fi].Step < h.Restores[ri].Step {
				f := h.Failures[fi]
				where := ""
				if w := f.Where(); w != "" {
					where = " " + w
				}
				if f.Point == stream.PointOutOfMemory {
					if oi := st.OpNamed(f.Who); oi >= 0 {
						where += fmt.Sprintf(" (its buffer passed %s)", prose.Count(st.Ops[oi].Memory, "record", "records"))
					}
				}
				down := ""
				if f.Down {
					down = "; the job stays down"
				}
				fmt.Fprintf(b, "  %s  %s fails%s; %d rows of open transactions aborted, %d records in buffers thrown away%s\n", f.At, f.Who, where, f.Aborted, f.Buffered, down)
				fi++
				continue
			}
			x := h.Restores[ri]
			from := "nothing (from the beginning)"
			if x.From > 0 {
				from = fmt.Sprintf("checkpoint %d, %s old", x.From, x.Behind)
			}
			decided := ""
			if x.Aborted+x.Committed+x.Expired > 0 {
				decided = fmt.Sprintf("; prepared rows: %d rolled back, %d committed", x.Aborted, x.Committed)
				if x.Expired > 0 {
					decided += fmt.Sprintf(", %d aborted by the broker (lost)", x.Expired)
				}
			}
			switch {
			case x.Failed:
				fmt.Fprintf(b, "  %s  cannot restore from %s: the input it needs is gone and auto.offset.reset=none%s\n", x.At, from, decided)
			default:
				fmt.Fprintf(b, "  %s  restored from %s: %d records read again, %d skipped by the reset, %d lost in buffers%s; state exact: %t\n", x.At, from, x.Rewound, x.Skipped, x.Lost, decided, x.Exact)
			}
			ri++
		}
	}
	if len(st.Ops) > 0 {
		b.WriteString("\nOPERATORS (buffer peak, state at the end, rows pending and visible)\n")
		for oi, oh := range st.Ops {
			var parts []string
			if oh.Buffer > 0 {
				peak := 0
				for _, q := range oh.Queue {
					peak = max(peak, int(q.N))
				}
				mem := ""
				if oh.Memory > 0 {
					mem = fmt.Sprintf(" (memory %d)", oh.Memory)
				}
				parts = append(parts, fmt.Sprintf("buffer %s %d%s, peak %d, dropped %d", oh.Overflow, oh.Buffer, mem, peak, st.DroppedAt(oi, n)))
			}
			parts = append(parts, fmt.Sprintf("state %d", st.StateAt(oi, n)))
			if oh.Target != "" {
				parts = append(parts, fmt.Sprintf("%s to %s: %d writes visible, %d pending", oh.Commit, oh.Target, st.WrittenAt(oi, n), st.PendingAt(oi, n)))
			}
			fmt.Fprintf(b, "  %s (%s): %s\n", oh.Name, oh.Kind, strings.Join(parts, "; "))
		}
		waits := map[int16]vtime.Duration{}
		for _, x := range h.Txns {
			switch x.State.String() {
			case "aborted":
				fmt.Fprintf(b, "  step %d: %s aborted transaction %d (%s)\n", x.Step, st.Ops[x.Op].Name, x.ID, prose.Count(int(x.Rows), "row", "rows"))
			case "committed":
				waits[x.Op] = max(waits[x.Op], x.Wait)
			}
		}
		for oi, oh := range st.Ops {
			if w, ok := waits[int16(oi)]; ok {
				fmt.Fprintf(b, "  %s: a row waited up to %s to become visible to read-committed readers\n", oh.Name, w)
			}
		}
	}
	var lags []string
	for si, sh := range st.Streams {
		if sh.Cost <= 0 && sh.Parallelism <= 1 && len(h.Failures) == 0 {
			continue
		}
		for p := range sh.Parts {
			lags = append(lags, fmt.Sprintf("  %s %s-%d (reader %d): peak lag %d, at the end %d", sh.Name, sh.Topic, p, p%max(sh.Parallelism, 1), int64(st.PeakLag(si, p, n)), st.LagAt(si, p, n)))
		}
		lags = append(lags, fmt.Sprintf("  %s average over %s: peak %.1f", sh.Name, prose.Count(len(sh.Parts), "partition", "partitions"), st.PeakLag(si, -1, n)))
		if sh.Cost > 0 {
			for sub := range sh.Parallelism {
				lags = append(lags, fmt.Sprintf("  %s reader %d: busiest ten seconds %.0f%% busy", sh.Name, sub, 100*st.PeakUtilisation(si, sub, n)))
			}
		}
	}
	if len(lags) > 0 {
		down := ""
		if len(h.Failures) > 0 {
			down = "; while the job is down, not yet committed to Kafka by a checkpoint"
		}
		fmt.Fprintf(b, "\nLAG (records appended and not yet read, per partition%s)\n", down)
		b.WriteString(strings.Join(lags, "\n") + "\n")
	}
	if len(h.Reads) > 0 {
		b.WriteString("\nREADS (what a reader saw, against every state the table passed through)\n")
		for i, x := range h.Reads {
			step, ok := st.ReadVerdict(i)
			verdict := "a state that never existed"
			switch {
			case !st.Judged(i):
				verdict = "not judged: no operator of the stream job writes " + x.Target + ", so its states are not followed"
			case ok && step == 0:
				verdict = "the table before anything was written"
			case ok:
				verdict = fmt.Sprintf("the state after step %d, at %s", step, t.Events[step-1].At)
			}
			var rows []string
			amounts, as := false, ""
			for _, row := range x.Rows {
				amounts = amounts || row.Amount != 0
			}
			if h := t.TargetNamed(x.Target); amounts && h != nil {
				as = ", rows as " + h.Key + "=amount"
			}
			for _, row := range x.Rows {
				if amounts {
					rows = append(rows, fmt.Sprintf("%s=%d", row.Key, row.Amount))
				} else {
					rows = append(rows, row.Key)
				}
			}
			if len(rows) == 0 {
				rows = []string{"no rows"}
			}
			if len(rows) > 12 {
				rows = append(rows[:11], fmt.Sprintf("… %d more", len(rows)-11))
			}
			fmt.Fprintf(b, "  %s at %s (%s on %s%s): %s — %s\n", x.Name, x.At, isolation(x.Uncommitted), x.Target, as, strings.Join(rows, " "), verdict)
		}
	}
	if ds := st.ReplayDiffs(n); len(ds) > 0 {
		b.WriteString("\nREPLAYS (records written again after a restore with a different row; the truth keeps both)\n")
		for _, d := range ds {
			fmt.Fprintf(b, "  %s %s (key %s): first amount %d, updated_at %s (step %d); again amount %d, updated_at %s (step %d)\n",
				st.Ops[d.Op].Name, st.RecordName(d.Record), d.Key, d.First.Amount, d.First.UpdatedAt, d.First.Step, d.Then.Amount, d.Then.UpdatedAt, d.Then.Step)
		}
	}
}

// loadsRows reports whether a stream job loads rows record by record (a
// sink or an aggregate writes a table), so that the truth moves and moves
// back within a second.
func loadsRows(t *engine.Trace) bool {
	st := stream.Of(t)
	if st == nil {
		return false
	}
	for _, oh := range st.Ops {
		if oh.Target != "" && (oh.Kind == "sink" || oh.Kind == "aggregate") {
			return true
		}
	}
	return false
}
