//go:build !js

package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestQuietLogBoundsTheLinesAVisitorCanCause: a flood of connections
// fasthttp cannot serve writes at most burst lines a window, and the next
// line written says how many were dropped before it.
func TestQuietLogBoundsTheLinesAVisitorCanCause(t *testing.T) {
	var out bytes.Buffer
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	q := newQuietLog(slog.New(slog.NewTextHandler(&out, nil)))
	q.now = func() time.Time { return at }
	for i := range 2000 {
		q.Printf("error when serving connection %d", i)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 10, "the first second's burst")
	assert.Contains(t, lines[9], "connection 9")

	at = at.Add(time.Second)
	q.Printf("error when serving connection %d", 2000)
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 11)
	assert.Contains(t, lines[10], "connection 2000")
	assert.Contains(t, lines[10], "dropped_before=1990")
	assert.Contains(t, lines[10], "level=WARN")

	q.Printf("one more")
	assert.NotContains(t, out.String()[strings.LastIndex(out.String(), "one more"):], "dropped_before", "counted once")
}
