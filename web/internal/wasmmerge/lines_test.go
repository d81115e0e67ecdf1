package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/wasmnode"
)

// fakeFunc is one function of a hand-built function table.
type fakeFunc struct {
	entry               uint32
	pcsp, pcfile, pcln  uint32
	pcdata, funcdataOff []uint32
}

// fakeTable lays out a function table as Go 1.26 does, at base in a memory
// image of size bytes, with the given pctab (whose byte 0 stands for "no
// table") and functions. It returns the memory and the address of pctab
// and of each function's record.
func fakeTable(base, size int, pctab []byte, funcs []fakeFunc) (mem []byte, pctabAt int, records []int) {
	mem = make([]byte, size)
	le := binary.LittleEndian
	names := []byte("main.a\x00main.b\x00")
	cutab := []byte{0, 0, 0, 0}
	filetab := []byte("/src/a.go\x00")
	at := base + pcHeaderSize
	funcnameAt := at
	at += len(names)
	cuAt := at
	at += len(cutab)
	fileAt := at
	at += len(filetab)
	pctabAt = at
	at += len(pctab)
	at = (at + 7) &^ 7
	pclnAt := at

	h := mem[base:]
	le.PutUint32(h, pclnMagic)
	h[6], h[7] = 1, 8
	for i, w := range []int{len(funcs), 1, 0, funcnameAt - base, cuAt - base, fileAt - base, pctabAt - base, pclnAt - base} {
		le.PutUint64(h[8+8*i:], uint64(w))
	}
	copy(mem[funcnameAt:], names)
	copy(mem[cuAt:], cutab)
	copy(mem[fileAt:], filetab)
	copy(mem[pctabAt:], pctab)

	rec := pclnAt + 8*(len(funcs)+1)
	for i, f := range funcs {
		le.PutUint32(mem[pclnAt+8*i:], f.entry)
		le.PutUint32(mem[pclnAt+8*i+4:], uint32(rec-pclnAt))
		r := mem[rec:]
		le.PutUint32(r[0:], f.entry)
		le.PutUint32(r[4:], uint32(7*i)) // nameOff
		le.PutUint32(r[offPcsp:], f.pcsp)
		le.PutUint32(r[offPcfile:], f.pcfile)
		le.PutUint32(r[offPcln:], f.pcln)
		le.PutUint32(r[offNpcdata:], uint32(len(f.pcdata)))
		le.PutUint32(r[offCU:], uint32(i)) // an index into cutab
		le.PutUint32(r[offStartLine:], 12)
		r[offNfdata] = byte(len(f.funcdataOff))
		for k, o := range append(append([]uint32(nil), f.pcdata...), f.funcdataOff...) {
			le.PutUint32(r[funcRecordSize+4*k:], o)
		}
		records = append(records, rec)
		rec += funcRecordSize + 4*(len(f.pcdata)+len(f.funcdataOff))
	}
	le.PutUint32(mem[pclnAt+8*len(funcs):], funcs[len(funcs)-1].entry+100)
	return mem, pctabAt, records
}

// fakeModule puts mem in a module as two data segments split at cut,
// leaving out the zero bytes before first.
func fakeModule(mem []byte, first, cut int) []byte {
	segs := []Segment{{Offset: uint32(first), Data: mem[first:cut]}, {Offset: uint32(cut), Data: mem[cut:]}}
	secs := memorySection(1)
	secs = append(secs, section{id: sectionDataCount, content: []byte{2}}, section{id: sectionData, content: encodeData(segs)})
	return module(secs...)
}

// The pc-value tables of the hand-built module: each a value delta and a pc
// delta per pair, then a zero.
var (
	spA   = []byte{0x10, 4, 0x08, 2, 0}    // function a's frame sizes
	fileA = []byte{0x02, 6, 0}             // function a's file
	lineA = []byte{0x96, 0x01, 3, 4, 2, 0} // function a's lines (a two-byte delta)
	dataA = []byte{0x02, 6, 0}             // a pcdata table equal to fileA, stored once
	lineB = []byte{0x20, 9, 0}             // function b's lines
)

