package join

import (
	"errors"

	"github.com/tidemark/tidemark/engine/vtime"

	"github.com/tidemark/tidemark/engine/varint"
)

// snapshotMagic starts every snapshot, with its format version.
const snapshotMagic = "TMJ1"

// Snapshot appends the join's whole state to dst and returns the result:
// its configuration, watermark, counters and both buffers, key by key in
// the buffers' order. Equal states give equal bytes.
//
// Flink's checkpoints hold the buffers and their timers but not the
// watermark; the snapshot keeps it so that a restore is exact, and a
// caller modelling Flink's restart can call ResetWatermark.
func (o *Operator) Snapshot(dst []byte) []byte {
	dst = append(dst, snapshotMagic...)
	dst = appendConfig(dst, o.cfg)
	dst = varint.AppendVarint(dst, int64(o.wm))
	for _, v := range []int64{o.dropped[Left], o.dropped[Right], o.sideOut[Left], o.sideOut[Right], o.pairs} {
		dst = varint.AppendUvarint(dst, uint64(v))
	}
	for s := range o.buf {
		dst = varint.AppendUvarint(dst, uint64(o.held[s]))
		for k, es := range o.buf[s] {
			if len(es) == 0 {
				continue
			}
			dst = varint.AppendUvarint(dst, uint64(k))
			dst = varint.AppendUvarint(dst, uint64(len(es)))
			for _, e := range es {
				dst = varint.AppendVarint(dst, e.id)
				dst = varint.AppendVarint(dst, int64(e.t))
				dst = varint.AppendUvarint(dst, uint64(e.matches))
			}
		}
	}
	return dst
}

// ResetWatermark puts the watermark back at None, as a Flink operator
// restored from a checkpoint starts.
func (o *Operator) ResetWatermark() { o.wm = None }

func appendConfig(dst []byte, c Config) []byte {
	dst = varint.AppendVarint(dst, int64(c.Lower))
	dst = varint.AppendVarint(dst, int64(c.Upper))
	var flags byte
	for i, b := range []bool{c.LowerExclusive, c.UpperExclusive, c.SideOutput} {
		if b {
			flags |= 1 << i
		}
	}
	return append(dst, flags)
}

// ErrSnapshot is wrapped by every error Restore returns.
var ErrSnapshot = errors.New("join snapshot")

// snapshotError says what is wrong with a snapshot, and wraps ErrSnapshot.
type snapshotError string

func (e snapshotError) Error() string { return "join snapshot: " + string(e) }
func (e snapshotError) Unwrap() error { return ErrSnapshot }

// Restore rebuilds a join from a snapshot taken with the same
// configuration, setting a release timer again for every buffered record.
func Restore(cfg Config, b []byte) (*Operator, error) {
	o, err := New(cfg)
	if err != nil {
		return nil, err
	}
	want := appendConfig([]byte(snapshotMagic), cfg)
	if len(b) < len(want) || string(b[:len(want)]) != string(want) {
		return nil, snapshotError("it was taken with another join configuration, or is not a join snapshot")
	}
	b = b[len(want):]
	var bad error
	num := func() int64 {
		v, n := varint.Varint(b)
		if n <= 0 {
			bad = errors.New("truncated or malformed number")
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	unum := func() uint64 {
		v, n := varint.Uvarint(b)
		if n <= 0 {
			bad = errors.New("truncated or malformed number")
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	o.wm = vtime.Time(num())
	for _, p := range []*int64{&o.dropped[Left], &o.dropped[Right], &o.sideOut[Left], &o.sideOut[Right], &o.pairs} {
		*p = int64(unum())
	}
	for s := Left; s <= Right && bad == nil; s++ {
		total := unum()
		for got := uint64(0); got < total && bad == nil; {
			key, n := unum(), unum()
			if bad != nil {
				break
			}
			if key > 1<<31-1 || n == 0 || n > total-got || n > uint64(len(b)) {
				bad = errors.New("a key's entries are out of range")
				break
			}
			for int(key) >= len(o.perKey) {
				o.perKey = append(o.perKey, 0)
				o.buf[Left] = append(o.buf[Left], nil)
				o.buf[Right] = append(o.buf[Right], nil)
			}
			if len(o.buf[s][key]) > 0 {
				bad = errors.New("a key appears twice")
				break
			}
			es := make([]entry, n)
			for i := range es {
				es[i] = entry{id: num(), t: vtime.Time(num()), matches: int32(unum())}
				if i > 0 && es[i].t < es[i-1].t {
					bad = errors.New("a key's entries are out of order")
				}
			}
			if bad != nil {
				break
			}
			o.buf[s][key] = es
			if o.perKey[key] == 0 {
				o.keys++
			}
			o.perKey[key] += int32(n)
			o.held[s] += int(n)
			_, hi := o.relative(s)
			for _, e := range es {
				cleanup := e.t
				if hi > 0 {
					cleanup = e.t.Add(hi)
				}
				o.push(timer{at: cleanup, t: e.t, key: int32(key), side: s})
			}
			got += n
		}
	}
	if bad == nil && len(b) != 0 {
		bad = errors.New("bytes left over after the buffers")
	}
	if bad != nil {
		return nil, snapshotError(bad.Error())
	}
	return o, nil
}
