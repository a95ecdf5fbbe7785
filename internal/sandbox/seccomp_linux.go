//go:build linux && (amd64 || arm64)

package sandbox

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompNumbers are an architecture's audit value and system call
// numbers.
type seccompNumbers struct{ arch, socket, ioUringSetup uint32 }

// seccompArch returns this build's seccompNumbers. A switch on the
// constant GOARCH, not a map, so that nothing runs at start.
func seccompArch() seccompNumbers {
	switch runtime.GOARCH {
	case "amd64":
		return seccompNumbers{unix.AUDIT_ARCH_X86_64, 41, 425}
	case "arm64":
		return seccompNumbers{unix.AUDIT_ARCH_AARCH64, 198, 425}
	}
	return seccompNumbers{}
}

// noIPSockets installs, on the calling thread (and so on what it
// starts), a seccomp filter that refuses IPv4 and IPv6 sockets with
// EACCES: the *-closed profiles' network block for what Landlock does
// not cover before its ABI 10 (UDP, raw sockets, MPTCP). io_uring, which
// can make sockets behind the filter's back, is refused too, and so is
// every system call of another architecture (x32, 32-bit x86), whose
// numbers the filter does not know.
func noIPSockets() error {
	const deny = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	ld := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	jump := func(op uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	// struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low
	// half on these little-endian architectures).
	nums := seccompArch()
	prog := []unix.SockFilter{
		/* 0 */ ld(4),
		/* 1 */ jump(unix.BPF_JEQ, nums.arch, 0, 8), // else deny
		/* 2 */ ld(0),
		/* 3 */ jump(unix.BPF_JGE, 0x40000000, 6, 0), // x32: deny
		/* 4 */ jump(unix.BPF_JEQ, nums.ioUringSetup, 5, 0),
		/* 5 */ jump(unix.BPF_JEQ, nums.socket, 0, 3), // else allow
		/* 6 */ ld(16),
		/* 7 */ jump(unix.BPF_JEQ, unix.AF_INET, 2, 0),
		/* 8 */ jump(unix.BPF_JEQ, unix.AF_INET6, 1, 0),
		/* 9 */ ret(unix.SECCOMP_RET_ALLOW),
		/* 10 */ ret(deny),
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}
