package stream

import (
	"sort"
	"strconv"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/join"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	"github.com/tidemark/tidemark/engine/window"
)

// Trace is the stream world's part of a trace (its engine.History): every
// read, every change of every watermark, every firing, late record, merge,
// pair and release, each with the step it happened at, so that a panel or
// a check reads any step without replaying. Its tables hold no pointers.
type Trace struct {
	t          *engine.Trace
	Streams    []*StreamHistory
	Windows    []*WindowHistory
	Joins      []*JoinHistory
	Ops        []*OpHistory     // every window, join, aggregate and sink, in the order declared
	Job        *JobHistory      // checkpoints, failures, transactions, outputs and reads; nil when the scenario has none of them
	Arrivals   []Arrival        // every read, in step order
	Watermarks []WatermarkPoint // every change of a stream's or a partition's watermark or idleness, in step order
	Firings    []FiringPoint    // every window fired, in step order
	Late       []LatePoint      // every record a window or a join found late, in step order
	Merges     []MergePoint     // every session window opened or grown, in step order
	Pairs      []PairPoint      // every pair a join emitted, in step order
	Released   []ReleasePoint   // every buffered record a join released, in step order
	Replays    []int32          // the arrivals that read a record again after a restore, in step order
	contents   []int64          // the record ids of firings that list them (FiringPoint.From)
	notes      []note           // what the steps narrated on demand are about
	processed  []processPoint   // every record an operator took off its buffer, in step order
	// repeats are the first firings of a window and key that fired before
	// a restore (made anew, or fired again from a restored state), in
	// order of their index in Firings; found once when the run ends
	// (noteRepeats).
	repeats []firingRepeat
}

// firingRepeat is the firing at index I of Firings, a first one or an
// update numbered no later than the one before, repeating the earlier
// firing at index Before of the same window and key.
type firingRepeat struct{ I, Before int32 }

// noteRepeats finds, once the run is over, every first firing of a window
// and key that fired before, and every update whose number a restore took
// back: only a restore makes one, so a run without a restore has none and
// pays for no search.
func (t *Trace) noteRepeats() {
	if t.Job == nil || len(t.Job.Restores) == 0 {
		return
	}
	type fired struct {
		op  int16
		key int32
		w   window.Window
	}
	latest := map[fired]int32{}
	for i := range t.Firings {
		f := &t.Firings[i]
		k := fired{f.Op, f.Key, f.Window}
		if j, ok := latest[k]; ok && (f.N == 1 || t.Firings[j].N >= f.N) {
			t.repeats = append(t.repeats, firingRepeat{I: int32(i), Before: j})
		}
		latest[k] = int32(i)
	}
}

// processPoint is a record operator op took off its buffer at step; its
// event's first number is -1 - its index, telling it from a read.
type processPoint struct {
	step    int32
	arrival int32
	op      int16
}

// SideTarget names the target that receives late record l when it is sent
// to the side output: its window's or its join's side=, or "" when nothing
// reads that side output.
func (t *Trace) SideTarget(l *LatePoint) string {
	if l.Join {
		return t.Joins[l.Op].Side
	}
	return t.Windows[l.Op].Side
}

// SourceReaders is how many watermark generators a per-source stream runs
// over n partitions: one per reader that reads one of them, at least one.
// It is 0 for a stream whose watermark is per partition.
func (sh *StreamHistory) SourceReaders(n int) int {
	if sh.Config.Scope != watermark.PerSource {
		return 0
	}
	return max(1, min(sh.Parallelism, n))
}

