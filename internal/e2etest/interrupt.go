package e2etest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// InterruptMidTurn starts cmd (its output already wired, stderr into
// stderr), waits until its turn reaches srv, sends sig, and fails the
// test unless castor exits with 130, the interrupted run's code.
func InterruptMidTurn(t *testing.T, cmd *exec.Cmd, srv *fakegemini.Server, sig os.Signal, stderr *bytes.Buffer) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for len(srv.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond) // waiting for the turn to reach the model
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit = %v, want 130; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(HangLimit): // a hang, not a timing assertion
		_ = cmd.Process.Kill()
		t.Fatalf("castor did not exit after %v; stderr:\n%s", sig, stderr.String())
	}
}
