package main

import "fmt"

// The Go runtime's function table (the "pclntab") as Go 1.20 to 1.26 lay it
// out in a module's memory (runtime/symtab.go and runtime/runtime2.go):
//
//   - a pcHeader: the magic number 0xfffffff1, two zero bytes, the minimum
//     instruction size (1 on wasm) and the pointer size (8), then eight
//     pointer-sized fields: the number of functions, the number of files,
//     an unused word, and the offsets from the header of the function-name
//     table, the compilation units' file indexes (cutab), the file names
//     (filetab), the pc-value tables (pctab) and the function table;
//   - the function table: for each function and one past the last, its
//     entry (an offset into the code) and the offset of its _func record;
//   - each _func: entryOff, nameOff, args, deferreturn, pcsp, pcfile, pcln,
//     npcdata, cuOffset, startLine (uint32 or int32 each), funcID, flag, a
//     pad byte and nfuncdata (a byte each), then npcdata offsets into pctab
//     and nfuncdata offsets of funcdata.
//
// A pc-value table maps a function's program counters to a value: pairs of
// a zig-zag varint value delta and a varint pc delta, ended by a zero byte
// (a value delta of zero is only allowed first). pcsp (the frame size) and
// the pcdata tables (stack maps, unsafe points, inlining) are what the
// runtime needs to grow stacks, collect garbage and unwind. pcfile and pcln
// only say which file and line a program counter came from, which the
// runtime reads in one place, funcline1, for tracebacks and
// runtime.Caller: there an offset of 0 means "no table", and the answer is
// the file "?" at line 0. A _func's cuOffset (where its files are listed)
// and startLine (the line of its func keyword) are read only with those
// answers. The layout is the same on every platform; what -ldflags=-s
// strips is the symbol table and DWARF, never these tables.

const (
	pclnMagic      = 0xfffffff1
	pcHeaderSize   = 8 + 8*8 // magic, pads, minLC, ptrSize, then eight words
	funcRecordSize = 44      // a _func before its pcdata and funcdata offsets

	offPcsp      = 16 // _func.pcsp
	offPcfile    = 20 // _func.pcfile
	offPcln      = 24 // _func.pcln
	offNpcdata   = 28 // _func.npcdata
	offCU        = 32 // _func.cuOffset
	offStartLine = 36 // _func.startLine
	offNfdata    = 43 // _func.nfuncdata
)

// LineStats says what StripLines did.
type LineStats struct {
	// Funcs is the number of functions in the module's function table.
	Funcs int
	// Tables is how many distinct file and line tables were cleared.
	Tables int
	// Zeroed is how many bytes of memory were set to zero: the cleared
	// tables, the file names and the compilation units' file indexes.
	Zeroed int
}

// StripLines returns the module with the Go runtime's file and line tables
// cleared: each function's pcfile and pcln offsets set to 0 ("no table"),
// its cuOffset and startLine to 0, and the bytes of those tables, of the
// file names and of the file indexes set to zero, which compresses to
// almost nothing. Nothing else changes: a line table that a kept table
// shares (the linker stores identical tables once) is left in place. The
// module runs as before; only a traceback, a panic's message or
// runtime.Caller says "?:0" where it named a file and line.
//
// The tables are found by reading memory as the data segments initialise
// it. A module with no function table, or more than one place that reads
// as one, or one whose table does not hold together (see readPclntab), is
// refused with an error wrapping ErrUnsupported and left as it is.
func StripLines(module []byte) ([]byte, LineStats, error) {
	var st LineStats
	out, err := editMemory(module, func(mem []byte, _ []section) (err error) {
		st, err = stripLines(mem)
		return err
	})
	return out, st, err
}

// pclntab is the function table found in memory: where its header is and
// what it says.
type pclntab struct {
	base                               int // the header's address
	nfunc                              int
	funcname, cu, filetab, pctab, pcln int // addresses of the parts
}

