package e2etest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// removeLeftovers removes the temporary folders (built binary, tmux
// sockets) of test binaries that died without cleaning up, as on go
// test's timeout: their names carry the test binary's pid.
func removeLeftovers() {
	for _, prefix := range []string{binDirPrefix, tmuxDirPrefix} {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		for _, d := range dirs {
			pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(d), prefix), "-", 2)[0])
			if err != nil || pid == os.Getpid() {
				continue
			}
			if syscall.Kill(pid, 0) == syscall.ESRCH {
				os.RemoveAll(d)
			}
		}
	}
}
