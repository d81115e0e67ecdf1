package window

import (
	"errors"

	"github.com/tidemark/tidemark/engine/vtime"

	"github.com/tidemark/tidemark/engine/varint"
)

// snapshotMagic starts every snapshot, with its format version.
const snapshotMagic = "TMW1"

// Snapshot appends the operator's whole state to dst and returns the
// result: its configuration, watermark, clock, counters, and every open
// window (key, bounds, accumulator, firings so far, pending timers,
// contents) in order of key, start and end. Equal states give equal bytes,
// however they were reached, so a checkpoint's size is len of the result.
//
// Flink's checkpoints hold the keyed state and timers but not the
// watermark, which restarts at Long.MIN_VALUE after a restore; the
// snapshot keeps it so that a restore is exact, and a caller modelling
// Flink's restart can call ResetWatermark.
func (o *Operator) Snapshot(dst []byte) []byte {
	dst = append(dst, snapshotMagic...)
	dst = appendConfig(dst, o.cfg)
	dst = varint.AppendVarint(dst, int64(o.wm))
	dst = varint.AppendVarint(dst, int64(o.now))
	dst = varint.AppendUvarint(dst, uint64(o.dropped))
	dst = varint.AppendUvarint(dst, uint64(o.sideOut))
	order := make([]int32, 0, o.windows)
	for i := range o.slots {
		if o.slots[i].flags&live != 0 {
			order = append(order, int32(i))
		}
	}
	o.sortSlots(order)
	dst = varint.AppendUvarint(dst, uint64(len(order)))
	for _, i := range order {
		s := &o.slots[i]
		dst = varint.AppendUvarint(dst, uint64(s.key))
		dst = varint.AppendVarint(dst, int64(s.win.Start))
		dst = varint.AppendVarint(dst, int64(s.win.End))
		dst = varint.AppendVarint(dst, s.acc.Count)
		dst = varint.AppendVarint(dst, s.acc.Sum)
		dst = varint.AppendVarint(dst, s.acc.Min)
		dst = varint.AppendVarint(dst, s.acc.Max)
		dst = varint.AppendUvarint(dst, uint64(s.firings))
		var pending byte
		if s.fireAt != none {
			pending |= fireTimer
		}
		if s.cleanAt != none {
			pending |= cleanTimer
		}
		dst = append(dst, pending)
		if o.cfg.Contents {
			for e := s.head; e != none; e = o.elems[e].next {
				dst = varint.AppendVarint(dst, o.elems[e].id)
			}
		}
	}
	return dst
}

// ResetWatermark puts the watermark back at None, as a Flink operator
// restored from a checkpoint starts.
func (o *Operator) ResetWatermark() { o.wm = None }

func appendConfig(dst []byte, c Config) []byte {
	a := c.Assigner
	dst = append(dst, byte(a.Kind), byte(c.Domain), boolByte(c.SideOutput), boolByte(c.Contents))
	for _, d := range []vtime.Duration{a.Size, a.Slide, a.Offset, a.Gap, c.Lateness} {
		dst = varint.AppendVarint(dst, int64(d))
	}
	return dst
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// ErrSnapshot is wrapped by every error Restore returns.
var ErrSnapshot = errors.New("window snapshot")

// snapshotError says what is wrong with a snapshot, and wraps ErrSnapshot.
type snapshotError string

func (e snapshotError) Error() string { return "window snapshot: " + string(e) }
func (e snapshotError) Unwrap() error { return ErrSnapshot }

// reader reads a snapshot, remembering the first problem.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = snapshotError(what)
	}
}

func (r *reader) varint() int64 {
	v, n := varint.Varint(r.b)
	if n <= 0 {
		r.fail("truncated or malformed number")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) uvarint() uint64 {
	v, n := varint.Uvarint(r.b)
	if n <= 0 {
		r.fail("truncated or malformed number")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// Restore rebuilds an operator from a snapshot taken with the same
// configuration. Its timers are set again from each window's pending
// flags, so it fires exactly as the operator the snapshot was taken from.
func Restore(cfg Config, b []byte) (*Operator, error) {
	o, err := New(cfg)
	if err != nil {
		return nil, err
	}
	want := appendConfig([]byte(snapshotMagic), cfg)
	if len(b) < len(want) || string(b[:len(want)]) != string(want) {
		return nil, snapshotError("it was taken with another window configuration, or is not a window snapshot")
	}
	r := &reader{b: b[len(want):]}
	o.wm = vtime.Time(r.varint())
	o.now = vtime.Time(r.varint())
	o.dropped = int64(r.uvarint())
	o.sideOut = int64(r.uvarint())
	n := r.uvarint()
	var prev Result
	if n > uint64(len(r.b)) {
		r.fail("more windows than bytes")
	}
	for j := uint64(0); j < n && r.err == nil; j++ {
		key := r.uvarint()
		w := Window{Start: vtime.Time(r.varint()), End: vtime.Time(r.varint())}
		acc := Acc{Count: r.varint(), Sum: r.varint(), Min: r.varint(), Max: r.varint()}
		firings := r.uvarint()
		flags := r.byte()
		if r.err != nil {
			break
		}
		if key > 1<<31-1 || acc.Count < 1 || w.End <= w.Start || firings > 1<<31-1 || flags&^(fireTimer|cleanTimer) != 0 ||
			cfg.Contents && acc.Count > int64(len(r.b)) {
			r.fail("a window entry is out of range")
			break
		}
		if this := (Result{Key: int32(key), Window: w}); j > 0 && compareResults(prev, this) >= 0 {
			r.fail("the windows are out of order, or one appears twice")
			break
		} else {
			prev = this
		}
		for int(key) >= len(o.keyHead) {
			o.keyHead = append(o.keyHead, none)
		}
		i := o.open(int32(key), w)
		s := &o.slots[i]
		s.firings = int32(firings)
		if cfg.Contents {
			for range acc.Count {
				o.addTo(i, Record{ID: r.varint()})
			}
		}
		o.slots[i].acc = acc
		if flags&fireTimer != 0 {
			o.register(i, w.MaxTimestamp(), fireTimer)
		}
		if flags&cleanTimer != 0 {
			o.register(i, o.cleanupTime(w), cleanTimer)
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("bytes left over after the last window")
	}
	if r.err != nil {
		return nil, r.err
	}
	return o, nil
}
