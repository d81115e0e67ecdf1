// Command tidemark lists, runs and checks Tidemark scenarios without a
// browser, and replays them on a real PostgreSQL.
//
//	tidemark list
//	tidemark run <id|file> [--set knob=value]... [--seed N] [--max-events N] [--json]
//	tidemark check <id|file|dir|->... | --all [--seed N] [--max-events N] [--json]
//	tidemark replay --postgres URL <id|file>... [--set knob=value]... [--every-knob] [--seed N]
//	tidemark link <id|file|-> [--base-url URL]
//	tidemark export --base-url URL --out DIR
//	tidemark version
//
// It exits 0 when a run completed, whatever it lost; 1 when an expectation
// checked by `tidemark check` does not hold, or PostgreSQL disagrees with the
// engine in `tidemark replay`; 2 on bad input or a database it cannot use; 3
// when `tidemark replay` found no disagreement but could not replay
// everything it was asked to.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/tidemark/tidemark/engine/sorted"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web/share"
)

func main() {
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(code)
}

// run is the whole command: it reads args and stdin, writes stdout and
// stderr, and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	code := 0
	switch args[0] {
	case "list":
		err = list(args[1:], stdout)
	case "run":
		err = runCmd(args[1:], stdout)
	case "check":
		code, err = checkCmd(args[1:], stdin, stdout, stderr)
	case "replay":
		code, err = replayCmd(args[1:], stdout)
	case "link":
		err = linkCmd(args[1:], stdin, stdout, stderr)
	case "export":
		err = exportCmd(args[1:], stdout, stderr)
	case "version":
		err = versionCmd(args[1:], stdout)
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && args[0] == "help" {
			// help COMMAND prints that command's usage, as COMMAND -h does.
			if u, ok := usages[args[1]]; ok {
				fmt.Fprint(stdout, "usage:\n"+u)
				return 0
			}
			fmt.Fprintf(stderr, "tidemark: no command %q to help with; expected list, run, check, replay, link, export or version\n", args[1])
			return 2
		}
		usage(stdout)
		return 0
	default:
		err = fmt.Errorf("unknown command %q; expected list, run, check, replay, link, export or version", args[0])
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		// Every error here is bad input: an unknown command, scenario or
		// knob, a file that does not parse or build, or a database the
		// replay cannot use.
		fmt.Fprintln(stderr, "tidemark:", err)
		return 2
	}
	return code
}

// Usage texts, one per command; `tidemark help` prints them all.
const (
	listUsage = `  tidemark list                       list the bundled scenarios
`
	runUsage = `  tidemark run <id|file|link> [flags] run one scenario and print its timeline; a
                                      link's knobs and seed= are used unless given below
      --set knob=value                choose a knob value (repeatable)
      --seed N                        seed of the world's random source (default 1)
      --max-events N                  the work budget: events, rows, keys, partitions
                                      and runs the scenario may schedule (default 10000000)
      --json                          print one JSON object instead of text
`
	checkUsage = `  tidemark check <id|file|dir|->... | --all [flags]
                                      verify the expectations scenarios state; a Markdown
                                      file (.md) is read for its fenced tdm blocks, a
                                      directory for its .md and .tdm files, - for stdin;
                                      every value of every knob is run at least once
      --seed N                        seed of the world's random source (default 1)
      --max-events N                  the work budget of each run (default 10000000)
      --json                          print one JSON object instead of text
`
	replayUsage = `  tidemark replay --postgres URL <id|file>... [flags]
                                      play scenarios' source transactions and extractor
                                      runs on a real PostgreSQL and compare what it
                                      returns with the engine (see docs/reality.md)
      --postgres URL                  the database (wal_level=logical for lsn marks)
      --set knob=value                choose a knob value (repeatable)
      --every-knob                    replay every combination of knob values
      --seed N                        seed of the world's random source (default 1)
`
	versionUsage = `  tidemark version                    print the module version
`
)

