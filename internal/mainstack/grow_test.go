//go:build amd64 || arm64

package mainstack

import (
	"testing"
	"unsafe"
)

// deep uses some 1 KB of stack per level.
//
//go:noinline
func deep(n int) byte {
	var pad [1000]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[n%len(pad)]
}

// TestGrowLeavesRoom: grow moves a goroutine to a bigger stack (a copy
// moves its locals), and that stack holds calls needing most of Size
// without growing again (its locals stay where they are).
func TestGrowLeavesRoom(t *testing.T) {
	at := make(chan [3]uintptr)
	go func() {
		var x byte
		before := uintptr(unsafe.Pointer(&x))
		grow()
		grown := uintptr(unsafe.Pointer(&x))
		deep(Size / 2 / 1024 * 3 / 2) // ~48 KB of frames
		after := uintptr(unsafe.Pointer(&x))
		at <- [3]uintptr{before, grown, after}
	}()
	a := <-at
	if a[0] == a[1] {
		t.Error("grow left the goroutine on its stack")
	}
	if a[1] != a[2] {
		t.Errorf("after grow, %d KB of calls grew the stack again: grow gives less than Size", Size/2/1024*3/2)
	}
}
