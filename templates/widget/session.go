package widget

import (
	"errors"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// Session is one widget's life in the browser: the scenario, the learner's
// knob values and faults, the run in progress, and what is on screen. It is
// plain Go so it can be tested natively; the wasm bridge only forwards calls.
//
// Invariant: when world is nil, trace is the complete run for knobs and
// faults, and original (if faults is not empty) the run for knobs alone.
type Session struct {
	lastStage int         // length of the last stage drawn, to size the next one
	ix        *stageIndex // what the stage reads of trace, worked out once per run
	shown     *drawing    // the stage on screen, as drawn: the next step is sent as changes to it
	shownStep int         // the step of shown
	file      *scenario.File
	domains   []engine.Domain // the worlds the engine is composed of
	base, id  string
	embedded  bool
	seed      uint64
	knobs     map[string]string
	faults    []engine.Fault
	history   []snapshot // undo stack
	world     *engine.World
	pending   []engine.Fault // faults still to inject into the run in progress
	trace     *engine.Trace
	original  *engine.Trace
	origRun   *engine.World // the run without faults, in progress, when an undo returned to a fork
	stopped   error         // why the first run stopped before its end (its work budget), when it did
	budget    int           // the work budget of each run: BrowserBudget
	st        State

	askedStep int // the step the link asked for, said to be past the end if it is

	// For a large trace the checks run after a step is drawn (see fill):
	// their verdicts by step, and the latest verdicts worked out.
	large    bool
	verdicts map[int][]check.Result
	latest   *checkView
}

type snapshot struct {
	knobs  map[string]string
	faults []engine.Fault
	step   int
}

// BrowserBudget is the work budget of a scenario run in a visitor's browser
// (see engine.BuildWithBudget): smaller than the command line's default,
// because a tab's memory is shared with everything else the visitor does,
// and larger than the server's, because it is the visitor's own. At the
// engine's worst, about 200 bytes a unit, it keeps a trace under half a
// gigabyte. docs/scenarios.md lists it beside the others.
const BrowserBudget = 2_000_000

// CheckSource parses a scenario and builds it of the worlds domains with
// its default knobs, so a sandbox can show errors of both kinds as the
// visitor types.
func CheckSource(src, name string, domains []engine.Domain) (*scenario.File, error) {
	if name == "" {
		name = "play.tdm"
	}
	f, err := scenario.Parse(name, []byte(src))
	if err != nil {
		return nil, err
	}
	if _, err := engine.BuildWithBudget(f, nil, 1, domains, BrowserBudget); err != nil {
		return nil, err
	}
	return f, nil
}

// Open starts a session for a scenario's text and a link's query, running
// the engine composed of the worlds domains (engine/worlds.All lists them
// all; a module built for some pages passes only theirs). Problems in the
// query become the widget's message; a scenario that does not build is an error.
func Open(id, src, name, base string, q Values, embedded bool, domains []engine.Domain) (*Session, error) {
	f, err := CheckSource(src, name, domains)
	if err != nil {
		return nil, err
	}
	knobs, st, problems := FromQuery(f, q)
	s := &Session{file: f, domains: domains, base: base, id: id, embedded: embedded, seed: 1, knobs: knobs, st: st, faults: st.Faults, budget: BrowserBudget}
	s.askedStep = st.Step
	seed, problem := SeedOf(q)
	s.seed = seed
	if problem != "" {
		problems = append(problems, problem)
	}
	if p := s.st.NotPresentingIn(embedded); p != "" {
		problems = append(problems, p)
	}
	s.st.Message = Sentences(problems)
	err = s.start()
	if err != nil && len(s.knobs) > 0 {
		// A value the scenario declares may still not build (a knob's
		// value refused by the line it lands on): the link opens the
		// scenario as it is written, saying why, rather than nothing.
		s.knobs, s.faults, s.st.Faults = nil, nil, nil
		if s.start() != nil {
			return s, err
		}
		problems = append(problems, "with the link's settings the scenario does not build ("+err.Error()+"), so it opens with its own, and without the link's faults")
		s.st.Message = Sentences(problems)
		err = nil
	}
	return s, err
}

// SeedOf reads a link's seed=: its last value, as for every other setting
// of a link, or 1. A value that is not a whole number gives 1 and the
// problem to say. The server's page and the browser's session both read it
// here, so that they run the same trace.
func SeedOf(q Values) (seed uint64, problem string) {
	vs := q["seed"]
	if len(vs) == 0 || vs[len(vs)-1] == "" {
		return 1, ""
	}
	v := vs[len(vs)-1]
	n, ok := whole.Uint64(v)
	if !ok {
		return 1, "the link's seed=" + Clip(v) + " is not a seed (a whole number from 0 up); using seed 1"
	}
	return n, ""
}

// EmbedDoesNotPresent is what an embedded widget says of a link asking it
// to present: presenter mode is the scenario page's (the server's page and
// the browser's say the same).
const EmbedDoesNotPresent = "an embedded scenario does not present; open it on its own page to present it"

// NotPresentingIn takes presenter mode out of the state of an embedded
// widget, and returns EmbedDoesNotPresent when the link asked for it, or
// "". The server's page and the browser's session both call it.
func (st *State) NotPresentingIn(embedded bool) string {
	if !embedded || st.Present == "" {
		return ""
	}
	st.Present = ""
	return EmbedDoesNotPresent
}

// OpenLink is Open for a link's raw query (without its "?"): a pair that
// cannot be read (a bad %-escape, a ";" separator) is left out and named in
// the widget's message, and the rest of the link still counts.
func OpenLink(id, src, name, base, rawQuery string, embedded bool, domains []engine.Domain) (*Session, error) {
	q, qerr := ParseQuery(rawQuery)
	s, err := Open(id, src, name, base, q, embedded, domains)
	if err != nil || qerr == nil {
		return s, err
	}
	s.st.Message = WithUnreadNote(qerr, s.st.Message)
	return s, nil
}

// WithUnreadNote puts before message, a widget's problems with its link,
// that part of the link's query could not be read because of qerr (from
// ParseQuery or url.ParseQuery), so the server's page and the browser's
// say the same. It returns message as it is when qerr is nil.
func WithUnreadNote(qerr error, message string) string {
	if qerr == nil {
		return message
	}
	note := "Part of this page's address could not be read (" + Clip(qerr.Error()) + "), so it was left out."
	if message != "" {
		note += " " + message
	}
	return note
}

// Sentences writes what was wrong with a link as the widget's message: each
// problem a sentence that begins with a capital letter and ends with a full
// stop, in the order given.
func Sentences(problems []string) string {
	out := ""
	for _, p := range problems {
		p = Sentence(p)
		if p == "" {
			continue
		}
		if out != "" {
			out += " "
		}
		out += p
	}
	return out
}

// Sentence writes one message, such as an action's error, as a sentence:
// a capital letter first and a full stop last. A message that begins with
// a file's position (late-commit.tdm:4:24: …) keeps its first word as it
// is, since a file's name is not to be capitalised.
func Sentence(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	first, _, _ := strings.Cut(p, " ")
	if c := p[0]; 'a' <= c && c <= 'z' && !strings.Contains(first, ":") {
		p = string(rune(c-'a'+'A')) + p[1:]
	}
	if !strings.ContainsAny(p[len(p)-1:], ".?!") {
		p += "."
	}
	return p
}

// start builds the world for the current knobs and faults; Advance runs it.
func (s *Session) start() error {
	w, err := engine.BuildWithBudget(s.file, s.knobs, s.seed, s.domains, s.budget)
	if err != nil {
		return err
	}
	s.world, s.pending, s.stopped = w, append([]engine.Fault(nil), s.faults...), nil
	return nil
}

// Advance runs up to budget more events of the run in progress, so the page
// can yield between chunks and never block. It reports whether the run is complete.
func (s *Session) Advance(budget int) (bool, error) {
	if s.world == nil && s.trace != nil && s.ix == nil {
		// The stage's index of a finished run is a call of its own: on a
		// large trace, ranking its keys as the run ends and indexing them
		// here are each a long moment, and the page draws between calls.
		s.ix = indexTrace(s.trace)
		if s.origRun == nil {
			return true, nil
		}
	}
	if s.world == nil {
		return s.advanceOriginal(budget)
	}
	w := s.world
	for i := 0; i < max(budget, 1); i++ {
		if len(s.pending) > 0 && w.FaultDue(s.pending[0]) {
			if err := w.Inject(s.pending[0]); err != nil {
				if len(s.history) > 0 {
					return true, s.refuse(err) // the learner's own: undone
				}
				// A link's fault that cannot apply is left out, and the
				// run goes on with the link's others (a failed injection
				// leaves the world as it was).
				s.skipLinkFault(err)
				continue
			}
			s.pending = s.pending[1:]
			continue
		}
		if !w.Step() {
			if err := w.Err(); err != nil {
				// Past the budget: the trace is incomplete, and showing it
				// would show rows missing only because the run stopped.
				s.world = nil
				if len(s.history) > 0 {
					return true, s.refuse(err) // back to the run before the change
				}
				s.stopped = err
				return true, err
			}
			for len(s.pending) > 0 {
				err := engine.FaultPastEnd(w.Trace().Steps(), s.pending[0])
				if len(s.history) > 0 {
					return true, s.refuse(err) // the learner's own: undone
				}
				s.skipLinkFault(err)
			}
			s.trace, s.world = w.Trace(), nil
			if s.askedStep > s.trace.Steps() {
				s.st.Message = strings.TrimSpace(s.st.Message + " " + Sentences([]string{PastEnd(s.askedStep, s.trace.Steps())}))
			}
			s.askedStep = 0
			s.st.Step = clamp(s.st.Step, s.trace.Steps())
			s.large = isLarge(s.trace)
			s.verdicts, s.latest = nil, nil
			s.ix, s.shown = nil, nil // indexed at the next call
			if len(s.faults) > 0 && s.original == nil {
				// After an undo back to a fork: the comparison needs the run
				// without faults, run in chunks like the fork.
				orig, err := engine.BuildWithBudget(s.file, s.knobs, s.seed, s.domains, s.budget)
				if err != nil {
					return true, err
				}
				s.origRun = orig
				return s.advanceOriginal(budget - i)
			}
			return false, nil
		}
	}
	return false, nil
}

// advanceOriginal runs up to budget events of the run without faults, when
// one is in progress.
func (s *Session) advanceOriginal(budget int) (bool, error) {
	if s.origRun == nil {
		return true, nil
	}
	for range max(budget, 1) {
		if !s.origRun.Step() {
			if err := s.origRun.Err(); err != nil {
				s.origRun = nil
				return true, s.refuse(err)
			}
			s.original, s.origRun = s.origRun.Trace(), nil
			return true, nil
		}
	}
	return false, nil
}

// largeTrace is the number of source versions and target rows above which
// a trace's checks are run after its steps are drawn rather than while: the
// checks cost time in proportion to the target, and a step must be drawn
// within a frame. The bundled lessons are far below it.
const largeTrace = 400

func isLarge(t *engine.Trace) bool {
	n := len(t.Versions)
	for _, h := range t.Targets {
		n += len(h.Rows)
	}
	return n > largeTrace
}

// checksAt returns what the checks panel shows at step n of a large trace.
func (s *Session) checksAt(n int) *checkView {
	if r, ok := s.verdicts[n]; ok {
		return &checkView{results: r, step: n}
	}
	if s.latest != nil {
		return &checkView{results: s.latest.results, step: s.latest.step, pending: true}
	}
	return &checkView{step: n, pending: true}
}

// fill runs the checks at step n of a large trace, if they have not run.
func (s *Session) fill(n int) {
	if _, ok := s.verdicts[n]; ok || !s.large {
		return
	}
	if len(s.verdicts) >= 4096 {
		s.verdicts = nil // a learner scrubbing for a long time: start again
	}
	if s.verdicts == nil {
		s.verdicts = map[int][]check.Result{}
	}
	r := s.trace.ChecksAt(n)
	s.verdicts[n] = r
	s.latest = &checkView{results: r, step: n}
}

// PastEnd says that a link asked for a step past the end of the scenario.
func PastEnd(step, steps int) string {
	asked := "step " + itoa(step)
	if step > 1_000_000_000 {
		asked = "that step" // a number of more digits than anyone means
	}
	return asked + " is past the end; this scenario has " + plural(steps, "step") + ", so it opens at the last"
}

// refuse drops the fault that could not be applied and restores the previous run.
//
// When the run that failed is the link's own (its fork past the budget),
// the link's faults are dropped together, and the page says so; a link's
// single fault that cannot apply is left out alone (skipLinkFault).
func (s *Session) refuse(err error) error {
	if len(s.history) == 0 {
		s.faults, s.original = nil, nil
		err = prose.Errorf("the link's faults could not be applied (%w), so the scenario runs without them", err)
	}
	s.undoLast()
	if rerr := s.runNow(); rerr != nil {
		return rerr
	}
	return s.show(err)
}

// skipLinkFault leaves out the next pending fault, one a link asked for
// that cannot apply, and says so.
func (s *Session) skipLinkFault(err error) {
	f := s.pending[0]
	s.pending = s.pending[1:]
	if i := len(s.faults) - len(s.pending) - 1; i >= 0 && i < len(s.faults) && s.faults[i] == f {
		// A new slice without fault i (slices.Delete of a clone would bring
		// an instance for faults into the browser module).
		faults := make([]engine.Fault, 0, len(s.faults)-1)
		faults = append(faults, s.faults[:i]...)
		s.faults = append(faults, s.faults[i+1:]...)
	}
	s.st.Message = strings.TrimSpace(s.st.Message + " " + Sentences([]string{SkippedFault(f, err)}))
}

// runNow runs the session's world to the end at once.
func (s *Session) runNow() error {
	if err := s.start(); err != nil {
		return err
	}
	for {
		done, err := s.Advance(1 << 30)
		if err != nil || done {
			return err
		}
	}
}

// Stopped returns why the session has nothing to show, when its first run
// stopped before its end (a *engine.BudgetError, or the error a world
// refused to go on with), or nil.
func (s *Session) Stopped() error { return s.stopped }

// ViewResult is what the page needs after a call: the widget, or the
// stage or the changes to it, the narration, and where the controls stand.
type ViewResult struct {
	HTML, Stage, Narration, Query, Message string
	// Ops are the changes that turn the stage on screen into this step's
	// (see diffStage), when Stage and HTML are empty.
	Ops                       []Op
	Step, Steps               int
	CanUndo                   bool
	Back, Forward, Start, End string // links of the step controls
	// Pending says the step was drawn before its checks ran (a large
	// trace): the page calls Act("fill", step) soon, then View again.
	Pending bool
}

// View draws the current step; full also draws the whole widget.
func (s *Session) View(full bool) ViewResult {
	t := s.trace
	if s.stopped != nil {
		return ViewResult{Message: s.stopped.Error()}
	}
	if t == nil || s.origRun != nil {
		return ViewResult{Message: "the scenario is still running"}
	}
	if s.ix == nil {
		// A run whose original finished in the same call as the fork was
		// never indexed by Advance; index it once here, not at every step.
		s.ix = indexTrace(t)
	}
	st := s.state()
	v := ViewResult{Narration: Narration(t, st.Step), Step: st.Step, Steps: t.Steps(), Message: st.Message, CanUndo: st.CanUndo}
	if s.large {
		st.checks = s.checksAt(st.Step)
		v.Pending = st.checks.pending
	}
	st.sizeHint = s.lastStage + s.lastStage/8
	if s.shown != nil {
		st.fragHint = len(s.shown.frags) + len(s.shown.frags)/8
	}
	if full {
		v.HTML, s.shown = render(t, st, s.ix)
	} else {
		html, d := drawStage(t, st, s.ix)
		ops, whole := diffStage(s.shown, d)
		// A jump far across the timeline changes most of the stage: the
		// browser parses it faster once than fragment by fragment. A step
		// to a neighbour is always sent as changes, so its rows can move.
		if jump := st.Step - s.shownStep; (jump > 1 || jump < -1) && opsSize(ops) > len(html)/2 {
			whole = true
		}
		if whole {
			v.Stage = html
		} else {
			v.Ops = ops
		}
		s.shown = d
	}
	s.shownStep = st.Step
	s.lastStage = len(s.shown.html)
	link := query(t, st, st.Step)
	v.Query = link[strings.IndexByte(link, '?'):]
	v.Back, v.Forward = query(t, st, max(st.Step-1, 0)), query(t, st, min(st.Step+1, t.Steps()))
	v.Start, v.End = query(t, st, 0), query(t, st, t.Steps())
	return v
}

func (s *Session) state() State {
	st := s.st
	st.BasePath, st.ID, st.Embedded, st.Live = s.base, s.id, s.embedded, true
	st.CanUndo = len(s.history) > 0 || len(s.faults) > 0
	if len(s.faults) > 0 {
		st.Original = s.original
	}
	return st
}

// ErrUnknownAction is returned for an action the session does not know.
var ErrUnknownAction = errors.New("unknown action")

// Act applies one learner action. rerun reports that the scenario must be
// run again (with Advance) before the next View.
func (s *Session) Act(action, arg string) (rerun bool, err error) {
	if s.trace == nil || s.origRun != nil {
		return false, errors.New("the scenario is still running")
	}
	if action == "fill" {
		// Run the checks at the step drawn last, if it is still the one
		// on screen; the page asks after drawing a step of a large trace.
		if n, ok := whole.Int(arg); ok && n == s.st.Step {
			s.fill(n)
		}
		return false, nil
	}
	s.st.Message = ""
	switch action {
	case "seek":
		n, ok := whole.Int(arg)
		if !ok {
			return false, prose.Errorf("step %q is not a number", arg)
		}
		s.st.Step = clamp(n, s.trace.Steps())
		return false, nil
	case "truth":
		s.st.ShowTruth = arg == "on"
		return false, nil
	case "explain":
		if len(arg) > MaxExplain {
			return false, prose.Errorf("explain names a key of at most %d bytes, not %d", MaxExplain, len(arg))
		}
		s.st.Explain = arg
		return false, nil
	case "text", "steps":
		// The learner opened or folded the stage's tables or its steps.
		if action == "text" {
			s.st.TextOpen = arg == "on"
		} else {
			s.st.StepsOpen = arg == "on"
		}
		return false, nil
	case "present":
		switch arg {
		case "on", "notes":
			s.st.Present = arg
		default:
			s.st.Present = ""
		}
		return false, nil
	case "drawn":
		// The page replaced the stage by other means (a full redraw of its
		// own): the next step is sent whole.
		s.shown = nil
		return false, nil
	case "knob":
		name, val, _ := strings.Cut(arg, "=")
		next := map[string]string{}
		for k, v := range s.knobs {
			next[k] = v
		}
		next[name] = val
		if _, err := s.file.Resolve(next); err != nil {
			return false, s.show(err)
		}
		s.push()
		dropped, original := len(s.faults), s.original
		s.knobs, s.faults, s.original = next, nil, nil
		if err := s.start(); err != nil {
			// The value is declared but does not build: the run drawn
			// stays, with its settings, and the widget says why.
			s.undoLast()
			s.original = original
			return false, s.show(prose.Errorf("with %s=%s the scenario does not build: %w", name, val, err))
		}
		if dropped > 0 {
			// A fault is placed at a step of the run it was added to, which
			// another setting changes: it goes, and the learner is told.
			s.st.Message = "The fault added is taken off with the new setting: it was placed at a step of the run before. Undo brings it back, with the setting."
			if dropped > 1 {
				s.st.Message = prose.F("The %d faults added are taken off with the new setting: each was placed at a step of the run before. Undo brings them back, with the setting.", dropped)
			}
		}
		return true, nil
	case "settings":
		return s.takeSettings(arg)
	case "fail", "slow", "burst-key":
		return s.forkOr(s.jobFault(action, arg)) // the stream job's: see jobfaults.go
	case "crash", "jump":
		f := engine.Fault{AfterStep: s.st.Step, Kind: hwm.FaultCrash}
		if action == "jump" {
			// AMOUNT jumps the source's clock; AMOUNT CLOCK another node's,
			// such as a producer's.
			amount, clock, named := strings.Cut(strings.TrimSpace(arg), " ")
			by, err := vtime.ParseDuration(amount)
			if err != nil || by == 0 {
				return false, prose.Errorf("a clock jump needs an amount such as -5s, found %q", arg)
			}
			if !jumpWithinADay(by) {
				return false, prose.Errorf("a clock jump may be at most a day either way, found %q", amount)
			}
			f = engine.Fault{AfterStep: s.st.Step, Kind: engine.FaultClockJump, Clock: "source", By: by}
			if named {
				f.Clock = strings.TrimSpace(clock)
			}
		} else if !s.inFlight(s.st.Step) {
			return false, s.show(hwm.ErrIdle)
		}
		return s.fork(f)
	case "add-partition", "pause":
		return s.forkOr(s.logFault(action, arg))
	case "stall", "delay", "burst", "producer-clock":
		return s.forkOr(s.streamFault(action, arg))
	case "undo":
		if len(s.history) == 0 {
			if len(s.faults) == 0 {
				return false, errors.New("nothing to undo")
			}
			// A fault the address brought (a shared link, a reload) has no
			// change of the learner's to go back to: undo takes off the
			// latest of them, as it would one the learner had added.
			s.faults = append([]engine.Fault(nil), s.faults[:len(s.faults)-1]...)
			if len(s.faults) == 0 {
				s.original = nil
			}
			return true, s.start()
		}
		s.undoLast()
		return true, s.start()
	}
	return false, prose.Errorf("%w %q", ErrUnknownAction, action)
}

// forkOr forks with fault f, or, when reading the fault failed, shows err
// and changes nothing.
func (s *Session) forkOr(f engine.Fault, err error) (rerun bool, _ error) {
	if err != nil {
		return false, s.show(err)
	}
	return s.fork(f)
}

// fork adds fault f at the current step and starts the run with it; the
// run without it is kept for the comparison. rerun reports that the
// session must be advanced before the next View.
func (s *Session) fork(f engine.Fault) (rerun bool, err error) {
	if len(s.faults) >= MaxFaults {
		return false, s.show(errors.New("this run already has " + itoa(MaxFaults) + " faults, as many as a run takes: undo one first"))
	}
	for _, g := range s.faults {
		if g.AfterStep > f.AfterStep {
			return false, s.show(errors.New("faults are added in step order: undo the later one first"))
		}
	}
	s.push()
	if len(s.faults) == 0 {
		s.original = s.trace
	}
	s.faults = append(s.faults, f)
	return true, s.start()
}

// pauseFor is how long "Pause the consumer here" pauses it unless the
// learner picks another of pauseLengths.
const pauseFor = 30 * vtime.Second

// pauseLengths are the lengths the widget offers for a pause.
var pauseLengths = []vtime.Duration{10 * vtime.Second, pauseFor, vtime.Minute, 3 * vtime.Minute, 10 * vtime.Minute}

// logFault reads a log fault at the current step: add-partition TOPIC, or
// pause GROUP[/MEMBER][ DURATION]. Without a member, the pause stops the
// group's member that polls next after the step: the one a learner sees act next.
func (s *Session) logFault(action, arg string) (engine.Fault, error) {
	t := s.trace
	f := engine.Fault{AfterStep: s.st.Step}
	lt := logs.Of(t)
	if lt == nil {
		return f, logs.ErrNoLog
	}
	if action == "add-partition" {
		f.Kind, f.Topic = logs.FaultAddPartition, arg
		for _, h := range lt.Topics {
			if h.Name == arg {
				return f, nil
			}
		}
		return f, prose.Errorf("this scenario has no topic %q to add a partition to", arg)
	}
	f.Kind, f.For = logs.FaultPause, pauseFor
	who, length, hasLength := strings.Cut(strings.TrimSpace(arg), " ")
	if hasLength {
		d, ok := faultLength(strings.TrimSpace(length), 1)
		if !ok {
			return f, prose.Errorf("a pause needs a positive length of at most a day, such as 30s, found %q", length)
		}
		f.For = d
	}
	f.Group, f.Member, _ = strings.Cut(who, "/")
	known := false
	for _, g := range lt.Groups {
		known = known || g.Name == f.Group
	}
	if !known {
		return f, prose.Errorf("this scenario has no consumer group %q to pause", f.Group)
	}
	if f.Member == "" {
		f.Member = s.nextPoller(f.Group)
		if f.Member == "" {
			return f, prose.Errorf("no consumer of %s polls after this step, so a pause would change nothing; step back to before a poll", f.Group)
		}
	}
	return f, nil
}

// streamLengths are the lengths the widget offers for a stall or a delay
// of a stream's partition; streamFaultFor is the one chosen first.
var streamLengths = []vtime.Duration{10 * vtime.Second, 30 * vtime.Second, vtime.Minute, 3 * vtime.Minute}

const streamFaultFor = 30 * vtime.Second

// delayBy is how much later a delayed partition's records are read, and
// burstRecords and burstSpan what "Burst" sends: events whose event times
// spread over the span before now, so they arrive late.
const (
	delayBy      = 45 * vtime.Second
	burstRecords = 12
	burstSpan    = vtime.Minute
)

// producerClockBy is how far "clock +1m" steps a producer's own clock: a
// partition's clock, for a producer pinned to one.
const producerClockBy = vtime.Minute

// streamFault reads a fault of the stream world at the current step:
// stall STREAM PARTITION LENGTH, delay STREAM PARTITION LENGTH (records
// read delayBy later), burst PRODUCER, or producer-clock PRODUCER (its own
// clock producerClockBy ahead). The engine checks the rest when it injects
// the fault.
func (s *Session) streamFault(action, arg string) (engine.Fault, error) {
	f := engine.Fault{AfterStep: s.st.Step}
	if action == "burst" || action == "producer-clock" {
		lt := logs.Of(s.trace)
		if lt == nil {
			return f, logs.ErrNoLog
		}
		f.Producer = strings.TrimSpace(arg)
		what := "to send a burst"
		if action == "burst" {
			f.Kind, f.Records, f.For = logs.FaultBurst, burstRecords, burstSpan
		} else {
			f.Kind, f.By, what = logs.FaultProducerClock, producerClockBy, "whose clock to step"
		}
		for _, p := range lt.Producers {
			if p.Name == f.Producer {
				return f, nil
			}
		}
		return f, prose.Errorf("this scenario has no producer %q %s", f.Producer, what)
	}
	return s.stallOrDelay(f, action, arg) // the stream world's: see worlds_stream.go
}

// nextPoller names the member of group that polls first after the current
// step, or "".
func (s *Session) nextPoller(group string) string {
	t := s.trace
	for i := s.st.Step; i < t.Steps(); i++ {
		e := &t.Events[i]
		if e.Kind != engine.KindPoll {
			continue
		}
		if m, ok := strings.CutPrefix(t.Actor(e), group+"/"); ok {
			return m
		}
	}
	return ""
}

// inFlight reports whether an extractor run has read but not finished after step n.
func (s *Session) inFlight(n int) bool {
	ht := hwmOf(s.trace)
	if ht == nil {
		return false
	}
	for _, r := range ht.Runs {
		if r.ReadStep > 0 && r.ReadStep <= n && (r.EndStep == 0 || r.EndStep > n) {
			return true
		}
	}
	return false
}

func (s *Session) push() {
	s.history = append(s.history, snapshot{knobs: s.knobs, faults: s.faults, step: s.st.Step})
}

func (s *Session) undoLast() {
	if len(s.history) == 0 {
		return
	}
	last := s.history[len(s.history)-1]
	s.history = s.history[:len(s.history)-1]
	s.knobs, s.faults, s.st.Step = last.knobs, last.faults, last.step
	if len(s.faults) == 0 {
		s.original = nil
	}
}

// sameFaults reports whether a and b are the same faults in the same
// order. (A loop rather than slices.Equal, whose instantiation brings the
// browser module a second equality function for faults.)
func sameFaults(a, b []engine.Fault) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// show puts err in the widget's message, as a sentence, and returns it.
func (s *Session) show(err error) error {
	s.st.Message = Sentence(err.Error())
	return err
}

// sameKnobs reports whether two resolved settings give every knob the
// same value (maps.Equal, without a generic copy in the module).
func sameKnobs(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// takeSettings makes the knobs, the faults, the truth's visibility and the
// step of a link's query (with or without its "?") the session's, as one change
// that Undo takes back: the presenter's notes window sends the room the
// settings chosen there. A query that names what this scenario does not
// have changes nothing and says why; settings equal to the session's
// change only the step and the truth, and ask for no run.
func (s *Session) takeSettings(rawQuery string) (rerun bool, err error) {
	q, qerr := ParseQuery(strings.TrimPrefix(rawQuery, "?"))
	if qerr != nil {
		s.st.Message = WithUnreadNote(qerr, "")
		return false, qerr
	}
	knobs, st, problems := FromQuery(s.file, q)
	if len(problems) > 0 {
		return false, s.show(errors.New("The settings sent were not taken. " + Sentences(problems)))
	}
	s.st.ShowTruth = st.ShowTruth
	mine, _ := s.file.Resolve(s.knobs)
	theirs, _ := s.file.Resolve(knobs)
	if sameKnobs(mine, theirs) && sameFaults(st.Faults, s.faults) {
		s.st.Step = clamp(st.Step, s.trace.Steps())
		return false, nil
	}
	s.push()
	s.knobs, s.faults, s.original = knobs, st.Faults, nil
	s.st.Step = st.Step
	return true, s.start()
}
