# Tidemark build and test entry points. `make serve` and `make test` are the two
# commands a fresh machine needs (see README.md).

GO ?= go
ADDR ?= 127.0.0.1:8080

.PHONY: all generate build test test-short bench fuzz serve demo check-generated vet wasm perf screenshots worker worker-dev worker-smoke export

all: build

generate:
	$(GO) tool templ generate

# wasm builds the engine's browser module into web/static (embedded by the web
# package), joins the data segments the Go linker leaves a few zero bytes
# apart (web/internal/wasmmerge: about 43 KB less brotli, the same memory),
# copies the matching wasm_exec.js from the Go toolchain in use, and writes
# brotli (quality 11) and gzip copies next to the module. None of these files
# are committed; the web package works without them.
wasm:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o web/static/tidemark.wasm ./wasm
	$(GO) run ./web/internal/wasmmerge web/static/tidemark.wasm
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" web/static/wasm_exec.js
	$(GO) run ./web/internal/precompress web/static/tidemark.wasm

build: generate
	$(GO) build ./...

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./web/... ./cmd/serve/... ./wasm/...

# check-generated fails when `templ generate` would change a committed file.
check-generated: generate
	git diff --exit-code -- '*_templ.go'

# test builds the wasm module first: the browser tests load it.
test: wasm vet check-generated
	$(GO) test -count=1 ./...
	$(GO) run ./cmd/tidemark check --all docs

test-short:
	$(GO) test -short ./...

# bench runs the engine's benchmarks (a run of each world, seeks) and the
# widget's stage drawing natively and as wasm under node, alternately, with
# the collector settings the page gives the browser module, and prints both
# with how many times slower wasm is (internal/wasmbench; docs/performance.md).
# It takes several minutes and wants a quiet machine; BENCH_COUNT sets the
# rounds.
BENCH_COUNT ?= 3
bench:
	$(GO) run ./internal/wasmbench -count $(BENCH_COUNT) \
		'./engine:^Benchmark(Run|LogRun)$$:3x' './engine:^BenchmarkSeek$$' './templates/widget:^Benchmark(Step|Seek)$$'

# perf measures the browser budgets (download size, time to interactive, step
# and seek times, long tasks while playing) in headless Chromium; see
# docs/performance.md. It takes about a minute and wants a quiet machine.
perf: wasm
	TIDEMARK_PERF=1 $(GO) test -count=1 -run TestBudgets -v ./web/e2e

# screenshots retakes the README's pictures of the widget (docs/screenshots)
# in headless Chromium; review them before committing.
screenshots: wasm
	TIDEMARK_SCREENSHOTS=1 $(GO) test -count=1 -run TestDocScreenshots -v ./web/e2e

# worker builds the site as a Cloudflare Worker into build/worker: the
# syumai/workers glue (worker.mjs, wasm_exec.js, runtime.mjs) and the site's
# handler compiled to wasm. worker-dev serves it locally in workerd through
# wrangler (from npm), and worker-smoke asks that for a page of each kind.
# See cmd/serve/wrangler.jsonc for deploying.
WRANGLER ?= npx --yes wrangler@3
worker: generate wasm
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o build/worker
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o build/worker/app.wasm ./cmd/serve

worker-dev: worker
	$(WRANGLER) dev --config cmd/serve/wrangler.jsonc --ip 127.0.0.1 --port 8787

worker-smoke: worker
	WRANGLER="$(WRANGLER)" ./cmd/serve/worker-smoke.sh

# export writes the whole site as static files into $(EXPORT_DIR), for a host
# that serves files only (GitHub Pages, Cloudflare static assets, Netlify,
# nginx); BASE_URL is where the copy will be served, with its path, e.g.
# `make export BASE_URL=https://example.github.io/tidemark`. See docs/deploy.md.
BASE_URL ?= http://127.0.0.1:8000
EXPORT_DIR ?= build/site
export: generate wasm
	$(GO) run ./cmd/tidemark export --base-url $(BASE_URL) --out $(EXPORT_DIR)

# demo runs the first lesson's opening scenario through the CLI.
demo:
	$(GO) run ./cmd/tidemark run hwm/visibility-gap

serve: generate wasm
	$(GO) run ./cmd/serve -addr $(ADDR)
