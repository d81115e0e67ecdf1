package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/wasmnode"
)

// module assembles a module from sections (id, content) after the header.
func module(sections ...section) []byte {
	b := append([]byte(nil), wasmHeader...)
	for _, s := range sections {
		b = append(b, s.id)
		b = binary.AppendUvarint(b, uint64(len(s.content)))
		b = append(b, s.content...)
	}
	return b
}

// memorySection declares one memory of the given number of 64 KiB pages,
// exported as "mem" (as Go's modules export theirs).
func memorySection(pages int) []section {
	mem := []byte{1, 0}
	mem = binary.AppendUvarint(mem, uint64(pages))
	exp := []byte{1, 3, 'm', 'e', 'm', 2, 0}
	return []section{{id: 5, content: mem}, {id: 7, content: exp}}
}

// sample is a module with segments in the order a linker might write them:
// out of address order, some a few bytes apart, one far away, two touching.
func sample() ([]Segment, []byte) {
	segs := []Segment{
		{Offset: 0x2000, Data: []byte("third")},
		{Offset: 0x1000, Data: []byte("first")},
		{Offset: 0x1000 + 5 + 18, Data: []byte("second, 18 bytes after the first")},
		{Offset: 0x2000 + 5, Data: []byte("touching the third")},
		{Offset: 0x9000, Data: []byte("far away")},
		{Offset: 0x9000 + 8 + 64, Data: []byte("64 bytes after far away")},
		{Offset: 0x9000 + 8 + 64 + 23 + 65, Data: []byte("65 bytes after that")},
	}
	secs := memorySection(1)
	secs = append(secs, section{id: sectionDataCount, content: []byte{byte(len(segs))}}, section{id: sectionData, content: encodeData(segs)})
	return segs, module(secs...)
}

func TestMergeKeepsMemory(t *testing.T) {
	segs, mod := sample()
	got, err := Segments(mod)
	require.NoError(t, err)
	require.Equal(t, segs, got, "the sample should read back as written")

	merged, st, err := Merge(mod, 64)
	require.NoError(t, err)
	after, err := Segments(merged)
	require.NoError(t, err)
	assert.Equal(t, MemoryImage(segs), MemoryImage(after), "memory after instantiation must not change")
	// 0x1000 and its neighbour 18 bytes on; 0x2000 and the one touching it;
	// 0x9000 and the one 64 bytes on; the one 65 bytes further stays apart.
	require.Len(t, after, 4)
	assert.Equal(t, []uint32{0x1000, 0x2000, 0x9000, 0x9000 + 8 + 64 + 23 + 65}, []uint32{after[0].Offset, after[1].Offset, after[2].Offset, after[3].Offset})
	assert.Equal(t, "first"+strings.Repeat("\x00", 18)+"second, 18 bytes after the first", string(after[0].Data))
	assert.Equal(t, Stats{SegmentsBefore: 7, SegmentsAfter: 4, GapBytes: 18 + 64, SizeBefore: len(mod), SizeAfter: len(merged)}, st)

	// Every other section is copied unchanged, and the data count follows.
	before, err := parseModule(mod)
	require.NoError(t, err)
	sections, err := parseModule(merged)
	require.NoError(t, err)
	require.Len(t, sections, len(before))
	for i, s := range sections {
		assert.Equal(t, before[i].id, s.id)
		switch s.id {
		case sectionData:
		case sectionDataCount:
			assert.Equal(t, []byte{4}, s.content)
		default:
			assert.Equal(t, before[i].content, s.content, "section %d changed", s.id)
		}
	}

	// Merging again changes nothing; a gap of 0 joins only touching ones.
	again, st2, err := Merge(merged, 64)
	require.NoError(t, err)
	assert.Equal(t, merged, again)
	assert.Equal(t, 4, st2.SegmentsAfter)
	_, st0, err := Merge(mod, 0)
	require.NoError(t, err)
	assert.Equal(t, 6, st0.SegmentsAfter)
}

