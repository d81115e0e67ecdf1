package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// What the passes over the Go runtime's function table share: finding the
// table and the runtime's module record in the memory image the data
// segments initialise, reading a function's record, and writing the image
// back. The table's layout is described at the top of lines.go.

var le = binary.LittleEndian

// The pcdata and funcdata indexes the passes touch (internal/abi's
// PCDATA_InlTreeIndex and FUNCDATA_InlTree), an inline tree entry's size
// (runtime.inlinedCall: funcID, three pad bytes, nameOff, parentPc,
// startLine), and the funcID of the linker's wrappers (abi.FuncIDWrapper).
const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
	inlinedCallSize    = 16
	offFuncID          = 40 // _func.funcID
	funcIDWrapper      = 23
	noFuncdata         = ^uint32(0) // a funcdata offset meaning "none"
	funcValueOffset    = 0x1000     // the function number of the module's first own function
)

// The runtime's moduledata (runtime/symtab.go) starts with a pointer to the
// pcHeader and five slices (pointer, length, capacity) over the table's
// parts: the function names, the units' file indexes, the file names,
// pctab and the function table. gofunc, the base that funcdata offsets are
// relative to, is the 41st word in Go 1.26, after those slices, ftab,
// findfunctab, minpc/maxpc, and the text, noptrdata, data, bss, noptrbss,
// coverage, end/gcdata/gcbss, types and rodata bounds.
const (
	mdSlices = 8   // the first slice, funcnametab
	mdGofunc = 320 // moduledata.gofunc
)

// editMemory applies edit to the memory image the module's data segments
// initialise, and returns the module with the image written back through
// the same segments; every other section is copied unchanged. edit also
// gets the module's sections (read only). A change to a byte outside every
// segment is an internal error: the passes only change bytes that were
// nonzero (so a segment held them) or set bytes to zero.
func editMemory(module []byte, edit func(mem []byte, sections []section) error) ([]byte, error) {
	sections, err := parseModule(module)
	if err != nil {
		return nil, err
	}
	dataAt := slices.IndexFunc(sections, func(s section) bool { return s.id == sectionData })
	if dataAt < 0 {
		return nil, fmt.Errorf("%w: the module has no data section, so no function table", ErrUnsupported)
	}
	segs, err := parseData(sections[dataAt].content)
	if err != nil {
		return nil, err
	}
	if _, _, err := mergeSegments(segs, 0); err != nil { // refuses overlapping segments
		return nil, err
	}
	mem := MemoryImage(segs)
	if err := edit(mem, sections); err != nil {
		return nil, err
	}
	out := make([]Segment, len(segs))
	for i, s := range segs {
		out[i] = Segment{Offset: s.Offset, Data: slices.Clone(mem[s.Offset:s.End()])}
	}
	if got := MemoryImage(out); !slices.Equal(got, mem) {
		return nil, errors.New("internal error: a changed byte lies outside every data segment")
	}
	b := make([]byte, 0, len(module))
	b = append(b, wasmHeader...)
	for _, s := range sections {
		content := s.content
		if s.id == sectionData {
			content = encodeData(out)
		}
		b = append(b, s.id)
		b = binary.AppendUvarint(b, uint64(len(content)))
		b = append(b, content...)
	}
	return b, nil
}

// findPclntab finds the one function table in mem that holds together
// (see readPclntab).
func findPclntab(mem []byte) (pclntab, error) {
	var found []pclntab
	var why error
	for at := 0; at+pcHeaderSize <= len(mem); at += 4 {
		if le.Uint32(mem[at:]) != pclnMagic {
			continue
		}
		t, err := readPclntab(mem, at)
		if err != nil {
			why = err
			continue
		}
		found = append(found, t)
	}
	switch {
	case len(found) == 0 && why != nil:
		return pclntab{}, fmt.Errorf("%w: no function table holds together (the last candidate: %v); is this a module from a Go release whose table this tool does not know?", ErrUnsupported, why)
	case len(found) == 0:
		return pclntab{}, fmt.Errorf("%w: no Go function table (magic %#x) in memory", ErrUnsupported, pclnMagic)
	case len(found) > 1:
		return pclntab{}, fmt.Errorf("%w: %d places in memory read as a Go function table", ErrUnsupported, len(found))
	}
	return found[0], nil
}

// record returns the address of function i's _func record.
func (t pclntab) record(mem []byte, i int) int {
	return t.pcln + int(le.Uint32(mem[t.pcln+8*i+4:]))
}

// pcdataAt returns the address of the offset of the record f's pcdata
// table k, or -1 if it has fewer.
func pcdataAt(mem []byte, f, k int) int {
	if k >= int(le.Uint32(mem[f+offNpcdata:])) {
		return -1
	}
	return f + funcRecordSize + 4*k
}

// funcdataAt returns the address of the offset of the record f's funcdata
// k, or -1 if it has fewer.
func funcdataAt(mem []byte, f, k int) int {
	if k >= int(mem[f+offNfdata]) {
		return -1
	}
	return f + funcRecordSize + 4*(int(le.Uint32(mem[f+offNpcdata:]))+k)
}

