package join

// The snapshot's numbers are varints in the layout of encoding/binary
// (LEB128, zig-zag for signed values), written here because
// encoding/binary imports reflect, which the browser module must not carry.

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendVarint(b []byte, v int64) []byte {
	return appendUvarint(b, uint64(v<<1)^uint64(v>>63))
}

// uvarint reads a varint from b and returns it with the bytes it took, or
// n <= 0 when b ends early or the number overflows 64 bits.
func uvarint(b []byte) (v uint64, n int) {
	var shift uint
	for i, c := range b {
		if i == 10 || i == 9 && c > 1 {
			return 0, -1
		}
		if c < 0x80 {
			return v | uint64(c)<<shift, i + 1
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func varint(b []byte) (int64, int) {
	u, n := uvarint(b)
	return int64(u>>1) ^ -int64(u&1), n
}
