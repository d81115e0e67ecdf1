package assetpack

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBrotliWindowFitsTheInput(t *testing.T) {
	for _, tc := range []struct{ n, bits int }{
		{0, 22}, {1 << 20, 22}, {1<<22 - 16, 22}, {1<<22 - 15, 23},
		{6_000_000, 23}, {1<<23 - 15, 24}, {1 << 30, 24},
	} {
		assert.Equal(t, tc.bits, window(tc.n), "%d bytes", tc.n)
	}
}

// A module longer than 4 MiB that repeats, at its end, a stretch of its
// start: the repeat is a reference only with a window that reaches back
// that far.
func TestBrotliReachesBackPastFourMiB(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	head := make([]byte, 1<<20)
	for i := range head {
		head[i] = byte(r.Uint32())
	}
	middle := make([]byte, 4<<20)
	for i := range middle {
		middle[i] = byte(r.Uint32())
	}
	in := bytes.Join([][]byte{head, middle, head}, nil)

	out, err := Brotli(in, 4)
	require.NoError(t, err)
	back, err := io.ReadAll(brotli.NewReader(bytes.NewReader(out)))
	require.NoError(t, err)
	require.True(t, bytes.Equal(in, back), "the round trip changed the bytes")
	// Random bytes do not compress: with the repeat found, the output is
	// about the 5 MiB of distinct bytes, not the 6 MiB of the input.
	assert.Less(t, len(out), len(head)+len(middle)+len(head)/4)
}
