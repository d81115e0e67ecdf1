//go:build js && wasm

package main

import (
	"log/slog"
	"os"

	"github.com/syumai/workers"
)

// main serves the site on Cloudflare Workers. `make worker` builds it into
// build/worker (the glue workers-assets-gen writes, and this program compiled
// to wasm); cmd/serve/wrangler.jsonc points wrangler at it, and `make
// worker-smoke` serves it locally in workerd and asks for a page of each kind.
//
// On Workers, static files are cheaper to serve as Workers static assets than
// from Go, which costs a Go start per request; the handler still serves them
// so that the Worker works on its own.
func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	handler, err := newHandler(logger)
	if err != nil {
		logger.Error("serve: " + err.Error())
		os.Exit(1)
	}
	workers.Serve(handler)
}
