//go:build unix

package headless_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// bothSleep starts two children of the command's shell that ignore
// SIGTERM, writes their pids to the file pids, and waits for them: what
// must not outlive a stopped command.
const bothSleep = `trap '' TERM; sleep 300 & echo $! > pids; sleep 301 & echo $! >> pids; wait`

// TestSignalStopsShellCommandGroup: castor -p signalled while the model's
// shell command runs stops the command's whole process group, children
// ignoring SIGTERM included, and exits 130.
func TestSignalStopsShellCommandGroup(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Call("run_shell_command", map[string]any{"command": bothSleep}))
			p := e.Start(e2etest.Options{}, "--approval-mode", "yolo", "-p", "run it")
			pids := e2etest.ReadPids(t, filepath.Join(e.WS, "pids"))
			p.Signal(sig)
			p.WantExit(130)
			for _, pid := range pids {
				e2etest.WaitExited(t, pid)
			}
		})
	}
}

// TestHookTimeoutStopsGroup: a command hook that times out is stopped
// with what it started, even children that ignore SIGTERM (they used to
// run on after castor exited), and the turn goes on.
func TestHookTimeoutStopsGroup(t *testing.T) {
	e := e2etest.New(t, fakegemini.Text("answered"))
	e2etest.WriteSettings(t, e, map[string]any{"hooks": map[string]any{"BeforeAgent": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": bothSleep, "timeout": 500}}},
	}}})
	r := e.Run("-p", "hi")
	if r.Code != 0 || r.Stdout != "answered\n" || !strings.Contains(r.Stderr, "timed out after 500ms") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, pid := range e2etest.ReadPids(t, filepath.Join(e.WS, "pids")) {
		e2etest.WaitExited(t, pid)
	}
}

// TestTUIBangCancelStopsGroup: Esc on a running "!" command stops it and
// what it started.
func TestTUIBangCancelStopsGroup(t *testing.T) {
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Submit("!" + bothSleep)
	pids := e2etest.ReadPids(t, filepath.Join(e.WS, "pids"))
	tm.Keys("Escape")
	tm.WaitFor("(cancelled)")
	for _, pid := range pids {
		e2etest.WaitExited(t, pid)
	}
}
