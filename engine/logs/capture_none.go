//go:build tm_stream

package logs

import (
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/scenario"
)

// The build of the engine's browser module with the log and stream worlds
// (wasm/worlds_stream.go) runs no source database, so no change capture and
// no application publishing its commits can read one: their lines are
// refused as capture.go refuses them in an engine composed without the
// high-water-mark world, and neither has an application for crash to stop.
// Their code stays out of that build's download (docs/performance.md).

func (l *world) capture(c scenario.Command) error {
	return scenario.Errorf(c.Pos, "%s reads the commits of a source table, and this engine is composed without the high-water-mark world that keeps them", c.Name)
}

func (l *world) crash(c scenario.Command) error {
	n, _, err := scenario.Name(c, "an application")
	if err != nil {
		return err
	}
	return scenario.Errorf(n.Pos, "unknown application %q; crash names a `cdc` connector or a `publish` application (consumers crash with `poll ... crash=`)", n.Value)
}

// captureCommit has no capture to hand a commit to: no source commits.
func (l *world) captureCommit(*mvcc.Txn) {}
