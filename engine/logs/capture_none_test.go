//go:build tm_stream

package logs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/stream"
)

// TestStreamBuildRefusesCapture: the build of the log and stream worlds,
// which runs no source database, refuses a change capture, a publishing
// application and a crash of either at the line, with the words an engine
// without the source database uses (make test runs it with -tags tm_stream).
func TestStreamBuildRefusesCapture(t *testing.T) {
	const head = "scenario t/x \"X\"\ntopic events partitions=1\n"
	for line, want := range map[string]string{
		"cdc capture from=orders to=events":  "x.tdm:3:1: cdc reads the commits of a source table, and this engine is composed without the high-water-mark world",
		"publish shop from=orders to=events": "x.tdm:3:1: publish reads the commits of a source table",
		"crash capture at=10:00:00":          `x.tdm:3:7: unknown application "capture"; crash names a` + " `cdc` connector",
	} {
		f, err := scenario.Parse("x.tdm", []byte(head+line+"\n"))
		require.NoError(t, err, line)
		_, err = engine.Build(f, nil, 1, []engine.Domain{logs.Domain, stream.Domain})
		assert.ErrorContains(t, err, want, line)
	}
}
