// Package stack keeps Castor's goroutines from unwinding deep stacks, for
// the memory that unwinding makes resident. The castor command imports it
// first; the agent calls Grow in each goroutine that runs a tool.
//
// A goroutine starts with a 2 KB stack that doubles when a call needs
// more. Each doubling copies the stack and unwinds every frame on it,
// reading the unwinding tables of each function there. Those tables lie
// spread over the binary's pclntab in the order of the code, and the
// kernel maps file pages in 64 KB windows around every fault, so a
// doubling under a dozen packages' frames makes resident some 0.5 MB of
// the binary that nothing else reads (issue #24):
//   - A start of Castor doubled the main goroutine's stack five times, the
//     last three deep in a dependency's regular-expression compiler.
//     Growing it to MainSize in this package's init, while the stack holds
//     that init and the runtime's two frames below it, costs one copy of
//     a shallow stack.
//   - A headless run whose model called two tools doubled each tool's
//     goroutine once or twice in the middle of the tool's work, 0.8 MB of
//     RSS in all. Grow does it first thing instead.
//
// The pages of a grown stack are touched only as calls use them.
//
// The package imports nothing but the runtime, so Go initialises it among
// the first packages, before any that compiles a regular expression at
// init.
package stack

import "runtime"

// MainSize is the stack the main goroutine has after this package's init,
// in bytes.
const MainSize = 64 << 10

// Size is the stack a goroutine has after Grow, in bytes: the largest
// size the runtime caches per processor, and enough for the built-in
// tools' usual calls.
const Size = 16 << 10

func init() {
	growMain()
	// Sampling the heap for a profile unwinds the allocating goroutine's
	// stack at every sample, one per 512 KB allocated; Castor reads no
	// heap profile (a dependency links the profiler, so the linker leaves
	// sampling on). A rate set by GODEBUG=memprofilerate is kept.
	if runtime.MemProfileRate == 512<<10 {
		runtime.MemProfileRate = 0
	}
}
