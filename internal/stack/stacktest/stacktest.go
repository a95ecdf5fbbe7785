// Package stacktest helps tests see whether a goroutine's stack grows: a
// copy to a bigger stack moves the goroutine's locals.
package stacktest

import "unsafe"

// Use makes nested calls needing about kb KB of stack, 1 KB a frame.
//
//go:noinline
func Use(kb int) byte {
	var pad [1000]byte
	pad[kb%len(pad)] = byte(kb)
	if kb <= 1 {
		return pad[0]
	}
	return Use(kb-1) + pad[kb%len(pad)]
}

// Moves reports whether calling f copies the calling goroutine's stack.
//
//go:noinline
func Moves(f func()) bool {
	var x byte
	before := uintptr(unsafe.Pointer(&x))
	f()
	return before != uintptr(unsafe.Pointer(&x))
}
