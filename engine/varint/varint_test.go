package varint_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine/varint"
)

// TestTheLayoutOfEncodingBinary writes and reads numbers at the edges and
// finds the bytes and the values encoding/binary gives, and its errors for
// a number cut short or longer than 64 bits.
func TestTheLayoutOfEncodingBinary(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, 300, -300, math.MaxInt64, math.MinInt64} {
		got := varint.AppendVarint(nil, v)
		assert.Equal(t, binary.AppendVarint(nil, v), got, "%d", v)
		back, n := varint.Varint(got)
		assert.Equal(t, v, back)
		assert.Equal(t, len(got), n)
		u := uint64(v)
		assert.Equal(t, binary.AppendUvarint(nil, u), varint.AppendUvarint(nil, u), "%d", u)
		ub, un := varint.Uvarint(varint.AppendUvarint([]byte{}, u))
		assert.Equal(t, u, ub)
		assert.Positive(t, un)
	}
	_, n := varint.Uvarint([]byte{0x80, 0x80})
	assert.Zero(t, n, "cut short")
	_, n = varint.Uvarint([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	assert.Negative(t, n, "over 64 bits")
	_, wantN := binary.Uvarint([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	assert.Negative(t, wantN)
}
