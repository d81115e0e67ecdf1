// Package wasmnode builds Go packages for js/wasm and runs them under Node.js
// with the Go toolchain's own runner, $(go env GOROOT)/lib/wasm/go_js_wasm_exec.
// Tests use it to compare what the engine does natively and in wasm, and
// `make bench` to time the engine's benchmarks in both.
//
// Node is not a Go dependency: Debian's `nodejs` package provides it, and
// .ci/run installs it when it is missing. Without it a test skips and says
// why, unless the environment variable CI is set: then it fails, so a CI
// machine cannot pass by having no node.
package wasmnode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// PageEnv is the environment the page starts the module with (see
// web/static/app.js): the collector runs a fifth as often as by default,
// within a soft limit. Runs that stand for the browser use it.
var PageEnv = []string{"GOGC=400", "GOMEMLIMIT=256MiB"}

// AllWorldsGCFlags is the -gcflags value every build of the browser's
// module is compiled with (WASM_GCFLAGS in the Makefile, which a test
// keeps equal to it): the project's own packages without inlining.
// Inlining copies a callee's body into each call site; in js/wasm, where
// the Go compiler writes every call so that it can unwind and resume, those
// copies weigh 58 KB of the brotli of the module of every world (16 KB of
// the high-water-mark world's), and leaving them out makes a large run 1.2
// to 2 times slower (see docs/performance.md, "Download: the project's code
// without inlining"). The tests BuildTest compiles, which time and check
// the worlds, keep inlining.
const AllWorldsGCFlags = "github.com/tidemark/tidemark/...=-l"

// Runner returns the path of go_js_wasm_exec for the go command on PATH,
// or an error saying what is missing: the go command, the runner, or node.
func Runner() (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("the go command is not on PATH")
	}
	out, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	runner := filepath.Join(strings.TrimSpace(string(out)), "lib", "wasm", "go_js_wasm_exec")
	if _, err := os.Stat(runner); err != nil {
		return "", fmt.Errorf("the Go toolchain has no js/wasm runner: %w", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("node is not on PATH (Debian: apt-get install -y nodejs; .ci/run installs it)")
	}
	return runner, nil
}

// Require returns the runner for a test, or skips the test saying what is
// missing. When the environment variable CI is set a missing runner fails
// the test instead.
func Require(t testing.TB) string {
	t.Helper()
	runner, err := Runner()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot run wasm under node: %v; CI is set, so this is a failure", err)
		}
		t.Skipf("cannot run wasm under node: %v", err)
	}
	return runner
}

// BuildTest compiles the tests of the package in dir for js/wasm into out
// (`go test -c`), so that one node process can run them.
func BuildTest(ctx context.Context, dir, out string) error {
	return goBuild(ctx, dir, "test", "-c", "-o", out, ".")
}

// Build compiles the main package pkg (relative to dir) for js/wasm into out,
// as `make wasm` builds the browser's module of every world.
func Build(ctx context.Context, dir, pkg, out string) error {
	return goBuild(ctx, dir, "build", "-trimpath", "-gcflags="+AllWorldsGCFlags, "-ldflags=-s -w", "-o", out, pkg)
}

func goBuild(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// Command returns the command that runs the wasm file under node through
// runner with args. The program sees PATH, HOME and TMPDIR from the current
// environment, and env: wasm_exec.js copies the whole environment and the
// arguments into 8 KB of the module's memory and refuses to start when they
// do not fit, which a CI runner's environment can exceed.
func Command(ctx context.Context, runner, wasm string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, runner, append([]string{wasm}, args...)...)
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}
