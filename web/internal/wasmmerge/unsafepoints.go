package main

// Unsafe points. Each function may carry a pcdata table
// (PCDATA_UnsafePoint) that says at which instructions the goroutine must
// not be stopped from outside. The runtime reads it in two places only:
// isAsyncSafePoint, when a signal asks a running goroutine to yield
// (asynchronous preemption), and debugCallCheck, when a debugger injects a
// call. js/wasm has neither: it has no signals (preemptMSupported is false
// in runtime/os_wasm.go) and debugcall.go is built for amd64, arm64,
// loong64 and the ppc64s only. A wasm goroutine yields only at calls.

const pcdataUnsafePoint = 0

// PreemptStats says what StripUnsafePoints did.
type PreemptStats struct {
	// Funcs is the number of functions in the module's function table;
	// Tables how many distinct unsafe-point tables were cleared; Zeroed
	// how many bytes of memory were set to zero.
	Funcs, Tables, Zeroed int
}

// StripUnsafePoints returns the module with every function's unsafe-point
// table offset set to 0 ("no table") and the tables' bytes set to zero,
// except where another table shares them. It is only for a js/wasm module,
// which never reads them (see above); like the other passes it refuses a
// module whose function table it cannot read.
func StripUnsafePoints(module []byte) ([]byte, PreemptStats, error) {
	var st PreemptStats
	out, err := editMemory(module, func(mem []byte, _ []section) error {
		t, err := findPclntab(mem)
		if err != nil {
			return err
		}
		st.Funcs = t.nfunc
		keep := map[uint32]bool{}
		strip := map[uint32]bool{}
		for i := range t.nfunc {
			f := t.record(mem, i)
			for _, o := range []int{offPcsp, offPcfile, offPcln} {
				keep[le.Uint32(mem[f+o:])] = true
			}
			for k := 0; pcdataAt(mem, f, k) >= 0; k++ {
				at := pcdataAt(mem, f, k)
				if k == pcdataUnsafePoint {
					strip[le.Uint32(mem[at:])] = true
					le.PutUint32(mem[at:], 0)
				} else {
					keep[le.Uint32(mem[at:])] = true
				}
			}
		}
		st.Tables, st.Zeroed, err = clearTables(mem[t.pctab:t.pcln], strip, keep, "an unsafe-point table")
		return err
	})
	return out, st, err
}
