package widget

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// FromQuery reads a link's query (?mark=lsn&step=14&truth=off&explain=3)
// into knob values and a widget state. Nothing in a link can break the page:
// each bad value is named in the returned messages and replaced by its default.
//
// A link also carries the learner's faults (fault=12~crash, see
// ParseFault) and presenter mode (present=on, or present=notes for the
// presenter's second window).
func FromQuery(f *scenario.File, q Values) (knobs map[string]string, s State, problems []string) {
	knobs = map[string]string{}
	s.ShowTruth = true
	var unknown []string // names of knobs the scenario does not have
	for name, vals := range q {
		if len(vals) == 0 {
			continue
		}
		v := vals[len(vals)-1]
		switch name {
		case "step":
			n, ok := whole.Int(v)
			if !ok && n > 0 && allDigits(v) {
				// More digits than a number holds (whole.Int gives the
				// largest int), and nothing but digits: past any run's
				// end, which opens at the last step and says so.
				ok = true
			}
			if !ok || n < 0 {
				problems = append(problems, "the link's step="+Clip(v)+NotAStep)
				continue
			}
			s.Step = n
			if len(vals) > 1 {
				problems = append(problems, "the link sets step "+itoa(len(vals))+" times; the last, "+Clip(v)+", counts")
			}
		case "truth":
			s.ShowTruth = v != "off"
			if v != "on" && v != "off" {
				problems = append(problems, "the link's truth="+Clip(v)+" is neither on nor off; the truth is shown")
			}
		case "explain":
			if len(v) > MaxExplain {
				// Every link of the page carries it: a long one would
				// multiply the page's size by its length.
				problems = append(problems, "the link's explain="+Clip(v)+" is longer than a key this site explains ("+itoa(MaxExplain)+" bytes at most); ignoring it")
				continue
			}
			s.Explain = v
		case "seed":
			// The seed is read by the caller.
		case "present":
			switch v {
			case "notes":
				s.Present = "notes"
			case "off":
				s.Present = ""
			default:
				s.Present = "on"
				if v != "" && v != "on" {
					problems = append(problems, "the link's present="+Clip(v)+" is none of on, notes and off; presenting to the room")
				}
			}
		case "fault":
			// A link is untrusted: it may carry any number of faults, and
			// each is work for every run. Read no more than a run takes.
			if len(vals) > MaxFaults {
				problems = append(problems, "the link carries "+itoa(len(vals))+" faults and a run takes at most "+itoa(MaxFaults)+"; ignoring the rest")
				vals = vals[:MaxFaults]
			}
			for _, text := range vals {
				fl, err := ParseFault(text)
				if err != nil {
					problems = append(problems, "the link's "+err.Error()+"; ignoring it")
					continue
				}
				s.Faults = append(s.Faults, fl)
			}
			// In step order, as given for one step (there are a handful).
			for i := 1; i < len(s.Faults); i++ {
				for j := i; j > 0 && s.Faults[j].AfterStep < s.Faults[j-1].AfterStep; j-- {
					s.Faults[j], s.Faults[j-1] = s.Faults[j-1], s.Faults[j]
				}
			}
		default:
			k := f.Knob(name)
			if k == nil {
				unknown = append(unknown, name)
				continue
			}
			ok := false
			for _, allowed := range k.Values {
				ok = ok || allowed == v
			}
			if !ok {
				problems = append(problems, "the "+knobRefused(name)+prose.Quote(Clip(v))+"; expected "+strings.Join(k.Values, " | ")+", so it stays "+k.Default)
				continue
			}
			if len(vals) > 1 {
				problems = append(problems, "the knob "+name+" is set "+itoa(len(vals))+" times; the last, "+v+", counts")
			}
			knobs[name] = v
		}
	}
	// A link may carry any number of names: say a few, and how many more,
	// so that the page stays the size of the scenario, not of the link.
	if len(unknown) > 0 {
		sortStrings(unknown)
		shown := unknown[:min(len(unknown), maxNamed)]
		for i, n := range shown {
			shown[i] = prose.Quote(Clip(n)) // a name such as "knob" reads as one: no knob "knob"
		}
		msg := "this scenario has no knob " + strings.Join(shown, ", ")
		if len(shown) > 1 {
			msg = "this scenario has no knobs " + strings.Join(shown, ", ")
		}
		if more := len(unknown) - len(shown); more > 0 {
			msg += " and " + itoa(more) + " more"
		}
		if len(unknown) == 1 {
			msg += "; ignoring it"
		} else {
			msg += "; ignoring them"
		}
		problems = append(problems, msg)
	}
	sortStrings(problems)
	return knobs, s, problems
}