// stripLines clears the file and line tables in mem, the memory image.
func stripLines(mem []byte) (LineStats, error) {
	var st LineStats
	t, err := findPclntab(mem)
	if err != nil {
		return st, err
	}
	st.Funcs = t.nfunc
	pctab := mem[t.pctab:t.pcln]

	keep := map[uint32]bool{}
	strip := map[uint32]bool{}
	for i := range t.nfunc {
		f := t.record(mem, i)
		keep[le.Uint32(mem[f+offPcsp:])] = true
		for _, o := range []int{offPcfile, offPcln} {
			strip[le.Uint32(mem[f+o:])] = true
		}
		for _, o := range []int{offPcfile, offPcln, offCU, offStartLine} {
			le.PutUint32(mem[f+o:], 0)
		}
		for k := 0; pcdataAt(mem, f, k) >= 0; k++ {
			keep[le.Uint32(mem[pcdataAt(mem, f, k):])] = true
		}
	}
	tables, zeroed, err := clearTables(pctab, strip, keep, "a line table")
	if err != nil {
		return st, err
	}
	st.Zeroed, st.Tables = zeroed, tables
	// The file names and the units' file indexes are read only to name the
	// file of a line table.
	for i := t.cu; i < t.pctab; i++ {
		if mem[i] != 0 {
			mem[i] = 0
			st.Zeroed++
		}
	}
	return st, nil
}

// readPclntab reads the header at mem[at:] and checks that the table it
// describes holds together: the parts in order and inside memory, the
// function table's entries in order and each _func record naming the entry
// that points at it, and every pc-value table offset inside pctab.
func readPclntab(mem []byte, at int) (pclntab, error) {
	h := mem[at:]
	if h[4] != 0 || h[5] != 0 || h[6] != 1 || h[7] != 8 {
		return pclntab{}, fmt.Errorf("at %#x: header bytes %v, want 0 0 1 8 (wasm's instruction size and pointer size)", at, h[4:8])
	}
	word := func(i int) uint64 { return le.Uint64(h[8+8*i:]) }
	nfunc := word(0)
	offs := []uint64{word(3), word(4), word(5), word(6), word(7)}
	if offs[0] != pcHeaderSize {
		return pclntab{}, fmt.Errorf("at %#x: the function names start %d bytes after the header, want %d", at, offs[0], pcHeaderSize)
	}
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			return pclntab{}, fmt.Errorf("at %#x: the table's parts are out of order: %v", at, offs)
		}
	}
	if nfunc == 0 || offs[4] > uint64(len(mem)-at) || (nfunc+1)*8 > uint64(len(mem)-at)-offs[4] {
		return pclntab{}, fmt.Errorf("at %#x: %d functions do not fit in memory", at, nfunc)
	}
	t := pclntab{base: at, nfunc: int(nfunc),
		funcname: at + int(offs[0]), cu: at + int(offs[1]), filetab: at + int(offs[2]),
		pctab: at + int(offs[3]), pcln: at + int(offs[4])}
	pctabLen := uint32(t.pcln - t.pctab)
	var prev uint32
	for i := range t.nfunc + 1 {
		entry := le.Uint32(mem[t.pcln+8*i:])
		if entry < prev {
			return pclntab{}, fmt.Errorf("at %#x: function %d starts before function %d", at, i, i-1)
		}
		prev = entry
		if i == t.nfunc {
			break
		}
		f := t.pcln + int(le.Uint32(mem[t.pcln+8*i+4:]))
		if f+funcRecordSize > len(mem) || f < t.pcln+8*(t.nfunc+1) {
			return pclntab{}, fmt.Errorf("at %#x: function %d's record is outside the table", at, i)
		}
		if got := le.Uint32(mem[f:]); got != entry {
			return pclntab{}, fmt.Errorf("at %#x: function %d's record says it starts at %#x, the table %#x", at, i, got, entry)
		}
		npcdata := int(le.Uint32(mem[f+offNpcdata:]))
		end := f + funcRecordSize + 4*(npcdata+int(mem[f+offNfdata]))
		if npcdata > 64 || end > len(mem) {
			return pclntab{}, fmt.Errorf("at %#x: function %d's record runs past memory", at, i)
		}
		for _, o := range []int{offPcsp, offPcfile, offPcln} {
			if le.Uint32(mem[f+o:]) >= pctabLen {
				return pclntab{}, fmt.Errorf("at %#x: function %d names a pc-value table outside pctab", at, i)
			}
		}
		for k := range npcdata {
			if le.Uint32(mem[f+funcRecordSize+4*k:]) >= pctabLen {
				return pclntab{}, fmt.Errorf("at %#x: function %d's pcdata %d is outside pctab", at, i, k)
			}
		}
	}
	return t, nil
}
