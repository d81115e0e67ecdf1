package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/internal/assetpack"
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

// TestNamesMatchTheServer: the names listed for the Worker are those the
// native server (and so the static export) gives the same files, which it
// serves minified: a page the Worker renders links to bytes that exist.
func TestNamesMatchTheServer(t *testing.T) {
	names, err := hashedNames("../../static")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, hashed := range names {
		original, _, ok := assetpack.SplitHashedName(hashed)
		require.True(t, ok, hashed)
		served, ok := web.LookupAsset(original)
		require.True(t, ok, original)
		assert.Equal(t, "/static/"+hashed, served, original)
	}
}
