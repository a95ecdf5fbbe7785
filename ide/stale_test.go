package ide_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/ide"
)

// TestStaleFileOfSameIDE: a companion that crashed leaves its discovery
// file behind; the one restarted in the same IDE writes another with the
// same PID. The stale file sorts first, yet the client connects to the
// live companion rather than failing with "connection refused", and
// `castor ide status` marks the live file as selected.
func TestStaleFileOfSameIDE(t *testing.T) {
	e := newEnv(t)
	srv := e.start(t, newFakeEditor())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().(*net.TCPAddr).Port
	l.Close()
	// Port 1 in the name sorts before any live port of the same PID.
	stale := filepath.Join(ide.DiscoveryDir(e.tmp), ide.DiscoveryFileName(testPID, 1))
	body := fmt.Sprintf(`{"port":%d,"workspacePath":%q,"authToken":"old"}`, dead, e.ws)
	if err := os.WriteFile(stale, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}

	c := e.connect(t)
	if got, want := c.Status().URL, fmt.Sprintf("http://127.0.0.1:%d/mcp", srv.Port()); got != want {
		t.Errorf("connected to %s, want the live companion at %s", got, want)
	}

	r := ide.Diagnose(context.Background(), e.options())
	if !r.Connected {
		t.Fatalf("ide status: not connected: %s", r.Error)
	}
	for _, f := range r.Files {
		if f.Selected != (f.Name == filepath.Base(srv.DiscoveryFile())) {
			t.Errorf("%s: selected %v (%s)", f.Name, f.Selected, f.Note)
		}
	}
}

// TestStaleFileAlone: with no live companion, the stale file's refusal is
// still what the user reads.
func TestStaleFileAlone(t *testing.T) {
	e := newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().(*net.TCPAddr).Port
	l.Close()
	os.MkdirAll(ide.DiscoveryDir(e.tmp), 0o700)
	stale := filepath.Join(ide.DiscoveryDir(e.tmp), ide.DiscoveryFileName(testPID, dead))
	os.WriteFile(stale, []byte(fmt.Sprintf(`{"port":%d,"workspacePath":%q,"authToken":"old"}`, dead, e.ws)), 0o600)
	_, err = ide.Connect(context.Background(), e.options())
	var ce *ide.ConnectError
	if !errors.As(err, &ce) || ce.Problem != ide.ProblemRefused || !strings.Contains(err.Error(), "stale") {
		t.Errorf("Connect: %v", err)
	}
}
