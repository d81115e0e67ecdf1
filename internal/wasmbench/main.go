// Command wasmbench runs Go benchmarks natively and compiled to WebAssembly
// under node, alternating the two, and prints them side by side with how
// many times slower wasm is. Both run with the collector settings the page
// starts the browser module with (GOGC=400, GOMEMLIMIT=256MiB; see
// web/static/app.js), so the ratio is the platform's and not the settings'.
// `make bench` runs it over the engine's and the widget's benchmarks.
//
// Usage:
//
//	go run ./internal/wasmbench [-count N] [-gogc 400] [-memlimit 256MiB] PKG[:REGEXP[:BENCHTIME]]...
//
// REGEXP selects top-level benchmarks by name (default: all); each runs in
// a process of its own, with its sub-benchmarks, so what one leaves in the
// heap cannot slow the next. BENCHTIME is go test's -benchtime (default
// 1s; "3x" for long runs). Each benchmark runs N times natively and N times
// in wasm, alternately, and the table gives medians and the range of the N
// paired ratios, which a busy machine disturbs less than either column.
// Each process first runs the benchmark once more and that result is
// dropped: V8 compiles wasm with a fast baseline compiler first and
// optimises hot functions later, and the first run in a process pays for
// it (-warmup=false keeps it).
//
// A benchmark that reports events/s (the engine's runs) is compared by
// that rate, which times the engine alone; others by ns/op.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tidemark/tidemark/internal/wasmnode"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// spec is one command-line argument: a package and which of its
// benchmarks to run, for how long.
type spec struct {
	pkg, pattern, benchtime string
}

func parseSpec(arg string) (spec, error) {
	parts := strings.SplitN(arg, ":", 3)
	s := spec{pkg: parts[0], pattern: ".", benchtime: "1s"}
	if len(parts) > 1 && parts[1] != "" {
		s.pattern = parts[1]
	}
	if len(parts) > 2 && parts[2] != "" {
		s.benchtime = parts[2]
	}
	if s.pkg == "" {
		return s, fmt.Errorf("%q: expected PKG[:REGEXP[:BENCHTIME]]", arg)
	}
	if _, err := regexp.Compile(s.pattern); err != nil {
		return s, fmt.Errorf("%q: %v", arg, err)
	}
	return s, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	count := fs.Int("count", 3, "rounds: each benchmark runs this many times natively and in wasm, alternately")
	gogc := fs.String("gogc", "400", "GOGC for both runs (the page's)")
	memlimit := fs.String("memlimit", "256MiB", "GOMEMLIMIT for both runs (the page's)")
	warmup := fs.Bool("warmup", true, "run each benchmark once more first in the same process and discard that result (wasm's JIT warms up)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wasmbench [-count N] [-gogc 400] [-memlimit 256MiB] [-warmup=false] PKG[:REGEXP[:BENCHTIME]]...")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *count < 1 {
		fs.Usage()
		return 2
	}
	var specs []spec
	for _, a := range fs.Args() {
		s, err := parseSpec(a)
		if err != nil {
			fmt.Fprintln(stderr, "wasmbench:", err)
			return 2
		}
		specs = append(specs, s)
	}
	runner, err := wasmnode.Runner()
	if err != nil {
		fmt.Fprintln(stderr, "wasmbench:", err)
		return 1
	}
	env := []string{"GOGC=" + *gogc, "GOMEMLIMIT=" + *memlimit}
	if err := bench(ctx, specs, *count, *warmup, runner, env, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "wasmbench:", err)
		return 1
	}
	return 0
}

// binaries are one package's test binaries.
type binaries struct {
	dir, native, wasm string
}

func bench(ctx context.Context, specs []spec, count int, warmup bool, runner string, env []string, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "wasmbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	built := map[string]binaries{}
	type job struct {
		bin       binaries
		name      string // top-level benchmark
		benchtime string
	}
	var jobs []job
	for _, s := range specs {
		bin, ok := built[s.pkg]
		if !ok {
			fmt.Fprintf(stderr, "building %s natively and for js/wasm…\n", s.pkg)
			n := len(built)
			bin = binaries{dir: s.pkg, native: filepath.Join(tmp, fmt.Sprintf("p%d.test", n)), wasm: filepath.Join(tmp, fmt.Sprintf("p%d.wasm", n))}
			cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin.native, ".")
			cmd.Dir = s.pkg
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("go test -c %s: %v\n%s", s.pkg, err, out)
			}
			if err := wasmnode.BuildTest(ctx, s.pkg, bin.wasm); err != nil {
				return err
			}
			built[s.pkg] = bin
		}
		names, err := list(ctx, bin, s.pattern)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return fmt.Errorf("%s has no benchmark matching %q", s.pkg, s.pattern)
		}
		for _, n := range names {
			jobs = append(jobs, job{bin: bin, name: n, benchtime: s.benchtime})
		}
	}

	results := map[string]*pair{}
	var order []string
	runs := 1
	if warmup {
		runs = 2
	}
	for round := range count {
		for _, j := range jobs {
			args := []string{"-test.run=^$", "-test.bench=^" + j.name + "$", "-test.benchtime=" + j.benchtime, "-test.benchmem", "-test.count=" + strconv.Itoa(runs)}
			for _, platform := range []string{"native", "wasm"} {
				fmt.Fprintf(stderr, "round %d/%d: %s %s\n", round+1, count, j.name, platform)
				var cmd *exec.Cmd
				if platform == "native" {
					cmd = exec.CommandContext(ctx, j.bin.native, args...)
					cmd.Env = append(os.Environ(), env...)
				} else {
					cmd = wasmnode.Command(ctx, runner, j.bin.wasm, env, args...)
				}
				cmd.Dir = j.bin.dir
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					return fmt.Errorf("%s %s: %v\n%s", platform, j.name, err, out.String())
				}
				lines := lastOfEach(parseOutput(out.String()))
				if len(lines) == 0 {
					return fmt.Errorf("%s %s printed no benchmark result:\n%s", platform, j.name, out.String())
				}
				for _, l := range lines {
					p := results[l.name]
					if p == nil {
						p = &pair{}
						results[l.name] = p
						order = append(order, l.name)
					}
					if platform == "native" {
						p.native = append(p.native, l)
					} else {
						p.wasm = append(p.wasm, l)
					}
				}
			}
		}
	}
	warm := ""
	if warmup {
		warm = " after a warm-up run in each process"
	}
	header := fmt.Sprintf("natively (%s/%s, %d CPUs) and as js/wasm under node %s, both with %s; %d round(s)%s, medians, and the range of the paired ratios",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), nodeVersion(ctx), strings.Join(env, " "), count, warm)
	return writeTable(stdout, header, order, results)
}

