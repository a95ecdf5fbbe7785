//go:build !unix && !windows

package proc

import (
	"errors"
	"os/exec"
)

// groupSys is empty: without process groups or job objects the group is
// the command's process alone.
type groupSys struct{}

func prepare(*exec.Cmd) {}

func join(*exec.Cmd, Options) groupSys { return groupSys{} }

// Terminate fails: there is no polite stop here.
func (g *Group) Terminate() error { return errors.ErrUnsupported }

// Kill ends the command's process.
func (g *Group) Kill() error { return g.cmd.Process.Kill() }

// Release has nothing to let go of.
func (g *Group) Release() {}

// Alive cannot tell, and says no.
func (g *Group) Alive() bool { return false }

// PIDs cannot tell what the command started.
func (g *Group) PIDs() []int { return nil }
