// Package join is a keyed interval join of two streams, modelled on
// Flink's IntervalJoinOperator: a left record a and a right record b of
// the same key join when a.Time + Lower <= b.Time <= a.Time + Upper.
//
// What it models faithfully:
//   - Both sides are buffered by key and event time. A record is joined
//     with every buffered record of the other side in its interval, then
//     buffered itself.
//   - The buffers are cleared by the operator's watermark (the minimum of
//     its two inputs' watermarks, which the caller combines): a left record
//     at t leaves when the watermark reaches t + Upper (t when Upper is not
//     positive), a right record at t when it reaches t - Lower (t when Lower
//     is not negative). Clearing happens only when the watermark advances,
//     as Flink's timers fire.
//   - A record whose event time is behind the watermark (t < watermark) is
//     late: it is dropped without being joined or buffered, or sent to its
//     side's late-data output when one is set (sideOutputLeftLateData /
//     sideOutputRightLateData, added to Flink's interval join by
//     FLINK-24907). The partners it should have met may still be
//     buffered; the join does not look.
//   - Exclusive bounds move the bound by 1 ms, as Flink does, after
//     checking Lower <= Upper.
//
// What it simplifies: records carry only their key, time and an id; pairs
// are emitted in the order of the buffered side's event time, then arrival
// (Flink's order follows its state backend's map); buffers removed at the
// same watermark go in order of time, side, key and event time.
package join

import (
	"math"
	"sort"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/vtime"
)

// None is the watermark before any has been seen, Flink's Long.MIN_VALUE.
const None = vtime.Time(math.MinInt64)

// Side is one of the join's two inputs.
type Side uint8

// Sides.
const (
	Left Side = iota
	Right
)

func (s Side) String() string { return [...]string{"left", "right"}[s] }

// Config is an interval join.
type Config struct {
	_              nocmp.NoCompare
	Lower, Upper   vtime.Duration // a right record joins a left one at t when t+Lower <= its time <= t+Upper
	LowerExclusive bool           // t+Lower itself is outside
	UpperExclusive bool           // t+Upper itself is outside
	SideOutput     bool           // late records go to their side's late-data output instead of being dropped
}

// A ConfigError is what Validate finds wrong with a Config. Field names
// the setting at fault as a scenario's join line names its argument
// (between, for the bounds, which that line writes as one value), so that
// the error can point at its value.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string { return e.Msg }

// Setting is the name of the argument at fault, as a scenario line writes it.
func (e *ConfigError) Setting() string { return e.Field }

// Validate says what is wrong with c, as a *ConfigError. It checks the
// bounds as written, before exclusive bounds move them, as Flink does.
func (c Config) Validate() error {
	if c.Lower > c.Upper {
		return &ConfigError{"between", "an interval join's lower bound " + c.Lower.String() + " is above its upper bound " + c.Upper.String()}
	}
	return nil
}

// Empty reports whether the interval holds no instant once its excluded
// bounds are left out, as between=0s..0s exclusive=upper does. Flink
// checks the bounds before it excludes them (IntervalJoinOperator), so it
// runs such a join, which pairs nothing; Validate accepts it as Flink does.
func (c Config) Empty() bool {
	lo, hi := c.bounds()
	return lo > hi
}

// bounds are the inclusive bounds after the exclusivity adjustment.
func (c Config) bounds() (lower, upper vtime.Duration) {
	lower, upper = c.Lower, c.Upper
	if c.LowerExclusive {
		lower++
	}
	if c.UpperExclusive {
		upper--
	}
	return lower, upper
}

// Record is one record entering the join.
type Record struct {
	_    nocmp.NoCompare
	ID   int64      // the caller's name for the record
	Key  int32      // the join key, as a dense id from 0
	Time vtime.Time // the event time
}

// Pair is one joined result.
type Pair struct {
	_           nocmp.NoCompare
	Left, Right Record
	Time        vtime.Time // the later of the two event times, as Flink stamps the result
}

// Fate is what became of a late record.
type Fate uint8

