// Package widget draws a scenario's interactive widget as HTML: controls,
// knobs, faults, the panels for one step, and the timeline.
//
// It is plain Go over a small HTML builder rather than templ on purpose: the
// server calls it for a page's first paint (through a templ page), and the
// WebAssembly module calls the very same functions to redraw the widget after
// each step in the browser. templ's runtime would more than double the wasm
// download (see docs/architecture.md, "What the browser module may carry"),
// and one drawing path means the server and the browser can never disagree
// about what a step shows.
//
// Every link the widget draws works without JavaScript (it reloads the page at
// another step or setting); the browser glue intercepts them.
package widget

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
)

// State is what the learner has chosen, beyond the scenario and its knobs.
type State struct {
	Step      int           // 0 is before the first event
	ShowTruth bool          // draw ghost rows for missing keys and ×N badges
	Explain   string        // a business key whose story to tell, or ""
	Original  *engine.Trace // when the trace drawn is a fork with the learner's faults: the run without them
	BasePath  string        // the page the links point at, e.g. /scenarios/hwm/visibility-gap
	Message   string        // a problem to show above the widget (a bad link, a refused fault)
	Embedded  bool          // drawn inside a lesson or an iframe: timeline folded, no summary
	CanUndo   bool          // there is a knob change or fault to undo
	Live      bool          // drawn by the browser module: show the controls that need it
	ID        string        // prefix of element ids, unique on the page; "tm" when empty
	// Faults are the faults a link asks for (fault=…), in step order. The
	// widget draws the faults of the trace it is given; the caller runs them.
	Faults []engine.Fault

	checks   *checkView // set by a Session for a large trace; nil runs the checks while drawing
	sizeHint int        // the length of the last stage drawn, set by a Session
}

func (s State) id(name string) string {
	if s.ID == "" {
		return "tm-" + name
	}
	return s.ID + "-" + name
}

// query returns the link to the widget with the given step and the
// current knobs, faults and choices (the key being explained too, so a
// link to it opens with the story told).
func query(t *engine.Trace, s State, step int, extra ...string) string {
	v := Values{}
	for _, k := range t.File.Knobs {
		if val := t.Settings[k.Name]; val != k.Default {
			v[k.Name] = []string{val}
		}
	}
	for _, f := range t.Faults {
		v["fault"] = append(v["fault"], FaultText(f))
	}
	v["step"] = []string{itoa(step)}
	if !s.ShowTruth {
		v["truth"] = []string{"off"}
	}
	if s.Explain != "" {
		v["explain"] = []string{s.Explain}
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			delete(v, extra[i])
		} else {
			v[extra[i]] = []string{extra[i+1]}
		}
	}
	return s.BasePath + "?" + Encode(v)
}

// Render draws the whole widget for the trace at s.Step.
func Render(t *engine.Trace, s State) string {
	var b builder
	s.Step = clamp(s.Step, t.Steps())
	b.open("section", "class", "tm-widget", "id", s.id("widget"), "data-testid", "widget",
		"data-scenario", t.File.ID, "data-step", itoa(s.Step), "data-steps", itoa(t.Steps()),
		"data-truth", on(s.ShowTruth), "aria-label", "Scenario: "+t.File.Title)
	if t.File.About != "" && !s.Embedded {
		b.el("p", t.File.About, "class", "tm-about")
	}
	b.open("p", "class", "tm-message", "id", s.id("message"), "role", "alert", "data-testid", "message", "hidden?", on(s.Message == ""))
	b.text(s.Message)
	b.close("p")
	controls(&b, t, s)
	knobs(&b, t, s)
	faults(&b, t, s)
	b.open("p", "class", "tm-live", "id", s.id("live"), "aria-live", "polite", "data-testid", "narration")
	b.text(Narration(t, s.Step))
	b.close("p")
	b.open("div", "class", "tm-stage", "id", s.id("stage"), "data-testid", "stage")
	stage(&b, t, s)
	b.close("div")
	timeline(&b, t, s)
	b.close("section")
	return b.String()
}

// Stage draws the part of the widget that changes from step to step.
func Stage(t *engine.Trace, s State) string {
	var b builder
	// A stage is about as long as the last one: grow the buffer once rather
	// than by doubling, which halves the garbage a step leaves behind.
	b.Grow(s.sizeHint)
	s.Step = clamp(s.Step, t.Steps())
	stage(&b, t, s)
	return b.String()
}

// ChecksPanel draws the stage's checks panel alone, as Stage draws it.
func ChecksPanel(t *engine.Trace, s State) string {
	var b builder
	checksPanel(&b, t, clamp(s.Step, t.Steps()), s.checks)
	return b.String()
}

