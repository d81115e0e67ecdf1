package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/wasmnode"
)

func TestParseOutput(t *testing.T) {
	native := `goos: linux
goarch: amd64
BenchmarkLogRun-2   	       3	4010762894 ns/op	   1240105 events/op	    311653 events/s	       280.4 trace-B/event	397140901 B/op	  529908 allocs/op
BenchmarkRun/mark=lsn-2         	       3	 256165390 ns/op	    303003 events/op	   1241125 events/s
BenchmarkSeek/Seek-16 	  30000	     35210 ns/op
--- FAIL: BenchmarkBroken-2
PASS
`
	rs := parseOutput(native)
	require.Len(t, rs, 3)
	assert.Equal(t, "LogRun", rs[0].name)
	assert.Equal(t, 3, rs[0].n)
	assert.Equal(t, 311653.0, rs[0].metrics["events/s"])
	assert.Equal(t, 529908.0, rs[0].metrics["allocs/op"])
	assert.Equal(t, "Run/mark=lsn", rs[1].name)
	assert.Equal(t, "Seek/Seek", rs[2].name)
	assert.Equal(t, 35210.0, rs[2].metrics["ns/op"])

	wasm := parseOutput("BenchmarkRun/mark=lsn         	       3	 502566827 ns/op	    607393 events/s\n")
	require.Len(t, wasm, 1)
	assert.Equal(t, "Run/mark=lsn", wasm[0].name, "a wasm name has no -GOMAXPROCS suffix and must match the native one")
}

func TestCompare(t *testing.T) {
	res := func(unit string, v float64) result { return result{metrics: map[string]float64{unit: v, "ns/op": 1}} }
	// A rate: wasm is slower by native/wasm, paired round by round.
	p := &pair{
		native: []result{res("events/s", 1.2e6), res("events/s", 1.0e6), res("events/s", 1.4e6)},
		wasm:   []result{res("events/s", 0.6e6), res("events/s", 0.4e6), res("events/s", 0.7e6)},
	}
	c, err := compare(p)
	require.NoError(t, err)
	assert.Equal(t, "events/s", c.unit)
	assert.InDelta(t, 1.2e6, c.native, 1)
	assert.InDelta(t, 0.6e6, c.wasm, 1)
	assert.InDelta(t, 2.0, c.ratio, 1e-9)
	assert.InDelta(t, 2.0, c.lowest, 1e-9)
	assert.InDelta(t, 2.5, c.widest, 1e-9)

	// A time: wasm is slower by wasm/native.
	ns := func(v float64) result { return result{metrics: map[string]float64{"ns/op": v}} }
	c, err = compare(&pair{native: []result{ns(100), ns(120)}, wasm: []result{ns(300), ns(240)}})
	require.NoError(t, err)
	assert.Equal(t, "ns/op", c.unit)
	assert.InDelta(t, 2.5, c.ratio, 1e-9)
	assert.InDelta(t, 2.0, c.lowest, 1e-9)
	assert.InDelta(t, 3.0, c.widest, 1e-9)

	_, err = compare(&pair{native: []result{ns(100)}})
	assert.Error(t, err)
	_, err = compare(&pair{native: []result{ns(0)}, wasm: []result{ns(10)}})
	assert.Error(t, err)
}

func TestParseSpec(t *testing.T) {
	s, err := parseSpec("./engine:Run$:3x")
	require.NoError(t, err)
	assert.Equal(t, spec{pkg: "./engine", pattern: "Run$", benchtime: "3x"}, s)
	s, err = parseSpec("./engine")
	require.NoError(t, err)
	assert.Equal(t, spec{pkg: "./engine", pattern: ".", benchtime: "1s"}, s)
	_, err = parseSpec("./engine:(")
	assert.Error(t, err)
	_, err = parseSpec(":Run")
	assert.Error(t, err)
}

func TestQuantity(t *testing.T) {
	assert.Equal(t, "1.24 M events/s", quantity(1.2411e6, "events/s"))
	assert.Equal(t, "2.69 s/op", quantity(2.686e9, "ns/op"))
	assert.Equal(t, "256.2 ms/op", quantity(256.165e6, "ns/op"))
	assert.Equal(t, "35.2 µs/op", quantity(35210, "ns/op"))
	assert.Equal(t, "12 ns/op", quantity(12, "ns/op"))
}

// TestRunsBothPlatforms runs a small package's benchmarks natively and
// under node and checks the table names each, with a ratio.
func TestRunsBothPlatforms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs benchmarks under node")
	}
	wasmnode.Require(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-count", "2", "./testdata/tiny:.:200x"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr:\n%s", stderr.String())
	out := stdout.String()
	t.Log("\n" + out)
	assert.Contains(t, out, "GOGC=400 GOMEMLIMIT=256MiB")
	assert.Contains(t, out, "2 round(s) after a warm-up run in each process")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, "a header, the column names and one row per benchmark")
	assert.True(t, strings.HasPrefix(lines[2], "Atoi "), lines[2])
	assert.Contains(t, lines[2], "ns/op")
	assert.True(t, strings.HasPrefix(lines[3], "Rate/sub "), lines[3])
	assert.Contains(t, lines[3], "M events/s")
	assert.Contains(t, lines[3], "×")
	assert.NotContains(t, out, "NotABenchmark")

	stderr.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"./testdata/tiny:NoSuch"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `no benchmark matching "NoSuch"`)
	assert.Equal(t, 2, run(context.Background(), nil, &stdout, &stderr))
}

func TestLastOfEach(t *testing.T) {
	rs := parseOutput(`BenchmarkA-2 1 300 ns/op
BenchmarkB-2 1 50 ns/op
BenchmarkA-2 1 100 ns/op
BenchmarkB-2 1 40 ns/op
`)
	got := lastOfEach(rs)
	require.Len(t, got, 2)
	assert.Equal(t, "A", got[0].name)
	assert.Equal(t, 100.0, got[0].metrics["ns/op"], "the warm-up run is dropped")
	assert.Equal(t, 40.0, got[1].metrics["ns/op"])
}
