package prose

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assigned reports whether Unicode (as Go's tables have it) assigns r: the
// only characters where Quote may differ from strconv.Quote are those it
// does not.
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// unassignedIn reports whether s holds a character Unicode does not assign.
func unassignedIn(s string) bool {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		if (r != utf8.RuneError || w > 1) && !assigned(r) {
			return true
		}
	}
	return false
}

// TestQuoteAgreesWithStrconv quotes every character, between others that
// need escapes, and every byte that is not UTF-8, with Quote and QuoteRune
// and with strconv's: they agree on every character Unicode assigns.
func TestQuoteAgreesWithStrconv(t *testing.T) {
	differ := 0
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		s := "a\"" + string(r) + "'\\\n\x00é\u200b"
		if got, want := Quote(s), strconv.Quote(s); got != want {
			require.False(t, assigned(r), "Quote(%q) = %s, strconv says %s", s, got, want)
			differ++
		}
		if got, want := QuoteRune(r), strconv.QuoteRune(r); got != want {
			require.False(t, assigned(r), "QuoteRune(%U) = %s, strconv says %s", r, got, want)
		}
	}
	t.Logf("%d unassigned characters quoted as they are", differ)
	assert.Less(t, differ, 0x8000, "the long runs of unassigned characters are in the table")
	for c := 0x80; c < 0x100; c++ {
		s := "x" + string([]byte{byte(c)}) + "y"
		assert.Equal(t, strconv.Quote(s), Quote(s), "the byte %#x alone is not UTF-8", c)
	}
	assert.Equal(t, `"order\u00a01"`, Quote("order\u00a01"), "a no-break space shows")
	assert.Equal(t, `"\ufeffscenario"`, Quote("\ufeffscenario"), "a byte-order mark shows")
	assert.Equal(t, `'"'`, QuoteRune('"'))
	assert.Equal(t, `"'"`, Quote("'"))
}

// TestQuoteIsWhatFormatsQ: %q goes through Quote.
func TestQuoteIsWhatFormatsQ(t *testing.T) {
	assert.Equal(t, `key "a\u200bb" is unknown`, F("key %q is unknown", "a\u200bb"))
}

// FuzzQuote: whatever the text, strconv.Unquote gives it back from Quote,
// and Quote agrees with strconv.Quote unless the text holds a character
// Unicode does not assign.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "tab\there", "\xff\xfe", "zero\u200bwidth", "\U000E0041", "\uffff", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		back, err := strconv.Unquote(q)
		require.NoError(t, err, "%s does not unquote", q)
		require.Equal(t, s, back)
		if !unassignedIn(s) {
			require.Equal(t, strconv.Quote(s), q)
		}
		require.False(t, strings.ContainsAny(q[1:len(q)-1], "\n\r"), "a quote is one line")
	})
}
