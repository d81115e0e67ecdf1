// Package widget draws a scenario's interactive widget as HTML: controls,
// the stage (a picture of the pipeline at one step, with the truth, the
// checks and the same step as tables), knobs, faults, the timeline and how
// the scenario ends.
//
// It is plain Go over a small HTML builder rather than templ on purpose: the
// server calls it for a page's first paint (through a templ page), and the
// WebAssembly module calls the very same functions to redraw the widget after
// each step in the browser. templ's runtime would more than double the wasm
// download (see docs/architecture.md), and one drawing path means the server
// and the browser can never disagree about what a step shows.
//
// Every link the widget draws works without JavaScript (it reloads the page at
// another step or setting); the browser glue intercepts them.
package widget

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/vtime"
)

// State is what the learner has chosen, beyond the scenario and its knobs.
type State struct {
	Step      int           // 0 is before the first event
	ShowTruth bool          // draw ghosts for missing keys, stale marks and each source row's fate
	Explain   string        // a business key whose story to tell, or ""
	Original  *engine.Trace // when the trace drawn is a fork with the learner's faults: the run without them
	BasePath  string        // the page the links point at, e.g. /scenarios/hwm/visibility-gap
	Message   string        // a problem to show above the widget (a bad link, a refused fault)
	Embedded  bool          // drawn inside a lesson or an iframe: no summary, no ending
	CanUndo   bool          // there is a knob change or fault to undo
	Live      bool          // drawn by the browser module: show the controls that need it
	ID        string        // prefix of element ids, unique on the page; "tm" when empty
	// Present is presenter mode: "on" shows the stage and the narration in
	// large type and nothing else; "notes" is the presenter's second window,
	// with each step's note and what comes next; "" is neither.
	Present string
	// Faults are the faults a link asks for (fault=…), in step order. The
	// widget draws the faults of the trace it is given; the caller runs them.
	Faults []engine.Fault

	// TextOpen and StepsOpen say that the learner has opened the stage's
	// tables and, for a long scenario, its window of steps. Drawn live,
	// the stage leaves a folded one empty until it is opened: its content
	// is not shown or read out while folded, and drawing it at every step
	// would cost more than the rest of the stage.
	TextOpen, StepsOpen bool

	checks   *checkView // set by a Session for a large trace; nil runs the checks while drawing
	sizeHint int        // the length of the last stage drawn, set by a Session
	fragHint int        // how many fragments it had
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
	return s.BasePath + "?" + Encode(linkValues(t, s, step, extra...))
}

