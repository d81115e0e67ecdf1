package main

import (
	"bytes"
	"fmt"
)

// Inline trees. When the compiler inlines a call, the function it lands in
// keeps a record of it so a traceback can still show the inlined function as
// a frame of its own: a pcdata table (PCDATA_InlTreeIndex) that maps each
// program counter to an entry of the function's inline tree, and the tree
// (FUNCDATA_InlTree), an array of runtime.inlinedCall {funcID, nameOff,
// parentPc, startLine}. A function without them reads as one frame:
// newInlineUnwinder answers "not inlined" when the funcdata offset is
// ^uint32(0), and a pcdata offset of 0 reads as "no table" (index -1).
//
// The runtime reads the trees for tracebacks, runtime.Callers and
// FuncForPC, profiles (which the browser module never turns on), and in one
// place that decides what a program does: gorecover, which counts the
// logical frames between itself and the panic to honour the rule that
// recover works only when called directly by a deferred function, and skips
// the linker's wrappers. A wrapper with the method it wraps inlined into it
// is a wrapper frame and a frame that counts; without its tree it is only a
// wrapper, skipped, and a recover called indirectly would work. So
// StripInlining keeps the trees of wrappers. It keeps the trees of the
// functions that call runtime.gorecover too: Go 1.26 never inlines a
// function that calls recover, so their trees cannot matter today, but
// would if the compiler began to. The frames gorecover counts then read the
// same as before, and recover returns what it returned before.

// InlineStats says what StripInlining did.
type InlineStats struct {
	// Funcs is the number of functions in the module's function table.
	Funcs int
	// Trees is how many functions lost their inline tree; Kept how many
	// kept theirs because they call recover or are wrappers.
	Trees, Kept int
	// Zeroed is how many bytes of memory were set to zero: the trees and
	// their pcdata tables.
	Zeroed int
}

// StripInlining returns the module with the inline trees of its functions
// cleared (see the top of this file): each function's InlTreeIndex pcdata
// offset set to 0 and its InlTree funcdata offset to "none", and the bytes
// of both set to zero, except where a kept table or record shares them and
// except the trees of functions that call recover or are wrappers. The
// module runs as before; a traceback shows a function inlined into another
// as part of it.
//
// Like StripLines, it refuses a module whose function table or module
// record it cannot read (an error wrapping ErrUnsupported), and it reads
// the names "runtime.gorecover" and the code section to find the functions
// that call recover: ShortenNames keeps that name.
func StripInlining(module []byte) ([]byte, InlineStats, error) {
	var st InlineStats
	out, err := editMemory(module, func(mem []byte, sections []section) (err error) {
		st, err = stripInlining(mem, sections)
		return err
	})
	return out, st, err
}

// tree is one function's inline tree found in memory.
type tree struct {
	record    int    // the function's _func record
	index     int    // the address of its InlTreeIndex pcdata offset, or -1
	table     uint32 // that offset (0: none)
	funcdata  int    // the address of its InlTree funcdata offset, or -1
	at, count int    // the tree's address and entries (count 0: none)
}

func stripInlining(mem []byte, sections []section) (InlineStats, error) {
	var st InlineStats
	t, err := findPclntab(mem)
	if err != nil {
		return st, err
	}
	st.Funcs = t.nfunc
	gofunc, err := findGofunc(mem, t)
	if err != nil {
		return st, err
	}
	recovers, err := callersOf(mem, t, sections, "runtime.gorecover")
	if err != nil {
		return st, err
	}
	pctab := mem[t.pctab:t.pcln]

	// What stays: every pc-value table and funcdata record of every
	// function, but the inline trees and index tables being cleared.
	keptTables := map[uint32]bool{}
	var keptRecords []int
	var cleared []tree
	for i := range t.nfunc {
		f := t.record(mem, i)
		for _, o := range []int{offPcsp, offPcfile, offPcln} {
			keptTables[le.Uint32(mem[f+o:])] = true
		}
		tr := tree{record: f, index: pcdataAt(mem, f, pcdataInlTreeIndex), funcdata: funcdataAt(mem, f, funcdataInlTree)}
		if tr.index >= 0 {
			tr.table = le.Uint32(mem[tr.index:])
		}
		hasTree := tr.funcdata >= 0 && le.Uint32(mem[tr.funcdata:]) != noFuncdata
		keep := (tr.table == 0 && !hasTree) || recovers[i] || mem[f+offFuncID] == funcIDWrapper
		if !keep {
			if hasTree {
				tr.at = gofunc + int(le.Uint32(mem[tr.funcdata:]))
				if tr.table != 0 {
					_, largest, err := pcTable(pctab, int(tr.table))
					if err != nil {
						return st, fmt.Errorf("%w: function %d's inline index: %v", ErrUnsupported, i, err)
					}
					tr.count = int(largest) + 1
				}
				if err := checkTree(mem, t, tr); err != nil {
					return st, fmt.Errorf("%w: function %d: %v", ErrUnsupported, i, err)
				}
			}
			cleared = append(cleared, tr)
		} else if tr.table != 0 || hasTree {
			st.Kept++
		}
		for k := 0; pcdataAt(mem, f, k) >= 0; k++ {
			if keep || k != pcdataInlTreeIndex {
				keptTables[le.Uint32(mem[pcdataAt(mem, f, k):])] = true
			}
		}
		for k := 0; funcdataAt(mem, f, k) >= 0; k++ {
			if off := le.Uint32(mem[funcdataAt(mem, f, k):]); off != noFuncdata && (keep || k != funcdataInlTree) {
				keptRecords = append(keptRecords, gofunc+int(off))
			}
		}
	}

	tables := map[uint32]bool{}
	trees := map[int]bool{}
	var treeSpans []span
	for _, tr := range cleared {
		tables[tr.table] = true
		if tr.count > 0 && !trees[tr.at] {
			trees[tr.at] = true
			treeSpans = append(treeSpans, span{tr.at, tr.at + inlinedCallSize*tr.count})
		}
	}
	_, n1, err := clearTables(pctab, tables, keptTables, "an inline index table")
	if err != nil {
		return st, err
	}
	records := make([]span, len(keptRecords))
	for i, a := range keptRecords {
		records[i] = span{a, a + 1}
	}
	n2, err := clearSpans(mem, treeSpans, records, "an inline tree")
	if err != nil {
		return st, err
	}
	for _, tr := range cleared {
		if tr.index >= 0 {
			le.PutUint32(mem[tr.index:], 0)
		}
		if tr.funcdata >= 0 {
			le.PutUint32(mem[tr.funcdata:], noFuncdata)
		}
	}
	st.Trees, st.Zeroed = len(cleared), n1+n2
	return st, nil
}

