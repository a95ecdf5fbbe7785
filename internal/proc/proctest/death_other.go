//go:build !linux

package proctest

import "os/exec"

// DieWithTest returns cmd as it is: only Linux signals a child when its
// parent dies, so elsewhere t.Cleanup alone ends what a test started.
func DieWithTest(cmd *exec.Cmd) *exec.Cmd { return cmd }