// maxNamed is how many of a link's unknown names its message lists.
const maxNamed = 5

// Clip cuts a value a visitor sent to 40 bytes, on a character's boundary,
// with an ellipsis when it cut, for a message that quotes it.
func Clip(v string) string {
	const most = 40
	if len(v) <= most {
		return v
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
}

func sortStrings(xs []string) { sorted.Sort(xs) }

// MaxExplain is the longest key, in bytes, that explain= may name. Every
// link of a page carries the key explained, so its length multiplies the
// page's size; the keys of a scenario are far shorter.
const MaxExplain = 200

// knobRefused begins, after "the", the problem FromQuery names for a
// knob's value that is none of its values; the knob's group is described
// by the message that holds it (see knobs).
func knobRefused(name string) string { return "knob " + name + " cannot be " }

// NotAStep ends the problem FromQuery names for a step= that is not a step
// number; a picture, which draws the last step by default, says so instead.
const NotAStep = " is not a step number; starting at step 0"

// MaxFaults is how many faults one run takes, from a learner's actions or
// from a link: a handful teach; more would only multiply a run's work.
const MaxFaults = 24

// maxJump is the largest clock jump a fault may make, either way, whether
// a learner's button or a link asks for it, and for a producer's clock as
// for a node's: a day shows any skew a lesson needs, and a jump of years
// would stretch the timeline a step draws over years. The browser and the
// link are held to the same limit, so a fault the learner added is not
// refused when the page is reloaded or shared.
const maxJump = 24 * 60 * vtime.Minute

// jumpWithinADay reports whether a clock jump by is no more than maxJump
// either way.
func jumpWithinADay(by vtime.Duration) bool {
	return by <= maxJump && by >= -maxJump
}

// faultLength reads a fault's length (a pause, a burst's span, a stall, a
// delay, a restart, a slow operator's cost), from a link or the widget
// alike, and reports whether it is one: from least (0 or 1 ms) to a day. A
// scenario's times stay within one day, and a length of years would only
// put times no clock reads into the narration and the picture.
func faultLength(s string, least vtime.Duration) (vtime.Duration, bool) {
	d, err := vtime.ParseDuration(s)
	return d, err == nil && d >= least && d <= maxJump
}

// SkippedFault says that a link's fault f could not apply, and why (err):
// the run goes on without it and with the link's other faults.
func SkippedFault(f engine.Fault, err error) string {
	return "the link's fault=" + FaultText(f) + " could not be applied (" + err.Error() + "), so the scenario runs without it"
}

// FaultText writes a fault as a link carries it: STEP~crash,
// STEP~jump~AMOUNT (the source's clock) or STEP~jump~AMOUNT~CLOCK,
// STEP~add-partition~TOPIC, STEP~pause~GROUP~MEMBER~LENGTH,
// STEP~burst~PRODUCER~RECORDS~SPAN, STEP~stall~STREAM~PARTITION~LENGTH or
// STEP~delay~STREAM~PARTITION~LENGTH~BY.
// The separator is one of the characters a query keeps as it is, so the
// address stays readable.
func FaultText(f engine.Fault) string {
	if text, ok := jobFaultText(f); ok {
		return text // the stream job's: see jobfaults.go
	}
	s := itoa(f.AfterStep) + "~"
	switch f.Kind {
	case hwm.FaultCrash:
		return s + "crash"
	case engine.FaultClockJump:
		if f.Clock != "source" && f.Clock != "" {
			return s + "jump~" + f.By.String() + "~" + f.Clock
		}
		return s + "jump~" + f.By.String()
	case logs.FaultAddPartition:
		return s + "add-partition~" + f.Topic
	case logs.FaultPause:
		return s + "pause~" + f.Group + "~" + f.Member + "~" + f.For.String()
	case logs.FaultBurst:
		return s + "burst~" + f.Producer + "~" + itoa(f.Records) + "~" + f.For.String()
	case logs.FaultProducerClock:
		return s + "producer-clock~" + f.Producer + "~" + f.By.String()
	case stream.FaultStall:
		return s + "stall~" + f.Stream + "~" + itoa(f.Partition) + "~" + f.For.String()
	case stream.FaultDelay:
		return s + "delay~" + f.Stream + "~" + itoa(f.Partition) + "~" + f.For.String() + "~" + f.By.String()
	}
	return s + string(f.Kind)
}

// ParseFault reads a fault written by FaultText.
func ParseFault(text string) (engine.Fault, error) {
	parts := strings.Split(text, "~")
	bad := func(what string) (engine.Fault, error) {
		return engine.Fault{}, errors.New("fault=" + text + " " + what)
	}
	if len(parts) < 2 {
		return bad("is not STEP~KIND: a step number, then the fault and its settings, such as 12~crash, 12~pause~GROUP~MEMBER~30s or 12~stall~STREAM~2~30s")
	}
	n, ok := whole.Int(parts[0])
	if !ok || n < 0 {
		return bad("does not start with a step number")
	}
	f := engine.Fault{AfterStep: n}
	if ok, err := parseJobFault(&f, parts[1], parts[2:]); ok {
		if err != nil {
			return bad(err.Error()) // the stream job's: see jobfaults.go
		}
		return f, nil
	}
	switch kind, args := parts[1], parts[2:]; {
	case kind == "crash" && len(args) == 0:
		f.Kind = hwm.FaultCrash
	case kind == "jump" && (len(args) == 1 || len(args) == 2 && args[1] != ""):
		by, err := vtime.ParseDuration(args[0])
		if err != nil || by == 0 {
			return bad("needs a clock jump such as -5s")
		}
		if !jumpWithinADay(by) {
			return bad("needs a clock jump of at most a day either way, such as -5s")
		}
		f.Kind, f.Clock, f.By = engine.FaultClockJump, "source", by
		if len(args) == 2 {
			f.Clock = args[1]
		}
	case kind == "add-partition" && len(args) == 1 && args[0] != "":
		f.Kind, f.Topic = logs.FaultAddPartition, args[0]
	case kind == "pause" && len(args) == 3 && args[0] != "" && args[1] != "":
		d, ok := faultLength(args[2], 1)
		if !ok {
			return bad("needs a pause length of at most a day, such as 30s")
		}
		f.Kind, f.Group, f.Member, f.For = logs.FaultPause, args[0], args[1], d
	case kind == "burst" && len(args) == 3 && args[0] != "":
		n, ok := whole.Int(args[1])
		d, dok := faultLength(args[2], 0)
		if !ok || n < 1 || !dok {
			return bad("needs a number of events and a span of at most a day, such as 12~1m")
		}
		f.Kind, f.Producer, f.Records, f.For = logs.FaultBurst, args[0], n, d
	case kind == "producer-clock" && len(args) == 2 && args[0] != "":
		by, err := vtime.ParseDuration(args[1])
		if err != nil || by == 0 {
			return bad("needs a producer and how far its clock steps, such as till3~1m")
		}
		if !jumpWithinADay(by) {
			return bad("needs a producer's clock step of at most a day either way, such as till3~1m")
		}
		f.Kind, f.Producer, f.By = logs.FaultProducerClock, args[0], by
	case (kind == "stall" && len(args) == 3 || kind == "delay" && len(args) == 4) && args[0] != "":
		p, ok := whole.Int(args[1])
		d, dok := faultLength(args[2], 1)
		if !ok || p < 0 || !dok {
			return bad("needs a partition and a length of at most a day, such as 2~30s")
		}
		f.Kind, f.Stream, f.Partition, f.For = stream.FaultStall, args[0], p, d
		if kind == "delay" {
			by, ok := faultLength(args[3], 1)
			if !ok {
				return bad("needs how much later records are read, at most a day, such as 45s")
			}
			f.Kind, f.By = stream.FaultDelay, by
		}
	default:
		return bad("is not a fault: expected STEP~crash, STEP~jump~-5s (or STEP~jump~-5s~CLOCK), STEP~add-partition~TOPIC, STEP~pause~GROUP~MEMBER~30s, STEP~burst~PRODUCER~12~1m, STEP~burst-key~PRODUCER~KEY~100, STEP~producer-clock~PRODUCER~1m, STEP~stall~STREAM~2~30s, STEP~delay~STREAM~2~1m~45s, STEP~fail~OPERATOR~now~5s or STEP~slow~OPERATOR~500ms~30s")
	}
	return f, nil
}

// allDigits reports whether s is nothing but the digits 0 to 9.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// words splits s around runs of ASCII white space, as strings.Fields does
// for text without other spaces, which a fault's arguments never need:
// strings.Fields would bring Unicode's space table and its general
// splitter into the browser module.
func words(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		space := i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f'
		switch {
		case space && start >= 0:
			out = append(out, s[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	return out
}
