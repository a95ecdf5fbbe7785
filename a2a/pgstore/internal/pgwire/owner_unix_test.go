//go:build unix

package pgwire_test

import (
	"os"
	"syscall"
)

// owner is who owns a file, for a file the server must own too.
func owner(fi os.FileInfo) (uid, gid int) {
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}
