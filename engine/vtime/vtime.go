// Package vtime holds Tidemark's virtual time: integer milliseconds since
// midnight of the simulated day, printed the way a log line would show them.
//
// Nothing here reads a real clock; every value is chosen by a scenario or
// computed from one.
package vtime

import (
	"errors"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/whole"
)

// Time is a virtual instant in milliseconds since 00:00:00 of the simulated day.
// A scenario's times stay within the day (InDay); arithmetic may leave it
// (a skewed clock, a delay after a late event), and String still prints
// such a time, for the error that refuses it.
type Time int64

// Day is the length of the simulated day: the times of a scenario are
// 0 <= t < Day, 00:00:00 to 23:59:59.999.
const Day = Time(24 * Hour)

// InDay reports whether t lies within the simulated day.
func (t Time) InDay() bool { return t >= 0 && t < Day }

// Duration is a span of virtual time in milliseconds.
type Duration int64

// Common durations.
const (
	Millisecond Duration = 1
	Second               = 1000 * Millisecond
	Minute               = 60 * Second
	Hour                 = 60 * Minute
)

// Add returns t moved by d.
func (t Time) Add(d Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) Duration { return Duration(t - u) }

// String prints t as HH:MM:SS, adding .mmm only when the milliseconds are not zero.
func (t Time) String() string {
	neg := t < 0
	if neg {
		t = -t
	}
	ms := int64(t)
	h, m, s, frac := ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	prose.Fprintf(&b, "%02d:%02d:%02d", h, m, s)
	if frac != 0 {
		prose.Fprintf(&b, ".%03d", frac)
	}
	return b.String()
}

// String prints d compactly with a sign when negative: 2s, 1m30s, 1.5s, 250ms, -3s.
func (d Duration) String() string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	if d < 0 {
		b.WriteByte('-')
		d = -d
	}
	if d < Second {
		prose.Fprintf(&b, "%dms", int64(d))
		return b.String()
	}
	h, m, s, ms := int64(d/Hour), int64(d/Minute%60), int64(d/Second%60), int64(d%Second)
	if h > 0 {
		prose.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		prose.Fprintf(&b, "%dm", m)
	}
	switch {
	case ms > 0:
		frac := strings.TrimRight(prose.F("%03d", ms), "0")
		prose.Fprintf(&b, "%d.%ss", s, frac)
	case s > 0:
		prose.Fprintf(&b, "%ds", s)
	}
	return b.String()
}

// ErrSyntax is wrapped by every parse error of this package.
var ErrSyntax = errors.New("invalid time")

// ParseTime reads HH:MM:SS or HH:MM:SS.mmm (one to three fraction digits).
func ParseTime(s string) (Time, error) {
	main, frac, hasFrac := strings.Cut(s, ".")
	parts := strings.Split(main, ":")
	if len(parts) != 3 {
		return 0, prose.Errorf("%w %q: expected HH:MM:SS", ErrSyntax, s)
	}
	var v [3]int64
	for i, p := range parts {
		if len(p) != 2 {
			return 0, prose.Errorf("%w %q: expected two digits in each of HH:MM:SS", ErrSyntax, s)
		}
		n, ok := whole.Uint64(p)
		if !ok {
			return 0, prose.Errorf("%w %q: expected digits in HH:MM:SS", ErrSyntax, s)
		}
		v[i] = int64(n)
	}
	if v[1] > 59 || v[2] > 59 {
		return 0, prose.Errorf("%w %q: minutes and seconds go up to 59", ErrSyntax, s)
	}
	ms := int64(0)
	if hasFrac {
		if len(frac) == 0 || len(frac) > 3 {
			return 0, prose.Errorf("%w %q: expected one to three digits of milliseconds", ErrSyntax, s)
		}
		n, ok := whole.Uint64(frac)
		if !ok {
			return 0, prose.Errorf("%w %q: expected digits after the dot", ErrSyntax, s)
		}
		for i := len(frac); i < 3; i++ {
			n *= 10
		}
		ms = int64(n)
	}
	return Time(v[0]*3_600_000 + v[1]*60_000 + v[2]*1000 + ms), nil
}

