package whole

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInt64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"-0", 0, true},
		{"+0", 0, true},
		{"+5", 5, true},
		{"-5", -5, true},
		{"007", 7, true},
		{"-007", -7, true},
		{"00000000000000000000000000000042", 42, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"+9223372036854775807", math.MaxInt64, true},
		// One past each bound, and far past: the nearer bound, not a number.
		{"9223372036854775808", math.MaxInt64, false},
		{"-9223372036854775809", math.MinInt64, false},
		{"18446744073709551615", math.MaxInt64, false},
		{"18446744073709551616", math.MaxInt64, false},
		{"-18446744073709551616", math.MinInt64, false},
		{"99999999999999999999999", math.MaxInt64, false},
		// Out of range before a character that is not a digit: strconv
		// says out of range, and so does Int64.
		{"99999999999999999999x", math.MaxInt64, false},
		{"-99999999999999999999x", math.MinInt64, false},
		// In range, then not a digit.
		{"9223372036854775807x", 0, false},
		{"", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{"--5", 0, false},
		{"+-5", 0, false},
		{"-+5", 0, false},
		{"1_000", 0, false},
		{"_1", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"0x10", 0, false},
		{"0b1", 0, false},
		{"1e3", 0, false},
		{"1.0", 0, false},
		{"١", 0, false}, // an Arabic-Indic digit one: not ASCII
		{"5\x00", 0, false},
	} {
		n, ok := Int64(c.in)
		assert.Equal(t, c.want, n, "Int64(%q)", c.in)
		assert.Equal(t, c.ok, ok, "Int64(%q)", c.in)
	}
}

func TestUint64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"0042", 42, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"18446744073709551616", math.MaxUint64, false},
		{"18446744073709551620", math.MaxUint64, false},
		{"184467440737095516150", math.MaxUint64, false},
		{"99999999999999999999x", math.MaxUint64, false},
		{"", 0, false},
		{"+5", 0, false}, // no sign, as ParseUint
		{"-0", 0, false},
		{"1_000", 0, false},
		{"12a", 0, false},
	} {
		n, ok := Uint64(c.in)
		assert.Equal(t, c.want, n, "Uint64(%q)", c.in)
		assert.Equal(t, c.ok, ok, "Uint64(%q)", c.in)
	}
}

func TestInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"12", 12, true},
		{"-12", -12, true},
		{"+0", 0, true},
		{strconv.Itoa(math.MaxInt), math.MaxInt, true},
		{strconv.Itoa(math.MinInt), math.MinInt, true},
		{"1" + strconv.Itoa(math.MaxInt), math.MaxInt, false},
		{"-1" + strconv.Itoa(math.MaxInt), math.MinInt, false},
		{"", 0, false},
		{"1_000", 0, false},
		{"3x", 0, false},
	} {
		n, ok := Int(c.in)
		assert.Equal(t, c.want, n, "Int(%q)", c.in)
		assert.Equal(t, c.ok, ok, "Int(%q)", c.in)
	}
	// One past each bound of an int, whatever its size.
	over := strconv.FormatUint(uint64(math.MaxInt)+1, 10)
	n, ok := Int(over)
	assert.Equal(t, math.MaxInt, n)
	assert.False(t, ok)
	n, ok = Int("-" + strconv.FormatUint(uint64(math.MaxInt)+2, 10))
	assert.Equal(t, math.MinInt, n)
	assert.False(t, ok)
}

// TestSigned32 reads as strconv.Atoi does on a 32-bit platform, where an
// int's digits overflow sooner.
func TestSigned32(t *testing.T) {
	for _, in := range []string{
		"2147483647", "-2147483648", "2147483648", "-2147483649",
		"4294967295", "4294967296", "99999999999x", "-99999999999x", "2147483647x", "",
	} {
		want, err := strconv.ParseInt(in, 10, 32)
		n, ok := signed(in, 32)
		assert.Equal(t, want, n, "signed(%q, 32)", in)
		assert.Equal(t, err == nil, ok, "signed(%q, 32)", in)
	}
}

// FuzzAgreesWithStrconv holds the three readers to strconv's answer, the
// number and whether it is one, on any string.
func FuzzAgreesWithStrconv(f *testing.F) {
	for _, s := range []string{
		"", "0", "-0", "+5", "-", "+", "1_000", "007", "0x1f", " 1",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "18446744073709551615", "18446744073709551616",
		"99999999999999999999x", "١٢", "1e9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want64, err := strconv.ParseInt(s, 10, 64)
		n64, ok := Int64(s)
		if n64 != want64 || ok != (err == nil) {
			t.Errorf("Int64(%q) = %d, %t; strconv.ParseInt: %d, %v", s, n64, ok, want64, err)
		}
		wantU, err := strconv.ParseUint(s, 10, 64)
		nU, ok := Uint64(s)
		if nU != wantU || ok != (err == nil) {
			t.Errorf("Uint64(%q) = %d, %t; strconv.ParseUint: %d, %v", s, nU, ok, wantU, err)
		}
		wantI, err := strconv.Atoi(s)
		nI, ok := Int(s)
		if nI != wantI || ok != (err == nil) {
			t.Errorf("Int(%q) = %d, %t; strconv.Atoi: %d, %v", s, nI, ok, wantI, err)
		}
		want32, err := strconv.ParseInt(s, 10, 32)
		n32, ok := signed(s, 32)
		if n32 != want32 || ok != (err == nil) {
			t.Errorf("signed(%q, 32) = %d, %t; strconv.ParseInt(s, 10, 32): %d, %v", s, n32, ok, want32, err)
		}
	})
}
