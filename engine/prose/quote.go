package prose

import "unicode/utf8"

// Quote returns s as a double-quoted Go string literal, as strconv.Quote
// does for every assigned character: errors quote what a scenario, a link
// or a knob said with it, so that an invisible character (a no-break space,
// a zero-width space, a byte-order mark pasted with the text) shows as an
// escape and not as nothing.
//
// It exists for the browser's module: strconv.Quote brings Go's tables of
// printable characters and its escaping of every rune, about 18 KB of wasm
// and 4.5 KB of brotli (docs/performance.md, "Download: quoting without
// strconv"). Quote knows the non-printable characters Unicode assigns
// (invisible, below); some characters Unicode has not assigned yet, which
// strconv escapes, it writes as they are.
//
//go:noinline
func Quote(s string) string { return quoteWith(s, '"') }

// QuoteRune returns r as a single-quoted Go character literal, as
// strconv.QuoteRune does for every assigned character.
func QuoteRune(r rune) string {
	if !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	return quoteWith(string(r), '\'')
}

// quoteWith quotes s between two q, escaping q, the backslash, control
// characters, invisible characters and the bytes of s that are not UTF-8,
// with the escapes strconv writes for each.
func quoteWith(s string, q byte) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, q)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b = append(b, '\\', 'x', hex[s[i]>>4], hex[s[i]&15])
			i++
			continue
		}
		i += w
		switch {
		case r == rune(q) || r == '\\':
			b = append(b, '\\', byte(r))
		case r >= ' ' && r < utf8.RuneSelf && r != 0x7f:
			b = append(b, byte(r))
		case r < utf8.RuneSelf:
			if e := escapes[r&31]; r < ' ' && e != 0 {
				b = append(b, '\\', e)
			} else {
				b = append(b, '\\', 'x', hex[r>>4], hex[r&15])
			}
		case !invisible(r):
			b = utf8.AppendRune(b, r)
		case r > 0xffff:
			b = append(b, '\\', 'U')
			for sh := 28; sh >= 0; sh -= 4 {
				b = append(b, hex[r>>sh&15])
			}
		default:
			b = append(b, '\\', 'u')
			for sh := 12; sh >= 0; sh -= 4 {
				b = append(b, hex[r>>sh&15])
			}
		}
	}
	return string(append(b, q))
}

// escapes are the one-letter escapes of the control characters that have
// one (\a \b \t \n \v \f \r), by code; 0 where there is none.
var escapes = [32]byte{7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r'}

// invisibleRanges are the ranges, first and last, of the characters above
// ASCII that Unicode assigns and Go does not count as printable
// (unicode.IsPrint): the C1 controls, spaces other than ASCII's, format
// characters and private use. A range spans the characters Unicode has not
// assigned around it, and the long runs of them (most of planes 3 to 16)
// have ranges of their own, as strconv escapes those too. TestQuoteAgreesWithStrconv checks the
// table against Go's own, character by character.
var invisibleRanges = [...]rune{
	0x0080, 0x00A0,
	0x00AD, 0x00AD,
	0x0600, 0x0605,
	0x061C, 0x061C,
	0x06DD, 0x06DD,
	0x070F, 0x070F,
	0x0890, 0x0891,
	0x08E2, 0x08E2,
	0x1680, 0x1680,
	0x180E, 0x180E,
	0x2000, 0x200F,
	0x2028, 0x202F,
	0x205F, 0x206F,
	0x3000, 0x3000,
	0xD7FC, 0xF8FF,
	0xFEFF, 0xFEFF,
	0xFFF9, 0xFFFB,
	0x110BD, 0x110BD,
	0x110CD, 0x110CD,
	0x13430, 0x1343F,
	0x14647, 0x167FF,
	0x18D09, 0x1AFEF,
	0x1BCA0, 0x1CEFF,
	0x1D173, 0x1D17A,
	0x323B0, 0xE00FF,
	0xE01F0, 0x10FFFF,
}

// invisible reports whether r, above ASCII, is in invisibleRanges.
func invisible(r rune) bool {
	for i := 0; i < len(invisibleRanges); i += 2 {
		if r < invisibleRanges[i] {
			return false
		}
		if r <= invisibleRanges[i+1] {
			return true
		}
	}
	return false
}
