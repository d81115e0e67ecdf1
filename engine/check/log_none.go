//go:build tm_hwm

package check

// The build of the browser module of the high-water-mark world alone (see
// wasm/worlds_hwm.go) leaves the log checks out: these stand in for
// log_run.go there, where no observation has a log.

func consumerLagOf(Config, Observation) Result { return noLog }
func versionOrderOf(Observation) Result        { return noLog }
func offsetGapOf(Observation) Result           { return noLog }

var noLog = Result{Status: NotRun, Detail: "this build of the engine runs no partitioned log"}
