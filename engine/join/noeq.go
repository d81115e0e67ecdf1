package join

// noEq, as a struct's first field, makes the struct incomparable, and so
// the compiler writes no equality function for it. Go writes one for every
// comparable struct whose type the program keeps (a slice of it is enough)
// and the browser module would carry them all; a struct that is never
// compared with == nor used as a map key does without (docs/performance.md,
// "Download: structs without equality functions").
type noEq [0]func()
