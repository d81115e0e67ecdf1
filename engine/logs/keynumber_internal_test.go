package logs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// keyNumber accepts only the one spelling strconv.Itoa gives a whole number
// in range, so a key found by its number and one found by its text are the
// same key exactly when their texts are equal.
func TestKeyNumber(t *testing.T) {
	for key, want := range map[string]int{
		"1": 1, "42": 42, "1000": 1000,
		"0": 0, "01": 0, "-1": 0, "+1": 0, "1.0": 0, "": 0, "1e3": 0, "abc": 0,
		"1001":       0, // above the largest the producer keeps by number
		"9999999999": 0,
	} {
		assert.Equal(t, want, keyNumber(key, 1000), "key %q", key)
	}
}

// TestDistinctKeys checks the trace's sizing against the expected number of
// distinct keys, keys·(1 − (1 − 1/keys)^n), with its room for chance.
func TestDistinctKeys(t *testing.T) {
	// A million records over a million keys name about 632,121 of them;
	// room for chance is four square roots (3,180) and 16.
	got := distinctKeys(1_000_000, 1_000_000)
	assert.InDelta(t, 632_121+3_180+16, got, 2)
	assert.Equal(t, 10, distinctKeys(10, 1_000_000), "never more than the records")
	assert.Equal(t, 3, distinctKeys(1_000, 3), "never more than the keys")
	assert.Equal(t, 0, distinctKeys(0, 10))
	assert.Equal(t, 0, distinctKeys(10, 0))
	assert.InDelta(t, 0.25, powInt(0.5, 2), 0)
	assert.InDelta(t, 1, powInt(0.5, 0), 0)
}
