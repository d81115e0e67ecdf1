package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/web/export"
	"github.com/tidemark/tidemark/web/share"
)

const linkUsage = `  tidemark link <id|file|-> [flags]   print links that carry a scenario's text (no server
                                      stores it): the sandbox, the embed page, the picture;
                                      of a Markdown file, those of each tdm block that
                                      starts with a scenario line
      --base-url URL                  the site's address (default http://127.0.0.1:8080,
                                      where make serve listens)
      --set knob=value                open the links with a knob's value (repeatable)
      --step N                        open the links at step N
`

// localSite is where make serve listens, the links' address when no
// --base-url is given.
const localSite = "http://127.0.0.1:8080"

// linkCmd prints the links that carry a scenario's text in their fragment
// (see docs/embedding.md, "Your own scenario").
func linkCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("link", flag.ContinueOnError)
	base := fs.String("base-url", localSite, "the site's address")
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
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "base-url" })
	if !given {
		// The links are printed for pasting; a local address pasted into
		// published docs would open nothing for their readers.
		defer func() {
			if err == nil {
				fmt.Fprintf(stderr, "tidemark link: no --base-url, so these links open the site make serve runs at %s; for links to publish, give --base-url your site's address\n", localSite)
			}
		}()
	}
	if isMarkdown(pos[0]) {
		return linkMarkdown(pos[0], site, set, *step, stdout)
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
	return printLinks(stdout, site, f, f.Source, set, *step)
}

// linkMarkdown prints the links of every whole scenario in a Markdown
// file's tdm blocks (a block that starts with a scenario line; a block that
// continues one is part of no link), each under its id and position when
// there are several. A block that does not parse or build is reported at
// the Markdown file's own line and column, as tidemark check reports it.
func linkMarkdown(name, site string, set setFlags, step int, stdout io.Writer) error {
	src, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("cannot read Markdown file: %w", err)
	}
	type whole struct {
		f    *scenario.File
		text string
		line int
	}
	var found []whole
	blocks := markdownBlocks(src)
	for i, s := range markdownScenarios(name, src) {
		if !blocks[i].whole {
			continue
		}
		if s.err != nil {
			return s.err
		}
		found = append(found, whole{s.file, dedent(blocks[i].lines), s.line})
	}
	if len(found) == 0 {
		return fmt.Errorf("%s holds no scenario to link: no ```tdm block in it starts with a `scenario ID \"Title\"` line", name)
	}
	// Every scenario is checked before any link is printed.
	var out bytes.Buffer
	for i, w := range found {
		if len(found) > 1 {
			if i > 0 {
				fmt.Fprintln(&out)
			}
			fmt.Fprintf(&out, "%s (%s:%d):\n", w.f.ID, name, w.line)
		}
		if err := printLinks(&out, site, w.f, w.text, set, step); err != nil {
			return err
		}
	}
	_, err = out.WriteTo(stdout)
	return err
}

// dedent is a block's lines as a scenario file's text: without the
// indentation they share (a list item's, a quote's markers turned into
// spaces), and with a final line break.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		b.WriteString(strings.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// printLinks prints the sandbox, embed and picture links that carry text,
// the source of f, opening at step with the knobs set names. f must build
// in every setting of its knobs.
func printLinks(stdout io.Writer, site string, f *scenario.File, text string, set setFlags, step int) error {
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
	if step > 0 {
		// A step past the end would open at the last with a note to the
		// readers; the author hears of it now, with the number to use.
		t, err := engine.Run(f, knobs, 1, worlds.All())
		if err != nil {
			return err
		}
		if step > t.Steps() {
			return fmt.Errorf("--step: step %d is past the end; %s has %d steps with these knobs (0 is before the first event)", step, f.ID, t.Steps())
		}
		q.Set("step", strconv.Itoa(step))
	}
	query := q.Encode() // sorted by name
	payload, err := share.Encode(text)
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
			// Say which setting, as check does: the defaults may build.
			for _, k := range f.Knobs {
				if v := set[k.Name]; v != k.Default {
					err = fmt.Errorf("%w (with knob %s=%s)", err, k.Name, v)
				}
			}
			return err
		}
	}
	return nil
}