// StreamHistory is one stream as declared, with what it read.
type StreamHistory struct {
	Name, Topic string
	Config      watermark.Config
	Keyed       bool           // keyed by the record's key; false: key-by none, one key for all
	Shift       vtime.Duration // map shift=
	Scale       int64          // map scale=
	Keys        []string       // the stream's keys by its own id
	Parts       []PartHistory  // by partition
	Slows       []Slow         // stalls and delays, as they began
	// Parallelism is how many readers (source subtasks) it has: reader i
	// reads the partitions p with p mod Parallelism == i. Flink's
	// KafkaSourceEnumerator starts at a reader chosen by the topic name's
	// hash; the groups of partitions are the same, numbered from 0 here.
	Parallelism int
	Cost        vtime.Duration // what reading a record costs a reader; 0: nothing
	Costs       []CostPoint    // the cost from Step on, when a fault slows the readers
	Reset       string         // auto.offset.reset for a position retention has deleted: earliest, latest or none
	AvgPeaks    []AvgPoint     // each new peak of the average lag over its partitions
	Skews       []SkewPoint    // its clock's skew from Step on, noted at the first read after each change
	keyOf       []int32        // 1 + the stream's key id, by the core's key id
	filter      filter
	stamp       bool // event-time=timestamp
	topicIdx    int  // the topic's index among the log's topics
	// first and last are the earliest and latest event time of any record
	// the stream read in the run (filtered out or not, after map shift=);
	// both watermark.None until it reads one.
	first, last vtime.Time
}

// EventSpan is the earliest and latest event time of the records the
// stream read in the whole run, or ok false when it read none. A chart
// sizes its axis by it, so that a run whose records span seconds is not
// drawn on an axis of minutes.
func (h *StreamHistory) EventSpan() (first, last vtime.Time, ok bool) {
	return h.first, h.last, h.first != watermark.None
}

// SkewPoint is a stream's clock skew from Step on.
type SkewPoint struct {
	_    nocmp.NoCompare
	Step int32
	Skew vtime.Duration
}

// skewAt is the stream's clock skew at the read of step n: its reading
// is the step's true time plus it, the processing time the read had.
func (h *StreamHistory) skewAt(n int32) vtime.Duration {
	i := sort.Search(len(h.Skews), func(i int) bool { return h.Skews[i].Step > n })
	if i == 0 {
		return 0
	}
	return h.Skews[i-1].Skew
}

// PartHistory is what a stream read of one partition.
type PartHistory struct {
	Read     []int32      // the step each offset was first read at, by offset; minus the step it was skipped at, for an offset a reset skipped
	Filtered int          // records a filter kept out of the operators
	Pos      []PosPoint   // the position after every read, rewind and reset
	Peaks    []CountPoint // each new peak of its lag: records appended and not yet read, or while the job is down not yet committed (Trace.LagAt)
}

// readIn counts the offsets from `from` up to, not including, `to` that
// had been read by now (not skipped by a reset, nor still to come).
func (p *PartHistory) readIn(from, to int64) int {
	n := 0
	for k := max(from, 0); k < min(to, int64(len(p.Read))); k++ {
		if p.Read[k] > 0 {
			n++
		}
	}
	return n
}

// Slow is a stall or a delay of one partition, from a line or a fault.
type Slow struct {
	_           nocmp.NoCompare
	Step        int32 // the step at or after which it began
	Part        int
	From, Until vtime.Time
	Stall       bool
	By          vtime.Duration
}

// WindowHistory is one window operator as declared.
type WindowHistory struct {
	Name, Stream string
	Config       window.Config
	Agg          window.Agg
	Target, Side string
	results      []ResultRef
}

// ResultRef names the target row of one key's window.
type ResultRef struct {
	_      nocmp.NoCompare
	Key    int32
	Window window.Window
	ID     int32  // the core's key id of the row
	Name   string // the row's key, KEY@START
}

// JoinHistory is one join as declared, with its combined watermark.
type JoinHistory struct {
	Name, Left, Right string
	Config            join.Config
	Target            string
	Side              string // the target of late records with late=side-output, or ""
	Watermarks        []JoinWatermark
}

// JoinWatermark is the join's combined watermark from Step on.
type JoinWatermark struct {
	_     nocmp.NoCompare
	Step  int32
	Value vtime.Time
}

