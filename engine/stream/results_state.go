package stream

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/checkpoint"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/window"
)

// The truth and the team's view of the second part: what the job's
// checkpoints, failures and transactions came to, which rows a replay wrote
// differently, whether what a reader saw was ever the table's state, and
// what the job's metrics and a recount show.

// CheckpointCounts counts the checkpoints after step n that completed and
// that failed (expired or abandoned), and the restores that worked and
// that could not.
func (t *Trace) CheckpointCounts(n int) (completed, failed, restored, unrestorable int) {
	for _, c := range t.CheckpointsAt(n) {
		switch c.Status {
		case CheckpointCompleted:
			completed++
		case CheckpointExpired, CheckpointAbandoned:
			failed++
		}
	}
	if t.Job == nil {
		return
	}
	for _, r := range t.Job.Restores {
		if int(r.Step) > n {
			break
		}
		if r.Failed {
			unrestorable++
		} else {
			restored++
		}
	}
	return
}

// TxnCounts counts the transactions committed and aborted by step n.
func (t *Trace) TxnCounts(n int) (committed, aborted int) {
	if t.Job == nil {
		return
	}
	for _, x := range t.Job.Txns {
		if int(x.Step) > n {
			break
		}
		switch x.State {
		case checkpoint.Committed:
			committed++
		case checkpoint.Aborted:
			aborted++
		}
	}
	return
}

// BufferLosses counts the records buffers dropped by step n, and those
// restores lost because they sat in buffers without flow control.
func (t *Trace) BufferLosses(n int) (dropped, lost int) {
	if t.Job == nil {
		return
	}
	for _, s := range t.Job.Shed {
		if int(s.Step) <= n {
			dropped++
		}
	}
	for _, r := range t.Job.Restores {
		if int(r.Step) <= n {
			lost += int(r.Lost)
		}
	}
	return
}

// ReplayDiff is a record a sink or an aggregate wrote again after a
// restore, with a different row than the first time.
type ReplayDiff struct {
	_           nocmp.NoCompare
	Op          int16
	Record      int64
	Key         string
	First, Then OutputPoint
}

// ReplayDiffs lists, after step n, every record whose row a replay wrote
// differently from its first writing: another amount, or another
// updated_at. The truth keeps both versions.
func (t *Trace) ReplayDiffs(n int) []ReplayDiff {
	if t.Job == nil {
		return nil
	}
	type rk struct {
		op  int16
		rec int64
	}
	first := map[rk]int{}
	var out []ReplayDiff
	seen := map[rk]bool{}
	for i, o := range t.Job.Outputs {
		if int(o.Step) > n {
			break
		}
		if o.Record < 0 || t.Ops[o.Op].Kind != "sink" {
			continue
		}
		k := rk{o.Op, o.Record}
		f, ok := first[k]
		if !ok {
			first[k] = i
			continue
		}
		fo := t.Job.Outputs[f]
		if (fo.Amount != o.Amount || fo.UpdatedAt != o.UpdatedAt) && !seen[k] {
			seen[k] = true
			out = append(out, ReplayDiff{Op: o.Op, Record: o.Record, Key: t.t.Key(o.Key), First: fo, Then: o})
		}
	}
	return out
}

// Judged reports whether read i can be judged by ReadVerdict: some
// operator of the job writes its table. A table only a consumer group or
// an extractor writes has states the stream world does not follow.
func (t *Trace) Judged(i int) bool {
	target := t.Job.Reads[i].Target
	for _, oh := range t.Ops {
		if oh.Target == target {
			return true
		}
	}
	return false
}

