//go:build !linux

package e2etest

import "os/exec"

// DieWithTest returns cmd as it is: only Linux signals a child when its
// parent dies, so elsewhere t.Cleanup alone ends what a test started.
func DieWithTest(cmd *exec.Cmd) *exec.Cmd { return cmd }

// removeLeftovers does nothing: without DieWithTest, a dead test binary's
// processes may still use its folders.
func removeLeftovers() {}
