package e2etest

import (
	"os"
	"testing"

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
