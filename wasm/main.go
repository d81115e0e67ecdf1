//go:build js && wasm

// Command wasm is Tidemark's engine in the browser. It is the syscall/js
// bridge only: it keeps one session per widget on the page and answers the
// page's calls by asking the engine to run and the widget package to draw.
// Every js.Func it creates lives as long as the page, and is released if
// the module is asked to stop.
//
// The page calls globalThis.tidemarkEngine:
//
//	open(id, source, name, base, query, embedded) -> {ok, error, steps}
//	advance(id, budget)                           -> {ok, done, error, stopped} (stopped: past the work budget, nothing to draw)
//	view(id, full)                                -> {html, stage, ops, narration, step, steps, query, message, canUndo, pending}
//	                                                 (html after a full view; otherwise the stage whole, or ops: the changes to the stage on screen)
//	act(id, action, arg)                          -> {ok, error, rerun}   ("fill", step: run the checks a pending view lacks)
//	snippets(id, origin)                          -> {ok, iframe, script, markdown, image, alt}
//	check(source, name)                           -> {ok, error, line, col}
//	expect(id, source, name)                      -> {ok, error, line, col, count} (start checking the expect lines)
//	expectAdvance(id, budget)                     -> {ok, done, results: [{line, col, claim, status, detail}]}
//	                                                 (these two in tidemark.wasm only, which the sandbox loads: see expect.go)
//	idle()                                        -> collects garbage when the heap nears the collector's goal
//	stop()
//	module                                        -> the build's name: tidemark.wasm, tidemark-stream.wasm, tidemark-log.wasm or tidemark-hwm.wasm
package main

import (
	"runtime"
	"syscall/js"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/templates/widget"
)

func main() {
	// The page starts this module with GOGC=400 and GOMEMLIMIT=256MiB in its
	// environment (see web/static/app.js): a long scenario's trace is a large
	// heap, and the garbage collector stops the page while it marks it (wasm
	// has one thread), so collecting a fifth as often keeps steps short. The
	// settings come from the environment rather than runtime/debug because
	// that package brings fmt into the download.
	sessions := map[string]*widget.Session{}
	var funcs []js.Func
	done := make(chan struct{})
	export := func(name string, fn func(args []js.Value) any) js.Func {
		f := js.FuncOf(func(_ js.Value, args []js.Value) any { return fn(args) })
		funcs = append(funcs, f)
		return f
	}
	// Drawing a step makes a few hundred kilobytes of garbage. Left to
	// itself the collector would mark the whole trace in the middle of some
	// later step (wasm has one thread), so the page calls idle when it has
	// nothing to do, and idle collects then if the heap has come three
	// quarters of the way to the collector's goal, when it would soon
	// collect anyway: a collection comes a little sooner than it would
	// have, at a moment nobody waits for.
	var mem runtime.MemStats
	api := map[string]any{
		"open": export("open", func(args []js.Value) any {
			s, err := widget.OpenLink(str(args, 0), str(args, 1), str(args, 2), str(args, 3), trimQuery(str(args, 4)), str(args, 5) == "on", pageWorlds())
			if err != nil {
				return map[string]any{"ok": false, "error": err.Error()}
			}
			sessions[str(args, 0)] = s
			return map[string]any{"ok": true}
		}),
		"advance": export("advance", func(args []js.Value) any {
			s := sessions[str(args, 0)]
			if s == nil {
				return missing
			}
			done, err := s.Advance(num(args, 1))
			if err != nil {
				// stopped: the run passed its work budget and there is no
				// trace to draw, only the error to show.
				return map[string]any{"ok": false, "done": true, "error": err.Error(), "stopped": s.Stopped() != nil}
			}
			return map[string]any{"ok": true, "done": done}
		}),
		"view": export("view", func(args []js.Value) any {
			s := sessions[str(args, 0)]
			if s == nil {
				return missing
			}
			v := s.View(len(args) > 1 && args[1].Truthy())
			ops := make([]any, len(v.Ops))
			for i, op := range v.Ops {
				ops[i] = op
			}
			return map[string]any{"ok": true, "html": v.HTML, "stage": v.Stage, "ops": ops, "narration": v.Narration,
				"step": v.Step, "steps": v.Steps, "query": v.Query, "message": v.Message, "canUndo": v.CanUndo,
				"back": v.Back, "forward": v.Forward, "start": v.Start, "end": v.End, "pending": v.Pending}
		}),
		"act": export("act", func(args []js.Value) any {
			s := sessions[str(args, 0)]
			if s == nil {
				return missing
			}
			rerun, err := s.Act(str(args, 1), str(args, 2))
			if err != nil {
				// Shown as the widget's message: a sentence (see widget.Sentence).
				return map[string]any{"ok": false, "error": widget.Sentence(err.Error()), "rerun": rerun}
			}
			return map[string]any{"ok": true, "rerun": rerun}
		}),
		"snippets": export("snippets", func(args []js.Value) any {
			s := sessions[str(args, 0)]
			if s == nil {
				return missing
			}
			sn, ok := s.Snippets(str(args, 1))
			return map[string]any{"ok": ok, "iframe": sn.IFrame, "script": sn.Script, "markdown": sn.Markdown, "image": sn.Image, "alt": sn.Alt}
		}),
		"check": export("check", func(args []js.Value) any {
			_, err := widget.CheckSource(str(args, 0), str(args, 1), pageWorlds())
			if err == nil {
				return map[string]any{"ok": true}
			}
			return errorAt(err)
		}),
		"idle": export("idle", func([]js.Value) any {
			runtime.ReadMemStats(&mem)
			if mem.HeapAlloc*4 >= mem.NextGC*3 {
				runtime.GC()
			}
			return nil
		}),
		"stop": export("stop", func([]js.Value) any {
			close(done)
			return nil
		}),
		// Which build this is, and so which worlds it runs (worlds_*.go).
		"module": module,
	}
	addExpect(api, export) // the sandbox's module only: see expect.go
	js.Global().Set("tidemarkEngine", js.ValueOf(api))
	js.Global().Call("dispatchEvent", js.Global().Get("Event").New("tidemark:engine"))
	<-done
	js.Global().Delete("tidemarkEngine")
	for _, f := range funcs {
		f.Release()
	}
}

