//go:build tm_hwm || tm_log

package check

// The builds of the browser module without the stream world (see
// wasm/worlds_hwm.go and wasm/worlds_log.go) leave the stream checks out:
// this stands in for stream_run.go there. No observation such a build
// makes has a stream, so evaluateStream answers before it calls this.
func evaluateStreamOf(string, Config, Observation) Result {
	return Result{Status: NotRun, Detail: "this build of the engine runs no stream"}
}
