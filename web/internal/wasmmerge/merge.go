package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// The WebAssembly binary format, as far as this tool reads it
// (https://webassembly.github.io/spec/core/binary/modules.html): a module is
// a magic number and a version followed by sections, each an id byte, a
// size (unsigned LEB128) and that many bytes. The data section (id 11) is a
// vector of segments; an active segment for memory 0 (flags 0) is an
// offset expression (here always `i32.const N; end`) and a vector of bytes
// copied to memory at N when the module is instantiated. The data count
// section (id 12), when present, repeats the number of segments.

const (
	sectionCustom    = 0
	sectionImport    = 2
	sectionCode      = 10
	sectionData      = 11
	sectionDataCount = 12

	opI32Const = 0x41
	opEnd      = 0x0b
)

var wasmHeader = []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}

// ErrUnsupported wraps the reasons a well-formed module is left as it is:
// segments that are passive, that name another memory, whose offset is not
// a constant, or that overlap; or a name section that names data segments.
// None of them occurs in what the Go linker writes today.
var ErrUnsupported = errors.New("not merged")

// Segment is an active data segment: Data is copied to linear memory at
// Offset when the module is instantiated.
type Segment struct {
	Offset uint32
	Data   []byte
}

// End is the first address after the segment.
func (s Segment) End() uint64 { return uint64(s.Offset) + uint64(len(s.Data)) }

// section is one section of a module: its id and its content, a slice of
// the module's bytes.
type section struct {
	id      byte
	content []byte
}

// Stats says what a merge did.
type Stats struct {
	SegmentsBefore, SegmentsAfter int
	// GapBytes is how many zero bytes were written into the gaps between
	// segments that were joined.
	GapBytes int
	// SizeBefore and SizeAfter are the module's sizes in bytes.
	SizeBefore, SizeAfter int
}

// Merge returns the module with every two data segments that are at most
// maxGap bytes apart in memory joined into one, the gap filled with zeros.
// Linear memory starts zeroed, so the merged module initialises memory to
// exactly the same contents; every other section is copied unchanged. The
// segments are first put in address order, which changes nothing because
// they do not overlap (Merge refuses segments that do, with an error
// wrapping ErrUnsupported, as it does for any segment that is not active
// with a constant offset in memory 0).
//
// Each segment costs a few bytes of header (flags, offset, length): the Go
// linker starts a new segment at every run of 8 zero bytes, tens of
// thousands of them, and those headers compress far worse than the zeros
// that replace them.
func Merge(module []byte, maxGap int) ([]byte, Stats, error) {
	st := Stats{SizeBefore: len(module)}
	sections, err := parseModule(module)
	if err != nil {
		return nil, st, err
	}
	dataAt := slices.IndexFunc(sections, func(s section) bool { return s.id == sectionData })
	if dataAt < 0 {
		st.SizeAfter = len(module)
		return module, st, nil
	}
	if err := checkNames(sections); err != nil {
		return nil, st, err
	}
	segs, err := parseData(sections[dataAt].content)
	if err != nil {
		return nil, st, err
	}
	st.SegmentsBefore = len(segs)
	merged, gap, err := mergeSegments(segs, maxGap)
	if err != nil {
		return nil, st, err
	}
	st.SegmentsAfter, st.GapBytes = len(merged), gap

	out := make([]byte, 0, len(module))
	out = append(out, wasmHeader...)
	for _, s := range sections {
		content := s.content
		switch s.id {
		case sectionData:
			content = encodeData(merged)
		case sectionDataCount:
			content = binary.AppendUvarint(nil, uint64(len(merged)))
		}
		out = append(out, s.id)
		out = binary.AppendUvarint(out, uint64(len(content)))
		out = append(out, content...)
	}
	st.SizeAfter = len(out)
	return out, st, nil
}

// mergeSegments sorts the segments by address, refuses overlapping ones,
// and joins neighbours at most maxGap bytes apart. It returns the joined
// segments and how many zero bytes it wrote into gaps.
func mergeSegments(segs []Segment, maxGap int) ([]Segment, int, error) {
	sorted := slices.Clone(segs)
	slices.SortStableFunc(sorted, func(a, b Segment) int {
		switch {
		case a.Offset < b.Offset:
			return -1
		case a.Offset > b.Offset:
			return 1
		}
		return 0
	})
	for i := 1; i < len(sorted); i++ {
		if prev := sorted[i-1]; uint64(sorted[i].Offset) < prev.End() {
			return nil, 0, fmt.Errorf("%w: data segments overlap: [%#x, %#x) and one at %#x", ErrUnsupported, prev.Offset, prev.End(), sorted[i].Offset)
		}
	}
	var out []Segment
	gapBytes := 0
	for i := 0; i < len(sorted); {
		j, end := i+1, sorted[i].End()
		for j < len(sorted) && uint64(sorted[j].Offset)-end <= uint64(maxGap) {
			end = sorted[j].End()
			j++
		}
		if j == i+1 {
			out = append(out, sorted[i])
			i = j
			continue
		}
		data := make([]byte, end-uint64(sorted[i].Offset))
		for _, s := range sorted[i:j] {
			copy(data[s.Offset-sorted[i].Offset:], s.Data)
		}
		for k := i + 1; k < j; k++ {
			gapBytes += int(uint64(sorted[k].Offset) - sorted[k-1].End())
		}
		out = append(out, Segment{Offset: sorted[i].Offset, Data: data})
		i = j
	}
	return out, gapBytes, nil
}