// handTable returns the hand-built table and where each pc-value table is.
func handTable() (mem []byte, pctabAt int, records []int, at map[string]int) {
	pctab := []byte{0}
	at = map[string]int{}
	for _, t := range []struct {
		name string
		b    []byte
	}{{"spA", spA}, {"fileA", fileA}, {"lineA", lineA}, {"lineB", lineB}} {
		at[t.name] = len(pctab)
		pctab = append(pctab, t.b...)
	}
	funcs := []fakeFunc{
		// a's pcdata 0 is the same bytes as its file table, so the linker
		// stored them once: that table must stay.
		{entry: 0x10000, pcsp: uint32(at["spA"]), pcfile: uint32(at["fileA"]), pcln: uint32(at["lineA"]), pcdata: []uint32{uint32(at["fileA"]), 0}, funcdataOff: []uint32{0xffffffff}},
		// b has no frame table, and its file table is a's.
		{entry: 0x20000, pcsp: 0, pcfile: uint32(at["fileA"]), pcln: uint32(at["lineB"])},
	}
	mem, pctabAt, records = fakeTable(0x1000, 0x2000, pctab, funcs)
	return mem, pctabAt, records, at
}

func TestStripLines(t *testing.T) {
	mem, pctabAt, records, at := handTable()
	mod := fakeModule(mem, 0x1000, 0x1000+100)
	out, st, err := StripLines(mod)
	require.NoError(t, err)
	segs, err := Segments(out)
	require.NoError(t, err)
	require.Len(t, segs, 2, "the segments keep their bounds")
	got := MemoryImage(segs)

	want := bytes.Clone(mem)
	le := binary.LittleEndian
	for _, r := range records {
		for _, o := range []int{offPcfile, offPcln, offCU, offStartLine} {
			le.PutUint32(want[r+o:], 0)
		}
	}
	clear(want[pctabAt+at["lineA"] : pctabAt+at["lineA"]+len(lineA)])
	clear(want[pctabAt+at["lineB"] : pctabAt+at["lineB"]+len(lineB)])
	h := 0x1000
	cu, pct := h+int(le.Uint64(mem[h+40:])), h+int(le.Uint64(mem[h+56:]))
	clear(want[cu:pct]) // the file indexes and names
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i], got[i], "memory at %#x", i)
	}

	// What the runtime needs is where it was.
	assert.Equal(t, spA, got[pctabAt+at["spA"]:pctabAt+at["spA"]+len(spA)], "a frame-size table")
	assert.Equal(t, dataA, got[pctabAt+at["fileA"]:pctabAt+at["fileA"]+len(dataA)], "a pcdata table shared with a file table")
	assert.Equal(t, "main.a\x00main.b\x00", string(got[h+pcHeaderSize:h+pcHeaderSize+14]), "the function names")
	assert.Equal(t, uint32(at["spA"]), le.Uint32(got[records[0]+offPcsp:]))
	assert.Equal(t, uint32(at["fileA"]), le.Uint32(got[records[0]+funcRecordSize:]))
	assert.Equal(t, LineStats{Funcs: 2, Tables: 2, Zeroed: 5 + 2 + len("/src/a.go")}, st)

	// Every section but the data section is as it was.
	before, err := parseModule(mod)
	require.NoError(t, err)
	after, err := parseModule(out)
	require.NoError(t, err)
	require.Len(t, after, len(before))
	for i := range before {
		if before[i].id != sectionData {
			assert.Equal(t, before[i], after[i])
		}
	}

	// Clearing again finds nothing more to clear.
	again, st2, err := StripLines(out)
	require.NoError(t, err)
	assert.Equal(t, out, again)
	assert.Equal(t, LineStats{Funcs: 2}, st2)
}