// Arrival is one read: the stream read offset Off of partition Part at Step.
type Arrival struct {
	Step   int32
	Off    int32
	Stream uint16
	Part   uint16
}

// WatermarkPoint is a stream's watermark (Part -1) or one partition's from
// Step on, and whether it is idle.
type WatermarkPoint struct {
	_      nocmp.NoCompare
	Value  vtime.Time
	Step   int32
	Stream int16
	Part   int16
	Idle   bool
}

// FiringPoint is one window fired at Step.
type FiringPoint struct {
	_      nocmp.NoCompare
	Window window.Window
	Acc    window.Acc
	At     vtime.Time // the watermark (or processing time) that fired it
	Step   int32
	N      int32 // its firing number: 1, then 2 and on for each update
	Key    int32 // the stream's key id
	From   int32 // index of its first record id in the contents, or -1 without contents
	Len    int32
	Op     int16
	Late   bool // fired at once by a late record accepted within the allowed lateness
}

// LatePoint is a record a window or a join found late, read at Arrival.
type LatePoint struct {
	_         nocmp.NoCompare
	Window    window.Window // a window's: the window the record fell in
	Watermark vtime.Time    // the operator's watermark when the record arrived
	Lateness  vtime.Duration
	Time      vtime.Time // its event time as the operator saw it
	Value     int64
	Arrival   int32
	Step      int32
	Key       int32
	Op        int16 // the window, or the join when Join
	Fate      uint8 // a window.Fate
	Side      uint8 // a join's side
	Join      bool
}

// MergePoint is a session window made at Step: opened by a record that
// touched no other session of its key (From 0), or grown over the From
// sessions of its key that it absorbed, which lie inside Into.
type MergePoint struct {
	_    nocmp.NoCompare
	Into window.Window
	Step int32
	Key  int32
	From int
	Op   int16
}

// PairPoint is one pair a join emitted at Step.
type PairPoint struct {
	_                   nocmp.NoCompare
	Left, Right         int64 // record ids
	LeftTime, RightTime vtime.Time
	Step                int32
	Key                 int32
	Op                  int16
}

// ReleasePoint is a buffered record a join released at Step.
type ReleasePoint struct {
	_       nocmp.NoCompare
	ID      int64
	Time    vtime.Time
	Step    int32
	Key     int32
	Matches int32 // how many pairs it was part of; 0: it never joined
	Op      int16
	Side    uint8
}

// note is what a step narrated on demand, other than a read, is about: a
// range of i to i+n of the table its why names.
type note struct {
	i, n int32
	who  int16 // the stream, window or join
	why  uint8
}

const (
	noteTick    uint8 = iota // Watermarks[i:i+n]: a tick moved watermarks or idleness
	noteEnd                  // Watermarks[i]: the stream's input ended
	noteFire                 // Firings[i:i+n]: the watermark or the clock fired windows
	noteFireEnd              // Firings[i:i+n]: the end of input fired windows
	noteRelease              // Released[i:i+n]: the join's watermark released records
)

// Observe is filled in by the checks' view (see view.go).

// stepIndex is the number of a table's entries at or before step n, for a
// table in step order: step(i) is entry i's step. (sort.Search, where a
// generic search would put a copy per table into the browser module.)
func stepIndex(count, n int, step func(i int) int32) int {
	return sort.Search(count, func(i int) bool { return step(i) > int32(n) })
}

// ArrivalsAt is every read by step n.
func (t *Trace) ArrivalsAt(n int) []Arrival {
	return t.Arrivals[:stepIndex(len(t.Arrivals), n, func(i int) int32 { return t.Arrivals[i].Step })]
}

// FiringsAt is every firing by step n.
func (t *Trace) FiringsAt(n int) []FiringPoint {
	return t.Firings[:stepIndex(len(t.Firings), n, func(i int) int32 { return t.Firings[i].Step })]
}

// LateAt is every late record by step n.
func (t *Trace) LateAt(n int) []LatePoint {
	return t.Late[:stepIndex(len(t.Late), n, func(i int) int32 { return t.Late[i].Step })]
}

