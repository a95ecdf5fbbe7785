//go:build !unix

package hooks

import "os/exec"

// Group is a no-op without process groups: cancelling cmd kills the
// shell only.
func Group(cmd *exec.Cmd, kill bool) {}

// KillGroup kills the process cmd started.
func KillGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