// Fates of a late record.
const (
	Dropped    Fate = iota // dropped without a trace but a counter
	SideOutput             // sent to its side's late-data output
)

func (f Fate) String() string { return [...]string{"dropped", "side output"}[f] }

// Late is a record that arrived behind the join's watermark.
type Late struct {
	_         nocmp.NoCompare
	Side      Side
	Record    Record
	Fate      Fate
	Watermark vtime.Time // the join's watermark when it arrived
}

// Why says, in a sentence a learner can read, why the record never joined.
func (l Late) Why() string {
	s := "the " + l.Side.String() + " record at event time " + l.Record.Time.String() +
		" arrived behind the join's watermark " + l.Watermark.String() +
		"; the join may already have released the records it should meet, so it does not try"
	if l.Fate == SideOutput {
		return s + ": the record goes to the late-data side output"
	}
	return s + ": the record is dropped and never joins"
}

// Expired is a buffered record the watermark released.
type Expired struct {
	_         nocmp.NoCompare
	Side      Side
	Record    Record
	Matches   int        // how many pairs it was part of; 0: it never joined
	Watermark vtime.Time // the watermark that released it
}

// Output collects what calls to an Operator emitted; the caller Resets it.
type Output struct {
	Pairs   []Pair
	Late    []Late
	Expired []Expired
}

// Reset empties o, keeping its room.
func (o *Output) Reset() {
	o.Pairs = o.Pairs[:0]
	o.Late = o.Late[:0]
	o.Expired = o.Expired[:0]
}

// Size is how much the join buffers.
type Size struct {
	Keys        int // keys with a buffered record on either side
	Left, Right int // buffered records per side
}

// entry is one buffered record.
type entry struct {
	_       nocmp.NoCompare
	id      int64
	t       vtime.Time
	matches int32
}

// timer releases the buffer of one side, key and event time.
type timer struct {
	_    nocmp.NoCompare
	at   vtime.Time
	t    vtime.Time
	key  int32
	side Side
}

func (a *timer) before(b *timer) bool {
	switch {
	case a.at != b.at:
		return a.at < b.at
	case a.side != b.side:
		return a.side < b.side
	case a.key != b.key:
		return a.key < b.key
	}
	return a.t < b.t
}

// Operator is one interval join.
//
// Invariants: buf[s][k] is sorted by event time, records of equal time in
// arrival order; held[s] is the number of entries of side s; perKey[k] is
// the number of entries of key k on both sides, and keys the number of
// keys where it is not zero; every entry has a timer in timers at its
// release time; wm never decreases.
type Operator struct {
	cfg          Config
	lower, upper vtime.Duration
	wm           vtime.Time
	buf          [2][][]entry
	perKey       []int32
	keys         int
	held         [2]int
	timers       []timer
	dropped      [2]int64
	sideOut      [2]int64
	pairs        int64
}

// New returns an empty join.
func New(cfg Config) (*Operator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := &Operator{cfg: cfg, wm: None}
	o.lower, o.upper = cfg.bounds()
	return o, nil
}

// Config is the configuration o was made with.
func (o *Operator) Config() Config { return o.cfg }

// Watermark is the join's watermark.
func (o *Operator) Watermark() vtime.Time { return o.wm }

// Dropped counts side s's late records dropped.
func (o *Operator) Dropped(s Side) int64 { return o.dropped[s] }

// SideOutputs counts side s's late records sent to the side output.
func (o *Operator) SideOutputs(s Side) int64 { return o.sideOut[s] }

// Pairs counts the pairs emitted.
func (o *Operator) Pairs() int64 { return o.pairs }

// Size is what the join buffers now.
func (o *Operator) Size() Size { return Size{Keys: o.keys, Left: o.held[Left], Right: o.held[Right]} }

// relative is the interval, relative to a record of side s, in which the
// other side's partners lie.
func (o *Operator) relative(s Side) (lo, hi vtime.Duration) {
	if s == Left {
		return o.lower, o.upper
	}
	return -o.upper, -o.lower
}

