package stream

import (
	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/keyed"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/varint"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/window"
)

// This file holds the operators of the stream world's second part, an
// aggregate and a sink, and what every operator does for the job:
// snapshot, restore, and tell how much state it holds.

// --- A running aggregate per key.

// aggOp is a running aggregate per key (a GROUP BY over the whole stream,
// with no window): each record updates its key's count, sum, minimum and
// maximum, and the new value is written as the key's row. Its state holds
// every key ever seen, unless a time to live expires the quiet ones.
type aggOp struct {
	opBase
	name   string
	st     *stream
	agg    window.Agg
	state  *keyed.State
	target *sink.Table
	// truth: each key's aggregate over every record, and what its row holds.
	truth map[int32]*aggResult
}

// aggResult is what the truth knows of one key's row, and what the target holds.
type aggResult struct {
	_       nocmp.NoCompare
	row     resultRow
	truth   window.Acc
	present bool
	has     int64
	n       int32
	seq     int32
}

func (op *aggOp) snapshot(dst []byte) []byte { return op.state.Snapshot(dst) }

func (op *aggOp) restore(b []byte) error {
	if b == nil {
		op.state = keyed.New(op.state.TTL())
		return nil
	}
	st, err := keyed.Restore(b)
	if err != nil {
		return err
	}
	op.state = st
	return nil
}

func (op *aggOp) size() int { return op.state.Len() }

// take updates the record's key at processing time ptime and writes its new value.
func (op *aggOp) take(s *world, r window.Record, ptime vtime.Time, replay bool) {
	s.w.Charge(1)
	e, had := op.state.Get(int64(r.Key), ptime)
	e.Add(r.Value)
	e = op.state.Put(int64(r.Key), e, ptime)
	s.noteState(op)
	if op.target == nil {
		return
	}
	acc := window.Acc{Count: e.Count, Sum: e.Sum, Min: e.Min, Max: e.Max}
	res := op.result(s, r.Key)
	in := s.resultIn(res.row)
	in.Seq, in.UpdatedAt, in.Amount = int(e.N), ptime, op.agg.Of(acc)
	s.output(op.oi, in, r.ID, !replay)
	if !had && res.present && op.state.TTL() > 0 {
		j := s.t.Job
		j.Outputs[len(j.Outputs)-1].Restarted = true
	}
	op.out.write([]pendingRow{{in: in, acc: acc, ref: r.Key}})
}

// result returns the truth's state of key's row, naming the row on first use.
func (op *aggOp) result(s *world, key int32) *aggResult {
	if r := op.truth[key]; r != nil {
		return r
	}
	name := "all"
	if op.st.keyed {
		name = op.st.hist.Keys[key]
	}
	r := &aggResult{row: s.targetKey(op.target, name)}
	op.truth[key] = r
	return r
}

// truthAdd counts a record that reached the topic in its key's truth.
func (op *aggOp) truthAdd(s *world, key int32, v int64) {
	r := op.result(s, key)
	r.truth.Add(v)
	// The row's key may be the record's own (one target, no prefix), whose
	// version the producer has just moved: tell the core again.
	r.seq = -1
	op.settle(s, r)
}

// visible follows a row written to the target.
func (op *aggOp) visible(s *world, p *pendingRow, landed bool) {
	if !landed {
		return
	}
	r := op.result(s, p.ref)
	r.present, r.has, r.n = true, p.in.Amount, int32(p.in.Seq)
	op.settle(s, r)
}

// settle tells the core what version of a key's row the truth wants: the
// one present when it holds the truth's value, one after it when it does not.
func (op *aggOp) settle(s *world, r *aggResult) {
	var want int32
	switch {
	case r.truth.Count == 0:
		want = 0
	case r.present && r.has == op.agg.Of(r.truth):
		want = r.n
	case r.present:
		want = r.n + 1
	default:
		want = 1
	}
	if want != r.seq {
		r.seq = want
		s.w.SetSourceVersion(op.target, r.row.row, want)
	}
}

// --- A sink writing each record as a row.

