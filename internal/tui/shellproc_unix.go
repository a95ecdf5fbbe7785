//go:build unix

package tui

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel makes cancelling cmd kill its whole process group,
// so that what a `!` command started in the background stops with it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
