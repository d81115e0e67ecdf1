// Package whole reads base-10 whole numbers from text: a scenario's
// counts, steps and partitions, a business key, a link's seed.
//
// It exists for the browser. strconv.Atoi, ParseInt and ParseUint return a
// *strconv.NumError, and with them the browser's module carries the
// wrappers that build one, its methods and its equality function (about
// 9 KB of wasm; the parsers of internal/strconv beneath them stay, since
// Go's runtime reads GOGC and GODEBUG with them). The engine only ever
// reads base 10, and no caller shows strconv's error text, so these
// functions report failure with a bool.
//
// Each accepts exactly what its strconv counterpart accepts with base 10,
// and returns the same number: ASCII digits only, at least one, with
// leading zeros allowed and no underscores, spaces or base prefixes; Int64
// and Int also take one leading + or -. On failure the number is 0 when s
// is not a whole number, and the bound nearest to it when it is one
// outside the type's range, as strconv's value with ErrSyntax and ErrRange
// is; a string with a digit after the range is exceeded counts as out of
// range even if a character that is not a digit follows, again as in
// strconv. The tests compare the three with strconv on fuzzed input.
package whole

import "math/bits"

// Uint64 reads s as strconv.ParseUint(s, 10, 64) does, reporting whether
// it is a whole number from 0 to 1<<64 - 1. It returns 0 and false when s
// is not one, and 1<<64 - 1 and false when it is larger.
func Uint64(s string) (uint64, bool) {
	return digits(s, 1<<64-1)
}

// Int64 reads s as strconv.ParseInt(s, 10, 64) does, reporting whether it
// is a whole number, with an optional sign, within the range of an int64.
// It returns 0 and false when s is not one, and the nearer of
// math.MinInt64 and math.MaxInt64 and false when it is out of range.
func Int64(s string) (int64, bool) {
	return signed(s, 64)
}

// Int reads s as strconv.Atoi does, reporting whether it is a whole
// number, with an optional sign, within the range of an int. It returns 0
// and false when s is not one, and the nearer of math.MinInt and
// math.MaxInt and false when it is out of range.
func Int(s string) (int, bool) {
	n, ok := signed(s, bits.UintSize)
	return int(n), ok
}

// signed reads an optional sign and then digits into a signed number of
// size bits, 32 or 64: strconv.ParseInt(s, 10, size).
func signed(s string, size uint) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	// Like strconv, the digits are read as an unsigned number of the same
	// size, so that an overflow is found at the same digit.
	u, ok := digits(s, 1<<size-1)
	if !ok && u == 0 {
		return 0, false // not a whole number
	}
	limit := uint64(1) << (size - 1) // the magnitude of the most negative number
	switch {
	case !neg && u >= limit:
		return int64(limit - 1), false
	case neg && u > limit:
		return -int64(limit-1) - 1, false
	case neg:
		return -int64(u), true // for u == limit, the most negative number
	}
	return int64(u), true
}

// digits reads s, one or more ASCII digits, as a number of at most max. It
// returns 0 and false for an empty s or a character that is not a digit,
// and max and false at the first digit that takes the number above max,
// whatever follows that digit.
func digits(s string, max uint64) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := uint64(s[i] - '0') // a byte below '0' wraps to above 9
		if d > 9 {
			return 0, false
		}
		// n*10 + d > max, without overflowing.
		if n > (max-d)/10 {
			return max, false
		}
		n = n*10 + d
	}
	return n, true
}
