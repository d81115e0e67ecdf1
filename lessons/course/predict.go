package course

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// Prediction is a question the learner commits to before playing a
// scenario. Each option is a claim about the scenario's outcome that the
// engine can evaluate; which options are right is never written down but
// computed by running the engine (see Grade).
type Prediction struct {
	ID       string // unique within the lesson; progress is kept under it
	Question Rich
	Scenario string // the scenario the claims run against, unless a claim names its own
	Knobs    map[string]string
	Options  []Option
	// Answer lists the options the author expects the engine to find true.
	// The page never shows it: the engine's own verdicts grade the learner,
	// and a lesson whose Answer the engine does not confirm fails its check
	// (see Verify).
	Answer []string
	// Why is shown with the engine's answer: the reasoning, in prose.
	Why Rich
	Pos Pos
}

// Option is one answer a learner can choose.
type Option struct {
	ID    string // unique within the prediction: "a", "b", …
	Label Rich
	Claim Claim
	Pos   Pos
}

// ClaimKind is what a claim asserts about a scenario's final state.
type ClaimKind string

// Claim kinds.
const (
	// MissingExactly: the rows missing from the target are exactly Keys
	// (none when Keys is empty).
	MissingExactly ClaimKind = "missing-exactly"
	// Missing: every key in Keys is missing from the target.
	Missing ClaimKind = "missing"
	// Present: no key in Keys is missing from the target.
	Present ClaimKind = "present"
	// Duplicated: every key in Keys is in the target more than once.
	Duplicated ClaimKind = "duplicated"
	// Stale: every key in Keys is in the target in an older version.
	Stale ClaimKind = "stale"
	// Clean: nothing is missing, duplicated or stale.
	Clean ClaimKind = "clean"
	// CheckStatus: the check named Check ends with Status.
	CheckStatus ClaimKind = "check"
	// MissingCount: the number of rows missing from the target is at least
	// Min and, when Max is positive, at most Max.
	MissingCount ClaimKind = "missing-count"
)

// Claim is something the engine can say is true or false of a scenario run.
type Claim struct {
	Kind     ClaimKind
	Keys     []string
	Check    string       // for CheckStatus
	Status   check.Status // for CheckStatus
	Min, Max int          // for MissingCount
	// Scenario and Knobs, when Scenario is set, run the claim against a
	// different scenario or settings than the prediction's.
	Scenario string
	Knobs    map[string]string
}

// Verdict is the engine's answer to one option.
type Verdict struct {
	Option   string
	True     bool
	Evidence string // what the engine reported, in words
}

// Answer is the engine's answer to a prediction.
type Answer struct {
	Prediction string
	Verdicts   []Verdict // one per option, in option order
}

// Correct lists the ids of the options the engine found true.
func (a Answer) Correct() []string {
	var out []string
	for _, v := range a.Verdicts {
		if v.True {
			out = append(out, v.Option)
		}
	}
	return out
}

// Grade reports whether the learner's choice is right.
func (a Answer) Grade(choice string) bool { return slices.Contains(a.Correct(), choice) }

// Grade runs the engine for every option of p and reports which claims
// hold. It fails when a scenario is not bundled, a knob is refused, or a
// claim is malformed.
func Grade(p Prediction) (Answer, error) {
	ans := Answer{Prediction: p.ID}
	for _, o := range p.Options {
		id, knobs := p.Scenario, p.Knobs
		if o.Claim.Scenario != "" {
			id, knobs = o.Claim.Scenario, o.Claim.Knobs
		}
		tr, err := RunScenario(id, knobs)
		if err != nil {
			return Answer{}, fmt.Errorf("prediction %s option %s: %w", p.ID, o.ID, err)
		}
		ok, ev, err := evaluate(o.Claim, tr)
		if err != nil {
			return Answer{}, fmt.Errorf("prediction %s option %s: %w", p.ID, o.ID, err)
		}
		ans.Verdicts = append(ans.Verdicts, Verdict{Option: o.ID, True: ok, Evidence: ev})
	}
	return ans, nil
}

// RunScenario runs a bundled scenario with knobs and seed 1, the seed every
// lesson uses.
func RunScenario(id string, knobs map[string]string) (*engine.Trace, error) {
	sc, ok := lessons.Lookup(id)
	if !ok {
		return nil, fmt.Errorf("scenario %q is not bundled", id)
	}
	return engine.Run(sc.File, knobs, 1, worlds.All())
}

func evaluate(c Claim, tr *engine.Trace) (bool, string, error) {
	f := tr.Final()
	all := func(keys []string, has func(string) bool) bool {
		for _, k := range keys {
			if !has(k) {
				return false
			}
		}
		return true
	}
	missing := func(k string) bool { return slices.Contains(f.Missing, k) }
	switch c.Kind {
	case MissingExactly:
		return slices.Equal(f.Missing, c.Keys), "missing: " + list(f.Missing), nil
	case Missing:
		if len(c.Keys) == 0 {
			return false, "", fmt.Errorf("claim %q names no keys", c.Kind)
		}
		return all(c.Keys, missing), "missing: " + list(f.Missing), nil
	case Present:
		if len(c.Keys) == 0 {
			return false, "", fmt.Errorf("claim %q names no keys", c.Kind)
		}
		return all(c.Keys, func(k string) bool { return !missing(k) }), "missing: " + list(f.Missing), nil
	case Duplicated:
		if len(c.Keys) == 0 {
			return false, "", fmt.Errorf("claim %q names no keys", c.Kind)
		}
		return all(c.Keys, func(k string) bool { return f.Duplicated[k] > 1 }), "duplicated: " + dupList(f.Duplicated), nil
	case Stale:
		if len(c.Keys) == 0 {
			return false, "", fmt.Errorf("claim %q names no keys", c.Kind)
		}
		return all(c.Keys, func(k string) bool { return slices.Contains(f.Stale, k) }), "stale: " + list(f.Stale), nil
	case Clean:
		ok := len(f.Missing) == 0 && len(f.Duplicated) == 0 && len(f.Stale) == 0
		return ok, fmt.Sprintf("missing: %s; duplicated: %s; stale: %s", list(f.Missing), dupList(f.Duplicated), list(f.Stale)), nil
	case MissingCount:
		if c.Min < 0 || c.Max < 0 || c.Max > 0 && c.Max < c.Min || c.Min == 0 && c.Max == 0 {
			return false, "", fmt.Errorf("claim %q needs 0 <= Min <= Max, or Min > 0 with no Max; got %d..%d", c.Kind, c.Min, c.Max)
		}
		n := len(f.Missing)
		return n >= c.Min && (c.Max == 0 || n <= c.Max), fmt.Sprintf("%d rows missing", n), nil
	case CheckStatus:
		for _, r := range tr.Checks() {
			if r.Name == c.Check {
				return r.Status == c.Status, fmt.Sprintf("%s: %s — %s", r.Name, r.Status, r.Detail), nil
			}
		}
		return false, "", fmt.Errorf("check %q is not run by scenario %s", c.Check, tr.File.ID)
	}
	return false, "", fmt.Errorf("unknown claim kind %q", c.Kind)
}

func list(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

func dupList(d map[string]int) string {
	if len(d) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s ×%d", k, d[k])
	}
	return strings.Join(keys, ", ")
}

// status returns the verdict of the check named name, or "" when it did not run.
func status(rs []check.Result, name string) check.Status {
	for _, r := range rs {
		if r.Name == name {
			return r.Status
		}
	}
	return ""
}
