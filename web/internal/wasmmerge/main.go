// Command wasmmerge shrinks a WebAssembly module built by the Go linker by
// joining its data segments that lie at most a few bytes apart, filling the
// gaps with the zeros memory already holds. The linker starts a new segment
// at every run of 8 zero bytes (tens of thousands in Tidemark's module), and
// each costs a header that compresses badly. The module initialises memory
// to exactly what it did before; nothing else in it changes.
//
// With -strip-lines it also clears the Go runtime's file and line tables
// (see StripLines), about a tenth of a browser module's brotli bytes: the
// module runs the same, and a traceback says "?:0" where it named a file
// and line. With -strip-inlining it clears the inline trees (see
// StripInlining): a function inlined into another is no frame of its own in
// a traceback. With -strip-unsafe-points it clears the tables that only
// asynchronous preemption and debugger calls read, which js/wasm has not
// (see StripUnsafePoints). With -strip-arginfo it clears the argument
// layouts a traceback prints a frame's arguments from (see StripArgInfo).
// With -short-names DIR it renames functions fn.N
// or runtime.N (see ShortenNames) and writes DIR/FILE.names, a line per
// function with its name now and before, the key to a traceback's short
// names. Together they take about a twelfth off a browser module's brotli
// bytes. The browser modules
// are built so; the Worker, whose tracebacks land in a server log, is not.
//
// `make wasm` runs it on the browser modules after linking and before
// precompressing:
//
//	go run ./web/internal/wasmmerge [-gap N] [-strip-lines] [-strip-inlining] [-strip-unsafe-points] [-strip-arginfo] [-short-names DIR] [-measure] FILE...
//
// Each file is rewritten in place (through a temporary file and a rename).
// A module the tool does not know how to merge safely (see ErrUnsupported)
// is left as it is, with a note on stderr; a malformed one is an error.
// With -measure it also prints the brotli (quality 11) size before and
// after, which takes a few seconds.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tidemark/tidemark/web/internal/assetpack"
)

// DefaultGap is the largest gap, in bytes, that is filled to join two
// segments. Measured on Tidemark's module (docs/performance.md): brotli
// output shrinks as the gap grows to about 64 bytes and barely moves
// after, while the raw module grows.
const DefaultGap = 64

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmmerge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gap := fs.Int("gap", DefaultGap, "largest gap in bytes to fill with zeros when joining two segments")
	var o options
	fs.BoolVar(&o.lines, "strip-lines", false, "clear the Go runtime's file and line tables as well")
	fs.BoolVar(&o.inlining, "strip-inlining", false, "clear the Go runtime's inline trees as well, but those recover needs")
	fs.BoolVar(&o.unsafePoints, "strip-unsafe-points", false, "clear the Go runtime's unsafe-point tables as well, which js/wasm never reads")
	fs.BoolVar(&o.argInfo, "strip-arginfo", false, "clear the Go runtime's argument layouts as well, from which a traceback prints arguments")
	fs.StringVar(&o.namesDir, "short-names", "", "rename every function fn.N in the Go runtime's function table, and write the names to `DIR`/FILE.names")
	fs.BoolVar(&o.measure, "measure", false, "print the brotli size (quality 11) before and after")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wasmmerge [-gap N] [-strip-lines] [-strip-inlining] [-strip-unsafe-points] [-strip-arginfo] [-short-names DIR] [-measure] FILE...")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *gap < 0 {
		fs.Usage()
		return 2
	}
	o.gap = *gap
	for _, file := range fs.Args() {
		if err := mergeFile(file, o, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "wasmmerge: %s: %v\n", file, err)
			return 1
		}
	}
	return 0
}

// options are the command's flags.
type options struct {
	gap             int
	lines, inlining bool
	unsafePoints    bool
	argInfo         bool
	namesDir        string // where to write the names list; "" leaves the names alone
	measure         bool
}

