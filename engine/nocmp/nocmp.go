// Package nocmp holds NoCompare, a field that makes a struct incomparable.
package nocmp

// NoCompare, as a struct's first field (`_ nocmp.NoCompare`), makes the
// struct incomparable, so that the compiler writes no equality function for
// it. Go writes one for every comparable struct type a program keeps (a
// slice of it is enough) and the browser module would carry them all: for
// the project's structs, 47 KB of wasm in the stream build, 6 KB of brotli
// (docs/performance.md, "Download: structs without equality functions").
// It has no size, but a function's alignment: a struct with a pointer, a
// string or a 64-bit field already has it and stays the same size, while
// one of 32-bit fields alone would grow (three of 12 bytes, kept by the
// thousand, would take 16), so those go without it, as does a struct
// compared with == or used as a map key.
type NoCompare [0]func()
