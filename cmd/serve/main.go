//go:build !js

// Command serve runs the Tidemark site on this machine:
//
//	go run ./cmd/serve -addr 127.0.0.1:8080
//
// Built with GOOS=js GOARCH=wasm, the same handler runs on Cloudflare Workers
// instead (see worker.go).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (host:port)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	limit := setMemoryLimit(os.Getenv)
	logger.Info("memory limit", "bytes", limit, "from", cmp.Or(os.Getenv("GOMEMLIMIT"), "default"))
	if err := run(*addr, logger); err != nil {
		logger.Error("serve: " + err.Error())
		os.Exit(1)
	}
}

// defaultMemoryLimit is the Go runtime's soft memory limit when GOMEMLIMIT
// is not set: room for MaxSimulations runs at the server's budget (a few
// tens of megabytes each, see docs/security.md), the kept pages and traces,
// and the embedded assets, with a wide margin. Near it the collector works
// harder rather than letting the heap outgrow a small machine.
const defaultMemoryLimit = 512 << 20

// setMemoryLimit sets the runtime's soft memory limit to
// defaultMemoryLimit unless the GOMEMLIMIT environment variable (read by the
// runtime at start) sets one, and returns the limit in force.
func setMemoryLimit(getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	debug.SetMemoryLimit(defaultMemoryLimit)
	return defaultMemoryLimit
}

// warm runs every bundled scenario once and renders the pages that are the
// same for every visitor, so that the first visitors neither wait for them
// nor find the server's run slots taken by them.
func warm(handler http.Handler, logger *slog.Logger) {
	if err := pages.Warm(); err != nil {
		logger.Warn("warm: " + err.Error())
	}
	paths := []string{"/", "/play"}
	paths = append(paths, lessonpage.Paths()...)
	for _, p := range paths {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusOK {
			logger.Warn("warm: "+p, "status", rec.Code)
		}
	}
}

// run serves the site on addr until SIGINT or SIGTERM, then drains open
// requests for up to ten seconds.
func run(addr string, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	handler, err := newHandler(logger)
	if err != nil {
		return err
	}
	warm(handler, logger)

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := newFastServer(handler, logger)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	logger.Info("serving Tidemark", "url", "http://"+ln.Addr().String()+"/")

	select {
	case err := <-errc:
		return fmt.Errorf("serve on %s: %w", addr, err)
	case <-ctx.Done():
	}
	stop() // a second signal now ends the process at once
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.ShutdownWithContext(shutdownCtx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-errc; err != nil {
		return fmt.Errorf("serve on %s: %w", addr, err)
	}
	return nil
}