// usages is each command's usage, for help COMMAND.
var usages = map[string]string{
	"list": listUsage, "run": runUsage, "check": checkUsage, "replay": replayUsage,
	"link": linkUsage, "export": exportUsage, "version": versionUsage,
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage:\n"+listUsage+runUsage+checkUsage+replayUsage+linkUsage+exportUsage+versionUsage)
}

// errHelp is returned by a command that printed its usage because -h asked.
var errHelp = errors.New("help printed")

// parseFlags parses a command's flags, allowing them before, between and
// after its positional arguments, which it returns. -h prints the command's
// usage to stdout and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string, help string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, "usage:\n"+help)
				return nil, errHelp
			}
			return nil, fmt.Errorf("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

func list(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	pos, err := parseFlags(fs, args, listUsage, w)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("list takes no arguments; unexpected %q", pos[0])
	}
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

// load finds a bundled scenario by id, reads the one a link carries
// (https://HOST/play#tdm=…, see docs/embedding.md), or reads and parses a file.
func load(ref string) (*scenario.File, error) {
	if s, ok := lessons.Lookup(ref); ok {
		return s.File, nil
	}
	if _, frag, ok := strings.Cut(ref, "#"); ok && strings.Contains(frag, share.Key+"=") || strings.HasPrefix(ref, share.Key+"=") {
		if !ok {
			frag = ref
		}
		text, err := share.ParseFragment(frag)
		if err != nil {
			return nil, fmt.Errorf("link: %w", err)
		}
		return scenario.Parse(share.FileOf(frag), []byte(text))
	}
	if u, err := url.Parse(ref); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return loadPageLink(u)
	}
	src, err := os.ReadFile(ref)
	if err != nil {
		// An id such as hwm/visibility-gap that matches nothing is named as
		// such; a path that cannot be read gets the system's reason.
		looksLikeID := !strings.ContainsAny(ref, ".\\") && strings.Count(ref, "/") <= 1
		if errors.Is(err, os.ErrNotExist) && looksLikeID {
			if near := lessons.Near(ref); len(near) > 0 {
				return nil, fmt.Errorf("no bundled scenario or file named %q; did you mean %s?", ref, strings.Join(near, " or "))
			}
			return nil, fmt.Errorf("no bundled scenario or file named %q; `tidemark list` shows the bundled ones", ref)
		}
		return nil, fmt.Errorf("cannot read scenario: %w", err)
	}
	return scenario.Parse(ref, src)
}

// loadPageLink reads the scenario of a link to one of the site's pages
// other than the sandbox: a picture of a text (/picture.svg?src=…) or a
// bundled scenario's page, embed or picture (/scenarios/ID, /embed/ID,
// /picture/ID.svg), as docs/embedding.md writes them.
func loadPageLink(u *url.URL) (*scenario.File, error) {
	if strings.HasSuffix(u.Path, "/picture.svg") {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return nil, fmt.Errorf("link: its query cannot be read: %w", err)
		}
		text, err := share.Decode(q.Get("src"))
		if err != nil {
			return nil, fmt.Errorf("link: its src= %w", err)
		}
		return scenario.Parse(share.Unnamed, []byte(text))
	}
	for _, prefix := range []string{"/scenarios/", "/embed/", "/picture/"} {
		if _, id, ok := strings.Cut(u.Path, prefix); ok {
			id = strings.TrimSuffix(strings.TrimSuffix(id, "/"), ".svg")
			if s, ok := lessons.Lookup(id); ok {
				return s.File, nil
			}
			if near := lessons.Near(id); len(near) > 0 {
				return nil, fmt.Errorf("link: no bundled scenario named %q; did you mean %s?", id, strings.Join(near, " or "))
			}
			return nil, fmt.Errorf("link: no bundled scenario named %q; `tidemark list` shows them", id)
		}
	}
	return nil, errors.New("link: tidemark run reads a sandbox link (…/play#tdm=…), a picture of a text (…/picture.svg?src=…), or a bundled scenario's page, embed or picture (…/scenarios/ID, …/embed/ID, …/picture/ID.svg)")
}

