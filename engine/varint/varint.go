// Package varint writes and reads the numbers of the engine's snapshots
// (window, join and keyed state, a stream job's operators) as varints in
// the layout of encoding/binary: LEB128, and zig-zag for signed values.
// It exists because encoding/binary imports reflect, which the browser
// module must not carry; one copy serves every snapshot.
package varint

// AppendUvarint appends v to b and returns the result.
func AppendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendVarint appends v to b, zig-zag encoded, and returns the result.
func AppendVarint(b []byte, v int64) []byte {
	return AppendUvarint(b, uint64(v<<1)^uint64(v>>63))
}

// Uvarint reads a number from the start of b and returns it with the bytes
// it took; n is 0 when b ends before the number does and negative when the
// number overflows 64 bits.
func Uvarint(b []byte) (v uint64, n int) {
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

// Varint reads a zig-zag encoded number as Uvarint does.
func Varint(b []byte) (int64, int) {
	u, n := Uvarint(b)
	return int64(u>>1) ^ -int64(u&1), n
}
