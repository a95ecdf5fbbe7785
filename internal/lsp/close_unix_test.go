//go:build unix

package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/lsp/lsptest"
)

// TestCloseEndsServerStillStarting: a session closed while its first
// language server is still in its handshake (the SDK's quick start read
// a .go file and ended) returns only once that server is gone, so it
// writes nothing in the user's folders afterwards.
func TestCloseEndsServerStillStarting(t *testing.T) {
	ws := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	m, _ := fakeManager(t, ws, lsptest.HangEnv+"="+pidFile)
	starting := make(chan error, 1)
	go func() {
		_, err := m.Client(context.Background(), filepath.Join(ws, "a.txt"))
		starting <- err
	}()
	var pid int
	for pid == 0 {
		b, err := os.ReadFile(pidFile) // the server is up, in its handshake
		if err == nil && len(b) > 0 {
			pid, _ = strconv.Atoi(string(b))
		}
		select {
		case err := <-starting:
			t.Fatalf("the server's start ended before it wrote its pid: %v", err)
		default:
		}
	}
	m.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server %d still there after Close: %v", pid, err)
	}
	if err := <-starting; err == nil {
		t.Errorf("a server stopped in its handshake was handed out")
	}
}