func TestMergeRefuses(t *testing.T) {
	_, good := sample()
	mem := memorySection(1)
	overlapping := module(append(mem, section{id: sectionData, content: encodeData([]Segment{{Offset: 10, Data: []byte("abcdef")}, {Offset: 12, Data: []byte("x")}})})...)
	passive := module(append(mem, section{id: sectionData, content: []byte{1, 1, 3, 'a', 'b', 'c'}})...)
	global := module(append(mem, section{id: sectionData, content: []byte{1, 0, 0x23, 0, opEnd, 1, 'a'}})...)
	names := module(append(mem, section{id: sectionData, content: encodeData([]Segment{{Offset: 1, Data: []byte("a")}})},
		section{id: sectionCustom, content: []byte{4, 'n', 'a', 'm', 'e', 9, 1, 0}})...)
	for name, tc := range map[string]struct {
		mod         []byte
		unsupported bool
		want        string
	}{
		"overlapping segments":             {overlapping, true, "data segments overlap: [0xa, 0x10) and one at 0xc"},
		"a passive segment":                {passive, true, "data segment 0 has flags 1"},
		"an offset from a global":          {global, true, "offset is not an i32.const (opcode 0x23)"},
		"named data segments":              {names, true, "the name section names data segments"},
		"not wasm":                         {[]byte("\x7fELF and so on"), false, "not a WebAssembly module"},
		"cut short":                        {good[:len(good)-3], false, "wasm: at byte"},
		"a section longer than the module": {append(module(), sectionData, 0x80, 0x80, 0x04), false, "bytes announced"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := Merge(tc.mod, 64)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, tc.unsupported, errors.Is(err, ErrUnsupported), "ErrUnsupported: %v", err)
		})
	}
}

// TestCommand: the command rewrites the file in place, leaves a module it
// must not merge as it is, and fails on a file that is not wasm.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	segs, mod := sample()
	file := filepath.Join(dir, "m.wasm")
	require.NoError(t, os.WriteFile(file, mod, 0o644))
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-gap", "64", file}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "7 data segments joined into 4")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	after, err := Segments(b)
	require.NoError(t, err)
	assert.Equal(t, MemoryImage(segs), MemoryImage(after))

	overlapping := module(section{id: sectionData, content: encodeData([]Segment{{Offset: 10, Data: []byte("abc")}, {Offset: 11, Data: []byte("x")}})})
	require.NoError(t, os.WriteFile(file, overlapping, 0o644))
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run([]string{file}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "left as it is")
	b, err = os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, overlapping, b)

	require.NoError(t, os.WriteFile(file, []byte("hello"), 0o644))
	stderr.Reset()
	assert.Equal(t, 1, run([]string{file}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "not a WebAssembly module")
	assert.Equal(t, 2, run(nil, &stdout, &stderr))
}

