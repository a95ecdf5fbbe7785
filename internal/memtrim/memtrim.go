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
	"runtime/debug"
)

// limit is the soft memory limit: Go's own memory, the process adds its
// code. Near it the collector works harder; it is never a hard cap.
const limit = 56 << 20

// Limit sets the soft memory limit, unless GOMEMLIMIT chose one.
func Limit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}

// AfterTurn gives what the turn built and dropped back to the system,
// on a goroutine of its own, while the user reads or the client thinks.
func AfterTurn() { go debug.FreeOSMemory() }
