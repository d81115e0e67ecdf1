package window

import (
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/vtime"
)

// timer is a pending firing or cleanup of one window (or both, when they
// fall at the same time: Flink keeps one timer per key, window and time).
type timer struct {
	_          nocmp.NoCompare
	at         vtime.Time
	start, end vtime.Time
	key        int32
	slot       int32
	kinds      uint8 // fireTimer, cleanTimer or both
}

// before orders timers by time, then key, then window: the order they fire in.
func (a *timer) before(b *timer) bool {
	switch {
	case a.at != b.at:
		return a.at < b.at
	case a.key != b.key:
		return a.key < b.key
	case a.start != b.start:
		return a.start < b.start
	}
	return a.end < b.end
}

// The timers form a binary min-heap in o.timers, written out rather than
// built on container/heap (whose interface boxes every value) and indexed:
// each slot knows where its timers sit (slot.fireAt, slot.cleanAt), so a
// window that merges away or is cleared takes its timers out at once
// instead of leaving them to be skipped.

// place puts timer t at heap index i and tells its slot.
func (o *Operator) place(i int, t timer) {
	o.timers[i] = t
	s := &o.slots[t.slot]
	if t.kinds&fireTimer != 0 {
		s.fireAt = int32(i)
	}
	if t.kinds&cleanTimer != 0 {
		s.cleanAt = int32(i)
	}
}

func (o *Operator) up(i int) {
	t := o.timers[i]
	for i > 0 {
		p := (i - 1) / 2
		if !t.before(&o.timers[p]) {
			break
		}
		o.place(i, o.timers[p])
		i = p
	}
	o.place(i, t)
}

func (o *Operator) down(i int) {
	n := len(o.timers)
	t := o.timers[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && o.timers[r].before(&o.timers[c]) {
			c = r
		}
		if !o.timers[c].before(&t) {
			break
		}
		o.place(i, o.timers[c])
		i = c
	}
	o.place(i, t)
}

// push adds a timer.
func (o *Operator) push(t timer) {
	o.timers = append(o.timers, t)
	o.up(len(o.timers) - 1)
}

// remove takes out the timer at heap index i and returns it.
func (o *Operator) remove(i int) timer {
	t := o.timers[i]
	n := len(o.timers) - 1
	if i != n {
		o.place(i, o.timers[n])
		o.timers = o.timers[:n]
		o.down(i)
		o.up(i) // a no-op unless the moved timer belongs above i
	} else {
		o.timers = o.timers[:n]
	}
	return t
}
