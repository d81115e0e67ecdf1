// Package tiny has two small benchmarks for wasmbench's own test.
package tiny

import (
	"strconv"
	"testing"
)

var sink int

func BenchmarkAtoi(b *testing.B) {
	for b.Loop() {
		n, _ := strconv.Atoi("123456789")
		sink += n
	}
}

// BenchmarkRate reports a rate, as the engine's runs report events/s.
func BenchmarkRate(b *testing.B) {
	b.Run("sub", func(b *testing.B) {
		for b.Loop() {
			sink += len(strconv.Itoa(sink))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

func TestNotABenchmark(t *testing.T) {}