// linkQueryNames are the names a link's query may hold besides knobs: the
// widget's settings, which tidemark run has no use for, and a picture's text.
var linkQueryNames = []string{"step", "truth", "explain", "present", "seed", "src"}

// linkSettings takes the knobs and the seed a link's query carries
// (https://HOST/play?mark=lsn&seed=3#tdm=…, as the sandbox's Share button
// writes it) into set and seed, where --set and --seed did not give them.
// A fault in the link is refused: the command line runs a scenario whole,
// without a learner's faults, and silently leaving them out would print
// another run than the link shows.
func linkSettings(ref string, f *scenario.File, set setFlags, seed *uint64, seedGiven bool) error {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme == "" || u.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return fmt.Errorf("link: its query cannot be read: %w", err)
	}
	if q.Has("fault") {
		return errors.New("link: it carries faults (fault=…), which tidemark run does not inject; open the link in a browser, or remove them to run the scenario whole")
	}
	for _, name := range sorted.Keys(q) {
		vals := q[name]
		switch {
		case f.Knob(name) != nil:
			if _, given := set[name]; !given {
				set[name] = vals[len(vals)-1]
			}
		case !slices.Contains(linkQueryNames, name):
			// The page would say so too; a misspelt knob is not a setting to drop in silence.
			return fmt.Errorf("link: scenario %s has no knob %q", f.ID, name)
		}
	}
	if v := q.Get("seed"); v != "" && !seedGiven {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("link: seed=%s is not a seed (a whole number from 0 up)", v)
		}
		*seed = n
	}
	return nil
}

type setFlags map[string]string

func (s setFlags) String() string { return "" }
func (s setFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("expected knob=value, found %q", v)
	}
	if was, twice := s[k]; twice {
		return fmt.Errorf("knob %s is set twice (%s, then %s); set it once", k, was, val)
	}
	s[k] = val
	return nil
}

// seedFlag defines the --seed flag of fs, 1 unless given: a whole number
// from 0 to 2^64-1, said so when it is not (the flag package's own error
// would say only "parse error").
func seedFlag(fs *flag.FlagSet) *uint64 {
	seed := seedValue(1)
	fs.Var(&seed, "seed", "seed")
	return (*uint64)(&seed)
}

type seedValue uint64

func (s *seedValue) String() string { return strconv.FormatUint(uint64(*s), 10) }
func (s *seedValue) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return errors.New("expected a whole number from 0 to 18446744073709551615")
	}
	*s = seedValue(n)
	return nil
}

func runCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	set := setFlags{}
	fs.Var(set, "set", "knob=value")
	seed := seedFlag(fs)
	maxEvents := fs.Int("max-events", engine.DefaultBudget, "work budget")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseFlags(fs, args, runUsage, stdout)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return errors.New("run needs a scenario id or file; `tidemark list` shows the bundled ones")
	case len(pos) > 1:
		return fmt.Errorf("run takes one scenario; unexpected %q", pos[1])
	}
	if *maxEvents <= 0 {
		return fmt.Errorf("run: expected --max-events to be a positive whole number, found %d", *maxEvents)
	}
	f, err := load(pos[0])
	if err != nil {
		return err
	}
	seedGiven := false
	fs.Visit(func(fl *flag.Flag) { seedGiven = seedGiven || fl.Name == "seed" })
	if err := linkSettings(pos[0], f, set, seed, seedGiven); err != nil {
		return err
	}
	// A run does not check the expect lines (`tidemark check` does), but it
	// refuses one that is malformed rather than ignore it.
	if _, err := engine.ValidExpectations(f, worlds.All()); err != nil {
		return err
	}
	t, err := engine.RunWithBudget(f, set, *seed, worlds.All(), *maxEvents)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false) // a terminal, a file or jq reads it, not a browser: "updated_at > 10:00:05" as written
		enc.SetIndent("", "  ")
		return enc.Encode(report.Build(t))
	}
	return report.Text(stdout, t)
}
