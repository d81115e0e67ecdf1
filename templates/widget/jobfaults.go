//go:build !tm_hwm && !tm_log

package widget

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// The stream job's faults, as the widget offers them (see
// docs/scenarios.md, "Faults"): fail the job at the current step or at a
// point of its next checkpoint (between the barrier and the snapshots,
// after the snapshots, during the sink's commit), slow a stream's readers
// or an operator, and send a burst of one key.

// failPoints are the points a learner picks for a failure, with their
// labels: now, or where in the next checkpoint.
var failPoints = [][2]string{
	{"now", "here, now"},
	{"barrier", "next checkpoint: after its barrier"},
	{"snapshot", "next checkpoint: after snapshots"},
	{"commit", "next checkpoint: during commit"},
}

// What the widget's job faults do: a failed job restarts after failRestart;
// a slowed operator takes slowBy per record for slowFor; a key burst sends
// burstKeyRecords events of one key at once.
const (
	failRestart     = 5 * vtime.Second
	slowBy          = 500 * vtime.Millisecond
	slowFor         = 30 * vtime.Second
	burstKeyRecords = 100
)

// jobFault reads a fault of the stream job at the current step:
// fail WHO [POINT] (POINT one of failPoints, now by default), slow WHO, or
// burst-key PRODUCER KEY. The engine checks the rest when it injects it.
func (s *Session) jobFault(action, arg string) (engine.Fault, error) {
	f := engine.Fault{AfterStep: s.st.Step}
	st := stream.Of(s.trace)
	fields := words(arg)
	switch action {
	case "burst-key":
		lt := logs.Of(s.trace)
		if lt == nil {
			return f, logs.ErrNoLog
		}
		if len(fields) != 2 {
			return f, prose.Errorf("a burst of one key needs a producer and a key, such as \"hot 7\", found %q", arg)
		}
		f.Kind, f.Producer, f.Key, f.Records = logs.FaultBurst, fields[0], fields[1], burstKeyRecords
		for _, p := range lt.Producers {
			if p.Name == f.Producer {
				return f, nil
			}
		}
		return f, prose.Errorf("this scenario has no producer %q to send a burst", f.Producer)
	case "fail", "slow":
	default:
		return f, prose.Errorf("%w %q", ErrUnknownAction, action)
	}
	if st == nil {
		return f, stream.ErrNoStream
	}
	if len(fields) < 1 || len(fields) > 2 || action == "slow" && len(fields) != 1 {
		return f, prose.Errorf("a %s needs a stream or an operator, such as \"load\", found %q", action, arg)
	}
	f.Stream = fields[0]
	if !jobMember(st, f.Stream) {
		return f, prose.Errorf("this scenario has no stream or operator %q", f.Stream)
	}
	if action == "slow" {
		f.Kind, f.By, f.For = stream.FaultSlow, slowBy, slowFor
		return f, nil
	}
	f.Kind, f.Point, f.For = stream.FaultFail, "now", failRestart
	if len(fields) == 2 {
		f.Point = fields[1]
	}
	for _, p := range failPoints {
		if p[0] == f.Point {
			return f, nil
		}
	}
	return f, prose.Errorf("a failure happens now or at a checkpoint's barrier, snapshot or commit, not %q", f.Point)
}

// jobMember reports whether name is one of the job's streams or operators.
func jobMember(st *stream.Trace, name string) bool {
	for _, sh := range st.Streams {
		if sh.Name == name {
			return true
		}
	}
	return st.OpNamed(name) >= 0
}

// jobFaultText writes a job fault as a link carries it:
// STEP~fail~WHO~POINT~RESTART, STEP~slow~WHO~BY~FOR or
// STEP~burst-key~PRODUCER~KEY~RECORDS; ok is false for a fault of another kind.
func jobFaultText(f engine.Fault) (text string, ok bool) {
	s := itoa(f.AfterStep) + "~"
	switch {
	case f.Kind == logs.FaultBurst && f.Key != "":
		return s + "burst-key~" + f.Producer + "~" + f.Key + "~" + itoa(f.Records), true
	}
	switch f.Kind {
	case stream.FaultFail:
		return s + "fail~" + f.Stream + "~" + f.Point + "~" + f.For.String(), true
	case stream.FaultSlow:
		return s + "slow~" + f.Stream + "~" + f.By.String() + "~" + f.For.String(), true
	}
	return "", false
}

