package course

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/lessons"
)

// Verify runs the engine for everything in l that makes a claim about a
// scenario, and reports, at its place in the lesson's files:
//
//   - an embed whose step is past the scenario's end, or whose focus names
//     a check the scenario does not run;
//   - a prediction whose answer the engine does not confirm, or where the
//     engine finds no option true, or every one;
//   - an embed that shows nothing an earlier embed of the lesson did not:
//     the same scenario with the same settings, opened at the same step;
//   - a prediction that comes after an embed of its chapter playing the
//     scenario it asks about, which would give its answer away.
//
// Load checks what needs no engine; Verify is run by the lesson's tests
// (and the page of a chapter checks each of its predictions again as it
// draws it).
func Verify(l *Lesson) error {
	e := &errs{}
	var shown []Embed
	for i := range l.Chapters {
		verifyChapter(&l.Chapters[i], &shown, e)
	}
	return e.err()
}

// run is one scenario run the text points at: a scenario with all its knobs
// set (defaults filled in).
type run struct {
	scenario string
	knobs    string // "k=v k=v", in knob order
}

// runOf returns the run of scenario id with knobs, defaults filled in.
func runOf(id string, knobs map[string]string) run {
	sc, ok := lessons.Lookup(id)
	if !ok {
		return run{scenario: id}
	}
	var parts []string
	for _, k := range sc.File.Knobs {
		v := k.Default
		if x, ok := knobs[k.Name]; ok {
			v = x
		}
		parts = append(parts, k.Name+"="+v)
	}
	return run{scenario: id, knobs: strings.Join(parts, " ")}
}

func verifyChapter(c *Chapter, shown *[]Embed, e *errs) {
	var played []Embed // embeds of this chapter so far
	for _, s := range c.Sections {
		for _, b := range s.Blocks {
			if p, ok := b.(Predict); ok {
				verifyPrediction(Prediction(p), played, e)
			}
			for _, em := range blockEmbeds(b) {
				verifyEmbed(em, e)
				r := runOf(em.Scenario, em.Knobs)
				for _, prev := range *shown {
					if runOf(prev.Scenario, prev.Knobs) == r && prev.Step == em.Step {
						e.at(em.Pos, "this embed shows what the one at %s shows (%s, %s, step %d); give it other knobs or another step (step=N)", prev.Pos, r.scenario, orNone(strings.Fields(r.knobs)), em.Step)
						break
					}
				}
				*shown = append(*shown, em)
				played = append(played, em)
			}
		}
	}
}

func verifyEmbed(em Embed, e *errs) {
	tr, err := RunScenario(em.Scenario, em.Knobs)
	if err != nil {
		e.at(em.Pos, "embed %s: %v", em.Scenario, err)
		return
	}
	if em.Step > tr.Steps() {
		e.at(em.Pos, "embed %s: step=%d is past the end; this run has %d steps", em.Scenario, em.Step, tr.Steps())
	}
	if em.Focus != "" {
		var names []string
		for _, r := range tr.Checks() {
			names = append(names, r.Name)
		}
		if !slices.Contains(names, em.Focus) {
			e.at(em.Pos, "embed %s: focus=%s names a check this run does not report; it reports %s", em.Scenario, em.Focus, orNone(names))
		}
	}
}

func verifyPrediction(p Prediction, played []Embed, e *errs) {
	ans, err := Grade(p)
	if err != nil {
		e.at(p.Pos, "%v", err)
		return
	}
	correct := ans.Correct()
	switch {
	case len(correct) == 0:
		e.at(p.Pos, "prediction %s: the engine finds no option true; %s", p.ID, evidenceList(p, ans))
	case len(correct) == len(p.Options):
		e.at(p.Pos, "prediction %s: the engine finds every option true, so the question teaches nothing; %s", p.ID, evidenceList(p, ans))
	case !slices.Equal(sorted(correct), sorted(p.Answer)):
		e.at(p.Pos, "prediction %s: answer says %s, but the engine finds %s true; %s", p.ID, strings.Join(p.Answer, ", "), strings.Join(correct, ", "), evidenceList(p, ans))
	}
	// The scenarios the question is about, and an earlier embed of the
	// chapter playing one: its widget's knobs can be flipped to any of the
	// runs the question asks about, so it would give the answer away.
	asks := map[string]bool{p.Scenario: true}
	for _, o := range p.Options {
		if o.Claim.Scenario != "" {
			asks[o.Claim.Scenario] = true
		}
	}
	for _, em := range played {
		if asks[em.Scenario] {
			e.at(p.Pos, "prediction %s asks about %s, which the embed at %s already plays with knobs a learner can flip; ask before it", p.ID, em.Scenario, em.Pos)
			break
		}
	}
}

func evidenceList(p Prediction, a Answer) string {
	parts := make([]string, len(a.Verdicts))
	for i, v := range a.Verdicts {
		parts[i] = fmt.Sprintf("%s (%s): %s", v.Option, p.Options[i].Claim.Kind, v.Evidence)
	}
	return "the engine reports " + strings.Join(parts, "; ")
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}
