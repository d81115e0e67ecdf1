package window

import "github.com/tidemark/tidemark/engine/vtime"

// timer is a pending firing or cleanup of one window.
type timer struct {
	at         vtime.Time
	start, end vtime.Time
	key        int32
	slot       int32
	gen        uint32 // the slot's gen when it was set; another gen means the timer was deleted
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

// timers is a binary min-heap of timers. It is written out rather than
// built on container/heap, whose interface boxes every pushed value.
type timers []timer

func (h *timers) push(t timer) {
	*h = append(*h, t)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *timers) pop() timer {
	q := *h
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
	*h = q
	return top
}
