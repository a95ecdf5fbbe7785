//go:build amd64 || arm64

package stack

import (
	"runtime"
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

// TestGrowLeavesRoom: each grow moves a fresh goroutine to a bigger stack
// (a copy moves its locals), and that stack holds calls needing three
// quarters of its size without growing again (its locals stay where they
// are).
func TestGrowLeavesRoom(t *testing.T) {
	for _, tc := range []struct {
		name string
		grow func()
		size int
	}{
		{"growMain", growMain, MainSize},
		{"Grow", Grow, Size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			levels := tc.size / 2 / 1024 * 3 / 2
			at := make(chan [3]uintptr)
			go func() {
				var x byte
				before := uintptr(unsafe.Pointer(&x))
				tc.grow()
				grown := uintptr(unsafe.Pointer(&x))
				deep(levels)
				after := uintptr(unsafe.Pointer(&x))
				at <- [3]uintptr{before, grown, after}
			}()
			a := <-at
			if a[0] == a[1] {
				t.Error("grow left the goroutine on its stack")
			}
			if a[1] != a[2] {
				t.Errorf("after grow, %d KB of calls grew the stack again: grow gives less than %d KB", levels, tc.size>>10)
			}
		})
	}
}

// TestHeapSamplingOff: the package's init turns off heap profile sampling
// (the test binary sets no GODEBUG=memprofilerate).
func TestHeapSamplingOff(t *testing.T) {
	if runtime.MemProfileRate != 0 {
		t.Errorf("MemProfileRate = %d after init, want 0", runtime.MemProfileRate)
	}
}
