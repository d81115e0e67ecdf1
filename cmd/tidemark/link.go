package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

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
`

// linkCmd prints the links that carry a scenario's text in their fragment
// (see docs/embedding.md, "Your own scenario").
func linkCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("link", flag.ContinueOnError)
	base := fs.String("base-url", "http://127.0.0.1:8080", "the site's address")
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
	var text string
	if pos[0] == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("cannot read standard input: %w", err)
		}
		text = string(b)
		f, err := scenario.Parse(stdinName, b)
		if err != nil {
			return err
		}
		if err := buildsEverySetting(f); err != nil {
			return err
		}
	} else {
		f, err := load(pos[0])
		if err != nil {
			return err
		}
		if err := buildsEverySetting(f); err != nil {
			return err
		}
		text = f.Source
	}
	payload, err := share.Encode(text)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sandbox: %s/play#%s=%s\nembed:   %s/embed/#%s=%s\npicture: %s/picture.svg?src=%s\n",
		site, share.Key, payload, site, share.Key, payload, site, payload)
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
