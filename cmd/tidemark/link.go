package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/web/export"
	"github.com/tidemark/tidemark/web/share"
)

const linkUsage = `  tidemark link <id|file|-> [flags]   print links that carry a scenario's text (no server
                                      stores it): the sandbox, the embed page, the picture
      --base-url URL                  the site's address (default http://127.0.0.1:8080,
                                      where make serve listens)
      --set knob=value                open the links with a knob's value (repeatable)
      --step N                        open the links at step N
`

// linkCmd prints the links that carry a scenario's text in their fragment
// (see docs/embedding.md, "Your own scenario").
func linkCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("link", flag.ContinueOnError)
	base := fs.String("base-url", "http://127.0.0.1:8080", "the site's address")
	set := setFlags{}
	fs.Var(set, "set", "knob=value")
	step := fs.Int("step", 0, "the step the links open at")
	pos, err := parseFlags(fs, args, linkUsage, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("link needs one scenario: a bundled id, a file, or - for standard input")
	}
	site, _, err := export.ParseBase(*base)
	if err != nil {
		return fmt.Errorf("--base-url: %w", err)
	}
	if *step < 0 {
		return fmt.Errorf("--step: expected a step number, 0 or more, found %d", *step)
	}
	var f *scenario.File
	if pos[0] == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("cannot read standard input: %w", err)
		}
		if f, err = scenario.Parse(stdinName, b); err != nil {
			return err
		}
	} else if f, err = load(pos[0]); err != nil {
		return err
	}
	if err := buildsEverySetting(f); err != nil {
		return err
	}
	// The settings the links open with, checked as the page would: a
	// knob the scenario lacks, or a value it does not offer, is named.
	knobs, err := f.Resolve(set)
	if err != nil {
		return fmt.Errorf("--set: %w", err)
	}
	q := url.Values{}
	for name, v := range knobs {
		if v != f.Knob(name).Default {
			q.Set(name, v)
		}
	}
	if *step > 0 {
		q.Set("step", strconv.Itoa(*step))
	}
	query := q.Encode() // sorted by name
	payload, err := share.Encode(f.Source)
	if err != nil {
		return err
	}
	open := ""
	if query != "" {
		open = "?" + query
	}
	fmt.Fprintf(stdout, "sandbox: %s/play%s#%s=%s\nembed:   %s/embed/%s#%s=%s\n", site, open, share.Key, payload, site, open, share.Key, payload)
	if query != "" {
		query = "&" + query
	}
	fmt.Fprintf(stdout, "picture: %s/picture.svg?src=%s%s\n", site, payload, query)
	return nil
}

// buildsEverySetting reports the first error building f's world (not
// running it) with each setting of its knobs gives: a line the reader
// accepts but no world does (an unknown argument, a target no line
// declares), which a published link would show its readers instead of
// the scenario.
func buildsEverySetting(f *scenario.File) error {
	for _, set := range f.KnobSettings() {
		if _, err := engine.Build(f, set, 1, worlds.All()); err != nil {
			return err
		}
	}
	return nil
}
