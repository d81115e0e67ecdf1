// Package e2e holds Tidemark's browser tests. They start the real web handler
// on 127.0.0.1, drive Debian's headless Chromium through chromedp, and save a
// screenshot to web/e2e/failures/<test>.png when a test fails.
//
// Without Chromium the tests skip, unless the environment variable CI is set:
// then they fail, so a CI machine cannot pass by having no browser. Install it
// with `apt-get install -y chromium`, or point TIDEMARK_CHROMIUM at another
// binary. `go test -short` skips them too.
//
// The package has no code of its own outside its tests; the harness lives in
// harness_test.go so that every browser test can use it.
package e2e
