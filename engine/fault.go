package engine

import (
	"errors"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
)

// FaultKind names a failure a learner can inject, as a link spells it
// (fault=STEP~KIND~…, templates/widget/query.go).
type FaultKind string

// FaultClockJump steps a node's clock forwards or backwards, as a jump line
// would: the one kind of fault the core injects itself, since clocks are
// the core's. The worlds declare the others (Domain.Faults).
const FaultClockJump FaultKind = "jump"

// Fault is a failure injected right after a step of a trace. Replaying the
// scenario with the fault forks the timeline at that step. Its fields are
// the arguments every kind of fault needs, each used by the kinds that say so.
type Fault struct {
	AfterStep int
	Kind      FaultKind
	Clock     string         // for a clock jump: which clock
	By        vtime.Duration // for a clock jump: how far; for a stream's delay: how much later records are read; for a slow operator: what each record costs it
	Topic     string         // for the log world's add-partition: which topic grows by one partition
	Group     string         // for the log world's pause: the consumer group
	Member    string         // for the log world's pause: the member of Group that pauses
	For       vtime.Duration // how long: a pause fetches nothing, a stall reads nothing, a delay or a slow operator lasts; a burst's events happened over it; a failed job is down
	Producer  string         // for the log world's burst: the producer that sends
	Records   int            // for the log world's burst: how many events it sends
	Stream    string         // for the stream world's stall and delay: the stream; for its fail and slow: the stream or operator
	Partition int            // for the stream world's stall and delay: the partition of its topic
	Point     string         // for the stream world's fail: now, or where in the next checkpoint (barrier, snapshot, commit)
	Key       string         // for the log world's burst: the one key every event carries, or "" for keys spread over the burst
}

// FaultDue reports whether f goes in now: right after its step, or right
// after an earlier fault at the same step that added a step of its own (a
// clock jump narrates itself), before the run has stepped on. Faults given
// in step order go in as each is due.
func (w *World) FaultDue(f Fault) bool {
	n := len(w.trace.Events)
	return f.AfterStep == n || w.lastFault.set && f.AfterStep == w.lastFault.after && n == w.lastFault.end
}

// Inject applies f now and records it in the trace's Faults. Call it when
// f is due (see FaultDue). The core injects a clock jump itself; the world
// that declared f's kind injects the others. A fault that cannot apply
// returns an error and leaves the world as it was.
func (w *World) Inject(f Fault) error {
	w.line = -1 // what a fault does descends from no line
	if err := w.inject(f); err != nil {
		return err
	}
	w.lastFault.set, w.lastFault.after, w.lastFault.end = true, f.AfterStep, len(w.trace.Events)
	w.trace.Faults = append(w.trace.Faults, f)
	return nil
}

func (w *World) inject(f Fault) error {
	switch f.Kind {
	case FaultClockJump:
		if w.clocks[f.Clock] == nil {
			return prose.Errorf("unknown clock %q", f.Clock)
		}
		if f.By == 0 {
			return errors.New("a clock jump needs a non-zero amount")
		}
		if t := w.now.Add(w.clocks[f.Clock].Skew + f.By); !t.InDay() {
			return prose.Errorf("the %s clock would read %s; %s", f.Clock, t, scenario.DayRule)
		}
		w.jump(f.Clock, f.By)
		return nil
	}
	if i, ok := w.faults[f.Kind]; ok {
		return w.parts[i].Inject(f)
	}
	return prose.Errorf("unknown fault %q; expected %s", string(f.Kind), w.faultKinds())
}

// faultKinds lists every kind of fault the world injects, for a message.
func (w *World) faultKinds() string {
	kinds := []string{string(FaultClockJump)}
	for _, d := range w.domains {
		for _, k := range d.Faults() {
			kinds = append(kinds, string(k))
		}
	}
	return strings.Join(kinds[:len(kinds)-1], ", ") + " or " + kinds[len(kinds)-1]
}

// FaultPastEnd is the error for fault f, due after a step that a run of
// steps steps never reached.
func FaultPastEnd(steps int, f Fault) error {
	return prose.Errorf("the run ended at step %d, before step %d", steps, f.AfterStep)
}

// RunWithFaults runs a scenario of the worlds domains, injecting each fault
// right after its step. Faults must be given in step order.
func RunWithFaults(f *scenario.File, set map[string]string, seed uint64, domains []Domain, faults []Fault) (*Trace, error) {
	w, err := Build(f, set, seed, domains)
	if err != nil {
		return nil, err
	}
	for _, fl := range faults {
		if fl.AfterStep < len(w.trace.Events) && !w.FaultDue(fl) {
			return nil, prose.Errorf("faults must be in step order: step %d is already past", fl.AfterStep)
		}
		for len(w.trace.Events) < fl.AfterStep && w.Step() {
		}
		if err := w.Err(); err != nil {
			return nil, err
		}
		if !w.FaultDue(fl) {
			return nil, FaultPastEnd(len(w.trace.Events), fl)
		}
		if err := w.Inject(fl); err != nil {
			return nil, err
		}
	}
	t := w.Run()
	if err := w.Err(); err != nil {
		return nil, err
	}
	return t, nil
}
