package engine

import (
	"errors"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
)

// FaultKind names a failure a learner can inject.
type FaultKind string

// Fault kinds.
const (
	FaultCrash     FaultKind = "crash"      // the pipeline process dies before the running run's next phase
	FaultClockJump FaultKind = "clock-jump" // a node's clock is stepped forwards or backwards

	// FaultAddPartition adds one partition to a topic, as an operator's
	// add-partitions would; the topic's groups rebalance after their refresh.
	FaultAddPartition FaultKind = "add-partition"
	// FaultPause stops a consumer group member's fetches for a while, as a
	// scenario's pause line would (a slow downstream, a long GC).
	FaultPause FaultKind = "pause"
)

// Fault is a failure injected right after a step of a trace. Replaying the
// scenario with the fault forks the timeline at that step.
type Fault struct {
	AfterStep int
	Kind      FaultKind
	Clock     string         // for FaultClockJump: which clock
	By        vtime.Duration // for FaultClockJump: how far
	Topic     string         // for FaultAddPartition: which topic grows by one partition
	Group     string         // for FaultPause: the consumer group
	Member    string         // for FaultPause: the member of Group that pauses
	For       vtime.Duration // for FaultPause: how long it fetches nothing
}

// ErrIdle is returned for a crash injected where no run is in flight.
var ErrIdle = errors.New("no extractor run is in flight at this step, so a crash would change nothing; step to a run's read or write first")

// Inject applies f now. Call it when the world has emitted exactly
// f.AfterStep events.
func (w *World) Inject(f Fault) error {
	switch f.Kind {
	case FaultCrash:
		for _, r := range w.runs {
			if !r.dead && r.doom == "" && w.trace.Runs[r.id].ReadStep > 0 {
				r.doom = prose.F("at %s, injected right after step %d", w.now, f.AfterStep)
				return nil
			}
		}
		return ErrIdle
	case FaultClockJump:
		if w.clocks[f.Clock] == nil {
			return prose.Errorf("unknown clock %q", f.Clock)
		}
		if f.By == 0 {
			return errors.New("a clock jump needs a non-zero amount")
		}
		w.jump(f.Clock, f.By)
		return nil
	case FaultAddPartition:
		return w.injectAddPartition(f)
	case FaultPause:
		return w.injectPause(f)
	}
	return prose.Errorf("unknown fault %q; expected crash, clock-jump, add-partition or pause", string(f.Kind))
}

// ErrNoLog is returned for a log fault injected into a scenario without a partitioned log.
var ErrNoLog = errors.New("this scenario has no partitioned log (no topic), so there is no partition to add and no consumer to pause")

// maxPartitions is the most partitions a topic may have, as the scenario's
// topic and add-partitions lines allow.
const maxPartitions = 1024

// injectAddPartition grows a topic by one partition with the world's own
// add-partitions action: it is narrated as an operator's change, and every
// group on the topic rebalances after its refresh.
func (w *World) injectAddPartition(f Fault) error {
	if w.log == nil {
		return ErrNoLog
	}
	h := w.log.topics[f.Topic]
	if h == nil {
		return prose.Errorf("unknown topic %q; this scenario's topics are %s", f.Topic, w.topicNames())
	}
	if len(h.Parts) >= maxPartitions {
		return prose.Errorf("topic %s already has %d partitions, the most a topic may have", f.Topic, len(h.Parts))
	}
	w.addPartitions(h, len(h.Parts)+1)
	return nil
}

// injectPause pauses a member with the world's own pause action, narrated
// as a pause line's would be.
func (w *World) injectPause(f Fault) error {
	if w.log == nil {
		return ErrNoLog
	}
	if f.For <= 0 {
		return errors.New("a pause needs a positive length, such as 30s")
	}
	g := w.log.groups[f.Group]
	if g == nil {
		return prose.Errorf("unknown group %q; this scenario's groups are %s", f.Group, strings.Join(w.log.groupOrd, ", "))
	}
	if g.members[f.Member] == nil {
		return prose.Errorf("%s is not a member of %s at this step, so there is no consumer to pause; step to where it has joined", f.Member, f.Group)
	}
	// A pause already running longer is not cut short by this one.
	w.pause(g, f.Member, max(w.now.Add(f.For), g.members[f.Member].paused))
	return nil
}

func (w *World) topicNames() string {
	var names []string
	for _, h := range w.trace.Log.Topics {
		names = append(names, h.Name)
	}
	return strings.Join(names, ", ")
}

// RunWithFaults runs a scenario, injecting each fault right after its step.
// Faults must be given in step order.
func RunWithFaults(f *scenario.File, set map[string]string, seed uint64, faults []Fault) (*Trace, error) {
	w, err := Build(f, set, seed)
	if err != nil {
		return nil, err
	}
	for _, fl := range faults {
		if fl.AfterStep < len(w.trace.Events) {
			return nil, prose.Errorf("faults must be in step order: step %d is already past", fl.AfterStep)
		}
		for len(w.trace.Events) < fl.AfterStep && w.Step() {
		}
		if err := w.Err(); err != nil {
			return nil, err
		}
		if len(w.trace.Events) != fl.AfterStep {
			return nil, prose.Errorf("the scenario has only %d steps; cannot inject a fault after step %d", len(w.trace.Events), fl.AfterStep)
		}
		if err := w.Inject(fl); err != nil {
			return nil, err
		}
		w.trace.Faults = append(w.trace.Faults, fl)
	}
	t := w.Run()
	if err := w.Err(); err != nil {
		return nil, err
	}
	return t, nil
}
