// Package memtrim keeps a long session's memory flat. A long session's
// live heap is small (12–20 MB after 1,000 turns), but every request
// encodes the whole history: megabytes of garbage per turn, which Go's
// default pacing lets the heap double over and keeps after the turn (the
// terminal reached 103 MB after 500 turns of 6 KB answers, stream-json
// 142 MB after 1,000). The faces that run many turns in one process
// call Limit once and AfterTurn at the end of each turn.
package memtrim

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// limit is the soft memory limit: Go's own memory, the process adds its
// code. Near it the collector works harder; it is never a hard cap.
const limit = 56 << 20

// Start-up pacing: a headless run, --version or a face starting up
// allocates 3-6 MB in all (1.5 MB of it the packages' initialisation),
// just past the 4 MB heap Go's default pacing collects at. That one
// collection, in a process about to exit, was 5 % of a headless run's
// CPU and ~1 MB of its RSS (mark workers, their stacks, the pages
// sweeping touches) on bench/startup.sh. Until startWindow has passed
// the collector waits for a heap startGOGC/100 times as large (8 MB at
// least), then goes back to Go's default. 200, not more: work that
// allocates fast from the start (the pure-Go search of a big tree) peaks
// ~3 MB higher with it, ~8 MB with 400.
const (
	startGOGC   = 200
	startWindow = time.Second
)

// StartUp relaxes the collector for the process's first startWindow,
// unless GOGC chose its pacing. Called first thing in main.
func StartUp() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(startGOGC)
	afterFunc(startWindow, func() { debug.SetGCPercent(100) })
}

// afterFunc is time.AfterFunc; a test runs the restore itself.
var afterFunc = time.AfterFunc

// ours is set when Limit chose the limit, so AfterTurn never moves one
// the user chose with GOMEMLIMIT.
var ours atomic.Bool

// Limit sets the soft memory limit, unless GOMEMLIMIT chose one.
func Limit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
		ours.Store(true)
	}
}

// AfterTurn gives what the turn built and dropped back to the system,
// on a goroutine of its own, while the user reads or the client thinks.
// It also raises the limit above a live heap that outgrew it (a session
// holding big files): a limit below the live heap would keep the
// collector running on up to half the CPU. The live heap is read after
// FreeOSMemory, whose collection makes liveHeap's figure the live one.
func AfterTurn() {
	go trim()
}

// trim is AfterTurn's work.
func trim() {
	debug.FreeOSMemory()
	if ours.Load() {
		debug.SetMemoryLimit(limitFor(liveHeap()))
	}
}

// limitFor is the soft limit for a live heap: the fixed limit, or twice
// the live heap once that is more.
func limitFor(live uint64) int64 {
	return max(int64(limit), 2*int64(live))
}

// liveHeap is the live heap, read right after a collection (AfterTurn's
// FreeOSMemory runs one and finishes its sweep): then MemStats.HeapAlloc
// is what that collection marked live, plus what was allocated since
// (little, on a goroutine that runs while the user reads). It is the
// figure runtime/metrics calls /gc/heap/live:bytes; reading it there
// linked runtime/metrics, whose init builds its table of descriptions
// (a text window and allocations on every run, --version included).
// ReadMemStats stops the world for microseconds, once a turn, after a
// collection that stopped it already.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
