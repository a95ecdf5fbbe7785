//go:build amd64 || arm64

package stack

import (
	"runtime"
	"testing"

	"github.com/castor-dev/castor/internal/stack/stacktest"
)

// TestGrowLeavesRoom: each grow moves a fresh goroutine to a bigger stack,
// and that stack holds calls needing three quarters of its size without
// growing again.
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
			kb := tc.size / 1024 * 3 / 4
			moved := make(chan [2]bool)
			go func() {
				grew := stacktest.Moves(tc.grow)
				again := stacktest.Moves(func() { stacktest.Use(kb) })
				moved <- [2]bool{grew, again}
			}()
			m := <-moved
			if !m[0] {
				t.Error("grow left the goroutine on its stack")
			}
			if m[1] {
				t.Errorf("after grow, %d KB of calls grew the stack again: grow gives less than %d KB", kb, tc.size>>10)
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
