package stream

import "github.com/tidemark/tidemark/engine/vtime"

// AppendTime is appendTime for the tests.
func AppendTime(b []byte, t vtime.Time) string { return string(appendTime(b, t)) }