// linkValues are the query of a link to the widget at step: what a shared
// link carries (knobs away from their defaults, a seed other than 1, the
// faults), the step and the learner's choices. extra adds (or, with "",
// removes) name, value pairs.
func linkValues(t *engine.Trace, s State, step int, extra ...string) Values {
	v := shareValues(t)
	v["step"] = []string{itoa(step)}
	if !s.ShowTruth {
		v["truth"] = []string{"off"}
	}
	if s.Present != "" {
		v["present"] = []string{s.Present}
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
	return v
}

// Render draws the whole widget for the trace at s.Step.
func Render(t *engine.Trace, s State) string {
	html, _ := render(t, s, nil)
	return html
}

// render draws the whole widget and returns, besides its HTML, the stage
// as drawn, for a session to compare the next step's with.
func render(t *engine.Trace, s State, ix *stageIndex) (string, *drawing) {
	var b builder
	s.Step = clamp(s.Step, t.Steps())
	if ix == nil {
		ix = indexTrace(t)
	}
	attrs := []string{"class", "tm-widget", "id", s.id("widget"), "data-testid", "widget",
		"data-scenario", t.File.ID, "data-step", itoa(s.Step), "data-steps", itoa(t.Steps()),
		"data-truth", on(s.ShowTruth), "aria-label", "Scenario: " + t.File.Title}
	if s.Present != "" {
		attrs = append(attrs, "data-present", s.Present)
	}
	if s.Embedded {
		// Inside a lesson (a figure captioned with what it shows, among
		// other widgets, perhaps of the same scenario) or an iframe (whose
		// page is the widget), it is a group: a landmark's name must be
		// unique on its page.
		attrs = append(attrs, "role", "group")
	}
	b.open("section", attrs...)
	if t.File.About != "" && !s.Embedded {
		b.el("p", t.File.About, "class", "tm-about")
	}
	b.open("p", "class", "tm-message", "id", s.id("message"), "role", "alert", "data-testid", "message", "hidden?", on(s.Message == ""))
	b.text(s.Message)
	b.close("p")
	controls(&b, t, s)
	b.open("p", "class", "tm-live", "id", s.id("live"), "aria-live", "polite", "data-testid", "narration")
	b.text(Narration(t, s.Step))
	b.close("p")
	var sb builder
	sb.Grow(s.sizeHint)
	stage(&sb, t, s, ix)
	b.open("div", "class", "tm-stage", "id", s.id("stage"), "data-testid", "stage")
	b.WriteString(sb.String())
	b.close("div")
	b.open("div", "class", "tm-settings", "id", s.id("settings"), "data-testid", "settings")
	knobs(&b, t, s)
	faults(&b, t, s)
	b.close("div")
	timeline(&b, t, s)
	if !s.Embedded {
		ending(&b, t, s)
	}
	b.close("section")
	return b.String(), newDrawing(sb.String(), sb.frags)
}

// Stage draws the part of the widget that changes from step to step.
func Stage(t *engine.Trace, s State) string {
	html, _ := drawStage(t, s, nil)
	return html
}

// drawStage draws the stage with the index of its trace (made when nil).
func drawStage(t *engine.Trace, s State, ix *stageIndex) (string, *drawing) {
	var b builder
	// A stage is about as long as the last one: grow the buffer once rather
	// than by doubling, which halves the garbage a step leaves behind; and
	// it has about as many fragments.
	b.Grow(s.sizeHint)
	b.frags = make([]frag, 0, s.fragHint)
	s.Step = clamp(s.Step, t.Steps())
	stage(&b, t, s, ix)
	html := b.String()
	return html, newDrawing(html, b.frags)
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
	// A group, not a nav landmark: a lesson shows many widgets, and each
	// landmark's name must be unique on its page.
	b.open("div", "class", "tm-controls", "role", "group", "aria-label", "Timeline controls", "data-testid", "controls")
	// Each button is a glyph and a word; a narrow widget (and presenter
	// mode on a short screen) shows the glyph, and the word stays for a
	// screen reader. So no two glyphs are alike: a step is a chevron, not
	// Play's triangle.
	link := func(act, glyph, word, after, key string, step int, disabled bool) {
		b.open("a", "class", "tm-btn", "data-act", act, "href", query(t, s, step), "data-testid", "btn-"+act,
			"aria-keyshortcuts", key, "aria-disabled", pick(disabled, "true", "false"))
		if glyph != "" {
			b.el("span", glyph, "aria-hidden", "true")
		}
		b.el("span", word, "class", "tm-word")
		if after != "" {
			b.el("span", after, "aria-hidden", "true")
		}
		b.close("a")
	}
	b.open("span", "class", "tm-stepper")
	link("start", "|◀", "Start", "", "Home", 0, s.Step == 0)
	link("back", "❮", "Back", "", "ArrowLeft PageUp", max(s.Step-1, 0), s.Step == 0)
	b.open("button", "type", "button", "class", "tm-btn tm-play", "data-act", "play", "aria-pressed", "false", "aria-keyshortcuts", "Space", "data-testid", "btn-play", "hidden?", on(!s.Live))
	b.el("span", "▶", "aria-hidden", "true")
	b.el("span", "Play", "class", "tm-word")
	b.close("button")
	link("forward", "", "Forward", "❯", "ArrowRight PageDown", min(s.Step+1, n), s.Step == n)
	link("end", "", "End", "▶|", "End", n, s.Step == n)
	b.close("span")
	b.open("label", "class", "tm-scrub")
	b.el("span", "Step", "class", "tm-visually-hidden")
	b.void("input", "type", "range", "min", "0", "max", itoa(n), "value", itoa(s.Step), "data-act", "scrub",
		"data-testid", "scrubber", "aria-valuetext", "step "+itoa(s.Step)+" of "+itoa(n))
	b.close("label")
	// Not a live region: the narration (.tm-live) already says the step, and
	// an <output> is one (role status), which a screen reader read twice.
	b.open("span", "class", "tm-counter", "data-testid", "counter")
	b.text("Step " + itoa(s.Step) + " of " + itoa(n))
	b.close("span")
	b.open("label", "class", "tm-speed", "hidden?", on(!s.Live))
	b.text("Speed")
	b.open("select", "data-act", "speed", "data-testid", "speed", "class", "tm-select")
	for _, sp := range []struct{ v, l string }{{"1500", "slow"}, {"700", "normal"}, {"250", "fast"}, {"60", "very fast"}} {
		b.el("option", sp.l, "value", sp.v, "selected?", on(sp.v == "700"))
	}
	b.close("select")
	b.close("label")
	if !s.Embedded {
		// Presenter mode is a link, so it works without JavaScript too. Its
		// name says what it does (a link has no pressed state); the visible
		// word begins it, for speech input.
		present, glyph, word, name := "on", "⤢", "Present", "Present: presenter mode"
		if s.Present != "" {
			present, glyph, word, name = "", "✕", "Exit", "Exit presenter mode"
		}
		b.open("a", "class", "tm-btn tm-present", "data-act", "present", "data-testid", "btn-present", "aria-keyshortcuts", "P", "aria-label", name,
			"href", query(t, s, s.Step, "present", present))
		b.el("span", glyph, "aria-hidden", "true")
		b.text(" " + word)
		b.close("a")
		if s.Present == "" {
			// The presenter's second window, opened beside this one: it
			// follows this page once this page presents. Out of presenter
			// mode only, so that the room never sees it.
			b.open("a", "class", "tm-btn tm-notes-link", "data-testid", "btn-notes", "target", "_blank",
				"aria-label", "Notes: open the presenter's notes in a new window", "href", query(t, s, s.Step, "present", "notes"))
			b.el("span", "✎", "aria-hidden", "true")
			b.text(" Notes")
			b.close("a")
		}
	}
	b.close("div")
}

func knobs(b *builder, t *engine.Trace, s State) {
	f := t.File
	// Named, a form is a landmark; a lesson's widgets, perhaps of one
	// scenario, would repeat its name, so there each knob's fieldset
	// names it alone.
	attrs := []string{"class", "tm-knobs", "method", "get", "action", s.BasePath, "data-testid", "knobs"}
	if !s.Embedded {
		attrs = append(attrs, "aria-label", "Knobs")
	}
	b.open("form", attrs...)
	for _, k := range f.Knobs {
		group := []string{"class", "tm-knob", "data-knob", k.Name}
		if strings.Contains(s.Message, knobRefused(k.Name)) {
			// The link's value was refused (FromQuery): the knob's group
			// says why to a screen reader that reaches it.
			group = append(group, "aria-describedby", s.id("message"))
		}
		b.open("fieldset", group...)
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
	if t.Seed != 1 {
		b.void("input", "type", "hidden", "name", "seed", "value", strconv.FormatUint(t.Seed, 10))
	}
	if s.Present != "" {
		b.void("input", "type", "hidden", "name", "present", "value", s.Present)
	}
	for _, fl := range t.Faults {
		b.void("input", "type", "hidden", "name", "fault", "value", FaultText(fl))
	}
	b.open("fieldset", "class", "tm-knob")
	b.el("legend", "View")
	b.open("span", "class", "tm-opt tm-opt-wrap")
	// An unchecked box sends nothing, and the truth shows unless told
	// otherwise: the hidden off comes first, and a checked box's on, read
	// last, wins over it (FromQuery reads a name's last value).
	b.void("input", "type", "hidden", "name", "truth", "value", "off")
	b.void("input", "type", "checkbox", "name", "truth", "value", "on", "id", s.id("truth"), "checked?", on(s.ShowTruth), "data-testid", "truth-toggle")
	b.el("label", "Show the truth (rows no check can see)", "for", s.id("truth"))
	b.close("span")
	b.close("fieldset")
	b.el("button", "Apply", "type", "submit", "class", "tm-btn tm-apply")
	b.close("form")
}

func faults(b *builder, t *engine.Trace, s State) {
	b.open("div", "class", "tm-faults", "role", "group", "aria-label", "Faults", "data-testid", "faults", "hidden?", on(!s.Live))
	b.el("span", "Break it here:", "class", "tm-faults-label")
	lt := logs.Of(t)
	if ht := hwmOf(t); ht != nil && len(ht.Runs) > 0 || lt == nil {
		// A crash stops an extractor run; a log world without one has nothing it would stop.
		button(b, "✖ Crash the pipeline", "crash", "data-testid", "btn-crash")
	}
	button(b, "Source clock −5s", "jump-back", "data-testid", "btn-jump-back")
	button(b, "Source clock +5s", "jump-forward", "data-testid", "btn-jump-forward")
	jobFaultsOf(b, t, s) // the stream job's: see jobfaults.go
	if lt != nil {
		// The log world's faults: one button per topic and per group, named
		// when there is more than one. A pause stops the group's member that
		// polls next after the step (see Session.Act).
		for _, h := range lt.Topics {
			label := "+ Add a partition"
			if len(lt.Topics) > 1 {
				label += " (" + h.Name + ")"
			}
			button(b, label, "add-partition", "data-arg", h.Name, "data-testid", "btn-add-partition")
		}
		for _, g := range lt.Groups {
			label := "‖ Pause the consumer"
			if len(lt.Groups) > 1 {
				label = "‖ Pause the " + g.Name + " consumer"
			}
			button(b, label, "pause", "data-arg", g.Name, "data-testid", "btn-pause")
		}
		if len(lt.Groups) > 0 {
			// How long a pause lasts: longer than a topic's retention, it
			// lets retention delete what the consumer has not read.
			b.open("span", "class", "tm-pause-length")
			b.el("label", "for", "for", s.id("pause-length"))
			b.open("select", "id", s.id("pause-length"), "class", "tm-select", "aria-label", "How long a pause lasts", "data-testid", "pause-length")
			for _, d := range pauseLengths {
				b.el("option", d.String(), "value", d.String(), "selected?", on(d == pauseFor))
			}
			b.close("select")
			b.close("span")
		}
	}
	streamFaults(b, t, s) // the stream world's: see worlds_stream.go
	button(b, "↶ Undo", "undo", "data-testid", "btn-undo", "disabled?", on(!s.CanUndo))
	if len(t.Faults) > 0 {
		// The faults in effect, the learner's and a link's, in the words
		// a link carries them in: a fork opened from a link said nowhere
		// which faults made it.
		b.open("p", "class", "tm-faults-on", "data-testid", "faults-on")
		b.text("In effect: ")
		for i, fl := range t.Faults {
			step, what, _ := strings.Cut(FaultText(fl), "~")
			if i > 0 {
				b.text("; ")
			}
			b.text(prose.ReplaceAll(what, "~", " ") + " after step " + step)
		}
		b.close("p")
	}
	b.close("div")
}

func timeline(b *builder, t *engine.Trace, s State) {
	if t.Steps() > maxTimeline {
		return // a window of the list is drawn with the stage: see timelineWindow
	}
	b.open("details", "class", "tm-timeline", "data-testid", "timeline")
	b.el("summary", "Every step ("+itoa(t.Steps())+")")
	b.open("ol", "class", "tm-steps", "id", s.id("steps"))
	for step := 1; step <= t.Steps(); step++ {
		stepItem(b, t, s, step, false)
	}
	b.close("ol")
	b.close("details")
}

// stepItem draws one step of the timeline: its time and actor as a link to
// the step, and its narration. In a window drawn with the stage, each item
// is a fragment.
func stepItem(b *builder, t *engine.Trace, s State, step int, frag bool) {
	e := &t.Events[step-1]
	attrs := []string{"data-step", itoa(step), "class", "tm-kind-" + e.Kind.String()}
	if step == s.Step {
		attrs = append(attrs, "aria-current", "step")
	}
	if frag {
		attrs = append(attrs, "value", itoa(step))
		b.fopen("step-"+itoa(step), "li", attrs...)
	} else {
		b.open("li", attrs...)
	}
	b.open("a", "href", query(t, s, step), "data-act", "seek", "data-step", itoa(step))
	b.text(e.At.String() + " " + t.Actor(e))
	b.close("a")
	b.text(" " + t.Narration(e))
	if frag {
		b.fclose("li")
	} else {
		b.close("li")
	}
}

// pausePast is a pause the run ends within: a member of a group that
// fetches nothing from the fault's step until Until, past the last step.
type pausePast struct {
	Group, Member string
	Until         vtime.Time
}

// pausesPastTheEnd lists the pauses the run ends within, in step order.
func pausesPastTheEnd(t *engine.Trace) []pausePast {
	last := t.TimeAt(t.Steps())
	var held []pausePast
	for _, f := range t.Faults {
		if f.Kind != logs.FaultPause {
			continue
		}
		// The engine pauses the member from the fault's step for f.For.
		if end := t.TimeAt(f.AfterStep).Add(f.For); end > last {
			held = append(held, pausePast{f.Group, f.Member, end})
		}
	}
	return held
}

// endingPauses says, in the ending, which consumers a pause holds past the run's last
// step: what they have not read is missing because the scenario stops
// first, which the truth does not say (the target's slots do: heldByPause).
func endingPauses(b *builder, t *engine.Trace) {
	var held []string
	for _, p := range pausesPastTheEnd(t) {
		held = append(held, p.Group+"/"+p.Member+" until "+p.Until.String())
	}
	if len(held) > 0 {
		b.el("p", "Still paused when the scenario ends at "+t.TimeAt(t.Steps()).String()+": "+strings.Join(held, ", ")+
			". What it has not read is missing only because the run stops first; a shorter pause shows it resume.",
			"data-testid", "paused-past-end")
	}
}

// ending says how the scenario ends with the settings drawn: the final
// truth and the checks' verdicts, for a quick look and for readers without
// JavaScript. It is part of the widget, so that it follows the knobs.
func ending(b *builder, t *engine.Trace, s State) {
	b.open("section", "class", "tm-ending", "role", "group", "aria-labelledby", s.id("ending"), "data-testid", "ending")
	b.el("h2", "How it ends with these settings", "id", s.id("ending"))
	final := t.Final()
	if isLarge(t) {
		// The checks of a large trace take a while; the truth does not.
		harm := final.Harm()
		if harm == "" {
			harm = t.VerdictOf(final, nil) // what a clean run says
		}
		b.el("p", "In the end: "+harm+". The checks take a while on a run this long: step to the end, and the checks panel gives their verdicts there.", "data-testid", "verdict")
		endingPauses(b, t)
		b.close("section")
		return
	}
	checks := t.Checks()
	b.el("p", "In the end: "+t.VerdictOf(final, checks)+".", "data-testid", "verdict")
	endingPauses(b, t)
	b.open("ul")
	for _, c := range checks {
		b.open("li", "data-check", c.Name)
		b.el("strong", string(c.Status))
		b.text(" " + c.Name + ": " + c.Detail)
		b.close("li")
	}
	b.close("ul")
	b.close("section")
}
