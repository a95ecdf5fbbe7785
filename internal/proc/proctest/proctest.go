//go:build unix

// Package proctest helps tests check that a stopped command left nothing
// running.
package proctest

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Gone reports whether pid has exited: no such process, or a zombie
// waiting for its reaper.
func Gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err != nil || strings.HasPrefix(strings.TrimSpace(string(out)), "Z")
}

// WaitGone waits for pid to exit, and fails the test and kills it when it
// does not. The bound is on a hang, not a timing assertion: callers have
// stopped the process already and only wait for it to be reaped.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if Gone(pid) {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d still runs after it was stopped", pid)
}

// Bystander starts a process of the test's user that nothing under test
// started (sleep 600), ended when the test ends. exited is closed once
// it has ended, however that happened.
func Bystander(t testing.TB) (pid int, exited <-chan struct{}) {
	t.Helper()
	cmd := DieWithTest(exec.Command("sleep", "600"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	return cmd.Process.Pid, done
}
