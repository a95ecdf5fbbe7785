//go:build unix

package blobstore_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process used so far (user and system):
// with the machine shared, it varies less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
