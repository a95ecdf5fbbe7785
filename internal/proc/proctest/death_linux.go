package proctest

import (
	"os/exec"
	"syscall"
)

// DieWithTest makes cmd, a process a test starts (never one Castor runs
// for the user: those are internal/proc's), receive SIGTERM when the test
// binary dies, and returns it; call it before cmd starts. go test's
// -timeout ends the test binary with a panic, so no t.Cleanup runs, and a
// server, castor or tmux would otherwise stay behind. SIGTERM lets castor
// stop its own children and tmux end its panes.
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
