//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/proc/proctest"
)

// TestStopLeavesNothingBehind: stopping a stdio server stops what it
// started too: a background child of the server, the server behind
// "sh -c", children that ignore SIGTERM. Before process groups, each of
// these children kept running after Castor exited.
func TestStopLeavesNothingBehind(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q := strconv.Quote
	cases := []struct {
		name string
		// script runs the helper server; it writes the pid of the child
		// that must not survive to $PIDFILE.
		script string
	}{
		{"child of an exec'd server", `sleep 300 & echo $! > "$PIDFILE"; exec ` + q(exe)},
		{"server behind sh -c", `sleep 300 & echo $! > "$PIDFILE"; ` + q(exe)},
		{"children ignoring SIGTERM", `trap '' TERM; sleep 300 & echo $! > "$PIDFILE"; ` + q(exe) + `; sleep 300`},
		{"child holding stderr", `(sleep 300 >&2) & echo $! > "$PIDFILE"; exec ` + q(exe)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cfg := &ServerConfig{Name: "kids", Command: "sh", Args: []string{"-c", c.script},
				Env: map[string]string{helperEnv: "everything", "PIDFILE": pidFile}}
			m, d := startManager(t, Options{Servers: []*ServerConfig{cfg}})
			if st, _ := m.Status("kids"); st.Status != StatusConnected {
				t.Fatalf("status = %+v\n%s", st, d)
			}
			pid := readPid(t, pidFile)
			if proctest.Gone(pid) {
				t.Fatalf("child %d is not running before the stop", pid)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			// A generous bound on a hang, not a timing assertion: Close
			// has returned, so the child is dead or being reaped.
			proctest.WaitGone(t, pid)
		})
	}
}

// TestCrashedServerLeavesNothingBehind: a server that dies mid-call takes
// its children with it, and its failure still quotes its stderr.
func TestCrashedServerLeavesNothingBehind(t *testing.T) {
	exe, _ := os.Executable()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := &ServerConfig{Name: "crashy", Command: "sh",
		Args: []string{"-c", `(sleep 300 >&2) & echo $! > "$PIDFILE"; exec ` + strconv.Quote(exe)},
		Env:  map[string]string{helperEnv: "everything", "PIDFILE": pidFile}}
	m, d := startManager(t, Options{Servers: []*ServerConfig{cfg}})
	if st, _ := m.Status("crashy"); st.Status != StatusConnected {
		t.Fatalf("status = %+v\n%s", st, d)
	}
	pid := readPid(t, pidFile)
	r := run(t, m, "crash", nil)
	if r.Error == nil {
		t.Fatal("crash did not fail")
	}
	if !strings.Contains(r.Display, "exited with status 2 during the call") || !strings.Contains(r.Display, "crashing on purpose") {
		t.Errorf("display = %q", r.Display)
	}
	proctest.WaitGone(t, pid)
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
