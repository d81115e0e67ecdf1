//go:build js && wasm && (tm_hwm || tm_log || tm_stream)

package main

import "syscall/js"

// addExpect adds nothing in the builds of fewer worlds: only the sandbox
// checks expect lines, and it loads the build of every world (expect.go).
func addExpect(map[string]any, func(string, func([]js.Value) any) js.Func) {}
