# Tidemark build and test entry points. `make serve` and `make test` are the two
# commands a fresh machine needs (see README.md).

GO ?= go
ADDR ?= 127.0.0.1:8080

.PHONY: all generate build test test-short bench fuzz serve demo check-generated vet wasm axe perf screenshots worker wrangler worker-dev worker-smoke worker-test loadtest export

all: build

generate:
	$(GO) tool templ generate
	$(GO) generate ./lessons/titles

# wasm builds the engine's browser module into web/static (embedded by the web
# package), joins the data segments the Go linker leaves a few zero bytes
# apart (web/internal/wasmmerge: about 43 KB less brotli, the same memory)
# and clears the Go runtime's file and line tables (-strip-lines: 60 to 107 KB
# less brotli; a traceback in the browser says ?:0 instead of a file and line)
# and its inline trees (-strip-inlining) and unsafe-point tables, which wasm
# never reads (-strip-unsafe-points), and the argument layouts a traceback
# prints a frame's arguments from (-strip-arginfo), and renames every function fn.N
# (-short-names: together 56 to 80 KB less brotli; build/wasm-names/MODULE.names
# turns a browser traceback's fn.N back into a name; the modules are linked
# afresh each time, since go build takes a module these passes rewrote, which
# keeps its build ID, for up to date),
# copies the matching wasm_exec.js from the Go toolchain in use, and writes
# brotli (quality 11) and gzip copies next to the module. None of these files
# are committed; the web package works without them.
#
# Every module is built with the tag tm_browser, which leaves out what only
# the server and the Worker draw (a static picture's colours,
# templates/widget/look.go).
#
# It builds the module four times, one per set of worlds (wasm/worlds_*.go):
# tidemark-hwm.wasm (the high-water-mark world), tidemark-log.wasm (and the log
# world), tidemark-stream.wasm (the log and stream worlds, without the
# high-water-mark world) and tidemark.wasm (every world). A page loads the
# smallest that runs its scenarios (web/pages/module.go).
#
# Every build compiles the project's own packages without inlining
# (WASM_GCFLAGS, internal/wasmnode.AllWorldsGCFlags, which a test keeps
# equal): 58 KB less brotli for every world's, 42 KB for the log world's,
# 16 KB for the high-water-mark world's, for a run 1.2 to 2 times slower in
# wasm (docs/performance.md, "Download: the project's code without
# inlining", and "Download: every build without inlining").
MODULES = tidemark.wasm:all tidemark-stream.wasm:tm_stream tidemark-log.wasm:tm_log tidemark-hwm.wasm:tm_hwm
WASM_GCFLAGS = github.com/tidemark/tidemark/...=-l
wasm:
	@set -e; for m in $(MODULES); do \
		name=$${m%%:*}; tag=$${m##*:}; \
		echo "GOOS=js GOARCH=wasm $(GO) build -tags $$tag -o web/static/$$name ./wasm"; \
		rm -f web/static/$$name; \
		GOOS=js GOARCH=wasm $(GO) build -trimpath -tags "$$tag tm_browser" -gcflags='$(WASM_GCFLAGS)' -ldflags='-s -w' -o web/static/$$name ./wasm; \
	done
	$(GO) run ./web/internal/wasmmerge -strip-lines -strip-inlining -strip-unsafe-points -strip-arginfo -short-names build/wasm-names $(addprefix web/static/,$(foreach m,$(MODULES),$(firstword $(subst :, ,$(m)))))
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" web/static/wasm_exec.js
	$(GO) run ./web/internal/precompress $(addprefix web/static/,$(foreach m,$(MODULES),$(firstword $(subst :, ,$(m)))))

build: generate
	$(GO) build ./...

vet:
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./web/... ./cmd/serve/... ./wasm/...
	# The smaller modules' build tags must leave every package building.
	$(GO) build -tags tm_hwm ./... && $(GO) build -tags tm_log ./... && $(GO) build -tags tm_stream ./... && $(GO) build -tags tm_browser ./...

# check-generated fails when `templ generate` or the lessons' titles
# (lessons/titles) would change a committed file.
check-generated: generate
	git diff --exit-code -- '*_templ.go' lessons/titles/titles_gen.go

# test builds the wasm module first: the browser tests load it. The browser
# tests (web/e2e) take about nine minutes on a 2-core machine, close to go
# test's default limit of ten per package, so the limit is raised: a slower
# machine must not fail them by the clock. The tests of what the build of
# the log and stream worlds leaves out run again with its tag.
test: wasm vet check-generated axe
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -count=1 -tags tm_stream -run 'TestStreamBuild' ./engine/logs
	$(GO) run ./cmd/tidemark check --all docs
	@$(MAKE) --no-print-directory worker-test

# axe installs axe-core, pinned in web/e2e/testdata/axe/package-lock.json,
# for the browser tests' accessibility audit (web/e2e/a11y_test.go), when
# its node_modules is missing or older than the lock. Without npm (Debian's
# nodejs lacks it: apt-get install -y npm), or when npm ci fails, it says so
# and the audit skips; with CI set, either fails, as the audit would.
AXE_DIR := web/e2e/testdata/axe
axe: $(AXE_DIR)/node_modules/.package-lock.json

$(AXE_DIR)/node_modules/.package-lock.json: $(AXE_DIR)/package.json $(AXE_DIR)/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "axe-core not installed: npm is missing (apt-get install -y npm); the accessibility audit (TestAccessibility) will skip"; \
		[ -z "$$CI" ] || { echo "CI is set, so a missing npm is a failure" >&2; exit 1; }; \
	else \
		echo "cd $(AXE_DIR) && npm ci"; \
		(cd $(AXE_DIR) && npm ci --no-audit --no-fund) || { \
			[ -z "$$CI" ] || exit 1; \
			echo "npm ci failed in $(AXE_DIR); the accessibility audit (TestAccessibility) will skip"; }; \
	fi

# worker-test runs worker-smoke when wrangler can be had (installed already,
# or npm's registry answers), and otherwise says why it does not.
worker-test:
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "worker-smoke skipped: npm is not installed (the Worker test runs wrangler, from npm)"; \
	elif [ -x cmd/serve/node_modules/.bin/wrangler ] || timeout 30 npm ping >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory worker-smoke; \
	else \
		echo "worker-smoke skipped: npm's registry does not answer and wrangler is not installed in cmd/serve/node_modules"; \
	fi

test-short:
	$(GO) test -short ./...

# fuzz runs every fuzz target for FUZZTIME each (make test runs only their
# seeds): the scenario parser, a scenario's build and run, a learner's
# actions on every bundled scenario, a page's query, a shared link, a
# lesson's text, keyed state's restore, the whole site's requests and the
# whole-number reader (against strconv), the quoting of narration, and the
# local server's HTTP reading (a test in lessons/ keeps this list whole).
# A failing input is written under the package's testdata/fuzz; a failing
# target does not stop the others, and the failures are listed at the end.
FUZZTIME ?= 60s
FUZZ_TARGETS = ./engine/scenario:FuzzParse ./engine:FuzzBuildRun ./templates/widget:FuzzSessionActs \
	./templates/widget:FuzzParseQuery ./web/share:FuzzDecode ./lessons/course:FuzzChapter \
	./lessons/course:FuzzDirective ./engine/keyed:FuzzRestore ./web/site:FuzzSite \
	./engine/whole:FuzzAgreesWithStrconv ./engine/prose:FuzzQuote ./cmd/serve:FuzzFastServer \
	./templates/widget:FuzzWords
fuzz:
	@failed=; for t in $(FUZZ_TARGETS); do \
		echo "$(GO) test $${t%%:*} -run '^$$' -fuzz '^$${t##*:}$$' -fuzztime $(FUZZTIME)"; \
		$(GO) test $${t%%:*} -run '^$$' -fuzz "^$${t##*:}\$$" -fuzztime $(FUZZTIME) || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "make fuzz: failed:$$failed" >&2; exit 1; fi

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

# worker builds the site as a Cloudflare Worker into build/worker: assets/,
# the site exported as static files for WORKER_BASE_URL (tidemark export:
# every page, the static files under their plain and hashed names, pictures,
# oEmbed descriptions, _headers), which Workers static assets answer before
# the Worker runs; app.wasm, cmd/serve compiled to wasm, which serves the
# routes a copy cannot answer (pictures of any step, the sandbox's posts,
# /oembed) with github.com/syumai/workers, embeds no static file but links to
# them by the hashed names it is given at link time, and has its data
# segments joined as the browser module's are, and the tables only a
# traceback's inlined frames and arguments and asynchronous preemption read
# cleared (about 136 KiB less gzip; its tracebacks keep file and line); the library's glue
# (worker.mjs, runtime.mjs, wasm_exec.js, written by its workers-assets-gen,
# which starts Go for each request); and entry.mjs (cmd/serve/entry.mjs),
# which wraps the glue for the assets' routing. cmd/serve/wrangler.jsonc runs
# this target as its build command; docs/deploy.md has the whole path to a
# deployed site.
#
# WORKER_BASE_URL is the address the Worker will be served at, which the
# exported pages' absolute links (snippets, previews) start with; nothing
# guesses it. WORKER_LDFLAGS=-w keeps the module's function names (its name
# section, 55 KB more gzip), so that a CPU profile names Go's functions:
# worker-smoke builds so for its profiles. worker-dev serves the Worker locally in workerd through
# wrangler (installed from cmd/serve/package-lock.json), and worker-smoke
# checks every file and every kind of response there, and a scenario page in
# Chromium.
WORKER_DIR := build/worker
WORKER_BASE_URL ?=
WORKER_LDFLAGS ?= -s -w
WRANGLER_ENV := WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false
worker: generate wasm
	@[ -n "$(WORKER_BASE_URL)" ] || { echo "make worker: set WORKER_BASE_URL to the address the Worker will be served at, e.g. WORKER_BASE_URL=https://tidemark.example.workers.dev (make worker-dev uses http://127.0.0.1:8787)" >&2; exit 2; }
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER_DIR)
	cp cmd/serve/entry.mjs $(WORKER_DIR)/entry.mjs
	$(GO) run ./cmd/tidemark export --base-url $(WORKER_BASE_URL) --out $(WORKER_DIR)/assets
	printf '.tidemark-export\n.nojekyll\n' >$(WORKER_DIR)/assets/.assetsignore
	$(GO) run ./web/internal/workerassets web/static >$(WORKER_DIR)/asset-names
	GOOS=js GOARCH=wasm $(GO) build -trimpath \
		-ldflags="$(WORKER_LDFLAGS) -X github.com/tidemark/tidemark/web.AssetNames=$$(cat $(WORKER_DIR)/asset-names)" \
		-o $(WORKER_DIR)/app.wasm ./cmd/serve
	$(GO) run ./web/internal/wasmmerge -strip-inlining -strip-unsafe-points -strip-arginfo $(WORKER_DIR)/app.wasm

cmd/serve/node_modules/.package-lock.json: cmd/serve/package-lock.json
	cd cmd/serve && npm ci --no-audit --no-fund

wrangler: cmd/serve/node_modules/.package-lock.json

worker-dev: wrangler
	cd cmd/serve && WORKER_BASE_URL=http://127.0.0.1:8787 $(WRANGLER_ENV) npx wrangler dev --local --ip 127.0.0.1 --port 8787

# worker-smoke needs the browser module built before the test is compiled;
# the test's wrangler builds the Worker itself, for the port it serves on.
worker-smoke: wasm wrangler
	TIDEMARK_WORKER=1 $(GO) test -count=1 -timeout 20m -run TestWorker -v ./cmd/serve

# loadtest serves the same bytes with Tidemark, with nginx and with bare
# net/http and fasthttp handlers (internal/httpfloor) on loopback and prints
# their rates under ab and their ratios to nginx's, for a static file and a
# scenario page (cmd/serve/loadtest.sh, which installs nginx and ab with
# apt-get when missing; docs/performance.md has figures). It takes about seven
# minutes (two rounds, LOADTEST_ROUNDS; LOADTEST_SECONDS per ab run).
loadtest: wasm
	./cmd/serve/loadtest.sh

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
