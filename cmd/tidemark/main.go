// Command tidemark lists, runs and checks Tidemark scenarios without a browser.
//
//	tidemark list
//	tidemark run <id|file> [--set knob=value]... [--seed N] [--max-events N] [--json]
//	tidemark check <id|file>... | --all
//
// It exits 0 when a run completed, whatever it lost; 1 when an expectation
// checked by `tidemark check` does not hold; 2 on bad input.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/lessons"
)

func main() {
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	switch args[0] {
	case "list":
		err = list(stdout)
	case "run":
		err = runCmd(args[1:], stdout)
	case "check":
		var failed bool
		failed, err = checkCmd(args[1:], stdout)
		if err == nil && failed {
			return 1
		}
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		err = fmt.Errorf("unknown command %q; expected list, run or check", args[0])
	}
	if err != nil {
		// Every error here is bad input: an unknown command, scenario or
		// knob, or a file that does not parse or build.
		fmt.Fprintln(stderr, "tidemark:", err)
		return 2
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  tidemark list                       list the bundled scenarios
  tidemark run <id|file> [flags]      run one scenario and print its timeline
      --set knob=value                choose a knob value (repeatable)
      --seed N                        seed of the world's random source (default 1)
      --max-events N                  the work budget: events, rows, keys and runs
                                      the scenario may schedule (default 10000000)
      --json                          print one JSON object instead of text
  tidemark check <id|file>... | --all verify the expectations scenarios state
`)
}

func list(w io.Writer) error {
	all, err := lessons.Scenarios()
	if err != nil {
		return err
	}
	width := 0
	for _, s := range all {
		width = max(width, len(s.ID))
	}
	for _, s := range all {
		fmt.Fprintf(w, "%-*s  %s\n", width, s.ID, s.Title)
	}
	return nil
}

// load finds a bundled scenario by id, or reads and parses a file.
func load(ref string) (*scenario.File, error) {
	if s, ok := lessons.Lookup(ref); ok {
		return s.File, nil
	}
	src, err := os.ReadFile(ref)
	if err != nil {
		// An id such as hwm/visibility-gap that matches nothing is named as
		// such; a path that cannot be read gets the system's reason.
		looksLikeID := !strings.ContainsAny(ref, ".\\") && strings.Count(ref, "/") <= 1
		if errors.Is(err, os.ErrNotExist) && looksLikeID {
			return nil, fmt.Errorf("no bundled scenario or file named %q; `tidemark list` shows the bundled ones", ref)
		}
		return nil, fmt.Errorf("cannot read scenario: %w", err)
	}
	return scenario.Parse(ref, src)
}

type setFlags map[string]string

func (s setFlags) String() string { return "" }
func (s setFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("expected knob=value, found %q", v)
	}
	s[k] = val
	return nil
}

func runCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	set := setFlags{}
	fs.Var(set, "set", "knob=value")
	seed := fs.Uint64("seed", 1, "seed")
	maxEvents := fs.Int("max-events", engine.DefaultBudget, "work budget")
	asJSON := fs.Bool("json", false, "JSON output")
	// Allow the scenario before or after the flags.
	var ref string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		ref, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("run: %v", err)
	}
	if ref == "" && fs.NArg() > 0 {
		ref = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("run takes one scenario; unexpected %q", fs.Arg(0))
	}
	if ref == "" {
		return errors.New("run needs a scenario id or file; `tidemark list` shows the bundled ones")
	}
	if *maxEvents <= 0 {
		return fmt.Errorf("run: expected --max-events to be a positive whole number, found %d", *maxEvents)
	}
	f, err := load(ref)
	if err != nil {
		return err
	}
	t, err := engine.RunWithBudget(f, set, *seed, *maxEvents)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report.Build(t))
	}
	return report.Text(stdout, t)
}

func checkCmd(args []string, stdout io.Writer) (failed bool, err error) {
	var refs []string
	for _, a := range args {
		if a == "--all" {
			all, err := lessons.Scenarios()
			if err != nil {
				return false, err
			}
			for _, s := range all {
				refs = append(refs, s.ID)
			}
			continue
		}
		refs = append(refs, a)
	}
	if len(refs) == 0 {
		return false, errors.New("check needs scenario ids or files, or --all")
	}
	total, bad := 0, 0
	for _, ref := range refs {
		f, err := load(ref)
		if err != nil {
			return false, err
		}
		outs, err := engine.CheckExpectations(f, 1)
		if err != nil {
			return false, err
		}
		if len(outs) == 0 {
			fmt.Fprintf(stdout, "WARN  %s states no expectations\n", f.ID)
		}
		for _, o := range outs {
			total++
			if o.Err != nil {
				bad++
				fmt.Fprintf(stdout, "FAIL  %s: %v\n", f.ID, o.Err)
			}
		}
	}
	fmt.Fprintf(stdout, "expectations: %d passed, %d failed\n", total-bad, bad)
	return bad > 0, nil
}