// sinkOp writes each record of its stream as a row of its target, keyed by
// the record's business key with the record's version: the stream job that
// loads a table. It can stamp the row with the time it is processed
// (value=now) or with a value looked up in a source table that changes
// (value=lookup), both of which give a different row when the record is
// read again after a restore; and it can drop a record whose event id (or
// key) it has seen before (dedup=), remembering ids for a time to live.
type sinkOp struct {
	opBase
	name   string
	pos    scenario.Pos // its line's to=, for an error about its target
	st     *stream
	target *sink.Table
	value  uint8 // valueAmount, valueNow or valueLookup
	lookup *lookupTable
	dedup  uint8 // dedupOff, dedupEvent or dedupKey
	state  *keyed.State
	ids    map[string]int64 // event ids by the dense number the dedup state keys them with
	ever   map[int64]bool   // every id the dedup has remembered, expired or not (what the truth knows, not the operator)
}

// Sink values.
const (
	valueAmount uint8 = iota // the record's amount, its event time as updated_at
	valueNow                 // the record's amount, the time it is processed as updated_at: now()
	valueLookup              // the lookup table's amount for the record's key, as it stands when processed
)

// Dedup modes.
const (
	dedupOff uint8 = iota
	dedupEvent
	dedupKey
)

func (op *sinkOp) snapshot(dst []byte) []byte { return op.state.Snapshot(dst) }

func (op *sinkOp) restore(b []byte) error {
	if b == nil {
		op.state = keyed.New(op.state.TTL())
		return nil
	}
	st, err := keyed.Restore(b)
	if err != nil {
		return err
	}
	op.state = st
	return nil
}

func (op *sinkOp) size() int { return op.state.Len() }

// take writes record r (its topic record rec) at processing time ptime,
// unless the dedup has seen it.
func (op *sinkOp) take(s *world, r window.Record, rec *topic.Record, ptime vtime.Time, replay bool) (dup bool) {
	s.w.Charge(1)
	forgot := false
	h := op.st.topic.h
	if op.dedup != dedupOff {
		var id int64
		if op.dedup == dedupKey {
			id = int64(rec.KeyID)
		} else {
			name := h.DedupID(rec)
			x, ok := op.ids[name]
			if !ok {
				x = int64(len(op.ids))
				op.ids[name] = x
			}
			id = x
		}
		if _, seen := op.state.Get(id, ptime); seen {
			s.noteState(op)
			return true
		}
		op.state.Put(id, keyed.Entry{}, ptime)
		s.noteState(op)
		if op.ever[id] {
			forgot = true // seen before, and expired since
		}
		op.ever[id] = true
	}
	key := h.Key(rec)
	id, src := rec.KeyID, rec.Src
	if s.multi {
		// With several targets a key's id depends on the target; a target
		// the record's source does not reach knows no source row for it.
		if other := s.w.KeyID(op.target, key); other != id {
			id, src = other, 0
		}
	}
	row := key
	if !rec.Keyed {
		// A record without a key is known by its event id, as a group's
		// write knows it: an event resent under a new id is a new key to
		// the target, though the same event to the truth.
		if eid := h.ID(rec); eid != "" && eid != key {
			if src == 0 {
				src = id + 1
			}
			id, row = s.w.KeyID(op.target, eid), eid
		}
	}
	in := sink.In{ID: id, Src: src, Key: row, Seq: int(rec.Seq), UpdatedAt: rec.UpdatedAt, LSN: int64(rec.LSN), Amount: rec.Amount, Delete: rec.Delete}
	switch op.value {
	case valueNow:
		in.UpdatedAt = ptime
	case valueLookup:
		in.Amount = op.lookup.value(key)
	}
	s.output(op.oi, in, r.ID, !replay)
	if forgot {
		j := s.t.Job
		j.Outputs[len(j.Outputs)-1].Restarted = true
	}
	op.out.write([]pendingRow{{in: in, ref: -1}})
	return false
}

// lookupTable is a source table a sink reads values from as they stand
// when it processes a record: each key's amount, kept current by a hook on
// the source's commits, and every change with its commit time.
type lookupTable struct {
	name    string
	current map[string]int64
	changes []lookupChange
}

