package chain

import "testing"

// BenchmarkRun runs the strong chain's scenario (its longest run) from
// its text, as the chain builder's page does for a chain it has not drawn
// before.
func BenchmarkRun(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Run(c); err != nil {
			b.Fatal(err)
		}
	}
}
