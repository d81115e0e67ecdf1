package vtime_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/vtime"
)

func TestTimeRoundTrip(t *testing.T) {
	for _, s := range []string{"00:00:00", "10:00:02", "23:59:59", "10:00:02.500", "10:00:02.001", "99:59:59.999", "25:00:00"} {
		got, err := vtime.ParseTime(s)
		require.NoError(t, err, s)
		assert.Equal(t, s, got.String(), "ParseTime(%q).String()", s)
	}
	// Fractions are padded: .5 is 500 ms.
	got, err := vtime.ParseTime("10:00:02.5")
	require.NoError(t, err)
	assert.Equal(t, vtime.Time(10*3_600_000+2000+500), got)
	assert.Equal(t, "10:00:02.500", got.String())
	// Every millisecond of a day prints and parses back to itself.
	for ms := vtime.Time(0); ms < 24*3_600_000; ms += 997 {
		back, err := vtime.ParseTime(ms.String())
		require.NoError(t, err)
		require.Equal(t, ms, back)
	}
	assert.Equal(t, "-00:00:03", vtime.Time(-3000).String(), "a skewed clock may read before midnight")
}

func TestParseTimeErrors(t *testing.T) {
	for _, s := range []string{"", "10:00", "10:0:02", "1:00:00", "10:60:00", "10:00:60", "aa:bb:cc", "10:00:02.", "10:00:02.1234", "10:00:02.x", "10:00:00:00", "-1:00:00"} {
		_, err := vtime.ParseTime(s)
		require.Error(t, err, "%q should not parse", s)
		assert.True(t, errors.Is(err, vtime.ErrSyntax), "%q: %v", s, err)
	}
}

func TestDurationRoundTrip(t *testing.T) {
	cases := map[string]vtime.Duration{
		"0s": 0, "2s": 2 * vtime.Second, "-3s": -3 * vtime.Second, "250ms": 250, "1.5s": 1500,
		"1m30s": 90 * vtime.Second, "1h": vtime.Hour, "1h2m3.004s": vtime.Hour + 2*vtime.Minute + 3004,
	}
	for s, want := range cases {
		d, err := vtime.ParseDuration(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, d, s)
		assert.Equal(t, s, d.String(), "%d ms should print as %s", int64(d), s)
		back, err := vtime.ParseDuration(d.String())
		require.NoError(t, err)
		assert.Equal(t, d, back)
	}
	for _, s := range []string{"+2s", "0", "90s", "1500ms"} {
		d, err := vtime.ParseDuration(s)
		require.NoError(t, err, s)
		back, err := vtime.ParseDuration(d.String())
		require.NoError(t, err)
		assert.Equal(t, d, back, "%s → %s", s, d)
	}
	d, err := vtime.ParseDuration("1000000000h")
	require.NoError(t, err)
	assert.Equal(t, 1e9*vtime.Hour, d, "the longest duration there is")
	// Parts that each fit but add up past it used to wrap around int64 to
	// any value, here a third of a second.
	wraps := strings.Repeat("1000000000h", 5124) + "95576030h1551s949ms" // 2^64 ms and 333 ms
	for _, s := range []string{"", "-", "s", "2", "2x", "2 s", "1e3s", "..s", "99999999999h", "1000000000h1ms", "-1000000000h1ms", wraps} {
		_, err := vtime.ParseDuration(s)
		assert.ErrorIs(t, err, vtime.ErrSyntax, "%q should not parse", s)
	}
}

func TestArithmetic(t *testing.T) {
	t0, _ := vtime.ParseTime("10:00:00")
	t1 := t0.Add(2500 * vtime.Millisecond)
	assert.Equal(t, "10:00:02.500", t1.String())
	assert.Equal(t, 2500*vtime.Millisecond, t1.Sub(t0))
	assert.Equal(t, "-2.5s", t0.Sub(t1).String())
}

func TestParseDecimal(t *testing.T) {
	cases := map[string]vtime.Decimal{
		"2": {Whole: 2, Scale: 1}, "1.5": {Whole: 1, Frac: 5, Scale: 10}, ".25": {Frac: 25, Scale: 100},
		"3.": {Whole: 3, Scale: 1}, "0.004": {Frac: 4, Scale: 1000}, "007": {Whole: 7, Scale: 1},
		// Digits past the twelfth of a fraction are read and left out.
		"0.1234567890129":  {Frac: 123456789012, Scale: 1e12},
		"1000000000000000": {Whole: 1e15, Scale: 1},
	}
	for s, want := range cases {
		d, ok := vtime.ParseDecimal(s)
		require.True(t, ok, s)
		assert.Equal(t, want, d, s)
	}
	for _, s := range []string{"", ".", "1.2.3", "-1", "+1", "1e3", "Inf", "NaN", "0x10", "1_000", " 1", "1000000000000001"} {
		_, ok := vtime.ParseDecimal(s)
		assert.False(t, ok, "%q is not a decimal the scenario language writes", s)
	}
	assert.InDelta(t, 2.5, vtime.Decimal{Whole: 2, Frac: 5, Scale: 10}.Float(), 0)
	// A fraction is rounded to the nearest millisecond, half up.
	for s, want := range map[string]vtime.Duration{"0.0005s": 1, "0.0004s": 0, "1.9999s": 2000, "0.5ms": 1, "0.001h": 3600} {
		d, err := vtime.ParseDuration(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, d, s)
	}
}