// mergeFile merges the segments of one module file in place, and clears
// what the options ask for.
func mergeFile(file string, o options, stdout, stderr io.Writer) error {
	before, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	after, st, err := Merge(before, o.gap)
	if errors.Is(err, ErrUnsupported) {
		fmt.Fprintf(stderr, "wasmmerge: %s: left as it is: %v\n", file, err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d data segments joined into %d (gaps up to %d bytes, %d zero bytes written): %d → %d bytes\n",
		file, st.SegmentsBefore, st.SegmentsAfter, o.gap, st.GapBytes, st.SizeBefore, st.SizeAfter)
	changed := st.SegmentsAfter != st.SegmentsBefore
	// Each pass is optional: a module whose tables a pass cannot read (a Go
	// release that lays them out otherwise) keeps them and runs as it is,
	// only larger, and the download budget's test says by how much.
	pass := func(what string, strip func([]byte) ([]byte, string, error)) error {
		out, done, err := strip(after)
		switch {
		case errors.Is(err, ErrUnsupported):
			fmt.Fprintf(stderr, "wasmmerge: %s: %s left in place: %v\n", file, what, err)
		case err != nil:
			return fmt.Errorf("clearing the %s: %w", what, err)
		default:
			fmt.Fprintf(stdout, "%s: %s\n", file, done)
			after, changed = out, true
		}
		return nil
	}
	if o.lines {
		err := pass("line tables", func(m []byte) ([]byte, string, error) {
			out, ls, err := StripLines(m)
			return out, fmt.Sprintf("the file and line tables of %d functions cleared (%d tables, %d bytes set to zero)", ls.Funcs, ls.Tables, ls.Zeroed), err
		})
		if err != nil {
			return err
		}
	}
	if o.inlining {
		err := pass("inline trees", func(m []byte) ([]byte, string, error) {
			out, is, err := StripInlining(m)
			return out, fmt.Sprintf("the inline trees of %d of %d functions cleared (%d kept for recover and wrappers, %d bytes set to zero)", is.Trees, is.Funcs, is.Kept, is.Zeroed), err
		})
		if err != nil {
			return err
		}
	}
	if o.unsafePoints {
		err := pass("unsafe-point tables", func(m []byte) ([]byte, string, error) {
			out, ps, err := StripUnsafePoints(m)
			return out, fmt.Sprintf("the unsafe-point tables of %d functions cleared (%d tables, %d bytes set to zero)", ps.Funcs, ps.Tables, ps.Zeroed), err
		})
		if err != nil {
			return err
		}
	}
	if o.argInfo {
		err := pass("argument layouts", func(m []byte) ([]byte, string, error) {
			out, as, err := StripArgInfo(m)
			return out, fmt.Sprintf("the argument layouts of %d of %d functions cleared (%d records, %d bytes set to zero)", as.Cleared, as.Funcs, as.Records, as.Zeroed), err
		})
		if err != nil {
			return err
		}
	}
	if o.namesDir != "" {
		err := pass("function names", func(m []byte) ([]byte, string, error) {
			out, names, err := ShortenNames(m)
			if err != nil {
				return nil, "", err
			}
			list := filepath.Join(o.namesDir, filepath.Base(file)+".names")
			if err := writeNames(list, names); err != nil {
				return nil, "", err
			}
			renamed := 0
			for _, n := range names {
				if n.Now != n.Was {
					renamed++
				}
			}
			return out, fmt.Sprintf("%d of %d functions renamed fn.N or runtime.N; their names are in %s", renamed, len(names), list), nil
		})
		if err != nil {
			return err
		}
	}
	if o.measure {
		b1, err := assetpack.Brotli(before, 11)
		if err != nil {
			return err
		}
		b2, err := assetpack.Brotli(after, 11)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: brotli -q 11: %d → %d bytes (%+d)\n", file, len(b1), len(b2), len(b2)-len(b1))
	}
	if !changed {
		return nil
	}
	return writeAtomic(file, after)
}

// writeAtomic replaces file with data through a temporary file in the same
// directory, so an interrupted build never leaves half a module.
func writeAtomic(file string, data []byte) error {
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".wasmmerge-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), info.Mode().Perm()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// writeNames writes the names list: one line per function, its name now
// (fn.N, runtime.N, or the name it kept) and the name it had, so that a traceback from the browser can be read
// with the list of the same build.
func writeNames(file string, names []Name) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	var b []byte
	for _, n := range names {
		b = append(append(append(append(b, n.Now...), '\t'), n.Was...), '\n')
	}
	return os.WriteFile(file, b, 0o644)
}