type lookupChange struct {
	_      nocmp.NoCompare
	At     vtime.Time
	Key    string
	Amount int64
}

func (l *lookupTable) value(key string) int64 { return l.current[key] }

// --- What every operator does for the job.

func (op *windowOp) snapshot(dst []byte) []byte { return op.op.Snapshot(dst) }

func (op *windowOp) restore(b []byte) error {
	if b == nil {
		o, err := window.New(op.cfg)
		if err != nil {
			return err
		}
		op.op = o
		return nil
	}
	o, err := window.Restore(op.cfg, b)
	if err != nil {
		return err
	}
	op.op = o
	return nil
}

func (op *windowOp) size() int { return op.op.Size().Windows }

// A join's snapshot is the join's own, then how many pairs it has written
// per key (what its target's rows count), in order of key.
func (j *joinOp) snapshot(dst []byte) []byte {
	b := j.op.Snapshot(nil)
	dst = varint.AppendUvarint(dst, uint64(len(b)))
	dst = append(dst, b...)
	keys := sorted.Keys(j.emitted)
	dst = varint.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		dst = varint.AppendUvarint(dst, uint64(k))
		dst = varint.AppendUvarint(dst, uint64(j.emitted[k]))
	}
	return dst
}

// errJoinSnapshot is a constant, so that initialising the package
// allocates nothing for it (a Worker initialises it on every request).
const errJoinSnapshot = snapshotError("stream: a join snapshot is cut short")

// snapshotError is an error about a snapshot that does not restore.
type snapshotError string

func (e snapshotError) Error() string { return string(e) }

func (j *joinOp) restore(b []byte) error {
	if b == nil {
		o, err := join.New(j.cfg)
		if err != nil {
			return err
		}
		j.op, j.emitted = o, nil
		return nil
	}
	n, k := varint.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return errJoinSnapshot
	}
	o, err := join.Restore(j.cfg, b[k:k+int(n)])
	if err != nil {
		return err
	}
	rest := b[k+int(n):]
	cnt, k := varint.Uvarint(rest)
	if k <= 0 {
		return errJoinSnapshot
	}
	rest = rest[k:]
	emitted := map[int32]int32{}
	for range cnt {
		key, k1 := varint.Uvarint(rest)
		if k1 <= 0 {
			return errJoinSnapshot
		}
		v, k2 := varint.Uvarint(rest[k1:])
		if k2 <= 0 {
			return errJoinSnapshot
		}
		emitted[int32(key)] = int32(v)
		rest = rest[k1+k2:]
	}
	if len(rest) != 0 {
		return errJoinSnapshot
	}
	j.op, j.emitted = o, emitted
	if len(emitted) == 0 {
		j.emitted = nil
	}
	return nil
}

func (j *joinOp) size() int {
	z := j.op.Size()
	return z.Left + z.Right
}

// noteState records how many entries op's state holds now.
func (s *world) noteState(op operator) {
	oh := s.t.Ops[op.base().oi]
	oh.State = appendCount(oh.State, int32(s.w.NextStep()), int32(op.size()))
}

// emitted records a row a window or a join wrote, when the job keeps a
// history (a read may judge its table by it); forward is false for a
// row a replay wrote again.
func (s *world) emitted(oi int16, in sink.In, forward bool) {
	if j := s.t.Job; j != nil {
		j.Emitted = append(j.Emitted, OutputPoint{UpdatedAt: in.UpdatedAt, Amount: in.Amount, Record: -1, Step: int32(s.w.NextStep()),
			Key: in.ID, Seq: int32(in.Seq), Op: oi, Forward: forward})
	}
}

// output records a row an operator emitted.
func (s *world) output(oi int16, in sink.In, record int64, forward bool) {
	j := s.jobHist()
	j.Outputs = append(j.Outputs, OutputPoint{UpdatedAt: in.UpdatedAt, Amount: in.Amount, Record: record, Step: int32(s.w.NextStep()),
		Key: in.ID, Seq: int32(in.Seq), Op: oi, Forward: forward})
}
