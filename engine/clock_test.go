package engine_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/vtime"
)

// TestClockResolutionCutsReadings: a clock with a resolution reads the
// largest multiple of it at or below what it would read without one, for
// any skew and instant of the day; 1ms, the default, changes nothing.
func TestClockResolutionCutsReadings(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 10_000 {
		at := vtime.Time(r.Int64N(int64(vtime.Day)))
		skew := vtime.Duration(r.Int64N(int64(2*vtime.Hour))) - vtime.Hour
		res := []vtime.Duration{vtime.Millisecond, 7 * vtime.Millisecond, vtime.Second, vtime.Minute, vtime.Hour}[r.IntN(5)]
		fine := (&engine.Clock{Skew: skew}).Read(at)
		got := (&engine.Clock{Skew: skew, Resolution: res}).Read(at)
		if fine < 0 {
			continue
		}
		assert.Zero(t, got%vtime.Time(res), "at %s, skew %s, resolution %s: %s", at, skew, res, got)
		assert.LessOrEqual(t, got, fine)
		assert.Greater(t, got, fine-vtime.Time(res))
		if res == vtime.Millisecond {
			assert.Equal(t, fine, got)
		}
	}
}
