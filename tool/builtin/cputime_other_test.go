//go:build !unix

package builtin

// cpuTimeNS is unknown here: benchmarks report 0 CPU.
func cpuTimeNS() int64 { return 0 }
