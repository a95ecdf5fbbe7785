package builtin

import (
	"os"
	"strconv"
)

// fdPath returns the kernel's name for the open file f: the target of
// /proc/self/fd/N, which is symlink-free and follows renames.
func fdPath(f *os.File) (string, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", err
	}
	var p string
	var rerr error
	// Control, unlike Fd, leaves the descriptor's blocking mode alone.
	if err := rc.Control(func(fd uintptr) {
		p, rerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	}); err != nil {
		return "", err
	}
	return p, rerr
}
