package main

import "fmt"

// Argument layouts. Each function that takes arguments may carry a funcdata
// record (FUNCDATA_ArgInfo) that says where its arguments lie in its frame,
// so that a traceback can print their words: "main.crash(0x7)". The runtime
// reads it in one place, printArgs in traceback.go, and prints "()" when a
// function has none. A browser module's traceback already names functions
// fn.N, and the words printed are a frame's raw memory, so the records are
// of no use there; their offsets, one per function, also compress badly.
//
// A record is a sequence of bytes: an argument's frame offset followed by
// its size, or one of the operators at and above traceArgsSpecial (start and
// end of an aggregate, "...", an offset too large), up to traceArgsEndSeq,
// at most traceArgsMaxLen bytes in all (internal/abi's TraceArgs*).
const (
	funcdataArgInfo  = 5
	traceArgsSpecial = 0xf0
	traceArgsEndSeq  = 0xff
	traceArgsMaxLen  = (5*3+2)*10 + 1
)

// ArgInfoStats says what StripArgInfo did.
type ArgInfoStats struct {
	// Funcs is the number of functions in the module's function table;
	// Cleared how many had an argument layout; Records how many distinct
	// records they shared; Zeroed how many bytes were set to zero.
	Funcs, Cleared, Records, Zeroed int
}

// StripArgInfo returns the module with every function's ArgInfo funcdata
// offset set to "none" and the records' bytes set to zero, after checking
// that each reads as a record and that nothing kept shares its bytes. A
// traceback then prints each frame's arguments as "()". Like the other
// passes it refuses (ErrUnsupported) a module whose tables it cannot read.
func StripArgInfo(module []byte) ([]byte, ArgInfoStats, error) {
	var st ArgInfoStats
	out, err := editMemory(module, func(mem []byte, _ []section) error {
		t, err := findPclntab(mem)
		if err != nil {
			return err
		}
		st.Funcs = t.nfunc
		gofunc, err := findGofunc(mem, t)
		if err != nil {
			return err
		}
		var slots []int // the addresses of the ArgInfo offsets to set to none
		var kept []span // the first byte of every other funcdata record
		seen := map[int]bool{}
		var records []span
		for i := range t.nfunc {
			f := t.record(mem, i)
			for k := 0; funcdataAt(mem, f, k) >= 0; k++ {
				at := funcdataAt(mem, f, k)
				off := le.Uint32(mem[at:])
				if off == noFuncdata {
					continue
				}
				a := gofunc + int(off)
				if k != funcdataArgInfo {
					kept = append(kept, span{a, a + 1})
					continue
				}
				slots = append(slots, at)
				if seen[a] {
					continue
				}
				seen[a] = true
				n, err := argInfoLen(mem, a)
				if err != nil {
					return fmt.Errorf("%w: function %d's argument layout: %v", ErrUnsupported, i, err)
				}
				records = append(records, span{a, a + n})
			}
		}
		zeroed, err := clearSpans(mem, records, kept, "an argument layout")
		if err != nil {
			return err
		}
		for _, at := range slots {
			le.PutUint32(mem[at:], noFuncdata)
		}
		st.Cleared, st.Records, st.Zeroed = len(slots), len(records), zeroed
		return nil
	})
	return out, st, err
}

// argInfoLen returns the length of the ArgInfo record at mem[at:], its
// closing traceArgsEndSeq included, or an error if the bytes there do not
// read as one.
func argInfoLen(mem []byte, at int) (int, error) {
	p := at
	for p-at < traceArgsMaxLen && p < len(mem) {
		b := mem[p]
		p++
		switch {
		case b == traceArgsEndSeq:
			return p - at, nil
		case b < traceArgsSpecial:
			p++ // an offset, then its size
		}
	}
	return 0, fmt.Errorf("no end within %d bytes at %#x", traceArgsMaxLen, at)
}
