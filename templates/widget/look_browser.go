//go:build tm_browser

package widget

// The browser's modules (built with the tag tm_browser, see the Makefile's
// wasm target) draw charts only for the stage, never a standalone picture,
// so they carry none of a picture's colours (look.go): no attributes for
// any class.
func chartLook(string) []string  { return nil }
func laneLook(string) []string   { return nil }
func streamLook(string) []string { return nil }