// str returns argument i when it is a string, and "" otherwise.
func str(args []js.Value, i int) string {
	if i < len(args) && args[i].Type() == js.TypeString {
		return args[i].String()
	}
	return ""
}

// num returns argument i when it is a number, and 0 otherwise.
func num(args []js.Value, i int) int {
	if i < len(args) && args[i].Type() == js.TypeNumber {
		return args[i].Int()
	}
	return 0
}

// missing answers a call that names no open scenario.
var missing = map[string]any{"ok": false, "error": "no scenario is open under that id"}

// errorAt is the answer for a scenario that does not parse or build: the
// error, and the line and column it names when it names one.
func errorAt(err error) map[string]any {
	out := map[string]any{"ok": false, "error": err.Error(), "line": 0, "col": 0}
	if se, ok := as[*scenario.Error](err); ok {
		out["line"], out["col"] = se.Pos.Line, se.Pos.Col
	} else if be, ok := as[*engine.BudgetError](err); ok {
		out["line"], out["col"] = be.Pos.Line, be.Pos.Col
	}
	return out
}

// as is errors.As for an error type T, without the reflection errors.As
// uses (internal/reflectlite, about 8 KB of brotli in the download): it
// finds the first error in err's tree, depth first as errors.As walks it,
// that is a T. None of the engine's errors has an As method.
func as[T error](err error) (T, bool) {
	for err != nil {
		if t, ok := err.(T); ok {
			return t, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if t, ok := as[T](e); ok {
					return t, true
				}
			}
			err = nil
		default:
			err = nil
		}
	}
	var zero T
	return zero, false
}

func trimQuery(q string) string {
	if len(q) > 0 && q[0] == '?' {
		return q[1:]
	}
	return q
}
