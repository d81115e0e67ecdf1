//go:build js && wasm

package main

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/syumai/workers"
)

// main serves the site's dynamic routes on Cloudflare Workers through
// github.com/syumai/workers. `make worker` builds it into build/worker
// beside the glue that workers-assets-gen writes and the site exported as
// static files, which Workers static assets answer before the Worker runs;
// cmd/serve/wrangler.jsonc deploys the lot (see docs/deploy.md).
//
// The glue starts this program for every request that reaches the Worker,
// and workers.Serve returns once that request's response has been sent: a
// request pays for starting Go. So main does only what every route needs
// (see newWorkerHandler), and each route reads what it needs when it first
// needs it (docs/performance.md, "Cloudflare Worker", has the figures).
func main() {
	// A Worker's isolate has 128 MB in all, shared by the Go programs of
	// the requests it answers at once: keep each one's heap well inside it.
	debug.SetMemoryLimit(workerMemoryLimit)
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	handler, err := newWorkerHandler(logger)
	if err != nil {
		logger.Error("serve: " + err.Error())
		handler = unavailable(err)
	}
	workers.Serve(handler)
}

// workerMemoryLimit is the Go runtime's soft memory limit in a Worker.
const workerMemoryLimit = 64 << 20
