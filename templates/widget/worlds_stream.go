//go:build !tm_hwm && !tm_log

package widget

import (
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/whole"
)

// The stream world's part of the widget: the places where the panels,
// faults and explanations common to every world reach into the stream
// world. The builds of the engine's module without it (wasm/worlds_hwm.go,
// wasm/worlds_log.go) have worlds_nostream.go instead, which stands in for
// this file, streamchart.go, jobpanel.go and jobfaults.go, so that their
// download leaves the stream world out (see docs/performance.md).

// hasStream reports whether trace t has a stream world's part.
func hasStream(t *engine.Trace) bool { return stream.Of(t) != nil }

// transactionKeys returns the keys whose rows a stream job's
// two-phase-commit sink has written into target's open transaction by
// step n: written, but invisible to a read-committed reader until the
// checkpoint completes. It returns nil when no open transaction holds one.
func transactionKeys(t *engine.Trace, target string, n int) map[string]bool {
	if st := stream.Of(t); st != nil {
		return st.InTransaction(target, n)
	}
	return nil
}

// streamWhy returns the heading and the text that say why the late record
// or the row of the stream world with key stands as it does at step n, and
// false when key names nothing of the stream world's.
func streamWhy(t *engine.Trace, key string, n int) (head, why string, ok bool) {
	st := stream.Of(t)
	if st == nil {
		return "", "", false
	}
	if num, late := strings.CutPrefix(key, "late:"); late {
		head = "Why was this record late? "
		i, ok := whole.Int(num)
		switch {
		case !ok || i < 0 || i >= len(st.Late):
			return head, "No late record has that number in this run.", true
		case st.Late[i].Step > int32(n):
			return head, "That record is not late yet at this step.", true
		}
		return head, st.WhyLate(i), true
	}
	if why := stream.Explain(t, key, n); why != "" {
		return "Why key " + key + "? ", why, true
	}
	return "", "", false
}

// streamFaults draws the stream world's faults: a partition of a stream
// and a length to stall it or to delay its records by, a burst from each
// producer, and a producer's clock pushed ahead (a partition's clock, when
// the producer is pinned to one), when t has a stream.
func streamFaults(b *builder, t *engine.Trace, s State) {
	st := stream.Of(t)
	if st == nil {
		return
	}
	b.open("span", "class", "tm-stream-faults", "role", "group", "aria-label", "Faults of the stream")
	b.el("label", "Partition ", "for", s.id("stream-part"))
	b.open("select", "id", s.id("stream-part"), "data-testid", "stream-part")
	for _, h := range st.Streams {
		for p := range h.Parts {
			b.el("option", h.Name+" / partition "+itoa(p), "value", h.Name+" "+itoa(p))
		}
	}
	b.close("select")
	b.el("label", " for ", "for", s.id("stream-length"))
	b.open("select", "id", s.id("stream-length"), "aria-label", "How long the stall or the delay lasts", "data-testid", "stream-length")
	for _, d := range streamLengths {
		b.el("option", d.String(), "value", d.String(), "selected?", on(d == streamFaultFor))
	}
	b.close("select")
	button(b, "‖ Stall it here", "stall", "data-testid", "btn-stall")
	button(b, "⇢ Delay its records "+delayBy.String()+" here", "delay", "data-testid", "btn-delay")
	b.close("span")
	lt := logs.Of(t)
	if lt == nil || len(lt.Producers) == 0 {
		return
	}
	b.open("span", "class", "tm-stream-faults", "role", "group", "aria-label", "A burst of late events")
	b.el("label", "Burst "+itoa(burstRecords)+" late events from", "for", s.id("burst-producer"))
	b.open("select", "id", s.id("burst-producer"), "data-testid", "burst-producer")
	for _, p := range lt.Producers {
		b.el("option", p.Name, "value", p.Name)
	}
	b.close("select")
	button(b, "⇶ Send the burst here", "burst", "data-testid", "btn-burst",
		"title", "sends "+itoa(burstRecords)+" events whose event times spread over the last "+burstSpan.String())
	b.close("span")
	// A partition's clock: the own clock of the producer pinned to it,
	// whatever clock it reads, so that one partition's event times run
	// ahead of the others'. A producer the partitioner places, on a clock
	// of its own, has that clock stepped.
	for _, p := range lt.Producers {
		switch {
		case p.Partition >= 0:
			b.el("button", "⇉ "+p.Name+"'s clock (partition "+itoa(p.Partition)+") +"+producerClockBy.String()+" here", "type", "button", "class", "tm-btn",
				"data-act", "producer-clock", "data-arg", p.Name, "data-testid", "btn-producer-clock",
				"title", "from this step on, "+p.Name+"'s events say they happened "+producerClockBy.String()+" later than they did: its partition's event times, and its watermark, jump ahead")
		case p.Clock != "" && p.Clock != "source":
			b.el("button", p.Name+"'s clock +1m here", "type", "button", "class", "tm-btn",
				"data-act", "jump-clock", "data-arg", "+1m "+p.Clock, "data-testid", "btn-jump-clock")
		}
	}
}

// stallOrDelay reads a stall or a delay of a stream's partition into f:
// arg is STREAM PARTITION LENGTH; a delay reads the records delayBy later.
func (s *Session) stallOrDelay(f engine.Fault, action, arg string) (engine.Fault, error) {
	if stream.Of(s.trace) == nil {
		return f, stream.ErrNoStream
	}
	fields := words(arg)
	if len(fields) != 3 {
		return f, prose.Errorf("a %s needs a stream, a partition and a length, such as \"tills 2 30s\", found %q", action, arg)
	}
	p, ok := whole.Int(fields[1])
	if !ok || p < 0 {
		return f, prose.Errorf("a %s needs a partition number, found %q", action, fields[1])
	}
	d, ok := faultLength(fields[2], 1)
	if !ok {
		return f, prose.Errorf("a %s needs a positive length of at most a day, such as 30s, found %q", action, fields[2])
	}
	f.Kind, f.Stream, f.Partition, f.For = stream.FaultStall, fields[0], p, d
	if action == "delay" {
		f.Kind, f.By = stream.FaultDelay, delayBy
	}
	return f, nil
}
