package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/tidemark/tidemark/cmd/tidemark/internal/replay"
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

// replayCmd plays scenarios on PostgreSQL and returns replay.ExitCode of
// what it replayed: 1 when PostgreSQL disagreed with the engine anywhere, 3
// when nothing disagreed but some scenario or knob setting was not
// replayable, and 0 otherwise.
func replayCmd(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	url := fs.String("postgres", "", "database URL")
	set := setFlags{}
	fs.Var(set, "set", "knob=value")
	seed := seedFlag(fs)
	every := fs.Bool("every-knob", false, "every combination of knob values")
	refs, err := parseFlags(fs, args, replayUsage, stdout)
	if err != nil {
		return 0, err
	}
	switch {
	case *url == "":
		return 0, errors.New("replay needs --postgres URL, such as postgres://postgres@localhost:5432/postgres?sslmode=disable")
	case len(refs) == 0:
		return 0, errors.New("replay needs scenario ids or files; `tidemark list` shows the bundled ones")
	case *every && len(set) > 0:
		return 0, errors.New("replay takes --set or --every-knob, not both")
	}
	var files []*scenario.File
	for _, ref := range refs {
		f, err := load(ref)
		if err != nil {
			return 0, err
		}
		files = append(files, f)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var results []*replay.Result
	for _, f := range files {
		settings := []map[string]string{set}
		if *every {
			settings = f.KnobSettings()
		}
		for _, s := range settings {
			t, err := engine.Run(f, s, *seed, worlds.All())
			if err != nil {
				return 0, err
			}
			res, err := replay.Replay(ctx, *url, t)
			if err != nil {
				return 0, fmt.Errorf("replay of %s: %w", f.ID, err)
			}
			if err := res.Text(stdout); err != nil {
				return 0, err
			}
			results = append(results, res)
		}
	}
	return replay.ExitCode(results), nil
}
