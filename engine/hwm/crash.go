package hwm

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/vtime"
)

// crashAfterEnd schedules the crash of a run whose crash point comes after
// the last of its pipeline's phases: after-write when advance=before stores
// the mark first, after-mark when advance=after stores it last or
// advance=atomic stores it with the write. The run finishes first, and the
// crash is narrated as one that loses and repeats nothing, so that a
// scenario (often one with an advance= knob) shows what happened rather than
// dropping the crash in silence.
func (h *world) crashAfterEnd(r *runState, at vtime.Time) {
	var why string
	switch c := r.plan.crash; {
	case r.p.cfg.Interval > 0 && c != extract.NoCrash && c != extract.MidWrite:
		why = "an interval run stores no mark, so its write was its last step"
	case r.p.cfg.Advance == extract.Before && c == extract.AfterWrite:
		why = "with advance=before writing is its last step, so its rows and its mark were both durable already"
	case r.p.cfg.Advance == extract.After && c == extract.AfterMark:
		why = "with advance=after storing the mark is its last step, so its rows and its mark were both durable already"
	case r.p.cfg.Advance == extract.Atomic && c == extract.AfterMark:
		why = "with advance=atomic the rows and the mark are stored in one transaction, which had committed"
	default:
		return
	}
	h.w.Schedule(at, func() {
		rr := h.rec(r)
		switch {
		case rr.Finished:
			h.w.Emit(r.actor, engine.KindCrash, r.id, "%s crashes after finishing its run: %s; nothing is lost or repeated.", r.actor, why)
		case rr.Aborted:
			h.w.Emit(r.actor, engine.KindCrash, r.id, "%s crashes after its run gave up; the crash changes nothing more.", r.actor)
		}
	})
}