// Decimal is a non-negative decimal number as a scenario writes one, such
// as 1.5 in 1.5s or a jump factor of 2.5x: Whole + Frac/Scale, where Scale
// is a power of ten with one zero per digit of the fraction read.
//
// Invariant: 0 <= Frac < Scale, and Scale is 1 when there is no fraction.
type Decimal struct {
	Whole, Frac, Scale int64
}

// Float returns d as a float64.
func (d Decimal) Float() float64 { return float64(d.Whole) + float64(d.Frac)/float64(d.Scale) }

// maxScale is the Scale of the most digits of a fraction ParseDecimal
// keeps, twelve; later ones are below a millionth of a millisecond of the
// longest unit, an hour.
const maxScale = 1e12

// ParseDecimal reads digits with at most one decimal point and at least one
// digit, such as 2, 1.5, .5 or 3. (no sign, exponent or underscores). It
// reports false for anything else and for a whole part above 10^15. The
// scenario language needs no more, and strconv.ParseFloat brings some
// 5 KB of brotli into the browser's module (docs/performance.md).
func ParseDecimal(s string) (Decimal, bool) {
	d := Decimal{Scale: 1}
	digits, point := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !point:
			point = true
		case c < '0' || c > '9':
			return Decimal{}, false
		case !point:
			d.Whole = d.Whole*10 + int64(c-'0')
			if d.Whole > 1e15 {
				return Decimal{}, false
			}
			digits++
		default:
			digits++
			if d.Scale < maxScale {
				d.Frac = d.Frac*10 + int64(c-'0')
				d.Scale *= 10
			}
		}
	}
	return d, digits > 0
}

// maxDuration is the longest duration ParseDuration reads: a billion hours,
// the most one part of it may say.
const maxDuration = 1e9 * Hour

// ParseDuration reads a signed duration built from h, m, s and ms parts,
// such as 2s, -3s, +1m30s, 250ms or 1.5s.
func ParseDuration(s string) (Duration, error) {
	in := s
	sign := Duration(1)
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = -1, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" {
		return 0, prose.Errorf("%w %q: expected a duration such as 2s, 500ms or 1m", ErrSyntax, in)
	}
	if s == "0" {
		return 0, nil
	}
	var total Duration
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, prose.Errorf("%w %q: expected a number before the unit", ErrSyntax, in)
		}
		num := s[:i]
		s = s[i:]
		j := 0
		for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
			j++
		}
		unit := s[:j]
		s = s[j:]
		var scale Duration
		switch unit {
		case "ms":
			scale = Millisecond
		case "s":
			scale = Second
		case "m":
			scale = Minute
		case "h":
			scale = Hour
		default:
			return 0, prose.Errorf("%w %q: expected a unit of ms, s, m or h", ErrSyntax, in)
		}
		d, ok := ParseDecimal(num)
		if !ok {
			return 0, prose.Errorf("%w %q: %q is not a number", ErrSyntax, in, num)
		}
		if d.Whole > 1e9 || d.Whole == 1e9 && d.Frac > 0 {
			return 0, prose.Errorf("%w %q: too large", ErrSyntax, in)
		}
		// Each part is at most maxDuration, so the sum cannot overflow
		// before it is checked: many parts of a long string would
		// otherwise wrap around to any value at all. The fraction is
		// rounded to the nearest millisecond, half up.
		total += Duration(d.Whole)*scale + (Duration(d.Frac)*scale+Duration(d.Scale/2))/Duration(d.Scale)
		if total > maxDuration {
			return 0, prose.Errorf("%w %q: too large", ErrSyntax, in)
		}
	}
	return sign * total, nil
}
