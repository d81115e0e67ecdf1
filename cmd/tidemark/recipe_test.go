package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goCommand finds the go command that runs the tests.
func goCommand(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// fencedBlocks returns the fenced blocks of a Markdown file tagged lang.
func fencedBlocks(md, lang string) []string {
	re := regexp.MustCompile("(?ms)^```" + regexp.QuoteMeta(lang) + "\n(.*?)^```\n")
	var out []string
	for _, m := range re.FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestEmbeddingRecipe runs the pre-commit hook docs/embedding.md gives, with
// the command built from this checkout in place of the pinned release: it
// lets a commit through when the staged docs' claims hold, and stops one
// whose claim does not, naming the Markdown line. The CI step and the
// pre-commit framework's hook run the same command.
func TestEmbeddingRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs git")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "embedding.md"))
	require.NoError(t, err)
	md := string(doc)
	require.Contains(t, md, "## Keep your embedded scenarios honest")
	const pinned = "go run github.com/tidemark/tidemark/cmd/tidemark@vX.Y.Z check"

	var hook string
	for _, b := range fencedBlocks(md, "sh") {
		if strings.Contains(b, "git diff --cached") {
			hook = b
		}
	}
	require.NotEmpty(t, hook, "the recipe has a pre-commit hook")
	require.Contains(t, hook, pinned)
	var ci, framework string
	for _, b := range fencedBlocks(md, "yaml") {
		switch {
		case strings.Contains(b, "actions/checkout"):
			ci = b
		case strings.Contains(b, "repo: local"):
			framework = b
		}
	}
	assert.Contains(t, ci, "run: "+pinned+" docs/", "the CI step checks the docs directory")
	assert.Contains(t, ci, "actions/setup-go")
	assert.Contains(t, framework, "entry: "+pinned)

	dir := t.TempDir()
	bin := filepath.Join(dir, "tidemark")
	build := exec.Command(goCommand(t), "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	repo := filepath.Join(dir, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "docs"), 0o755))
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	git("init", "-q")
	hookFile := filepath.Join(dir, "pre-commit")
	require.NoError(t, os.WriteFile(hookFile, []byte(strings.Replace(hook, "go run github.com/tidemark/tidemark/cmd/tidemark@vX.Y.Z", bin, 1)), 0o755))
	runHook := func() (int, string) {
		cmd := exec.Command("sh", hookFile)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		require.NoError(t, err)
		return 0, string(out)
	}

	code, out2 := runHook()
	assert.Equal(t, 0, code, "nothing staged: %s", out2)

	page := "# Pipelines\n\n```tdm\n" + okScenario + "expect missing=2\n```\n"
	require.NoError(t, os.WriteFile(filepath.Join(repo, "docs", "pipelines.md"), []byte(page), 0o644))
	git("add", "docs/pipelines.md")
	code, out2 = runHook()
	assert.Equal(t, 0, code, "a claim that holds: %s", out2)
	assert.Contains(t, out2, "expectations: 1 passed, 0 failed")

	wrong := strings.Replace(page, "expect missing=2", "expect missing=none", 1)
	require.NoError(t, os.WriteFile(filepath.Join(repo, "docs", "pipelines.md"), []byte(wrong), 0o644))
	git("add", "docs/pipelines.md")
	code, out2 = runHook()
	// xargs answers 123 when the command it ran failed: git refuses the
	// commit on any status but 0.
	assert.Equal(t, 123, code, "a claim that no longer holds stops the commit: %s", out2)
	assert.Contains(t, out2, "docs/pipelines.md:13:8: expected missing=none, got missing=2")

	// A file whose name has a space in it is checked whole.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "docs", "pipelines.md"), []byte(page), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "docs", "more pipelines.md"), []byte(wrong), 0o644))
	git("add", "docs")
	code, out2 = runHook()
	assert.Equal(t, 123, code, "the file with a space is read: %s", out2)
	assert.Contains(t, out2, "docs/more pipelines.md:13:8: expected missing=none, got missing=2")
	assert.NotContains(t, out2, "cannot read")
}
