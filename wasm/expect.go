//go:build js && wasm && !tm_hwm && !tm_log && !tm_stream

package main

import (
	"syscall/js"

	"github.com/tidemark/tidemark/templates/widget"
)

// addExpect adds the sandbox's calls to api: expect starts checking a
// scenario's expect lines, expectAdvance goes on with it within a budget.
// Only the sandbox (web/static/play.js) calls them, and it loads the build
// of every world, so the builds of fewer worlds (worlds_hwm.go,
// worlds_log.go, worlds_stream.go) leave them and the engine's reading and verifying of
// expect lines out (noexpect.go).
func addExpect(api map[string]any, export func(name string, fn func(args []js.Value) any) js.Func) {
	expectRuns := map[string]*widget.ExpectRun{}
	api["expect"] = export("expect", func(args []js.Value) any {
		r, err := widget.NewExpectRun(str(args, 1), str(args, 2), pageWorlds())
		if err != nil {
			delete(expectRuns, str(args, 0))
			return errorAt(err)
		}
		expectRuns[str(args, 0)] = r
		return map[string]any{"ok": true, "count": len(r.Results())}
	})
	api["expectAdvance"] = export("expectAdvance", func(args []js.Value) any {
		r := expectRuns[str(args, 0)]
		if r == nil {
			return missing
		}
		done := r.Advance(num(args, 1))
		results := make([]any, 0, len(r.Results()))
		for _, x := range r.Results() {
			results = append(results, map[string]any{"line": x.Line, "col": x.Col, "claim": x.Claim, "status": x.Status, "detail": x.Detail})
		}
		if done {
			delete(expectRuns, str(args, 0))
		}
		return map[string]any{"ok": true, "done": done, "results": results}
	})
}
