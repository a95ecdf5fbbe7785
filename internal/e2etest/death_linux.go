package e2etest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// DieWithTest makes cmd receive SIGTERM when the test binary dies, before
// it is started: go test's -timeout ends the test binary with a panic, so
// no t.Cleanup runs, and castor or tmux would otherwise stay behind.
// SIGTERM lets castor stop its own children and tmux end its panes.
//
// The kernel sends the signal when the thread that started cmd ends; Go
// ends threads only with the process (no test locks a goroutine to its
// thread), so that is when the test binary exits.
func DieWithTest(cmd *exec.Cmd) *exec.Cmd {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	return cmd
}

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
