package window

import (
	"math/rand/v2"
	"testing"

	"github.com/tidemark/tidemark/engine/vtime"
)

// check verifies the operator's internal invariants: the key lists, the
// counts, the index, and the timer heap with each slot's positions in it.
func (o *Operator) check(t *testing.T) {
	t.Helper()
	windows, keys, held := 0, 0, int64(0)
	for k, head := range o.keyHead {
		if head == none {
			continue
		}
		keys++
		prev := int32(none)
		for i := head; i != none; i = o.slots[i].next {
			s := &o.slots[i]
			if s.flags&live == 0 || s.key != int32(k) || s.prev != prev {
				t.Fatalf("slot %d is on key %d's list but is %+v", i, k, *s)
			}
			if !o.cfg.Assigner.Merging() && o.index[winKey{s.key, s.win.Start, s.win.End}] != i {
				t.Fatalf("slot %d is not in the index", i)
			}
			n := int64(0)
			for e := s.head; e != none; e = o.elems[e].next {
				n++
			}
			if o.cfg.Contents && n != s.acc.Count {
				t.Fatalf("slot %d holds %d ids for a count of %d", i, n, s.acc.Count)
			}
			held += n
			for _, pos := range []int32{s.fireAt, s.cleanAt} {
				if pos != none && (int(pos) >= len(o.timers) || o.timers[pos].slot != i) {
					t.Fatalf("slot %d points at heap position %d, which is not its timer", i, pos)
				}
			}
			windows++
			prev = i
		}
	}
	if windows != o.windows || keys != o.keys || held != o.held {
		t.Fatalf("counted %d windows, %d keys, %d ids; the operator says %d, %d, %d", windows, keys, held, o.windows, o.keys, o.held)
	}
	if !o.cfg.Assigner.Merging() && len(o.index) != windows {
		t.Fatalf("the index holds %d windows, the lists %d", len(o.index), windows)
	}
	for i := range o.timers {
		tm := &o.timers[i]
		if i > 0 && tm.before(&o.timers[(i-1)/2]) {
			t.Fatalf("heap order broken at %d", i)
		}
		s := &o.slots[tm.slot]
		if s.flags&live == 0 || tm.kinds&fireTimer != 0 && s.fireAt != int32(i) || tm.kinds&cleanTimer != 0 && s.cleanAt != int32(i) {
			t.Fatalf("timer %d (%+v) is not its slot's", i, *tm)
		}
	}
}

func TestInvariantsUnderRandomUse(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 9))
		var a Assigner
		switch r.IntN(3) {
		case 0:
			a = Assigner{Kind: Tumbling, Size: vtime.Duration(1 + r.IntN(5000))}
		case 1:
			a = Assigner{Kind: Sliding, Size: 4000, Slide: vtime.Duration(1000 + r.IntN(3000))}
		default:
			a = Assigner{Kind: Session, Gap: vtime.Duration(1 + r.IntN(3000))}
		}
		cfg := Config{Assigner: a, Domain: Domain(r.IntN(2)), Contents: r.IntN(2) == 0}
		if cfg.Domain == EventTime {
			cfg.Lateness = vtime.Duration(r.IntN(2) * r.IntN(5000))
		}
		o, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var out Output
		now := vtime.Time(0)
		for range 2000 {
			now += vtime.Time(r.IntN(50))
			switch r.IntN(10) {
			case 0:
				o.AdvanceWatermark(now-vtime.Time(r.IntN(3000)), &out)
			case 1:
				o.AdvanceProcessingTime(now, &out)
			default:
				o.Add(Record{ID: int64(r.IntN(1000)), Key: int32(r.IntN(8)), Time: now - vtime.Time(r.IntN(6000)), Value: int64(r.IntN(10))}, now, &out)
			}
			o.check(t)
			out.Reset()
		}
	}
}
