package window_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The stream world's rules will run in the browser module, whose download
// budget has no room for reflection (see engine/deps_test.go's
// heavyForBrowser): these packages must not reach it, even through a
// standard package such as encoding/binary.
func TestStreamPackagesStayLight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	cmd := exec.Command(goBin, "list", "-deps", "../watermark", "../window", "../join")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/tidemark/tidemark/engine/vtime")
	for _, heavy := range []string{"fmt", "reflect", "encoding/binary", "encoding/json", "regexp", "net/url"} {
		if slices.Contains(deps, heavy) {
			t.Errorf("the stream packages reach %s, which the browser module must not carry", heavy)
		}
	}
}
