//go:build windows

package proc

import (
	"os/exec"
	"testing"
	"time"
)

// TestKillWithoutJob: a command that could not be put in a job object is
// still killed, so that an MCP server's Close, which waits for its exit,
// does not wait forever for a server that ignores its closed stdin.
func TestKillWithoutJob(t *testing.T) {
	cmd := exec.Command("powershell", "-NoProfile", "-Command", "Start-Sleep -Seconds 600")
	if err := cmd.Start(); err != nil {
		t.Skipf("no powershell to start: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	_ = New(cmd, Options{}).Kill()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("kill without a job left the server running")
	}
}
