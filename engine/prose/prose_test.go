package prose_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine/prose"
)

type stringer struct{}

func (stringer) String() string { return "str" }

// TestAgreesWithFmt checks every verb the engine uses against fmt itself.
func TestAgreesWithFmt(t *testing.T) {
	cases := []struct {
		format string
		args   []any
	}{
		{"plain text", nil},
		{"%s and %s", []any{"a", stringer{}}},
		{"%d, %d, %d, %d", []any{7, int32(-3), int64(1 << 40), uint8(9)}},
		{"%q", []any{`say "hi"`}},
		{"%v %v %v", []any{"x", 12, true}},
		{"%02d:%02d:%03d", []any{1, 12, 7}},
		{"%.0f× and %.2f", []any{4.6, 1.0 / 3}},
		{"100%% sure", nil},
		{"%s", []any{errors.New("boom")}},
		{"%v", []any{[]string{"a", "b"}}},
	}
	for _, c := range cases {
		assert.Equal(t, fmt.Sprintf(c.format, c.args...), prose.F(c.format, c.args...), c.format)
	}
}

func TestUnsupportedIsVisible(t *testing.T) {
	assert.Equal(t, "x %!d(unsupported)", prose.F("x %d", struct{}{}))
	assert.Equal(t, "%!s(MISSING)", prose.F("%s"))
	assert.Equal(t, "a%!(EXTRA)", prose.F("a", 1))
}

func TestErrorfWraps(t *testing.T) {
	base := errors.New("invalid time")
	err := prose.Errorf("%w %q: expected HH:MM:SS", base, "9:00")
	assert.Equal(t, `invalid time "9:00": expected HH:MM:SS`, err.Error())
	assert.ErrorIs(t, err, base)
}

// TestCapital: a sentence's first ASCII letter is capitalised; anything
// else, a multi-byte letter included, is left whole.
func TestCapital(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"order 3 is late":    "Order 3 is late",
		"Already":            "Already",
		"3 rows":             "3 rows",
		"élan stays":         "élan stays",
		"ünter has no ascii": "ünter has no ascii",
		"z":                  "Z",
	} {
		assert.Equal(t, want, prose.Capital(in), "%q", in)
	}
}

// TestReplaceAllAgreesWithTheStandardLibrary replaces words of a small
// alphabet, overlapping and repeated, as strings.ReplaceAll does.
func TestReplaceAllAgreesWithTheStandardLibrary(t *testing.T) {
	words := []string{"", "a", "b", "ab", "aa", "aba", "_", "a_b__c", "aaaa", "ba_ab"}
	for _, s := range words {
		for _, old := range words[1:] {
			for _, new := range []string{"", " ", "xyz", "a"} {
				assert.Equal(t, strings.ReplaceAll(s, old, new), prose.ReplaceAll(s, old, new), "%q %q %q", s, old, new)
			}
		}
	}
}
