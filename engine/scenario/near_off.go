//go:build tm_hwm || tm_log || tm_stream

package scenario

// The browser's builds of some worlds (tags tm_hwm, tm_log and tm_stream;
// see docs/architecture.md) run only the bundled scenarios, which parse and
// build, never a text a visitor typed: they leave out the spelling
// suggestions of near.go, a few kilobytes of their download.

// Near returns nil: see near.go for the build that reads visitors' texts.
func Near(word string, known []string) []string { return nil }

// DidYouMean returns "": see near.go.
func DidYouMean(word string, known []string) string { return "" }