// Add reads a record of side s.
func (o *Operator) Add(s Side, r Record, out *Output) {
	if r.Key < 0 {
		panic("join: a record's key id must be at least zero")
	}
	if o.wm != None && r.Time < o.wm {
		l := Late{Side: s, Record: r, Watermark: o.wm}
		if o.cfg.SideOutput {
			l.Fate = SideOutput
			o.sideOut[s]++
		} else {
			o.dropped[s]++
		}
		out.Late = append(out.Late, l)
		return
	}
	for int(r.Key) >= len(o.perKey) {
		o.perKey = append(o.perKey, 0)
		o.buf[Left] = append(o.buf[Left], nil)
		o.buf[Right] = append(o.buf[Right], nil)
	}
	lo, hi := o.relative(s)
	mine := &o.buf[s][r.Key]
	at := firstAt(*mine, r.Time+1)
	*mine = append(*mine, entry{})
	copy((*mine)[at+1:], (*mine)[at:])
	(*mine)[at] = entry{id: r.ID, t: r.Time}
	me := &(*mine)[at]
	other := o.buf[1-s][r.Key]
	from := firstAt(other, r.Time.Add(lo))
	for j := from; j < len(other) && other[j].t <= r.Time.Add(hi); j++ {
		e := &other[j]
		p := Pair{Time: max(r.Time, e.t)}
		mineRec, theirs := r, Record{ID: e.id, Key: r.Key, Time: e.t}
		if s == Left {
			p.Left, p.Right = mineRec, theirs
		} else {
			p.Left, p.Right = theirs, mineRec
		}
		out.Pairs = append(out.Pairs, p)
		e.matches++
		me.matches++
		o.pairs++
	}
	o.held[s]++
	if o.perKey[r.Key] == 0 {
		o.keys++
	}
	o.perKey[r.Key]++
	cleanup := r.Time
	if hi > 0 {
		cleanup = r.Time.Add(hi)
	}
	o.push(timer{at: cleanup, t: r.Time, key: r.Key, side: s})
}

// AdvanceWatermark moves the join's watermark to w and releases every
// buffer whose time has come. A watermark not ahead changes nothing.
func (o *Operator) AdvanceWatermark(w vtime.Time, out *Output) {
	if w <= o.wm {
		return
	}
	o.wm = w
	for len(o.timers) > 0 && o.timers[0].at <= w {
		tm := o.pop()
		b := &o.buf[tm.side][tm.key]
		i := firstAt(*b, tm.t)
		if i == len(*b) || (*b)[i].t != tm.t {
			continue // released already by an earlier timer of the same time
		}
		j := i
		for j < len(*b) && (*b)[j].t == tm.t {
			e := (*b)[j]
			out.Expired = append(out.Expired, Expired{Side: tm.side, Record: Record{ID: e.id, Key: tm.key, Time: e.t}, Matches: int(e.matches), Watermark: w})
			j++
		}
		*b = append((*b)[:i], (*b)[j:]...)
		o.held[tm.side] -= j - i
		o.perKey[tm.key] -= int32(j - i)
		if o.perKey[tm.key] == 0 {
			o.keys--
		}
	}
}

// firstAt is the index of the first entry of es, sorted by time, at or
// after t: sort.Search rather than the generic slices.BinarySearchFunc,
// which the browser module would carry a copy of per element type.
func firstAt(es []entry, t vtime.Time) int {
	return sort.Search(len(es), func(i int) bool { return es[i].t >= t })
}

func (o *Operator) push(t timer) {
	o.timers = append(o.timers, t)
	q := o.timers
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (o *Operator) pop() timer {
	q := o.timers
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l, c := 2*i+1, i
		if l < n && q[l].before(&q[c]) {
			c = l
		}
		if r := l + 1; r < n && q[r].before(&q[c]) {
			c = r
		}
		if c == i {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	o.timers = q
	return top
}

func cmpTime(a, b vtime.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