func TestStripLinesRefuses(t *testing.T) {
	le := binary.LittleEndian
	twice := func() []byte {
		mem, _, _, _ := handTable()
		mem2, _, _, _ := handTable()
		return append(mem, mem2...)
	}
	for name, tc := range map[string]struct {
		mem  func() []byte
		want string
	}{
		"no table":   {func() []byte { return make([]byte, 0x2000) }, "no Go function table"},
		"two tables": {twice, "2 places in memory read as a Go function table"},
		"another pointer size": {func() []byte {
			mem, _, _, _ := handTable()
			mem[0x1000+7] = 4
			return mem
		}, "want 0 0 1 8"},
		"a record that names another entry": {func() []byte {
			mem, _, records, _ := handTable()
			le.PutUint32(mem[records[1]:], 0x20001)
			return mem
		}, "function 1's record says it starts at 0x20001"},
		"functions out of order": {func() []byte {
			mem, _, records, _ := handTable()
			pcln := records[0] - 8*3
			le.PutUint32(mem[pcln+8:], 0x100)
			return mem
		}, "function 1 starts before function 0"},
		"a line table outside pctab": {func() []byte {
			mem, _, records, _ := handTable()
			le.PutUint32(mem[records[1]+offPcln:], 5000)
			return mem
		}, "names a pc-value table outside pctab"},
		"a line table that does not end": {func() []byte {
			mem, pctabAt, _, at := handTable()
			// lineB is the last table: make its closing zero a continuation.
			mem[pctabAt+at["lineB"]+len(lineB)-1] = 0x80
			return mem
		}, "the pc-value table at"},
	} {
		t.Run(name, func(t *testing.T) {
			mem := tc.mem()
			mod := fakeModule(mem, 0x1000, 0x1000+100)
			_, _, err := StripLines(mod)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, errors.Is(err, ErrUnsupported), "ErrUnsupported: %v", err)
		})
	}
	_, _, err := StripLines([]byte("not wasm"))
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrUnsupported))
}

// TestStripLinesCommand: -strip-lines clears the tables of the file in
// place and says so; a module whose table it cannot read keeps its tables,
// with a note, since it runs as it is (only larger).
func TestStripLinesCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.wasm")
	mem, _, _, _ := handTable()
	require.NoError(t, os.WriteFile(file, fakeModule(mem, 0x1000, 0x1100), 0o644))
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-strip-lines", file}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "the file and line tables of 2 functions cleared (2 tables")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	segs, err := Segments(b)
	require.NoError(t, err)
	assert.NotEqual(t, mem, MemoryImage(segs))

	_, plain := sample()
	require.NoError(t, os.WriteFile(file, plain, 0o644))
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run([]string{"-strip-lines", file}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "line tables left in place: not merged: no Go function table")
	assert.NotContains(t, stdout.String(), "cleared")
	b, err = os.ReadFile(file)
	require.NoError(t, err)
	merged, _, err := Merge(plain, DefaultGap)
	require.NoError(t, err)
	assert.Equal(t, merged, b, "the module is merged and otherwise left as it is")
}

// TestStripCommand: -strip-inlining and -short-names each run or, for a
// table they cannot read, leave the module as the passes before left it;
// the names list is written beside nothing else.
func TestStripCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.wasm")
	mem, _, _, _ := handTable()
	require.NoError(t, os.WriteFile(file, fakeModule(mem, 0x1000, 0x1100), 0o644))
	var stdout, stderr bytes.Buffer
	namesDir := filepath.Join(dir, "names")
	require.Equal(t, 0, run([]string{"-strip-lines", "-strip-inlining", "-short-names", namesDir, file}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "inline trees left in place: not merged: 0 places in memory read as the runtime's module record")
	assert.Contains(t, stdout.String(), "2 of 2 functions renamed fn.N or runtime.N; their names are in "+filepath.Join(namesDir, "m.wasm.names"))
	list, err := os.ReadFile(filepath.Join(namesDir, "m.wasm.names"))
	require.NoError(t, err)
	assert.Equal(t, "fn.0\tmain.a\nfn.1\tmain.b\n", string(list))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	_, _, err = ShortenNames(b)
	assert.ErrorContains(t, err, "the function names are short already", "the file holds the short names")

	// A second run leaves the names, and their list, alone.
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run([]string{"-short-names", namesDir, file}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "function names left in place: not merged: the function names are short already")
	again, err := os.ReadFile(filepath.Join(namesDir, "m.wasm.names"))
	require.NoError(t, err)
	assert.Equal(t, list, again)
}

