package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgInfoLen reads records as the runtime's printArgs does: offset and
// size pairs and one-byte operators, up to the end marker.
func TestArgInfoLen(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  []byte
		want int
	}{
		{"no arguments", []byte{0xff}, 1},
		{"two words", []byte{0x00, 0x08, 0x08, 0x08, 0xff}, 5},
		{"an aggregate and more", []byte{0xfe, 0x00, 0x08, 0x08, 0x04, 0xfd, 0xfc, 0xff}, 8},
		{"an offset too large", []byte{0xfb, 0xff}, 2},
		{"an offset that reads like the end is a size's partner", []byte{0x10, 0xff, 0xff}, 3},
	} {
		mem := append(append([]byte{0xaa, 0xbb}, tc.rec...), 0xcc)
		n, err := argInfoLen(mem, 2)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, n, tc.name)
	}
	_, err := argInfoLen(bytes.Repeat([]byte{0x08}, 400), 0)
	assert.ErrorContains(t, err, "no end within 171 bytes", "a record longer than the runtime reads is not one")
	_, err = argInfoLen([]byte{0x00, 0x08}, 0)
	assert.Error(t, err, "a record that runs out of memory")
}
