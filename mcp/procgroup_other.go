//go:build !unix && !windows

package mcp

import (
	"errors"
	"os/exec"
	"time"
)

// procGroup is the server's process alone where the platform has neither
// process groups nor job objects.
type procGroup struct{ cmd *exec.Cmd }

func prepareGroup(*exec.Cmd) {}

func joinGroup(cmd *exec.Cmd) *procGroup { return &procGroup{cmd: cmd} }

func (g *procGroup) terminate() error { return errors.ErrUnsupported }

func (g *procGroup) kill() { _ = g.cmd.Process.Kill() }

func (g *procGroup) sweep(time.Duration) {}