// TestRealModule builds Tidemark's browser module as `make wasm` does,
// merges it, and checks that only the data section changed and that memory
// after instantiation is the same. Under node it checks the same through
// V8 (which must accept the merged module), and drives the merged module as
// the page does through a whole scenario, with the same result as the
// original. The module with its line tables cleared as well (`make wasm`
// builds it so) differs from the merged one only in bytes set to zero, and
// draws the same.
func TestRealModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser module")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	orig, merged, stripped := filepath.Join(dir, "orig.wasm"), filepath.Join(dir, "merged.wasm"), filepath.Join(dir, "stripped.wasm")
	require.NoError(t, wasmnode.Build(ctx, "../../..", "./wasm", orig))
	mod, err := os.ReadFile(orig)
	require.NoError(t, err)
	out, st, err := Merge(mod, DefaultGap)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(merged, out, 0o644))
	t.Logf("%d segments joined into %d; %d → %d bytes", st.SegmentsBefore, st.SegmentsAfter, st.SizeBefore, st.SizeAfter)
	assert.Greater(t, st.SegmentsBefore, 10_000, "the Go linker no longer splits data finely; is this tool still worth its place?")
	assert.Less(t, st.SegmentsAfter, 100)

	before, err := Segments(mod)
	require.NoError(t, err)
	after, err := Segments(out)
	require.NoError(t, err)
	require.True(t, bytes.Equal(MemoryImage(before), MemoryImage(after)), "the merged module's memory differs")
	sa, err := parseModule(mod)
	require.NoError(t, err)
	sb, err := parseModule(out)
	require.NoError(t, err)
	require.Len(t, sb, len(sa))
	for i := range sa {
		if sa[i].id != sectionData {
			require.True(t, bytes.Equal(sa[i].content, sb[i].content), "section %d (id %d) changed", i, sa[i].id)
		}
	}

	lean, ls, err := StripLines(out)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(stripped, lean, 0o644))
	t.Logf("line tables: %d functions, %d tables, %d bytes zeroed; %d → %d bytes", ls.Funcs, ls.Tables, ls.Zeroed, len(out), len(lean))
	assert.Greater(t, ls.Zeroed, 100_000, "the line tables are smaller than they were; is clearing them still worth it?")
	leanSegs, err := Segments(lean)
	require.NoError(t, err)
	memMerged, memLean := MemoryImage(after), MemoryImage(leanSegs)
	require.Len(t, memLean, len(memMerged))
	changed := 0
	for i := range memMerged {
		if memMerged[i] != memLean[i] {
			require.Zero(t, memLean[i], "clearing the line tables wrote a nonzero byte at %#x", i)
			changed++
		}
	}
	assert.Greater(t, changed, ls.Zeroed, "the tables' bytes and each function's two offsets")

	runner := wasmnode.Require(t)
	probe := func(args ...string) string {
		cmd := exec.CommandContext(ctx, "node", append([]string{"testdata/probe.js"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		require.NoError(t, err, "node probe.js %s: %s", strings.Join(args, " "), stderr.String())
		return string(b)
	}
	memBefore, memAfter := probe("memory", orig), probe("memory", merged)
	assert.Equal(t, memBefore, memAfter, "V8 sees different memory after instantiation")
	t.Logf("memory after instantiation, both modules: %s", strings.TrimSpace(memAfter))

	wasmExec := filepath.Join(filepath.Dir(runner), "wasm_exec.js")
	scenario := "../../../lessons/scenarios/hwm/visibility-gap.tdm"
	ranBefore, ranAfter := probe("drive", orig, wasmExec, scenario), probe("drive", merged, wasmExec, scenario)
	assert.Equal(t, ranBefore, ranAfter, "the merged module draws a different last step")
	ranLean := probe("drive", stripped, wasmExec, scenario)
	assert.Equal(t, ranBefore, ranLean, "the module without line tables draws a different last step")

	// And without inline trees, with short names, as `make wasm` builds it.
	leaner, is, err := StripInlining(lean)
	require.NoError(t, err)
	t.Logf("inline trees: %d of %d functions cleared, %d kept, %d bytes zeroed", is.Trees, is.Funcs, is.Kept, is.Zeroed)
	assert.Greater(t, is.Zeroed, 40_000, "the inline trees are smaller than they were (49,941 bytes on 2026-12-05); is clearing them still worth it?")
	leaner, ps, err := StripUnsafePoints(leaner)
	require.NoError(t, err)
	t.Logf("unsafe-point tables: %d cleared, %d bytes zeroed", ps.Tables, ps.Zeroed)
	leanest, names, err := ShortenNames(leaner)
	require.NoError(t, err)
	assert.Len(t, names, is.Funcs)
	assert.True(t, slices.ContainsFunc(names, func(n Name) bool { return strings.HasPrefix(n.Was, "github.com/tidemark/tidemark/engine/") }),
		"the names list names the engine's functions")
	shortest := filepath.Join(dir, "short.wasm")
	require.NoError(t, os.WriteFile(shortest, leanest, 0o644))
	assert.Equal(t, ranBefore, probe("drive", shortest, wasmExec, scenario), "the module without inline trees and unsafe points and with short names draws a different last step")
	t.Logf("the last step, both modules: %s", strings.TrimSpace(ranAfter))
	var view struct {
		Steps, Step, HTML int
		Narration         string
	}
	require.NoError(t, json.Unmarshal([]byte(ranAfter), &view), ranAfter)
	assert.Greater(t, view.Steps, 5)
	assert.Equal(t, view.Steps, view.Step, "the probe should have drawn the last step")
	assert.Greater(t, view.HTML, 1000)
	assert.NotEmpty(t, view.Narration)
}
