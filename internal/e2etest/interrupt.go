package e2etest

import (
	"os"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// InterruptMidTurn waits until p's turn reaches srv, sends sig, and fails
// the test unless castor exits with 130, the interrupted run's code.
func InterruptMidTurn(t *testing.T, p *Process, srv *fakegemini.Server, sig os.Signal) {
	t.Helper()
	AwaitModelCall(t, srv)
	p.Signal(sig)
	p.WantExit(130)
}

// AwaitModelCall waits until srv has received a request (a turn reached
// the model), and fails the test at the hang limit.
func AwaitModelCall(t *testing.T, srv *fakegemini.Server) {
	t.Helper()
	for deadline := time.Now().Add(HangLimit); len(srv.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) { // a hang, not a timing assertion
			t.Fatal("no request reached the model")
		}
	}
}