// ReadVerdict says whether what read i saw was ever, as a whole, a state
// of its table: the states the operators writing it made as they read
// their input for the first time, one row after another (a replay's are
// not among them). It returns the step of the state it matches, and false
// when none does: a state that never existed. Ask only of a read that is
// Judged.
func (t *Trace) ReadVerdict(i int) (step int32, existed bool) {
	r := &t.Job.Reads[i]
	mode := t.targetMode(r.Target)
	type cell struct {
		count  int
		amount int64
		seq    int32
	}
	want := map[string]cell{}
	for _, row := range r.Rows {
		c := want[row.Key]
		c.count++
		c.amount = row.Amount
		want[row.Key] = c
	}
	state := map[string]*cell{}
	match := func(key string) bool {
		s := state[key]
		w, ok := want[key]
		if !ok {
			return s == nil || s.count == 0
		}
		return s != nil && s.count == w.count && s.amount == w.amount
	}
	mismatch := len(want)
	if mismatch == 0 {
		return 0, true
	}
	// The rows written, in the order they were: sinks' and aggregates'
	// (Outputs) with windows' and joins' (Emitted).
	outs, ems := t.Job.Outputs, t.Job.Emitted
	for len(outs) > 0 || len(ems) > 0 {
		var o *OutputPoint
		if len(ems) == 0 || len(outs) > 0 && outs[0].Step <= ems[0].Step {
			o, outs = &outs[0], outs[1:]
		} else {
			o, ems = &ems[0], ems[1:]
		}
		if o.Step > r.Step {
			break
		}
		if !o.Forward || t.Ops[o.Op].Target != r.Target {
			continue
		}
		key := t.t.Key(o.Key)
		before := match(key)
		s := state[key]
		if s == nil {
			s = &cell{}
			state[key] = s
		}
		del := false
		if o.Record >= 0 {
			rec, _ := t.Record(o.Record)
			del = rec != nil && rec.Delete
		}
		switch {
		case del && (mode == sink.Append || mode == sink.Overwrite):
			// a table that only inserts cannot apply a delete
		case del:
			s.count, s.seq = 0, o.Seq
		case mode == sink.Append || mode == sink.Overwrite:
			s.count++
			s.amount, s.seq = o.Amount, o.Seq
		case mode == sink.Merge && s.count > 0 && o.Seq <= s.seq:
			// a merge absorbs a version no newer than the row's
		default:
			s.count, s.amount, s.seq = 1, o.Amount, o.Seq
		}
		after := match(key)
		switch {
		case before && !after:
			mismatch++
		case !before && after:
			mismatch--
		}
		if mismatch == 0 {
			return t.visibleAt(r, o), true
		}
	}
	return 0, false
}

// visibleAt is the step from which a read-committed reader (r) could see
// the table state o completed: for a two-phase-commit sink's row, the
// step its transaction committed, not the step it was written into the
// transaction. It is o's own step for any other row and reader.
func (t *Trace) visibleAt(r *ReadSnapshot, o *OutputPoint) int32 {
	if r.Uncommitted || t.Ops[o.Op].Commit != "two-phase" {
		return o.Step
	}
	for _, x := range t.Job.Txns {
		if x.Op == o.Op && x.State == checkpoint.Committed && x.Step >= o.Step && x.Step <= r.Step {
			return x.Step
		}
	}
	return o.Step
}

// NeverExisted lists the reads by step n whose snapshot was never a state
// of their table.
func (t *Trace) NeverExisted(n int) []string {
	if t.Job == nil {
		return nil
	}
	var out []string
	for i, r := range t.Job.Reads {
		if int(r.Step) > n {
			break
		}
		if _, ok := t.ReadVerdict(i); !ok && t.Judged(i) {
			out = append(out, r.Name)
		}
	}
	return out
}

// unknownReads says which of the names a reads claim wants no read line
// declares ("; there is no read named r9; the reads are report"), so that
// a misspelt name is not taken for a read that saw a real state; "" when
// every name is a read's.
func (t *Trace) unknownReads(want []string) string {
	var reads []string
	if t.Job != nil {
		for _, r := range t.Job.Reads {
			reads = append(reads, r.Name)
		}
	}
	for _, w := range want {
		if w == "none" || slices.Contains(reads, w) {
			continue
		}
		if len(reads) == 0 {
			return "; there is no read named " + w + ", and this scenario has no read line"
		}
		if hint := scenario.DidYouMean(w, reads); hint != "" {
			return "; there is no read named " + w + hint
		}
		return "; there is no read named " + w + "; the reads are " + strings.Join(reads, ", ")
	}
	return ""
}

