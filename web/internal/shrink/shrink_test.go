package shrink

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every script of web/static minifies, to fewer bytes, and minifying the
// result again changes nothing more.
func TestEveryStaticFileShrinks(t *testing.T) {
	files, err := filepath.Glob("../../static/*.js")
	require.NoError(t, err)
	for _, f := range files {
		body, err := os.ReadFile(f)
		require.NoError(t, err)
		out, err := File(filepath.Base(f), body)
		require.NoError(t, err, f)
		assert.Less(t, len(out), len(body), f)
		again, err := File(filepath.Base(f), out)
		require.NoError(t, err, f)
		assert.Equal(t, string(out), string(again), f)
	}
	assert.GreaterOrEqual(t, len(files), 9, "the scripts of web/static")
}

// Comments and local names go; what other code reaches stays: a global
// function's name, a property, a string.
func TestWhatAScriptKeeps(t *testing.T) {
	src := `// A comment no browser needs.
function tidemarkStep(count) {
	const stepsSoFar = count + 1; /* another */
	return {steps: stepsSoFar, label: "step " + stepsSoFar};
}
`
	out, err := File("x.js", []byte(src))
	require.NoError(t, err)
	s := string(out)
	assert.NotContains(t, s, "comment")
	assert.NotContains(t, s, "stepsSoFar")
	for _, kept := range []string{"function tidemarkStep(", "steps:", "label:", `"step "`} {
		assert.Contains(t, s, kept)
	}
	assert.Less(t, len(s), len(src)/2)
}

// A file of another kind, a style sheet too, passes through untouched, and
// a script that does not parse is an error naming it.
func TestOtherFilesAndErrors(t *testing.T) {
	for name, body := range map[string]string{"favicon.svg": "<svg>  <!-- kept -->  </svg>", "app.css": "p { padding: var(--a) var(--b); }"} {
		out, err := File(name, []byte(body))
		require.NoError(t, err)
		assert.Equal(t, body, string(out), name)
	}

	_, err := File("broken.js", []byte("function ( {"))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "shrink broken.js: "), err.Error())
}