// list returns the top-level benchmarks of a test binary matching pattern.
func list(ctx context.Context, bin binaries, pattern string) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin.native, "-test.list", pattern)
	cmd.Dir = bin.dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %v", bin.dir, err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Benchmark") {
			names = append(names, l)
		}
	}
	return names, nil
}

func nodeVersion(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "node", "--version").Output()
	if err != nil {
		return "(unknown version)"
	}
	return strings.TrimSpace(string(out))
}

// result is one line of benchmark output.
type result struct {
	name    string // without the "Benchmark" prefix and the -GOMAXPROCS suffix
	n       int
	metrics map[string]float64 // by unit: "ns/op", "events/s", "B/op", …
}

// pair holds a benchmark's results on both platforms, one per round.
type pair struct {
	native, wasm []result
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parseOutput reads the result lines of `go test -bench` output, such as
//
//	BenchmarkRun/mark=lsn-2   3   212345678 ns/op   1423456 events/s   177000000 B/op
//
// Native names end in -GOMAXPROCS; wasm has one thread and no suffix.
func parseOutput(out string) []result {
	var rs []result
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		r := result{name: procsSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), ""), n: n, metrics: map[string]float64{}}
		ok := true
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				ok = false
				break
			}
			r.metrics[f[i+1]] = v
		}
		if ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// lastOfEach keeps the last result of each benchmark, in the order of
// their first results: with a warm-up run, the second.
func lastOfEach(rs []result) []result {
	var out []result
	at := map[string]int{}
	for _, r := range rs {
		if i, ok := at[r.name]; ok {
			out[i] = r
			continue
		}
		at[r.name] = len(out)
		out = append(out, r)
	}
	return out
}

// comparison is how a benchmark's two platforms compare.
type comparison struct {
	unit           string // "events/s" or "ns/op"
	native, wasm   float64
	ratio          float64 // median of the paired slowdowns (wasm time / native time)
	lowest, widest float64 // the range of the paired slowdowns
}

// compare works out the slowdown of wasm, round by round: by events/s when
// both report it (a rate: native/wasm), else by ns/op (wasm/native).
func compare(p *pair) (comparison, error) {
	rounds := min(len(p.native), len(p.wasm))
	if rounds == 0 {
		return comparison{}, errors.New("no result on one of the platforms")
	}
	unit := "ns/op"
	if _, ok := p.native[0].metrics["events/s"]; ok {
		if _, ok := p.wasm[0].metrics["events/s"]; ok {
			unit = "events/s"
		}
	}
	var natives, wasms, ratios []float64
	for i := range rounds {
		n, w := p.native[i].metrics[unit], p.wasm[i].metrics[unit]
		if n <= 0 || w <= 0 {
			return comparison{}, fmt.Errorf("%s is %v natively and %v in wasm", unit, n, w)
		}
		natives, wasms = append(natives, n), append(wasms, w)
		if unit == "events/s" {
			ratios = append(ratios, n/w)
		} else {
			ratios = append(ratios, w/n)
		}
	}
	return comparison{unit: unit, native: median(natives), wasm: median(wasms), ratio: median(ratios),
		lowest: slices.Min(ratios), widest: slices.Max(ratios)}, nil
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// quantity writes a value of a unit for people: 1.24 M events/s, 35.2 µs/op.
func quantity(v float64, unit string) string {
	if unit == "events/s" {
		return fmt.Sprintf("%.2f M events/s", v/1e6)
	}
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2f s/op", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1f ms/op", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f µs/op", v/1e3)
	}
	return fmt.Sprintf("%.0f ns/op", v)
}

func writeTable(w io.Writer, header string, order []string, results map[string]*pair) error {
	fmt.Fprintln(w, header)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tnative\twasm\twasm slower by\tpaired range\tallocs/op native, wasm")
	for _, name := range order {
		c, err := compare(results[name])
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		p := results[name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f×\t%.2f–%.2f×\t%s, %s\n", name, quantity(c.native, c.unit), quantity(c.wasm, c.unit),
			c.ratio, c.lowest, c.widest, allocs(p.native), allocs(p.wasm))
	}
	return tw.Flush()
}

// allocs is the median allocations per operation, or "-" when not reported.
func allocs(rs []result) string {
	var xs []float64
	for _, r := range rs {
		if v, ok := r.metrics["allocs/op"]; ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return "-"
	}
	return strconv.FormatFloat(math.Round(median(xs)), 'f', -1, 64)
}