// Narration is the sentence read out for a step.
func Narration(t *engine.Trace, step int) string {
	step = clamp(step, t.Steps())
	if step == 0 {
		return "Step 0 of " + itoa(t.Steps()) + ": nothing has happened yet. Step forward to start."
	}
	e := t.Events[step-1]
	return "Step " + itoa(step) + " of " + itoa(t.Steps()) + ", " + e.At.String() + ": " + t.Narration(&e)
}

func clamp(n, hi int) int { return max(0, min(n, hi)) }

func controls(b *builder, t *engine.Trace, s State) {
	n := t.Steps()
	b.open("nav", "class", "tm-controls", "aria-label", "Timeline controls", "data-testid", "controls")
	link := func(act, label, key string, step int, disabled bool) {
		b.open("a", "class", "tm-btn", "data-act", act, "href", query(t, s, step), "data-testid", "btn-"+act,
			"aria-keyshortcuts", key, "aria-disabled", map[bool]string{true: "true", false: "false"}[disabled])
		b.text(label)
		b.close("a")
	}
	link("start", "|◀ Start", "Home", 0, s.Step == 0)
	link("back", "◀ Back", "ArrowLeft", max(s.Step-1, 0), s.Step == 0)
	b.open("button", "type", "button", "class", "tm-btn", "data-act", "play", "aria-pressed", "false", "aria-keyshortcuts", "Space", "data-testid", "btn-play", "hidden?", on(!s.Live))
	b.text("▶ Play")
	b.close("button")
	link("forward", "Forward ▶", "ArrowRight", min(s.Step+1, n), s.Step == n)
	link("end", "End ▶|", "End", n, s.Step == n)
	b.open("label", "class", "tm-speed", "hidden?", on(!s.Live))
	b.text("Speed ")
	b.open("select", "data-act", "speed", "data-testid", "speed")
	for _, sp := range []struct{ v, l string }{{"1500", "slow"}, {"700", "normal"}, {"250", "fast"}, {"60", "very fast"}} {
		b.el("option", sp.l, "value", sp.v, "selected?", on(sp.v == "700"))
	}
	b.close("select")
	b.close("label")
	b.open("label", "class", "tm-scrub")
	b.el("span", "Step", "class", "tm-visually-hidden")
	b.void("input", "type", "range", "min", "0", "max", itoa(n), "value", itoa(s.Step), "data-act", "scrub",
		"data-testid", "scrubber", "aria-valuetext", "step "+itoa(s.Step)+" of "+itoa(n))
	b.close("label")
	b.open("output", "class", "tm-counter", "data-testid", "counter")
	b.text("Step " + itoa(s.Step) + " of " + itoa(n))
	b.close("output")
	b.close("nav")
}

func knobs(b *builder, t *engine.Trace, s State) {
	f := t.File
	b.open("form", "class", "tm-knobs", "method", "get", "action", s.BasePath, "data-testid", "knobs", "aria-label", "Knobs")
	for _, k := range f.Knobs {
		b.open("fieldset", "class", "tm-knob", "data-knob", k.Name)
		label := k.Name
		if k.Label != "" {
			label = k.Label + " (" + k.Name + ")"
		}
		b.el("legend", label)
		for _, v := range k.Values {
			id := s.id("knob-" + k.Name + "-" + v)
			b.open("span", "class", "tm-opt")
			b.void("input", "type", "radio", "name", k.Name, "value", v, "id", id, "checked?", on(t.Settings[k.Name] == v),
				"data-testid", "knob-"+k.Name+"-"+v)
			b.el("label", v, "for", id)
			b.close("span")
		}
		b.close("fieldset")
	}
	b.void("input", "type", "hidden", "name", "step", "value", itoa(s.Step))
	b.open("fieldset", "class", "tm-knob")
	b.el("legend", "View")
	b.void("input", "type", "checkbox", "name", "truth", "value", "on", "id", s.id("truth"), "checked?", on(s.ShowTruth), "data-testid", "truth-toggle")
	b.el("label", "Show the truth (rows no check can see)", "for", s.id("truth"))
	b.close("fieldset")
	b.el("button", "Apply", "type", "submit", "class", "tm-btn tm-apply")
	b.close("form")
}

