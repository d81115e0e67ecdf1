//go:build !js

package main

import (
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// quietLog is fasthttp's logger, which writes a line for every connection
// it could not serve (a malformed request, a client that went away
// mid-request): anyone can open such connections by the thousand, and a
// line each would let them fill the server's log. It writes at most burst
// lines in any window of per, and counts the ones it drops, which the next
// line it writes reports.
type quietLog struct {
	logger *slog.Logger
	per    time.Duration
	burst  int
	now    func() time.Time // time.Now, except in tests

	mu      sync.Mutex
	since   time.Time // start of the current window
	written int       // lines written in the current window; at most burst
	dropped int       // lines dropped since the last one written
}

// newQuietLog writes warnings to logger, at most 10 lines a second.
func newQuietLog(logger *slog.Logger) *quietLog {
	return &quietLog{logger: logger, per: time.Second, burst: 10, now: time.Now}
}

// Printf writes one line, unless the window's lines are spent.
func (q *quietLog) Printf(format string, args ...any) {
	q.mu.Lock()
	now := q.now()
	if now.Sub(q.since) >= q.per {
		q.since, q.written = now, 0
	}
	if q.written == q.burst {
		q.dropped++
		q.mu.Unlock()
		return
	}
	q.written++
	dropped := q.dropped
	q.dropped = 0
	q.mu.Unlock()
	if dropped > 0 {
		q.logger.Warn(fmt.Sprintf(format, args...), "dropped_before", dropped)
		return
	}
	q.logger.Warn(fmt.Sprintf(format, args...))
}
