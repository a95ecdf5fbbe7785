package memtrim

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestStartUp(t *testing.T) {
	t.Cleanup(func() { debug.SetGCPercent(100); afterFunc = time.AfterFunc })
	var restore func()
	afterFunc = func(d time.Duration, f func()) *time.Timer {
		if d != startWindow {
			t.Errorf("restored after %v, want %v", d, startWindow)
		}
		restore = f
		return nil
	}
	for _, c := range []struct {
		gogc        string
		during, end int
	}{
		{"", startGOGC, 100},
		{"50", 50, 50}, // GOGC chose: left alone
	} {
		t.Setenv("GOGC", c.gogc)
		debug.SetGCPercent(100)
		if c.gogc != "" {
			debug.SetGCPercent(50) // as the runtime read it from GOGC
		}
		restore = nil
		StartUp()
		if got := debug.SetGCPercent(-1); got != c.during {
			t.Errorf("GOGC=%q: %d during start-up, want %d", c.gogc, got, c.during)
		}
		debug.SetGCPercent(c.during)
		if restore != nil {
			restore()
		} else if c.gogc == "" {
			t.Fatalf("GOGC=%q: nothing restores the pacing", c.gogc)
		}
		if got := debug.SetGCPercent(-1); got != c.end {
			t.Errorf("GOGC=%q: %d after start-up, want %d", c.gogc, got, c.end)
		}
	}
}

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

// sink keeps the tests' allocations live, or drops them.
var sink [][]byte

// TestLiveHeapIsTheMarkedHeap: read after a collection, liveHeap is
// runtime/metrics' /gc/heap/live:bytes, the figure memtrim read before
// (runtime/metrics is linked only into this test now).
func TestLiveHeapIsTheMarkedHeap(t *testing.T) {
	sink = [][]byte{make([]byte, 24<<20)}
	t.Cleanup(func() { sink = nil })
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	got, want := liveHeap(), s[0].Value.Uint64()
	if want < 24<<20 || got < want-(256<<10) || got > want+(1<<20) {
		t.Errorf("liveHeap() = %d, /gc/heap/live:bytes = %d: not the same figure", got, want)
	}
}

// TestTrimLimitsAboveTheLiveHeap: after a turn that leaves a big live
// heap and as much garbage, the limit becomes twice the live heap, not
// twice what the turn allocated.
func TestTrimLimitsAboveTheLiveHeap(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev); ours.Store(false); sink = nil })
	ours.Store(true)
	const live = 48 << 20
	sink = [][]byte{make([]byte, live), make([]byte, live)}
	for _, b := range sink {
		b[len(b)-1] = 1
	}
	sink[1] = nil // garbage now
	trim()
	got := debug.SetMemoryLimit(-1)
	if got < 2*live || got > 2*live+(16<<20) {
		t.Errorf("limit %d MB after a turn leaving %d MB live and as much garbage, want ~%d MB", got>>20, live>>20, 2*live>>20)
	}
}