// parseJobFault reads the kind and arguments of a link's job fault into f;
// ok is false when kind is not one of the job's, and err says what is wrong
// with the arguments of one that is.
func parseJobFault(f *engine.Fault, kind string, args []string) (ok bool, err error) {
	switch kind {
	case "burst-key":
		if len(args) != 3 || args[0] == "" || args[1] == "" {
			return true, prose.Errorf("needs a producer, a key and a number of events, such as hot~7~100")
		}
		n, ok := whole.Int(args[2])
		if !ok || n < 1 {
			return true, prose.Errorf("needs a number of events such as 100")
		}
		f.Kind, f.Producer, f.Key, f.Records = logs.FaultBurst, args[0], args[1], n
		return true, nil
	case "fail":
		if len(args) != 3 || args[0] == "" {
			return true, prose.Errorf("needs a stream or an operator, a point and a restart, such as load~now~5s")
		}
		d, ok := faultLength(args[2], 0)
		if !ok {
			return true, prose.Errorf("needs a restart of at most a day, such as 5s")
		}
		f.Kind, f.Stream, f.Point, f.For = stream.FaultFail, args[0], args[1], d
		return true, nil
	case "slow":
		if len(args) != 3 || args[0] == "" {
			return true, prose.Errorf("needs a stream or an operator, a cost per record and a length, such as load~500ms~30s")
		}
		by, bok := faultLength(args[1], 1)
		d, dok := faultLength(args[2], 1)
		if !bok || !dok {
			return true, prose.Errorf("needs a positive cost per record and a positive length, each at most a day, such as 500ms~30s")
		}
		f.Kind, f.Stream, f.By, f.For = stream.FaultSlow, args[0], by, d
		return true, nil
	}
	return false, nil
}

// jobFaults draws the job's faults: a stream or operator to fail or slow,
// where the failure happens, and a key to send a burst of from a producer.
func jobFaults(b *builder, t *engine.Trace, st *stream.Trace, s State) {
	b.open("span", "class", "tm-job-faults", "role", "group", "aria-label", "Faults of the stream job")
	b.el("label", "Fail or slow", "for", s.id("job-who"))
	b.open("select", "id", s.id("job-who"), "data-testid", "job-who")
	// Operators first: the sink is what a learner most often fails.
	for i := len(st.Ops) - 1; i >= 0; i-- {
		b.el("option", st.Ops[i].Name+" ("+st.Ops[i].Kind+")", "value", st.Ops[i].Name)
	}
	for _, sh := range st.Streams {
		b.el("option", sh.Name+" (stream)", "value", sh.Name)
	}
	b.close("select")
	if st.Job != nil && st.Job.Every > 0 {
		b.el("label", "When", "for", s.id("job-point"))
		b.open("select", "id", s.id("job-point"), "data-testid", "job-point")
		for _, p := range failPoints {
			b.el("option", p[1], "value", p[0])
		}
		b.close("select")
	}
	button(b, "✖ Fail the job", "fail", "data-testid", "btn-fail",
		"title", "every operator's state and every buffer are lost; the job restarts "+failRestart.String()+" later from its latest completed checkpoint")
	button(b, "◔ Slow it: "+slowBy.String()+" a record for "+slowFor.String(), "slow", "data-testid", "btn-slow")
	if lt := logs.Of(t); lt != nil && len(lt.Producers) > 0 {
		b.el("label", "Burst of one key from", "for", s.id("keyburst-producer"))
		b.open("select", "id", s.id("keyburst-producer"), "data-testid", "keyburst-producer")
		for _, p := range lt.Producers {
			b.el("option", p.Name, "value", p.Name)
		}
		b.close("select")
		b.el("label", "key", "for", s.id("keyburst-key"))
		b.void("input", "type", "text", "id", s.id("keyburst-key"), "value", "1", "size", "6", "data-testid", "keyburst-key", "autocomplete", "off")
		button(b, "⇶ Send "+itoa(burstKeyRecords)+" events of that key now", "burst-key", "data-testid", "btn-burst-key")
	}
	b.close("span")
}

// jobFaultsOf draws the job's faults when the trace has a stream job.
func jobFaultsOf(b *builder, t *engine.Trace, s State) {
	if st := stream.Of(t); hasJob(st) {
		jobFaults(b, t, st, s)
	}
}