// verifyState verifies the claims of the second part about step n.
func (t *Trace) verifyState(e engine.Expectation, n int) (got string, holds, known bool) {
	num := func(v int) (string, bool, bool) {
		got := strconv.Itoa(v)
		return got, got == e.Want, true
	}
	switch e.What {
	case "checkpoints":
		c, f, r, u := t.CheckpointCounts(n)
		return num(named(e.Name, "completed", c, "failed", f, "restored", r, "unrestorable", u))
	case "transactions":
		c, a := t.TxnCounts(n)
		return num(named(e.Name, "committed", c, "aborted", a, "", 0, "", 0))
	case "buffers":
		d, l := t.BufferLosses(n)
		return num(named(e.Name, "dropped", d, "lost", l, "", 0, "", 0))
	case "replays":
		return num(len(t.ReplayDiffs(n)))
	case "reads":
		names := t.NeverExisted(n)
		got = "none"
		if len(names) > 0 {
			got = strings.Join(names, ",")
		}
		want := strings.Split(e.Want, ",")
		sorted.Sort(want)
		seen := slices.Clone(names)
		sorted.Sort(seen)
		if len(seen) == 0 {
			seen = []string{"none"}
		}
		holds = slices.Equal(seen, want)
		if !holds {
			got += t.unknownReads(want)
		}
		return got, holds, true
	}
	return "", false, false
}

// observeJob is what a team could see of the job after step n: its
// checkpoint history, the source's lag metrics, its buffers' counters, and
// its tables beside a recount from the topic.
func (t *Trace) observeJob(n int) *check.JobView {
	if t.Job == nil {
		return nil
	}
	v := &check.JobView{}
	at := t.t.TimeAt(n)
	for _, c := range t.CheckpointsAt(n) {
		v.Checkpoints = append(v.Checkpoints, check.CheckpointView{ID: int(c.ID), Completed: c.Status == CheckpointCompleted,
			Running: c.Status == CheckpointRunning, Duration: c.Duration(at), Size: c.Size()})
	}
	for si, sh := range t.Streams {
		for p := range sh.Parts {
			v.Lags = append(v.Lags, check.PartitionLag{Stream: sh.Name, Partition: sh.Topic + "-" + strconv.Itoa(p), Peak: int64(t.PeakLag(si, p, n))})
		}
		if len(sh.Parts) > 0 {
			v.Averages = append(v.Averages, check.AverageLag{Stream: sh.Name, Peak: t.PeakLag(si, -1, n), Partitions: len(sh.Parts)})
		}
	}
	shared := &tableWork{targets: map[string]*targetRows{}, streams: map[int]*streamKeys{}}
	for oi, oh := range t.Ops {
		if oh.Buffer > 0 {
			v.Buffers = append(v.Buffers, check.BufferView{Operator: oh.Name, Overflow: oh.Overflow, Dropped: int64(t.DroppedAt(oi, n))})
		}
		if oh.Target != "" && (oh.Kind == "sink" || oh.Kind == "aggregate") {
			v.Tables = append(v.Tables, t.tableCount(oi, n, shared))
		}
	}
	return v
}

// tableWork is what the table counts of one step share, each read once
// however many operators name it: a scenario may write a thousand sinks
// from one stream into one target, and reading the target's rows and the
// topic's records again for each would make the checks of a step cost the
// square of what the run was charged.
type tableWork struct {
	targets map[string]*targetRows
	streams map[int]*streamKeys
}

// targetRows is a target table after the step, by key.
type targetRows struct {
	total  int
	count  map[string]int   // how many rows each key has
	amount map[string]int64 // the amount of each key's last row
}

// streamKeys is what a recount of a stream's topic finds, by key: the
// keys for its sinks and the sums for its aggregates, each found on first
// use from the records read once.
type streamKeys struct {
	si      int
	recs    []TruthRecord   // the records the topic still holds
	held    bool            // gone and inserts are found
	gone    map[string]bool // every key the topic holds: whether its latest event deletes it
	inserts int             // the events that delete nothing
	summed  bool            // accs and order are found
	accs    map[string]*window.Acc
	order   []string // the keys of accs, in key order
}

// target is the table name after step n, read on first use.
func (w *tableWork) target(t *Trace, name string, n int) *targetRows {
	if tr := w.targets[name]; tr != nil {
		return tr
	}
	rows := t.t.TargetAt(name, n)
	tr := &targetRows{total: len(rows), count: map[string]int{}, amount: map[string]int64{}}
	for i := range rows {
		k := t.t.RowKey(&rows[i])
		tr.count[k]++
		tr.amount[k] = rows[i].Amount
	}
	w.targets[name] = tr
	return tr
}

