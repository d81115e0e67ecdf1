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