// probeProgram is a program that leans on the tables the runtime keeps:
// deep recursion grows and copies the stack (frame sizes, stack maps), a
// collection in the middle of it scans every frame, and recovered panics
// unwind, one of them through a wrapper whose inline tree gorecover reads
// (recover is called by a function the deferred method calls, so it must
// return nil), and a nil pointer whose value method fmt calls panics
// through runtime.panicwrap, which reads the wrapper's name. It counts the
// goroutines, which leaves out the runtime's own by their names' prefix (2
// on js/wasm as linked; 7 if the runtime's functions lost the prefix),
// and prints where runtime.Caller says it is and the name FuncForPC gives
// main.main. With the argument "crash" it panics instead,
// for the traceback.
const probeProgram = `package main

import (
	"fmt"
	"os"
	"runtime"
)

type node struct {
	next *node
	v    int
}

func deep(n int, list *node) int {
	if n == 0 {
		runtime.GC()
		s := 0
		for p := list; p != nil; p = p.next {
			s += p.v
		}
		return s
	}
	buf := [64]byte{byte(n)}
	return deep(n-1, &node{list, int(buf[0])})
}

func fails() (err error) {
	defer func() { err = fmt.Errorf("recovered: %v", recover()) }()
	var m map[string]int
	m["x"]++
	return nil
}

var got []string

type T struct{}

// M is inlined into the wrapper (*T).M that the interface call defers.
func (T) M() { tryRecover("indirect") }

// R calls recover directly: through the wrapper it still recovers.
func (T) R() { got = append(got, fmt.Sprint("direct: ", recover())) }

//go:noinline
func tryRecover(what string) { got = append(got, fmt.Sprint(what, ": ", recover())) }

func wrapped(direct bool) (out []string) {
	got = nil
	defer func() { out = append(got, fmt.Sprint("outer: ", recover())) }()
	var i interface{ M(); R() } = &T{}
	if direct {
		defer i.R()
	} else {
		defer i.M()
	}
	panic("boom")
}

//go:noinline
func crash(n int) { panic(fmt.Sprint("crash ", n)) }

// V's String is a value method: called through a nil *V, the wrapper
// (*V).String panics through runtime.panicwrap, which reads the wrapper's
// name, and fmt recovers and prints <nil>.
type V struct{}

func (V) String() string { return "v" }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "crash" {
		crash(7)
	}
	fmt.Println(deep(20000, nil))
	fmt.Println(fails())
	fmt.Println(wrapped(false), wrapped(true))
	var v *V
	fmt.Println(v, runtime.NumGoroutine())
	pc, file, line, ok := runtime.Caller(0)
	fmt.Println(file, line, ok, runtime.FuncForPC(0) == nil)
	fmt.Println(runtime.FuncForPC(pc).Name())
}
`

