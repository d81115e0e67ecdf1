//go:build tm_stream

package check

// The build of the log and stream worlds (tag tm_stream, see
// wasm/worlds_stream.go) runs no extractor: no observation it makes has a
// stored mark, a run or an overlap window, so the checks of marks and runs
// have nothing to judge, and these stand in for hwm_run.go there, as the
// log checks' log_none.go does in the build without a log.

func monotonicity(o Observation) Result           { return nothingToJudge("monotonicity", o) }
func rateOfChange(_ Config, o Observation) Result { return nothingToJudge("rate-of-change", o) }
func reconcileSameWindow(o Observation) Result {
	return nothingToJudge("reconciliation-same-window", o)
}
func zeroAdvance(o Observation) Result   { return nothingToJudge("zero-advance", o) }
func overlapReread(o Observation) Result { return nothingToJudge("overlap-reread", o) }