// encodeData writes the content of a data section holding segs.
func encodeData(segs []Segment) []byte {
	size := 5
	for _, s := range segs {
		size += 16 + len(s.Data)
	}
	b := make([]byte, 0, size)
	b = binary.AppendUvarint(b, uint64(len(segs)))
	for _, s := range segs {
		b = append(b, 0, opI32Const)
		b = appendSLEB(b, int64(int32(s.Offset)))
		b = append(b, opEnd)
		b = binary.AppendUvarint(b, uint64(len(s.Data)))
		b = append(b, s.Data...)
	}
	return b
}

// appendSLEB appends v as a signed LEB128 number.
func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// reader reads a module's bytes and says where a malformed one went wrong.
type reader struct {
	b    []byte
	pos  int
	base int // the position of b[0] in the module, for error messages
}

func (r *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("wasm: at byte %d: %s", r.base+r.pos, fmt.Sprintf(format, args...))
}

func (r *reader) done() bool { return r.pos >= len(r.b) }

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, r.errorf("unexpected end of input")
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// u32 reads an unsigned LEB128 number of at most 32 bits.
func (r *reader) u32() (uint32, error) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if v > 0xffffffff {
				return 0, r.errorf("number %d does not fit in 32 bits", v)
			}
			return uint32(v), nil
		}
	}
	return 0, r.errorf("a 32-bit number longer than 5 bytes")
}

// i32 reads a signed LEB128 number of at most 32 bits.
func (r *reader) i32() (int32, error) {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= int64(c&0x7f) << shift
		if c&0x80 == 0 {
			if shift+7 < 64 && c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			if v < -1<<31 || v > 1<<31-1 {
				return 0, r.errorf("number %d does not fit in 32 bits", v)
			}
			return int32(v), nil
		}
	}
	return 0, r.errorf("a 32-bit number longer than 5 bytes")
}

// bytes reads n bytes.
func (r *reader) bytes(n uint32) ([]byte, error) {
	if uint64(n) > uint64(len(r.b)-r.pos) {
		return nil, r.errorf("%d bytes announced, %d left", n, len(r.b)-r.pos)
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// parseModule checks the header and splits the module into its sections.
func parseModule(module []byte) ([]section, error) {
	if len(module) < len(wasmHeader) || string(module[:len(wasmHeader)]) != string(wasmHeader) {
		return nil, errors.New("wasm: not a WebAssembly module of version 1 (the first 8 bytes are wrong)")
	}
	r := &reader{b: module, pos: len(wasmHeader)}
	var out []section
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		content, err := r.bytes(n)
		if err != nil {
			return nil, err
		}
		out = append(out, section{id: id, content: content})
	}
	return out, nil
}

// parseData reads the segments of a data section.
func parseData(content []byte) ([]Segment, error) {
	r := &reader{b: content}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	segs := make([]Segment, 0, min(int(n), len(content)))
	for i := range n {
		flags, err := r.u32()
		if err != nil {
			return nil, err
		}
		if flags != 0 {
			return nil, fmt.Errorf("%w: data segment %d has flags %d (passive, or in another memory)", ErrUnsupported, i, flags)
		}
		op, err := r.byte()
		if err != nil {
			return nil, err
		}
		if op != opI32Const {
			return nil, fmt.Errorf("%w: data segment %d's offset is not an i32.const (opcode %#x)", ErrUnsupported, i, op)
		}
		off, err := r.i32()
		if err != nil {
			return nil, err
		}
		if op, err = r.byte(); err != nil {
			return nil, err
		}
		if op != opEnd {
			return nil, fmt.Errorf("%w: data segment %d's offset is more than one constant (opcode %#x)", ErrUnsupported, i, op)
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		data, err := r.bytes(size)
		if err != nil {
			return nil, err
		}
		segs = append(segs, Segment{Offset: uint32(off), Data: data})
	}
	if !r.done() {
		return nil, r.errorf("%d bytes after the last data segment", len(r.b)-r.pos)
	}
	return segs, nil
}

// checkNames refuses a name section that names data segments (subsection
// 9 of the extended name section): merging would renumber them.
func checkNames(sections []section) error {
	for _, s := range sections {
		if s.id != sectionCustom {
			continue
		}
		r := &reader{b: s.content}
		n, err := r.u32()
		if err != nil {
			return err
		}
		name, err := r.bytes(n)
		if err != nil {
			return err
		}
		if string(name) != "name" {
			continue
		}
		for !r.done() {
			sub, err := r.byte()
			if err != nil {
				return err
			}
			size, err := r.u32()
			if err != nil {
				return err
			}
			if sub == 9 {
				return fmt.Errorf("%w: the name section names data segments", ErrUnsupported)
			}
			if _, err := r.bytes(size); err != nil {
				return err
			}
		}
	}
	return nil
}

// Segments returns the active data segments of a module, in the order the
// module lists them.
func Segments(module []byte) ([]Segment, error) {
	sections, err := parseModule(module)
	if err != nil {
		return nil, err
	}
	var out []Segment
	for _, s := range sections {
		if s.id == sectionData {
			segs, err := parseData(s.content)
			if err != nil {
				return nil, err
			}
			out = append(out, segs...)
		}
	}
	return out, nil
}

// MemoryImage returns linear memory as the segments leave it at
// instantiation, from address 0 to the end of the highest segment: zeros
// everywhere, then each segment copied in the order given.
func MemoryImage(segs []Segment) []byte {
	var end uint64
	for _, s := range segs {
		end = max(end, s.End())
	}
	mem := make([]byte, end)
	for _, s := range segs {
		copy(mem[s.Offset:], s.Data)
	}
	return mem
}