func faults(b *builder, t *engine.Trace, s State) {
	b.open("div", "class", "tm-faults", "role", "group", "aria-label", "Faults", "data-testid", "faults", "hidden?", on(!s.Live))
	lt := logs.Of(t)
	if ht := hwm.Of(t); ht != nil && len(ht.Runs) > 0 || lt == nil {
		// A crash stops an extractor run; a log world without one has nothing it would stop.
		b.el("button", "✖ Crash the pipeline here", "type", "button", "class", "tm-btn", "data-act", "crash", "data-testid", "btn-crash")
	}
	b.el("button", "Source clock −5s here", "type", "button", "class", "tm-btn", "data-act", "jump-back", "data-testid", "btn-jump-back")
	b.el("button", "Source clock +5s here", "type", "button", "class", "tm-btn", "data-act", "jump-forward", "data-testid", "btn-jump-forward")
	jobFaultsOf(b, t, s) // the stream job's: see jobfaults.go
	if lt != nil {
		// The log world's faults: one button per topic and per group, named
		// when there is more than one. A pause stops the group's member that
		// polls next after the step (see Session.Act).
		for _, h := range lt.Topics {
			label := "+ Add a partition here"
			if len(lt.Topics) > 1 {
				label += " (" + h.Name + ")"
			}
			b.el("button", label, "type", "button", "class", "tm-btn", "data-act", "add-partition", "data-arg", h.Name, "data-testid", "btn-add-partition")
		}
		for _, g := range lt.Groups {
			label := "‖ Pause the consumer here"
			if len(lt.Groups) > 1 {
				label = "‖ Pause the " + g.Name + " consumer here"
			}
			b.el("button", label, "type", "button", "class", "tm-btn", "data-act", "pause", "data-arg", g.Name, "data-testid", "btn-pause")
		}
		if len(lt.Groups) > 0 {
			// How long a pause lasts: longer than a topic's retention, it
			// lets retention delete what the consumer has not read.
			b.open("span", "class", "tm-pause-length")
			b.el("label", "for", "for", s.id("pause-length"))
			b.open("select", "id", s.id("pause-length"), "aria-label", "How long a pause lasts", "data-testid", "pause-length")
			for _, d := range pauseLengths {
				b.el("option", d.String(), "value", d.String(), "selected?", on(d == pauseFor))
			}
			b.close("select")
			b.close("span")
		}
	}
	if st := stream.Of(t); st != nil {
		streamFaults(b, t, st, s)
	}
	b.el("button", "↶ Undo", "type", "button", "class", "tm-btn", "data-act", "undo", "data-testid", "btn-undo", "disabled?", on(!s.CanUndo))
	b.close("div")
}

// streamFaults draws the stream world's faults: a partition of a stream
// and a length to stall it or to delay its records by, a burst from each
// producer, and a producer's clock pushed ahead (a partition's clock, when
// the producer is pinned to one).
func streamFaults(b *builder, t *engine.Trace, st *stream.Trace, s State) {
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
	b.el("button", "‖ Stall it here", "type", "button", "class", "tm-btn", "data-act", "stall", "data-testid", "btn-stall")
	b.el("button", "⇢ Delay its records "+delayBy.String()+" here", "type", "button", "class", "tm-btn", "data-act", "delay", "data-testid", "btn-delay")
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
	b.el("button", "⇶ Send the burst here", "type", "button", "class", "tm-btn", "data-act", "burst", "data-testid", "btn-burst",
		"title", "sends "+itoa(burstRecords)+" events whose event times spread over the last "+burstSpan.String())
	b.close("span")
	for _, p := range lt.Producers {
		if p.Clock != "" && p.Clock != "source" {
			b.el("button", p.Name+"'s clock +1m here", "type", "button", "class", "tm-btn",
				"data-act", "jump-clock", "data-arg", "+1m "+p.Clock, "data-testid", "btn-jump-clock")
		}
	}
}

func timeline(b *builder, t *engine.Trace, s State) {
	if t.Steps() > maxTimeline {
		return // a window of the list is drawn with the stage: see timelineWindow
	}
	b.open("details", "class", "tm-timeline", "data-testid", "timeline", "open?", on(!s.Embedded))
	b.el("summary", "Every step ("+itoa(t.Steps())+")")
	b.open("ol", "class", "tm-steps", "id", s.id("steps"))
	for step := 1; step <= t.Steps(); step++ {
		stepItem(b, t, s, step)
	}
	b.close("ol")
	b.close("details")
}

// stepItem draws one step of the timeline: its time and actor as a link to
// the step, and its narration.
func stepItem(b *builder, t *engine.Trace, s State, step int) {
	e := &t.Events[step-1]
	attrs := []string{"data-step", itoa(step), "class", "tm-kind-" + e.Kind.String()}
	if step == s.Step {
		attrs = append(attrs, "aria-current", "step")
	}
	b.open("li", attrs...)
	b.open("a", "href", query(t, s, step), "data-act", "seek", "data-step", itoa(step))
	b.text(e.At.String() + " " + t.Actor(e))
	b.close("a")
	b.text(" " + t.Narration(e))
	b.close("li")
}

// keysSorted returns map keys in business-key order.
func keysSorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortKeys(out)
	return out
}
