//go:build !unix

package tui

import "os/exec"

// killGroupOnCancel leaves cancelling to exec.CommandContext, which kills
// the command's own process: there are no process groups to signal here.
func killGroupOnCancel(*exec.Cmd) {}
