package course

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserModuleCarriesNoLessonText checks the browser's wasm module
// (package wasm, for GOOS=js GOARCH=wasm) imports neither this package nor
// the Markdown parser nor the lesson files: every learner downloads that
// module, and lessons are drawn on the server.
func TestBrowserModuleCarriesNoLessonText(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "github.com/tidemark/tidemark/wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/tidemark/tidemark/engine", "go list did not list the module's packages")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "github.com/yuin/goldmark"), "the wasm module imports %s", d)
		assert.NotEqual(t, "github.com/tidemark/tidemark/lessons/course", d, "the wasm module imports the lessons")
		assert.NotEqual(t, "github.com/tidemark/tidemark/lessons/text", d, "the wasm module embeds the lesson files")
	}
}
