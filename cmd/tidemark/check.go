package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// stdinName names standard input in positions: <stdin>:3:1.
const stdinName = "<stdin>"

// checkReport is what `tidemark check --json` prints.
type checkReport struct {
	Scenarios []scenarioReport `json:"scenarios"`
	Passed    int              `json:"passed"`
	Failed    int              `json:"failed"`
	Errors    []string         `json:"errors"` // bad input: files that do not parse or build
	// Warnings name a directory that holds no scenario: a check that
	// checked nothing there, which a CI step would otherwise pass in silence.
	Warnings []string `json:"warnings,omitempty"`
}

// scenarioReport is one scenario's expectations: a file, a bundled
// scenario, or one tdm block of a Markdown file.
type scenarioReport struct {
	Scenario     string              `json:"scenario"`
	File         string              `json:"file"`
	Line         int                 `json:"line"` // where the scenario starts in File
	Expectations []expectationReport `json:"expectations"`
	Warnings     []string            `json:"warnings,omitempty"` // lines that do nothing, each with its position
}

type expectationReport struct {
	Position string `json:"position"` // file:line:column of the claim
	Claim    string `json:"claim"`    // as written, with its when settings
	Status   string `json:"status"`   // pass or fail
	Detail   string `json:"detail,omitempty"`
}

// checkInput is one scenario to check, or the error that stopped reading one.
type checkInput struct {
	file     *scenario.File
	line     int // where the scenario starts in its file
	err      error
	embedded bool   // a tdm block in Markdown, which need not state expectations
	warning  string // instead of a scenario: what the argument holds none of
}

func checkCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	seed := seedFlag(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	all := fs.Bool("all", false, "every bundled scenario")
	budget := fs.Int("max-events", engine.DefaultBudget, "work budget")
	refs, err := parseFlags(fs, args, checkUsage, stdout)
	if err != nil {
		return 0, err
	}
	if *budget <= 0 {
		return 0, fmt.Errorf("check: expected --max-events to be a positive whole number, found %d", *budget)
	}
	if len(refs) == 0 && !*all {
		return 0, errors.New("check needs scenario ids, files, directories or -, or --all")
	}
	var inputs []checkInput
	if *all {
		bundled, err := lessons.Scenarios()
		if err != nil {
			return 0, err
		}
		for _, s := range bundled {
			inputs = append(inputs, checkInput{file: s.File, line: 1})
		}
	}
	for _, ref := range refs {
		inputs = append(inputs, readInputs(ref, stdin)...)
	}

	rep := checkReport{Scenarios: []scenarioReport{}, Errors: []string{}}
	for _, in := range inputs {
		if in.warning != "" {
			rep.Warnings = append(rep.Warnings, in.warning)
			if !*asJSON {
				fmt.Fprintf(stdout, "WARN  %s\n", in.warning)
			}
			continue
		}
		if in.err != nil {
			rep.Errors = append(rep.Errors, in.err.Error())
			continue
		}
		sr, err := checkOne(in.file, in.line, *seed, *budget)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			continue
		}
		if len(sr.Expectations) == 0 && !in.embedded && !*asJSON {
			// Named by its file, as every other warning is: a folder of
			// drafts may hold several files of one id.
			fmt.Fprintf(stdout, "WARN  %s: %s states no expectations\n", in.file.Name, in.file.ID)
		}
		if !*asJSON {
			for _, w := range sr.Warnings {
				fmt.Fprintf(stdout, "WARN  %s\n", w)
			}
		}
		for _, e := range sr.Expectations {
			if e.Status == "pass" {
				rep.Passed++
				continue
			}
			rep.Failed++
			if !*asJSON {
				fmt.Fprintf(stdout, "FAIL  %s: %s\n", sr.Scenario, e.Detail)
			}
		}
		rep.Scenarios = append(rep.Scenarios, sr)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false) // a terminal, a file or jq reads it, not a browser: "updated_at > 10:00:05" as written
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return 0, err
		}
	} else if len(rep.Scenarios) > 0 || len(rep.Errors) == 0 {
		// A count of nothing checked says nothing beside the errors that
		// stopped every input, so then only the errors are printed.
		fmt.Fprintf(stdout, "expectations: %d passed, %d failed\n", rep.Passed, rep.Failed)
	}
	// Bad input is reported for every file, not just the first, so that one
	// run of a documentation check lists everything to fix.
	for _, e := range rep.Errors {
		fmt.Fprintln(stderr, "tidemark:", e)
	}
	switch {
	case len(rep.Errors) > 0:
		return 2, nil
	case rep.Failed > 0:
		return 1, nil
	}
	return 0, nil
}

