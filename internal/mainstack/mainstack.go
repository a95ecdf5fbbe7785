// Package mainstack grows the main goroutine's stack once, before the
// init code of other packages runs. The castor command imports it for
// that side effect alone.
//
// A goroutine starts with a 2 KB stack that doubles when a call needs
// more. Each doubling copies the stack and unwinds every frame on it,
// reading the unwinding tables of each function there; those tables sit
// spread over the binary's pclntab, and the kernel maps file pages in
// 64 KB windows around every fault. A start of Castor doubled the main
// goroutine's stack five times, the last three deep in a dependency's
// regular-expression compiler, and the unwinding alone faulted in some
// 0.7 MB of the binary (issue #24). Growing to 64 KB here, while the stack
// holds this init and the runtime's two frames below it, costs one copy
// of a shallow stack; the pages of the new stack are touched only as calls
// use them.
//
// The package imports nothing, so Go initialises it among the first
// packages, before any that compiles a regular expression at init.
package mainstack

// Size is the stack the main goroutine has after this package's init, in
// bytes.
const Size = 64 << 10

func init() { grow() }