// stream is stream si's topic after step n, read on first use.
func (w *tableWork) stream(t *Trace, si, n int) *streamKeys {
	if sk := w.streams[si]; sk != nil {
		return sk
	}
	sk := &streamKeys{si: si, recs: t.truthRecords(si, n, true)}
	w.streams[si] = sk
	return sk
}

// keys finds, once, every key the topic holds and whether its latest
// event deletes it, and how many events delete nothing. Only rows of keys
// the topic still holds can be recounted: a record's key, or, for one
// without, its event id, which its row is known by.
func (sk *streamKeys) keys(t *Trace) {
	if sk.held {
		return
	}
	sk.held, sk.gone = true, map[string]bool{}
	for _, r := range sk.recs {
		if rec, h := t.Record(r.ID); rec != nil {
			sk.gone[h.Label(rec)] = rec.Delete
			if !rec.Delete {
				sk.inserts++
			}
		}
	}
}

// sums adds up, once, the topic's values by the stream's key.
func (sk *streamKeys) sums(t *Trace) {
	if sk.summed {
		return
	}
	sk.summed, sk.accs = true, map[string]*window.Acc{}
	sh := t.Streams[sk.si]
	for _, r := range sk.recs {
		name := "all"
		if sh.Keyed {
			name = sh.KeyName(r.Key)
		}
		if sk.accs[name] == nil {
			sk.accs[name] = &window.Acc{}
			sk.order = append(sk.order, name)
		}
		sk.accs[name].Add(r.Value)
	}
	sorted.Stable(sk.order, func(i, j int32) int { return mvcc.CompareKeys(sk.order[i], sk.order[j]) })
}

// tableCount is operator oi's table after step n beside a recount from the
// records its topic still holds: a sink's rows against the events (or,
// in a table of one row per key, the keys), an aggregate's value per key
// against the key's records.
func (t *Trace) tableCount(oi, n int, shared *tableWork) check.TableCount {
	oh := t.Ops[oi]
	rows := shared.target(t, oh.Target, n)
	tc := check.TableCount{Operator: oh.Name, Target: oh.Target, Rows: rows.total}
	sk := shared.stream(t, t.streamIndex(oh.Stream), n)
	switch oh.Kind {
	case "sink":
		sk.keys(t)
		// A change capture topic's delete event takes its key's row away
		// in a table of one row per key, and is no row of its own in one
		// that only inserts.
		if mode := t.targetMode(oh.Target); mode == sink.Merge || mode == sink.Upsert {
			for _, g := range sk.gone {
				if !g {
					tc.Expected++
				}
			}
		} else {
			tc.Expected = sk.inserts
		}
		// The rows of keys the topic holds, counted over the fewer keys.
		tc.Rows = 0
		if len(rows.count) < len(sk.gone) {
			for k, c := range rows.count {
				if _, held := sk.gone[k]; held {
					tc.Rows += c
				}
			}
		} else {
			for k := range sk.gone {
				tc.Rows += rows.count[k]
			}
		}
		tc.Gone = rows.total - tc.Rows
	case "aggregate":
		agg := oh.Agg
		sk.sums(t)
		tc.Expected = len(sk.accs)
		for _, name := range sk.order {
			want := agg.Of(*sk.accs[name])
			if got, ok := rows.amount[name]; !ok || got != want {
				tc.Wrong = append(tc.Wrong, prose2(name, got, ok, want))
			}
		}
	}
	return tc
}

// targetMode is how writes land in the target table name.
func (t *Trace) targetMode(name string) sink.Mode {
	for _, h := range t.t.Targets {
		if h.Name == name {
			return h.Mode
		}
	}
	return sink.Merge
}

func prose2(name string, got int64, ok bool, want int64) string {
	if !ok {
		return name + ": no row, the topic " + strconv.FormatInt(want, 10)
	}
	return name + ": table " + strconv.FormatInt(got, 10) + ", topic " + strconv.FormatInt(want, 10)
}

// named returns the count of the pair (a, b, c or d) whose name is name, or
// 0: one function for every claim that names one of a few counts, where a
// map built at each call would cost the browser module its code each time.
func named(name, a string, na int, b string, nb int, c string, nc int, d string, nd int) int {
	switch name {
	case a:
		return na
	case b:
		return nb
	case c:
		return nc
	case d:
		return nd
	}
	return 0
}
