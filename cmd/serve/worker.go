//go:build js && wasm

package main

import (
	"log/slog"
	"os"

	"github.com/syumai/workers"
)

// main serves the site on Cloudflare Workers. Build it with
//
//	go run github.com/syumai/workers/cmd/workers-assets-gen -mode=go
//	GOOS=js GOARCH=wasm go build -o build/app.wasm ./cmd/serve
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
