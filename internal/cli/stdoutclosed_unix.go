//go:build unix

package cli

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// closedAtStart reports whether w is a stdout that was closed when castor
// started (`castor -p … >&-`). The Go runtime opens /dev/null read-write
// in place of a standard descriptor closed at start, so writes to it
// succeed and the answer would vanish with exit 0; a shell's `>/dev/null`
// opens it write-only and is left alone. A process whose three standard
// descriptors are all /dev/null read-write was daemonized on purpose
// (daemon(3) does exactly that), and is left alone too.
func closedAtStart(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fd := int(f.Fd())
	return runtimeNull(fd) && !(runtimeNull(0) && runtimeNull(1) && runtimeNull(2))
}

// runtimeNull reports whether fd is /dev/null opened read-write.
func runtimeNull(fd int) bool {
	var st, null unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	if unix.Stat(os.DevNull, &null) != nil || st.Rdev != null.Rdev {
		return false
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	const accessMode = 3 // O_ACCMODE: O_RDONLY 0, O_WRONLY 1, O_RDWR 2 on every Unix
	return err == nil && fl&accessMode == unix.O_RDWR
}
