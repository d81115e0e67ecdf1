package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/tidemark/tidemark/web/export"
)

const exportUsage = `  tidemark export --base-url URL --out DIR
                                      write the whole site as static files for a host
                                      that serves files only (see docs/deploy.md); the
                                      engine's module must be built first (make wasm)
      --base-url URL                  where the copy will be served, with its path:
                                      https://example.github.io/tidemark
      --out DIR                       the directory to write: new, empty, or an
                                      earlier copy, which is replaced
`

func exportCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	base := fs.String("base-url", "", "address of the copy")
	out := fs.String("out", "", "output directory")
	pos, err := parseFlags(fs, args, exportUsage, stdout)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return fmt.Errorf("export takes no arguments; unexpected %q", pos[0])
	case *base == "":
		return errors.New("export needs --base-url, the address the copy will be served at, such as https://example.github.io/tidemark")
	case *out == "":
		return errors.New("export needs --out, the directory to write")
	}
	rep, err := export.Site(export.Options{BaseURL: *base, Out: *out,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d pages, %d pictures and %d files in all (%.1f MB) to %s, for %s\n",
		rep.Pages, rep.Pictures, rep.Files, float64(rep.Bytes)/1e6, *out, *base)
	return nil
}
