//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// Group makes cmd lead a process group of its own and, when its context
// ends, signals the whole group, so that a hook (or an SDK shell command)
// and whatever it started end together. kill chooses SIGKILL over
// SIGTERM.
func Group(cmd *exec.Cmd, kill bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, sig) }
}

// KillGroup kills the process group cmd leads.
func KillGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
