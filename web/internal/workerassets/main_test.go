package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHashedNames: every file gets its hashed name, in the order of the
// names; compressed copies and directories are left out.
func TestHashedNames(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"b.js": "b", "a.css": "a", "a.3f9a1c2b.css.br": "x", "a.3f9a1c2b.css.gz": "x"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	names, err := hashedNames(dir)
	require.NoError(t, err)
	// sha256("a") = ca978112…, sha256("b") = 3e23e816…
	assert.Equal(t, []string{"a.ca978112.css", "b.3e23e816.js"}, names)
}
