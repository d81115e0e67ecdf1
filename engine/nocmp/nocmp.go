// Package nocmp holds NoCompare, a field that makes a struct incomparable.
package nocmp

// NoCompare, as a struct's first field (`_ nocmp.NoCompare`), makes the
// struct incomparable, so that the compiler writes no equality function for
// it. Go writes one for every comparable struct type a program keeps (a
// slice of it is enough) and the browser module would carry them all: 120
// of them were 83 KB of wasm, 6 KB of brotli (docs/performance.md,
// "Download: structs without equality functions"). It takes no space. A
// struct compared with == or used as a map key goes without it.
type NoCompare [0]func()
