//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
	"time"
)

// procGroup is a stdio server's process group: the server leads a group
// of its own, so that whatever it starts (npx's node child, the python
// behind "sh -c") is stopped with it rather than left running after
// Castor exits. It also keeps a terminal's Ctrl-C, which goes to the
// foreground group, from reaching servers: Castor decides when they stop.
type procGroup struct{ pgid int }

// prepareGroup sets cmd, before it starts, to lead a new process group.
func prepareGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// joinGroup returns the group of cmd, which has started.
func joinGroup(cmd *exec.Cmd) *procGroup { return &procGroup{pgid: cmd.Process.Pid} }

// terminate asks the whole group to stop.
func (g *procGroup) terminate() error { return syscall.Kill(-g.pgid, syscall.SIGTERM) }

// kill stops the whole group at once.
func (g *procGroup) kill() { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

// empty reports whether no process of the group is left (or none that
// Castor may signal).
func (g *procGroup) empty() bool { return syscall.Kill(-g.pgid, 0) != nil }

// sweep stops what is left of the group once its leader has exited: the
// children a server started and did not stop. They are asked politely,
// given grace to exit, then killed.
func (g *procGroup) sweep(grace time.Duration) {
	if g.empty() || g.terminate() != nil {
		return
	}
	deadline := time.Now().Add(grace)
	for pause := 5 * time.Millisecond; time.Now().Before(deadline); pause = min(2*pause, 100*time.Millisecond) {
		time.Sleep(pause)
		if g.empty() {
			return
		}
	}
	g.kill()
}
