package widget

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWordsSplitAsFieldsDoesOnASCII: words, which keeps strings.Fields out
// of the browser module, splits a fault's arguments as strings.Fields
// would, for any text of ASCII letters, digits and white space.
func TestWordsSplitAsFieldsDoesOnASCII(t *testing.T) {
	for _, s := range []string{"", " ", "tills 2 30s", "  tills\t2\n30s  ", "a", "a  b", "\v\fa\r\nb", "x y z w"} {
		want := strings.Fields(s)
		if len(want) == 0 {
			want = nil
		}
		assert.Equal(t, want, words(s), "%q", s)
	}
}

func TestAllDigits(t *testing.T) {
	assert.True(t, allDigits("0123456789"))
	assert.True(t, allDigits(""))
	for _, s := range []string{"12a", "-1", "1 ", "１"} {
		assert.False(t, allDigits(s), s)
	}
}

// FuzzWords holds words to strings.Fields on any text without a space
// outside ASCII.
func FuzzWords(f *testing.F) {
	f.Add("tills 2 30s")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range s {
			if r > 0x7f {
				return
			}
		}
		want := strings.Fields(s)
		if len(want) == 0 {
			want = nil
		}
		assert.Equal(t, want, words(s))
	})
}