// name returns the name at offset off of the function-name table.
func (t pclntab) name(mem []byte, off uint32) (string, error) {
	names := mem[t.funcname:t.cu]
	if int(off) >= len(names) {
		return "", fmt.Errorf("%w: a function name at %d lies outside the name table (%d bytes)", ErrUnsupported, off, len(names))
	}
	end := slices.Index(names[off:], 0)
	if end < 0 {
		return "", fmt.Errorf("%w: the function name at %d does not end", ErrUnsupported, off)
	}
	return string(names[off : int(off)+end]), nil
}

// findGofunc finds the runtime's moduledata for t, the one place in mem
// whose first word points at t's header and whose first five slices start
// at t's parts, and returns its gofunc: the address funcdata offsets count
// from.
func findGofunc(mem []byte, t pclntab) (int, error) {
	parts := []int{t.funcname, t.cu, t.filetab, t.pctab, t.pcln}
	var found []int
	for at := 0; at+mdGofunc+8 <= len(mem); at += 8 {
		if le.Uint64(mem[at:]) != uint64(t.base) {
			continue
		}
		ok := true
		for i, p := range parts {
			ok = ok && le.Uint64(mem[at+mdSlices+24*i:]) == uint64(p)
		}
		if ok {
			found = append(found, at)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%w: %d places in memory read as the runtime's module record for the function table at %#x, want 1", ErrUnsupported, len(found), t.base)
	}
	gofunc := le.Uint64(mem[found[0]+mdGofunc:])
	if gofunc == 0 || gofunc >= uint64(len(mem)) {
		return 0, fmt.Errorf("%w: the module record's gofunc %#x is outside memory; is this a Go release whose module record this tool does not know?", ErrUnsupported, gofunc)
	}
	return int(gofunc), nil
}

// pcTable reads the pc-value table at pctab[off:] and returns its length in
// bytes, its closing zero byte included, and the largest value it holds
// (values start at -1; each pair is a zig-zag value delta and a pc delta).
func pcTable(pctab []byte, off int) (n int, largest int32, err error) {
	p, v := off, int32(-1)
	largest = v
	for first := true; ; first = false {
		if p >= len(pctab) {
			return 0, 0, fmt.Errorf("the pc-value table at %d runs past pctab", off)
		}
		if pctab[p] == 0 && !first {
			return p + 1 - off, largest, nil
		}
		for k := range 2 { // the value delta, then the pc delta
			u, n := binary.Uvarint(pctab[p:])
			if n <= 0 {
				return 0, 0, fmt.Errorf("the pc-value table at %d has a malformed number at %d", off, p)
			}
			p += n
			if k == 0 {
				d := int32(u >> 1)
				if u&1 != 0 {
					d = ^d
				}
				v += d
				largest = max(largest, v)
			}
		}
	}
}

// span is a range of addresses [from, to).
type span struct{ from, to int }

// clearSpans sets the bytes of spans to zero and returns how many were
// nonzero, after checking that nothing in kept overlaps one: a kept table or
// record sharing bytes with one to be cleared would mean they overlap,
// which the linker never does, so the pass refuses rather than guess. A
// kept record whose length is not known is given as its first byte.
func clearSpans(mem []byte, spans []span, kept []span, what string) (int, error) {
	slices.SortFunc(kept, func(a, b span) int { return a.from - b.from })
	for _, s := range spans {
		// The first kept span starting at or after s, and the one before it.
		i, _ := slices.BinarySearchFunc(kept, s.from, func(k span, from int) int { return k.from - from })
		for _, j := range []int{i - 1, i} {
			if j >= 0 && j < len(kept) && kept[j].from < s.to && kept[j].to > s.from {
				return 0, fmt.Errorf("%w: something kept at [%#x, %#x) overlaps %s [%#x, %#x)", ErrUnsupported, kept[j].from, kept[j].to, what, s.from, s.to)
			}
		}
	}
	zeroed := 0
	for _, s := range spans {
		for i := s.from; i < s.to; i++ {
			if mem[i] != 0 {
				mem[i] = 0
				zeroed++
			}
		}
	}
	return zeroed, nil
}

// clearTables sets to zero the pc-value tables at the offsets in strip that
// are not in keep (0, "no table", left out), after checking that no table
// in keep overlaps one, and returns how many it cleared and how many bytes
// were nonzero.
func clearTables(pctab []byte, strip, keep map[uint32]bool, what string) (tables, zeroed int, err error) {
	var spans, kept []span
	for off := range strip {
		if off == 0 || keep[off] {
			continue
		}
		n, _, err := pcTable(pctab, int(off))
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		spans = append(spans, span{int(off), int(off) + n})
	}
	for off := range keep {
		if off == 0 {
			continue
		}
		n, _, err := pcTable(pctab, int(off))
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		kept = append(kept, span{int(off), int(off) + n})
	}
	zeroed, err = clearSpans(pctab, spans, kept, what)
	return len(spans), zeroed, err
}
