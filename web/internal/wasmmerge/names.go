package main

import (
	"fmt"
	"strconv"
)

// keepNames are the function names the runtime compares, which
// ShortenNames leaves as they are: stkframe.go tells reflect's call stubs by
// name to find their argument maps, and the traceback prints
// runtime.gopanic as "panic". runtime.gorecover stays so that
// StripInlining can find it in a module whose names are short.
var keepNames = map[string]bool{
	"reflect.makeFuncStub":    true,
	"reflect.methodValueCall": true,
	"runtime.gopanic":         true,
	"runtime.gorecover":       true,
}

// ShortName is what ShortenNames calls function i of the function table.
// It holds a dot: the traceback leaves out frames whose names have none.
func ShortName(i int) string { return "fn." + strconv.Itoa(i) }

// ShortenNames returns the module with the name of every function in the Go
// runtime's function table replaced by ShortName(i), i its index in the
// table, except the few names the runtime compares (keepNames), and the
// names the function table held, by index: the list that turns a
// traceback's fn.N back into a name. The names of functions inlined into
// others (read from the inline trees the module still has) stay as they
// were. The names of a Tidemark module are a sixth of its function table
// and mostly long package paths, about 15 KB of brotli.
//
// The module runs as before: the runtime reads a function's name only to
// print it (tracebacks, FuncForPC, a panic's message) and in the comparisons
// keepNames keeps true. A module whose function table or module record it
// cannot read is refused with an error wrapping ErrUnsupported.
func ShortenNames(module []byte) ([]byte, []string, error) {
	var names []string
	out, err := editMemory(module, func(mem []byte, _ []section) (err error) {
		names, err = shortenNames(mem)
		return err
	})
	return out, names, err
}

func shortenNames(mem []byte) ([]string, error) {
	t, err := findPclntab(mem)
	if err != nil {
		return nil, err
	}
	// Every place that names a function: each _func's nameOff and each
	// inline tree entry's, with the name it holds now.
	type ref struct {
		at   int // the address of the nameOff
		name string
	}
	var funcs, inlined []ref
	for i := range t.nfunc {
		f := t.record(mem, i)
		name, err := t.name(mem, le.Uint32(mem[f+4:]))
		if err != nil {
			return nil, err
		}
		funcs = append(funcs, ref{f + 4, name})
	}
	gofunc := -1
	pctab := mem[t.pctab:t.pcln]
	for i := range t.nfunc {
		f := t.record(mem, i)
		fd := funcdataAt(mem, f, funcdataInlTree)
		if fd < 0 || le.Uint32(mem[fd:]) == noFuncdata {
			continue
		}
		if gofunc < 0 {
			if gofunc, err = findGofunc(mem, t); err != nil {
				return nil, err
			}
		}
		tr := tree{at: gofunc + int(le.Uint32(mem[fd:]))}
		if ix := pcdataAt(mem, f, pcdataInlTreeIndex); ix >= 0 && le.Uint32(mem[ix:]) != 0 {
			_, largest, err := pcTable(pctab, int(le.Uint32(mem[ix:])))
			if err != nil {
				return nil, fmt.Errorf("%w: function %d's inline index: %v", ErrUnsupported, i, err)
			}
			tr.count = int(largest) + 1
		}
		if err := checkTree(mem, t, tr); err != nil {
			return nil, fmt.Errorf("%w: function %d: %v", ErrUnsupported, i, err)
		}
		for e := range tr.count {
			at := tr.at + inlinedCallSize*e + 4
			name, err := t.name(mem, le.Uint32(mem[at:]))
			if err != nil {
				return nil, err
			}
			inlined = append(inlined, ref{at, name})
		}
	}

	// The new table: each name once, in the order first needed.
	var table []byte
	offsets := map[string]uint32{}
	place := func(at int, name string) {
		off, ok := offsets[name]
		if !ok {
			off = uint32(len(table))
			offsets[name] = off
			table = append(append(table, name...), 0)
		}
		le.PutUint32(mem[at:], off)
	}
	region := mem[t.funcname:t.cu]
	names := make([]string, len(funcs))
	// Check the size before writing: the new table is short names and the
	// inlined functions' names, which the old one held too.
	size := 0
	for i, r := range funcs {
		names[i] = r.name
		if keepNames[r.name] {
			size += len(r.name) + 1
		} else {
			size += len(ShortName(i)) + 1
		}
	}
	for _, r := range inlined {
		size += len(r.name) + 1
	}
	if size > len(region) {
		return nil, fmt.Errorf("%w: the short names take %d bytes, more than the %d of the name table", ErrUnsupported, size, len(region))
	}
	for i, r := range funcs {
		if keepNames[r.name] {
			place(r.at, r.name)
		} else {
			place(r.at, ShortName(i))
		}
	}
	for _, r := range inlined {
		place(r.at, r.name)
	}
	clear(region)
	copy(region, table)
	return names, nil
}
