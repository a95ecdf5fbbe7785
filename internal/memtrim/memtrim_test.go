package memtrim

import (
	"math"
	"runtime"
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

func TestLimitFollowsALargeLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, limit},
		{20 << 20, limit},
		{28 << 20, limit},
		{100 << 20, 200 << 20},
	} {
		if got := limitFor(c.live); got != c.want {
			t.Errorf("limitFor(%d MB) = %d MB, want %d MB", c.live>>20, got>>20, c.want>>20)
		}
	}
	runtime.GC()
	if liveHeap() == 0 {
		t.Error("the runtime reports no live heap")
	}
}
