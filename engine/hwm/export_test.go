package hwm

// SetReuseEndedStates sets whether workloads reuse the states of ended
// transactions, for a test, and returns a function that restores it.
func SetReuseEndedStates(on bool) (restore func()) {
	was := reuseEndedStates
	reuseEndedStates = on
	return func() { reuseEndedStates = was }
}
