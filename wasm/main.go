//go:build js && wasm

// Command wasm is the Tidemark engine's bridge to the browser. It is built
// with GOOS=js GOARCH=wasm into web/static/tidemark.wasm by `make wasm`.
//
// This placeholder registers nothing yet; it only stays alive so that the
// page's JavaScript can load it. The engine bridge replaces its body.
package main

func main() {
	select {}
}
