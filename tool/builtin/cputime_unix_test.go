//go:build unix

package builtin

import "syscall"

// cpuTimeNS is the CPU time (user and system) this process and its
// waited-for children have used, in nanoseconds.
func cpuTimeNS() int64 {
	var total int64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)
		}
	}
	return total
}