// TestStripRuns builds probeProgram for wasm, clears its tables pass by
// pass as `make wasm` does and runs each under node: every stripped program
// computes the same and recovers the same panics; runtime.Caller loses its
// file and line with the line tables, and FuncForPC and the traceback say
// fn.N, which the names list turns back into the function's name.
func TestStripRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm program")
	}
	runner := wasmnode.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(probeProgram), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module probe\n\ngo 1.26.0\n"), 0o644))
	orig := filepath.Join(dir, "orig.wasm")
	require.NoError(t, wasmnode.Build(ctx, dir, ".", orig))
	mod, err := os.ReadFile(orig)
	require.NoError(t, err)

	lines, ls, err := StripLines(mod)
	require.NoError(t, err)
	assert.Greater(t, ls.Tables, 100)
	inlining, is, err := StripInlining(lines)
	require.NoError(t, err)
	assert.Greater(t, is.Trees, 100, "functions with inline trees cleared")
	assert.Greater(t, is.Kept, 0, "wrappers keep their trees")
	assert.Greater(t, is.Zeroed, 10_000)
	unsafe, ps, err := StripUnsafePoints(inlining)
	require.NoError(t, err)
	assert.Greater(t, ps.Tables, 10, "unsafe-point tables cleared")
	args, as, err := StripArgInfo(unsafe)
	require.NoError(t, err)
	assert.Greater(t, as.Cleared, 100, "functions whose argument layouts were cleared")
	assert.Greater(t, as.Records, 10)
	assert.Greater(t, as.Zeroed, 100)
	short, names, err := ShortenNames(args)
	require.NoError(t, err)
	at := func(was string) int { return slices.IndexFunc(names, func(n Name) bool { return n.Was == was }) }
	mainAt, crashAt := at("main.main"), at("main.crash")
	require.GreaterOrEqual(t, mainAt, 0, "the names list names main.main")
	require.GreaterOrEqual(t, crashAt, 0)

	// The program's functions found to call recover are those that do.
	var recovering []string
	_, err = editMemory(mod, func(mem []byte, sections []section) error {
		tab, err := findPclntab(mem)
		require.NoError(t, err)
		found, err := callersOf(mem, tab, sections, "runtime.gorecover")
		require.NoError(t, err)
		for i := range found {
			if strings.HasPrefix(names[i].Was, "main.") { // and the standard library's own
				recovering = append(recovering, names[i].Was)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"main.fails.func1", "main.T.R", "main.tryRecover", "main.wrapped.func1"}, recovering)

	files := map[string][]byte{"orig": mod, "lines": lines, "inlining": inlining, "unsafe": unsafe, "args": args, "short": short}
	runs, crashes := map[string]string{}, map[string]string{}
	for name, b := range files {
		f := filepath.Join(dir, name+".wasm")
		require.NoError(t, os.WriteFile(f, b, 0o644))
		out, err := wasmnode.Command(ctx, runner, f, nil).CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
		runs[name] = string(out)
		out, err = wasmnode.Command(ctx, runner, f, nil, "crash").CombinedOutput()
		require.Error(t, err, "%s crashes", name)
		crashes[name] = string(out)
	}
	sum := 0
	for n := 1; n <= 20000; n++ {
		sum += int(byte(n))
	}
	want := strconv.Itoa(sum) + "\nrecovered: assignment to entry in nil map\n" +
		"[indirect: <nil> outer: boom] [direct: boom outer: <nil>]\n<nil> 2\n"
	for name, out := range runs {
		assert.True(t, strings.HasPrefix(out, want), "%s: %q", name, out)
		assert.Contains(t, crashes[name], "panic: crash 7", name)
	}
	assert.Contains(t, runs["orig"], "probe/main.go 78 true true\nmain.main\n", "as linked, runtime.Caller names the file and line")
	assert.Equal(t, want+"? 0 true true\nmain.main\n", runs["lines"])
	assert.Equal(t, runs["lines"], runs["inlining"])
	assert.Equal(t, runs["lines"], runs["unsafe"])
	assert.Equal(t, runs["lines"], runs["args"])
	assert.Contains(t, crashes["unsafe"], "main.crash(0x7)", "as linked, the traceback prints crash's argument")
	assert.Contains(t, crashes["args"], "main.crash()", "without the layouts, it prints none")
	assert.Equal(t, want+"? 0 true true\n"+names[mainAt].Now+"\n", runs["short"])
	assert.Contains(t, crashes["lines"], "main.crash(", "the traceback names the function")
	assert.Equal(t, "fn."+strconv.Itoa(crashAt), names[crashAt].Now)
	assert.Equal(t, "main.(*V).String", names[at("main.(*V).String")].Now, "a wrapper that calls panicwrap keeps the name panicwrap reads")
	assert.Contains(t, crashes["short"], names[crashAt].Now+"(", "the traceback gives its short name")
	assert.NotContains(t, crashes["short"], "main.crash")
	_, err = editMemory(short, func(mem []byte, _ []section) error {
		tab, err := findPclntab(mem)
		require.NoError(t, err)
		for i, n := range names {
			now, err := tab.name(mem, le.Uint32(mem[tab.record(mem, i)+4:]))
			require.NoError(t, err)
			assert.Equal(t, n.Now, now)
			switch {
			case keepNames[n.Was]:
				assert.Equal(t, n.Was, now, "a name the runtime compares stays")
			case n.Now == n.Was:
				assert.Contains(t, n.Was, ".(*", "only a wrapper that calls panicwrap (pkg.(*T).M) keeps its name")
			case strings.HasPrefix(n.Was, "runtime."):
				assert.Equal(t, "runtime."+strconv.Itoa(i), now, "the runtime's functions keep their prefix")
			default:
				assert.Equal(t, "fn."+strconv.Itoa(i), now)
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// TestShortenNames renames the hand-built table's two functions and writes
// nothing but the new names where the old ones were. (TestStripRuns checks
// the names the runtime compares stay.)
func TestShortenNames(t *testing.T) {
	mem, _, records, _ := handTable()
	for _, tc := range []struct {
		mem      []byte
		names    []Name
		table    string
		nameOffs []uint32
	}{
		{mem, []Name{{"fn.0", "main.a"}, {"fn.1", "main.b"}}, "fn.0\x00fn.1\x00", []uint32{0, 5}},
	} {
		out, names, err := ShortenNames(fakeModule(tc.mem, 0x1000, 0x1000+100))
		require.NoError(t, err)
		assert.Equal(t, tc.names, names)
		segs, err := Segments(out)
		require.NoError(t, err)
		got := MemoryImage(segs)
		want := bytes.Clone(tc.mem)
		h := 0x1000
		region := want[h+pcHeaderSize : h+int(le.Uint64(want[h+40:]))]
		clear(region)
		copy(region, tc.table)
		for i, r := range records {
			le.PutUint32(want[r+4:], tc.nameOffs[i])
		}
		assert.Equal(t, want, got)
	}
}

// TestStripInliningRefuses: the hand-built table has no module record to
// find the inline trees by, so StripInlining leaves it alone.
func TestStripInliningRefuses(t *testing.T) {
	mem, _, _, _ := handTable()
	_, _, err := StripInlining(fakeModule(mem, 0x1000, 0x1000+100))
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnsupported), "ErrUnsupported: %v", err)
	assert.Contains(t, err.Error(), "0 places in memory read as the runtime's module record")
}

// TestStripUnsafePoints: function a's unsafe-point table is its file table's
// bytes (the linker stored them once), so it stays while the file table is
// kept and goes once the line tables are cleared; the offset goes either way.
func TestStripUnsafePoints(t *testing.T) {
	mem, pctabAt, records, at := handTable()
	mod := fakeModule(mem, 0x1000, 0x1000+100)
	read := func(b []byte) []byte {
		segs, err := Segments(b)
		require.NoError(t, err)
		return MemoryImage(segs)
	}

	out, st, err := StripUnsafePoints(mod)
	require.NoError(t, err)
	assert.Equal(t, PreemptStats{Funcs: 2}, st, "shared with a file table, so nothing cleared")
	want := bytes.Clone(mem)
	le.PutUint32(want[records[0]+funcRecordSize:], 0)
	assert.Equal(t, want, read(out))

	lean, _, err := StripLines(mod)
	require.NoError(t, err)
	out, st, err = StripUnsafePoints(lean)
	require.NoError(t, err)
	assert.Equal(t, PreemptStats{Funcs: 2, Tables: 1, Zeroed: 2}, st)
	got := read(out)
	assert.Zero(t, le.Uint32(got[records[0]+funcRecordSize:]))
	assert.Equal(t, make([]byte, len(dataA)), got[pctabAt+at["fileA"]:pctabAt+at["fileA"]+len(dataA)])
	assert.Equal(t, spA, got[pctabAt+at["spA"]:pctabAt+at["spA"]+len(spA)], "a frame-size table stays")
}
