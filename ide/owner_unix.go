//go:build !windows

package ide

import (
	"errors"
	"os"
	"syscall"
)

// pidAlive reports whether a process exists: signal 0 checks without
// sending anything, and EPERM means it exists under another user.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedByUser reports whether the current user owns the file.
func ownedByUser(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	return int(st.Uid) == os.Getuid()
}
