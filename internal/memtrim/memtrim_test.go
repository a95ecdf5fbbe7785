package memtrim

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	Limit()
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("limit %d, want %d", got, limit)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	Limit()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set, yet the limit became %d", got)
	}
}