// WatermarksAt is every watermark change by step n.
func (t *Trace) WatermarksAt(n int) []WatermarkPoint {
	return t.Watermarks[:stepIndex(len(t.Watermarks), n, func(i int) int32 { return t.Watermarks[i].Step })]
}

// PairsAt is every pair by step n.
func (t *Trace) PairsAt(n int) []PairPoint {
	return t.Pairs[:stepIndex(len(t.Pairs), n, func(i int) int32 { return t.Pairs[i].Step })]
}

// ReleasedAt is every release by step n.
func (t *Trace) ReleasedAt(n int) []ReleasePoint {
	return t.Released[:stepIndex(len(t.Released), n, func(i int) int32 { return t.Released[i].Step })]
}

// Watermark is stream i's watermark after step n (partition -1) or one
// partition's, and whether it is idle. Before any, it is watermark.None.
func (t *Trace) Watermark(i, part, n int) (vtime.Time, bool) {
	ws := t.WatermarksAt(n)
	for k := len(ws) - 1; k >= 0; k-- {
		if w := &ws[k]; int(w.Stream) == i && int(w.Part) == part {
			return w.Value, w.Idle
		}
	}
	return watermark.None, false
}

// Contents lists the record ids a firing holds, when its window keeps them.
func (t *Trace) Contents(f *FiringPoint) []int64 {
	if f.From < 0 {
		return nil
	}
	return t.contents[f.From : f.From+f.Len]
}

// Record returns the topic record an id names, and its topic.
func (t *Trace) Record(id int64) (*topic.Record, *logs.TopicHistory) {
	lt := logs.Of(t.t)
	ti, p, off := int(id>>48), int(id>>32&0xffff), id&0xffffffff
	if lt == nil || ti >= len(lt.Topics) {
		return nil, nil
	}
	h := lt.Topics[ti]
	if p >= len(h.Parts) || off >= int64(len(h.Parts[p].Records)) {
		return nil, nil
	}
	return &h.Parts[p].Records[off], h
}

// RecordName names a record by its event id (shop-7), or by where it sits
// (orders-1@12) when it has none.
func (t *Trace) RecordName(id int64) string {
	r, h := t.Record(id)
	if r == nil {
		return "?"
	}
	if s := h.ID(r); s != "" {
		return s
	}
	return h.Name + "-" + strconv.Itoa(int(id>>32&0xffff)) + "@" + strconv.FormatInt(id&0xffffffff, 10) // a record's offset is its index
}

// recordName names the record of an arrival.
func (t *Trace) recordName(a Arrival) string {
	return t.RecordName(t.arrivalID(a))
}

// StepTime is the true time of step n.
func (t *Trace) StepTime(n int32) vtime.Time { return t.t.Events[n-1].At }

// ArrivalID is the record id of arrival i.
func (t *Trace) ArrivalID(i int32) int64 { return t.arrivalID(t.Arrivals[i]) }

// arrivalID is the record id of an arrival.
func (t *Trace) arrivalID(a Arrival) int64 {
	return int64(t.Streams[a.Stream].topicIdx)<<48 | int64(a.Part)<<32 | int64(a.Off)
}

// KeyName spells a stream's key id: the record's key, or "" for a stream
// keyed by none.
func (h *StreamHistory) KeyName(k int32) string {
	if !h.Keyed || int(k) >= len(h.Keys) {
		return ""
	}
	return h.Keys[k]
}

// StreamNamed returns the history of the stream with name, or nil.
func (t *Trace) StreamNamed(name string) *StreamHistory {
	for _, s := range t.Streams {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// streamIndex is the index of the stream with name, or -1.
func (t *Trace) streamIndex(name string) int {
	for i, s := range t.Streams { // a loop: slices.IndexFunc is an instance per slice type in the browser module
		if s.Name == name {
			return i
		}
	}
	return -1
}