// checkTree checks that tr's entries read as inline tree entries: inside
// memory, with zero pad bytes and a name that starts an entry of the name
// table. A gofunc read from a module record laid out otherwise would point
// elsewhere, and clearing there would break the module.
func checkTree(mem []byte, t pclntab, tr tree) error {
	if tr.at+inlinedCallSize*tr.count > len(mem) {
		return fmt.Errorf("its inline tree of %d entries at %#x runs past memory", tr.count, tr.at)
	}
	names := mem[t.funcname:t.cu]
	for e := range tr.count {
		a := tr.at + inlinedCallSize*e
		off := le.Uint32(mem[a+4:])
		if mem[a+1] != 0 || mem[a+2] != 0 || mem[a+3] != 0 || int(off) >= len(names) || (off > 0 && names[off-1] != 0) {
			return fmt.Errorf("entry %d of its inline tree at %#x does not read as one", e, tr.at)
		}
	}
	return nil
}

// callersOf returns which functions of the table (by index) contain a call
// to the function named callee: a call instruction (0x10) and the callee's
// index, which the Go linker writes as a signed LEB128. On wasm the
// function table's entries are not code offsets but function numbers: the
// module's own function i (imports not counted) has entry
// funcValueOffset + i (cmd/link/internal/wasm), and that names its body in
// the code section. Matching bytes rather than decoding instructions can
// only find too many callers, which keeps what could have gone. A program
// without callee has no callers.
func callersOf(mem []byte, t pclntab, sections []section, callee string) (map[int]bool, error) {
	target := -1
	for i := range t.nfunc {
		name, err := t.name(mem, le.Uint32(mem[t.record(mem, i)+4:]))
		if err != nil {
			return nil, err
		}
		if name == callee {
			target = i
		}
	}
	out := map[int]bool{}
	if target < 0 {
		return out, nil
	}
	imports, bodies, err := functionBodies(sections)
	if err != nil {
		return nil, err
	}
	entry := func(i int) int { return int(le.Uint32(mem[t.pcln+8*i:])) - funcValueOffset }
	if entry(0) < 0 || entry(t.nfunc-1) >= len(bodies) {
		return nil, fmt.Errorf("%w: the function table's entries run from %#x to %#x, want %#x to %#x, one per function of the code section", ErrUnsupported,
			entry(0)+funcValueOffset, entry(t.nfunc-1)+funcValueOffset, funcValueOffset, funcValueOffset+len(bodies)-1)
	}
	call := appendSLEB([]byte{0x10}, int64(imports+entry(target)))
	for i := range t.nfunc {
		if bytes.Contains(bodies[entry(i)], call) {
			out[i] = true
		}
	}
	return out, nil
}

// functionBodies returns the number of imported functions and the body of
// each function of the code section (id 10), in order.
func functionBodies(sections []section) (imports int, bodies [][]byte, err error) {
	for _, s := range sections {
		switch s.id {
		case sectionImport:
			r := &reader{b: s.content}
			n, err := r.u32()
			if err != nil {
				return 0, nil, err
			}
			for range n {
				for range 2 { // module and field names
					size, err := r.u32()
					if err != nil {
						return 0, nil, err
					}
					if _, err := r.bytes(size); err != nil {
						return 0, nil, err
					}
				}
				kind, err := r.byte()
				if err != nil {
					return 0, nil, err
				}
				if kind != 0 {
					return 0, nil, fmt.Errorf("%w: an import of kind %d (only functions are expected)", ErrUnsupported, kind)
				}
				if _, err := r.u32(); err != nil { // the function's type
					return 0, nil, err
				}
				imports++
			}
		case sectionCode:
			r := &reader{b: s.content}
			n, err := r.u32()
			if err != nil {
				return 0, nil, err
			}
			for range n {
				size, err := r.u32()
				if err != nil {
					return 0, nil, err
				}
				body, err := r.bytes(size)
				if err != nil {
					return 0, nil, err
				}
				bodies = append(bodies, body)
			}
		}
	}
	return imports, bodies, nil
}
