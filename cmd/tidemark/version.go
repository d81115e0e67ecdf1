package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// modulePath is the module the command belongs to.
const modulePath = "github.com/tidemark/tidemark"

func versionCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, err := parseFlags(fs, args, versionUsage, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("version takes no arguments; unexpected %q", pos[0])
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintf(stdout, "tidemark %s (%s, %s)\n", moduleVersion(info), modulePath, runtime.Version())
	return nil
}

// moduleVersion is the version of the module the binary was built from:
// the tag `go install …@v1.2.3` or `go run …@v1.2.3` fetched, or, for a
// build inside a checkout, (devel) and the commit when Go recorded one.
func moduleVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "(unknown)"
	}
	v := info.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v = "(devel)"
	if len(rev) >= 12 {
		v += " " + rev[:12]
		if dirty {
			v += "+dirty"
		}
	}
	return v
}
