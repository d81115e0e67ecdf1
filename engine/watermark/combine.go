package watermark

import (
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/vtime"
)

// input is one input of a Combiner: Flink's PartialWatermark.
//
// Invariant: w never decreases.
type input struct {
	_    nocmp.NoCompare
	w    vtime.Time
	idle bool
}

// Combiner combines the watermarks of several inputs into one, as Flink's
// CombinedWatermarkStatus does for a source's partitions and
// IndexedCombinedWatermarkStatus for an operator's two inputs: the minimum
// over inputs that are not idle, moved only forward. When every input is
// idle the combination is idle and keeps its value.
//
// An input that comes back from idleness behind the combined watermark does
// not pull it back; it holds it where it is until it catches up, and its
// records between the two are behind the watermark downstream. (Flink's
// network-channel valve, StatusWatermarkValve, instead leaves such a channel
// out of the minimum until it catches up, and when its last active channel
// turns idle it passes on the largest watermark of all its channels;
// Tidemark does not model network channels.)
//
// Invariants: w never decreases; idle is true only when every input is idle.
type Combiner struct {
	inputs []input
	w      vtime.Time
	idle   bool
}

// NewCombiner returns a combiner over n inputs, each starting at None and active.
func NewCombiner(n int) Combiner {
	c := Combiner{w: None}
	for range n {
		c.add()
	}
	return c
}

func (c *Combiner) add() { c.inputs = append(c.inputs, input{w: None}) }

// Len is the number of inputs.
func (c *Combiner) Len() int { return len(c.inputs) }

// Watermark is the combined watermark.
func (c *Combiner) Watermark() vtime.Time { return c.w }

// Idle reports whether every input is idle.
func (c *Combiner) Idle() bool { return c.idle }

// Input is input i's watermark and whether it is idle.
func (c *Combiner) Input(i int) (vtime.Time, bool) { return c.inputs[i].w, c.inputs[i].idle }

// Emit hands on input i's watermark w at once (Flink's immediate output): it
// clears the input's idleness and, when w moves the input forward past the
// combined watermark, takes the minimum again. It reports whether the
// combined watermark advanced.
func (c *Combiner) Emit(i int, w vtime.Time) bool {
	if c.set(i, w) && w > c.w {
		return c.update()
	}
	return false
}

// MarkIdle leaves input i out of the minimum until it emits again, and
// reports whether the combined watermark advanced.
func (c *Combiner) MarkIdle(i int) bool {
	c.setIdle(i)
	return c.update()
}

// MarkActive counts input i in the minimum again, and reports whether the
// combined watermark advanced.
func (c *Combiner) MarkActive(i int) bool {
	c.inputs[i].idle = false
	return c.update()
}

// set records input i's watermark w without combining (Flink's deferred
// output), clears its idleness, and reports whether the input moved forward.
func (c *Combiner) set(i int, w vtime.Time) bool {
	in := &c.inputs[i]
	in.idle = false
	if w > in.w {
		in.w = w
		return true
	}
	return false
}

// setIdle marks input i idle without combining.
func (c *Combiner) setIdle(i int) { c.inputs[i].idle = true }

// update takes the minimum over the inputs that are not idle and reports
// whether it moved the combined watermark forward.
func (c *Combiner) update() bool {
	if len(c.inputs) == 0 {
		return false
	}
	low, allIdle := End, true
	for _, in := range c.inputs {
		if !in.idle {
			low = min(low, in.w)
			allIdle = false
		}
	}
	c.idle = allIdle
	if !allIdle && low > c.w {
		c.w = low
		return true
	}
	return false
}
