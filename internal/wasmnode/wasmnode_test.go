package wasmnode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandEnvironment: the program sees PATH, HOME and TMPDIR and what
// the caller adds, not the rest of the environment, which wasm_exec.js
// could not fit into the module's memory.
func TestCommandEnvironment(t *testing.T) {
	t.Setenv("TIDEMARK_WASMNODE_NOISE", strings.Repeat("x", 20_000))
	t.Setenv("HOME", "/home/someone")
	cmd := Command(context.Background(), "/runner", "m.wasm", []string{"GOGC=400"}, "-test.run=X")
	assert.Equal(t, []string{"/runner", "m.wasm", "-test.run=X"}, cmd.Args)
	assert.Contains(t, cmd.Env, "HOME=/home/someone")
	assert.Contains(t, cmd.Env, "GOGC=400")
	for _, kv := range cmd.Env {
		assert.False(t, strings.HasPrefix(kv, "TIDEMARK_WASMNODE_NOISE="), "the rest of the environment leaks into the module")
	}
}

// TestRunsAProgram builds a small program for js/wasm and runs it under
// node, with an environment variable and an argument passed through.
func TestRunsAProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program for js/wasm")
	}
	runner := Require(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.26.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(`package main

import (
	"os"
	"runtime"
)

func main() { println(runtime.GOOS+"/"+runtime.GOARCH, os.Getenv("GREETING"), os.Args[1]) }
`), 0o644))
	bin := filepath.Join(dir, "hello.wasm")
	require.NoError(t, Build(context.Background(), dir, ".", bin))
	out, err := Command(context.Background(), runner, bin, []string{"GREETING=hello"}, "world").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "js/wasm hello world\n", string(out))
}

// TestAllWorldsGCFlagsMatchTheMakefile: the flags Build compiles the
// module of every world with are the ones `make wasm` ships every build
// with.
func TestAllWorldsGCFlagsMatchTheMakefile(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	require.NoError(t, err)
	var found []string
	for line := range strings.Lines(string(mk)) {
		if v, ok := strings.CutPrefix(line, "WASM_GCFLAGS = "); ok {
			found = append(found, strings.TrimSpace(v))
		}
	}
	require.Len(t, found, 1, "the Makefile sets WASM_GCFLAGS once")
	assert.Equal(t, AllWorldsGCFlags, found[0])
	assert.Contains(t, string(mk), `-gcflags='$(WASM_GCFLAGS)' -ldflags='-s -w' -o web/static/$$name ./wasm`, "make wasm compiles every build with WASM_GCFLAGS")
}
