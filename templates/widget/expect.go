package widget

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sorted"
)

// ExpectRun checks a scenario's expect lines for the sandbox, as `tidemark
// check` does, but in chunks the page advances between frames: it runs the
// scenario once per distinct set of knob values the lines name, each
// within BrowserBudget, and verifies the lines about that run when it ends.
//
// Invariant: results has one entry per expect claim, in file order; an
// entry's Status is "" until the run it is about has ended.
type ExpectRun struct {
	file    *scenario.File
	domains []engine.Domain
	exps    []engine.Expectation
	runs    []string // the distinct whenKey of exps, in the order first named
	next    int      // index into runs of the run in progress (or to start)
	world   *engine.World
	results []ExpectResult // one per claim of exps, in its order
	bad     []ExpectResult // the expect lines that do not read, each an error
}

// ExpectResult is one claim of an expect line and whether it held.
type ExpectResult struct {
	_         nocmp.NoCompare
	Line, Col int    // where the claim is written
	Claim     string // as written, with the `when` knob values it is about
	// Status is "pass", "fail", or "error" when the scenario could not be
	// run with those knob values (past the browser's work budget).
	Status string
	Detail string // for fail and error: what the run showed instead
}

// NewExpectRun reads src's expect lines, to check them against runs of
// the engine composed of the worlds domains. A scenario that does not
// parse, or an expect line that does not read, is an error at its
// position; a scenario without expect lines has no results and is done at
// once.
func NewExpectRun(src, name string, domains []engine.Domain) (*ExpectRun, error) {
	if name == "" {
		name = "play.tdm"
	}
	f, err := scenario.Parse(name, []byte(src))
	if err != nil {
		return nil, err
	}
	exps, err := engine.Expectations(f)
	var bad []ExpectResult
	if err != nil {
		// One line that does not read leaves the others to check: each
		// is read alone, and one that does not read is an error of its own.
		exps, bad = nil, nil
		lines := strings.Split(src, "\n")
		one := *f
		for _, c := range f.Commands {
			if c.Name != "expect" {
				continue
			}
			one.Commands = []scenario.Command{c}
			es, err := engine.Expectations(&one)
			if err == nil {
				exps = append(exps, es...)
				continue
			}
			claim := ""
			if c.Pos.Line-1 < len(lines) {
				claim = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[c.Pos.Line-1]), "expect"))
			}
			bad = append(bad, ExpectResult{Line: c.Pos.Line, Col: c.Pos.Col, Claim: claim, Status: "error", Detail: err.Error()})
		}
	}
	r := &ExpectRun{file: f, domains: domains, exps: exps, results: make([]ExpectResult, len(exps)), bad: bad}
	for i, e := range exps {
		r.results[i] = ExpectResult{Line: e.Pos.Line, Col: e.Pos.Col, Claim: e.Line}
		if k := whenKey(e.When); !slices.Contains(r.runs, k) {
			r.runs = append(r.runs, k)
		}
	}
	return r, nil
}

// Advance runs up to budget events of the runs still to do, and reports
// whether every claim has a status.
func (r *ExpectRun) Advance(budget int) bool {
	for budget > 0 && r.next < len(r.runs) {
		if r.world == nil {
			w, err := engine.BuildWithBudget(r.file, r.whenOf(r.runs[r.next]), 1, r.domains, BrowserBudget)
			if err != nil {
				r.settle(nil, err)
				continue
			}
			r.world = w
		}
		for ; budget > 0; budget-- {
			if !r.world.Step() {
				r.settle(r.world.Trace(), r.world.Err())
				break
			}
		}
	}
	return r.next == len(r.runs)
}

// Results returns every claim, with a status once its run has ended, and
// after them the expect lines that do not read, each an error.
func (r *ExpectRun) Results() []ExpectResult {
	if len(r.bad) == 0 {
		return r.results
	}
	return append(slices.Clip(r.results), r.bad...)
}

// settle verifies the claims about the run in progress, which ended with
// trace t or could not be run (err), and moves on to the next run.
func (r *ExpectRun) settle(t *engine.Trace, err error) {
	key := r.runs[r.next]
	for i, e := range r.exps {
		if whenKey(e.When) != key {
			continue
		}
		res := &r.results[i]
		if err != nil {
			res.Status, res.Detail = "error", err.Error()
		} else if verr := e.Verify(t); verr != nil {
			res.Status, res.Detail = "fail", verr.Error()
		} else {
			res.Status = "pass"
		}
	}
	r.world = nil
	r.next++
}

func (r *ExpectRun) whenOf(key string) map[string]string {
	for _, e := range r.exps {
		if whenKey(e.When) == key {
			return e.When
		}
	}
	return nil
}

// whenKey names a set of knob values, the same for equal sets.
func whenKey(when map[string]string) string {
	var b strings.Builder
	for _, k := range sorted.Keys(when) {
		b.WriteString(k + "=" + when[k] + " ")
	}
	return b.String()
}
