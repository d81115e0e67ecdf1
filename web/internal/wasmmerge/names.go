package main

import (
	"fmt"
	"strconv"
	"strings"
)

// keepNames are the function names the runtime compares, which
// ShortenNames leaves as they are: stkframe.go tells reflect's call stubs by
// name to find their argument maps, and the traceback prints
// runtime.gopanic as "panic". runtime.gorecover and runtime.panicwrap stay
// so that the passes can find their callers in a module whose names are
// short.
var keepNames = map[string]bool{
	"reflect.makeFuncStub":    true,
	"reflect.methodValueCall": true,
	"runtime.gopanic":         true,
	"runtime.gorecover":       true,
	"runtime.panicwrap":       true,
}

// ShortName is what ShortenNames calls function i of the function table,
// whose name was was. It holds a dot, since the traceback leaves out frames
// whose names have none, and a function of the runtime keeps its
// "runtime." prefix, by which the runtime tells its own goroutines from the
// program's (isSystemGoroutine) and the traceback hides its frames.
func ShortName(i int, was string) string {
	if strings.HasPrefix(was, "runtime.") {
		return "runtime." + strconv.Itoa(i)
	}
	return "fn." + strconv.Itoa(i)
}

// ShortenNames returns the module with the name of every function in the Go
// runtime's function table replaced by its ShortName, except the names the
// runtime compares (keepNames) or parses, and the names the function table
// held, by index, with the names they have now: the list that turns a
// traceback's fn.N back into a name.
// The names of functions inlined into others (read from the inline trees
// the module still has) stay as they were. The names of a Tidemark module
// are a sixth of its function table and mostly long package paths, about
// 15 KB of brotli.
//
// The runtime reads a name in three ways besides printing it (tracebacks,
// FuncForPC, a panic's message): the comparisons keepNames keeps true; the
// "runtime." prefix, which ShortName keeps; and runtime.panicwrap, which
// parses the name of the wrapper that called it (pkg.(*T).M, a value
// method called through a nil pointer) into its panic's message. A wrapper
// renamed would make that panic a fatal error fmt could no longer recover
// from, so the functions that call runtime.panicwrap keep their names.
//
// A module whose names are short already is refused, as is one whose
// function table or module record it cannot read, with an error wrapping
// ErrUnsupported: a second run would otherwise write a names list that
// names nothing.
func ShortenNames(module []byte) ([]byte, []Name, error) {
	var names []Name
	out, err := editMemory(module, func(mem []byte, sections []section) (err error) {
		names, err = shortenNames(mem, sections)
		return err
	})
	return out, names, err
}

// Name is a function's name in the table after ShortenNames and before.
type Name struct{ Now, Was string }

func shortenNames(mem []byte, sections []section) ([]Name, error) {
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
	short := 0 // how many names are short or kept already
	for i := range t.nfunc {
		f := t.record(mem, i)
		name, err := t.name(mem, le.Uint32(mem[f+4:]))
		if err != nil {
			return nil, err
		}
		funcs = append(funcs, ref{f + 4, name})
		if name == ShortName(i, name) || keepNames[name] {
			short++
		}
	}
	if short == t.nfunc {
		return nil, fmt.Errorf("%w: the function names are short already", ErrUnsupported)
	}
	wrapped, err := callersOf(mem, t, sections, "runtime.panicwrap")
	if err != nil {
		return nil, err
	}
	keep := func(i int, name string) bool { return keepNames[name] || wrapped[i] }
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
	names := make([]Name, len(funcs))
	// Check the size before writing: the new table is short names and the
	// inlined functions' names, which the old one held too.
	size := 0
	for i, r := range funcs {
		names[i] = Name{Now: r.name, Was: r.name}
		if !keep(i, r.name) {
			names[i].Now = ShortName(i, r.name)
		}
		size += len(names[i].Now) + 1
	}
	for _, r := range inlined {
		size += len(r.name) + 1
	}
	if size > len(region) {
		return nil, fmt.Errorf("%w: the short names take %d bytes, more than the %d of the name table", ErrUnsupported, size, len(region))
	}
	for i, r := range funcs {
		place(r.at, names[i].Now)
	}
	for _, r := range inlined {
		place(r.at, r.name)
	}
	clear(region)
	copy(region, table)
	return names, nil
}
