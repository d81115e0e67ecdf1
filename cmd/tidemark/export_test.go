package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
)

// TestExportCommand: export needs both flags and an absolute address, says
// what it wrote, and will not write into a directory that holds something
// else.
func TestExportCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"export"}, "export needs --base-url"},
		{[]string{"export", "--base-url", "https://example.github.io/tidemark"}, "export needs --out"},
		{[]string{"export", "--base-url", "example.github.io/tidemark", "--out", t.TempDir()}, "expected an absolute http or https address"},
		{[]string{"export", "extra", "--base-url", "https://x.example", "--out", t.TempDir()}, `export takes no arguments; unexpected "extra"`},
	} {
		code, _, errOut := tidemark(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.says, "%v", tc.args)
	}
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		t.Skip("tidemark.wasm not built; run `make wasm` to export")
	}
	out := filepath.Join(t.TempDir(), "site")
	code, stdout, errOut := tidemark(t, "export", "--base-url", "https://example.github.io/tidemark/", "--out", out)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^wrote \d+ pages, \d+ pictures and \d+ files in all \([\d.]+ MB\) to .*/site, for https://example.github.io/tidemark/\n$`, stdout)
	assert.FileExists(t, filepath.Join(out, "scenarios", "hwm", "visibility-gap", "index.html"))

	mine := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mine, "thesis.tex"), []byte("mine"), 0o644))
	code, _, errOut = tidemark(t, "export", "--base-url", "https://example.github.io/tidemark", "--out", mine)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "is not empty and holds no earlier copy of the site")
}
