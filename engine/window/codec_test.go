package window

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/varint"
)

// The hand-written varints are encoding/binary's, byte for byte.
func TestVarintsMatchEncodingBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	vals := []int64{0, 1, -1, 63, -64, 64, 127, 128, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	for range 2000 {
		vals = append(vals, int64(r.Uint64())>>r.IntN(64))
	}
	for _, v := range vals {
		got := varint.AppendVarint(nil, v)
		require.Equal(t, binary.AppendVarint(nil, v), got, "%d", v)
		back, n := varint.Varint(got)
		require.Equal(t, v, back)
		require.Equal(t, len(got), n)
		u := uint64(v)
		gotU := varint.AppendUvarint(nil, u)
		require.Equal(t, binary.AppendUvarint(nil, u), gotU, "%d", u)
		backU, n := varint.Uvarint(gotU)
		require.Equal(t, u, backU)
		require.Equal(t, len(gotU), n)
		for cut := range len(gotU) {
			_, n := varint.Uvarint(gotU[:cut])
			require.LessOrEqual(t, n, 0, "a cut number is refused")
		}
	}
	_, n := varint.Uvarint([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	require.Less(t, n, 0, "more than 64 bits")
	_, n = varint.Uvarint([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	require.Less(t, n, 0, "more than ten bytes")
}