// readInputs reads the scenarios one argument of check names: standard
// input (-), a directory's .md and .tdm files, a Markdown file's tdm blocks,
// a bundled scenario's id, or a scenario file.
func readInputs(ref string, stdin io.Reader) []checkInput {
	if ref == "-" {
		src, err := io.ReadAll(stdin)
		if err != nil {
			return []checkInput{{err: fmt.Errorf("cannot read standard input: %w", err)}}
		}
		f, err := scenario.Parse(stdinName, src)
		return []checkInput{{file: f, line: 1, err: err}}
	}
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		var out []checkInput
		err := filepath.WalkDir(ref, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && p != ref && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case !d.IsDir() && (isMarkdown(p) || filepath.Ext(p) == ".tdm"):
				out = append(out, readInputs(p, stdin)...)
			}
			return nil
		})
		if err != nil {
			out = append(out, checkInput{err: fmt.Errorf("cannot read directory: %w", err)})
		}
		if len(out) == 0 {
			out = append(out, checkInput{warning: ref + " holds no scenario to check: no .tdm file, and no .md file with a block fenced as ```tdm"})
		}
		return out
	}
	if isMarkdown(ref) {
		src, err := os.ReadFile(ref)
		if err != nil {
			return []checkInput{{err: fmt.Errorf("cannot read Markdown file: %w", err)}}
		}
		blocks := markdownScenarios(ref, src)
		out := make([]checkInput, len(blocks))
		for i, b := range blocks {
			out[i] = checkInput{file: b.file, err: b.err, line: b.line, embedded: true}
		}
		for _, line := range miscasedFences(src) {
			out = append(out, checkInput{warning: fmt.Sprintf("%s:%d: this block's language is not tdm in lower case, so it is not checked; fence it as ```tdm", ref, line)})
		}
		return out
	}
	f, err := load(ref)
	return []checkInput{{file: f, line: 1, err: err}}
}

func isMarkdown(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".md" || ext == ".markdown"
}

// checkOne verifies a scenario's expectations and builds it under every
// value of every knob. A scenario that cannot be built is an error.
func checkOne(f *scenario.File, line int, seed uint64, budget int) (scenarioReport, error) {
	sr := scenarioReport{Scenario: f.ID, File: f.Name, Line: line, Expectations: []expectationReport{}}
	outs, err := engine.CheckExpectationsWithBudget(f, seed, worlds.All(), budget)
	if err != nil {
		return sr, err
	}
	for _, o := range outs {
		e := expectationReport{Position: o.Expectation.Pos.String(), Claim: o.Expectation.Line, Status: "pass"}
		if o.Err != nil {
			e.Status, e.Detail = "fail", o.Err.Error()
		}
		sr.Expectations = append(sr.Expectations, e)
	}
	var whens []map[string]string
	for _, o := range outs {
		whens = append(whens, o.Expectation.When)
	}
	longest, err := runEveryValue(f, whens, seed, budget)
	if err != nil {
		return sr, err
	}
	sr.Warnings, err = notesPastTheEnd(f, longest, seed, budget)
	for _, k := range f.UnusedKnobs() {
		sr.Warnings = append(sr.Warnings, fmt.Sprintf("%s: knob %s is used by no line (no $%s), so its values change nothing", k.Pos, k.Name, k.Name))
	}
	return sr, err
}

// notesPastTheEnd names the note lines whose step no run reaches, with the
// default knobs or any one knob's value: a presenter would never see them.
// longest is the most steps of the runs made already (see runEveryValue).
func notesPastTheEnd(f *scenario.File, longest int, seed uint64, budget int) ([]string, error) {
	if !slices.ContainsFunc(f.Commands, func(c scenario.Command) bool { return c.Name == "note" }) {
		return nil, nil
	}
	t, err := engine.RunWithBudget(f, nil, seed, worlds.All(), budget)
	if err != nil {
		return nil, err
	}
	longest = max(longest, t.Steps())
	var out []string
	for _, n := range t.Notes {
		if n.Step > longest {
			out = append(out, fmt.Sprintf("%s: note at-step=%d is past the end: with each knob's values the runs have at most %d steps, so no one will see it", n.Pos, n.Step, longest))
		}
	}
	return out, nil
}

// runEveryValue runs the scenario under each knob value that none of the
// settings already run (whens, each knob not named at its default) covers,
// every other knob at its default, so that a value no expectation names
// still has to build and run: a line the simulation refuses while running
// (a write PostgreSQL would make wait, say) may depend on a knob. A
// scenario with no knobs and no expectations is run once as it is.
//
// It returns the most steps of the runs it made.
func runEveryValue(f *scenario.File, whens []map[string]string, seed uint64, budget int) (int, error) {
	longest := 0
	built := map[[2]string]bool{}
	mark := func(set map[string]string) {
		for _, k := range f.Knobs {
			v, ok := set[k.Name]
			if !ok {
				v = k.Default
			}
			built[[2]string{k.Name, v}] = true
		}
	}
	for _, w := range whens {
		mark(w)
	}
	if len(whens) == 0 {
		t, err := engine.RunWithBudget(f, nil, seed, worlds.All(), budget)
		if err != nil {
			return 0, err
		}
		longest = t.Steps()
		mark(nil)
	}
	for _, k := range f.Knobs {
		for _, v := range k.Values {
			if built[[2]string{k.Name, v}] {
				continue
			}
			set := map[string]string{k.Name: v}
			t, err := engine.RunWithBudget(f, set, seed, worlds.All(), budget)
			if err != nil {
				return 0, fmt.Errorf("%w (with knob %s=%s)", err, k.Name, v)
			}
			longest = max(longest, t.Steps())
			mark(set)
		}
	}
	return longest, nil
}
