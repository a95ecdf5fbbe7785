//go:build unix

package mcp_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestMCPServerChildrenStopWithCastor: a stdio MCP server run through a
// shell (as "npx server" or "sh -c 'python server.py'" are) leaves
// nothing running once castor is done, whether the run ends by itself or
// castor is stopped by SIGTERM, SIGINT or the terminal hanging up.
// Before, castor stopped the shell only: the server and a child it
// started were left behind.
func TestMCPServerChildrenStopWithCastor(t *testing.T) {
	t.Parallel()
	node, everything := npmtest.Server(t, "server-everything")
	cases := []struct {
		name string
		sig  syscall.Signal // 0: the run ends by itself
	}{
		{"headless run ends", 0},
		{"SIGTERM", syscall.SIGTERM},
		{"SIGINT", syscall.SIGINT},
		{"SIGHUP", syscall.SIGHUP},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("done"))
			pidFile := filepath.Join(e.WS, "pids")
			// The shell waits for the server; the server and the sleep
			// are the shell's children. (A background command's stdin is
			// /dev/null unless given: fd 3 keeps castor's pipe.)
			script := `exec 3<&0; sleep 300 & echo $! > "$PIDFILE"; ` + strconv.Quote(node) + ` ` + strconv.Quote(everything) + ` stdio <&3 3<&- & echo $! >> "$PIDFILE"; wait`
			e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{
				"kids": map[string]any{"command": "sh", "args": []string{"-c", script}, "env": map[string]string{"PIDFILE": pidFile}, "trust": true},
			}})
			if c.sig == 0 {
				if r := e.Run("-p", "hi"); r.Code != 0 || r.Stdout != "done\n" || r.Stderr != "" {
					t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
				}
				for _, pid := range readPids(t, pidFile) {
					waitExited(t, pid)
				}
				return
			}
			if c.sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
				// Started under nohup: castor inherits the ignored SIGHUP and
				// keeps it ignored, as nohup asks (stopsignals.go).
				t.Skip("SIGHUP is ignored in this environment (nohup), so castor rightly ignores it too")
			}
			// A session that waits on stdin for its next message.
			cmd := e2etest.Command(t, "--input-format", "stream-json", "-o", "stream-json")
			cmd.Dir, cmd.Env = e.WS, e.Environ()
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			first, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.Contains(first, `"type":"init"`) {
				cmd.Process.Kill()
				t.Fatalf("first line %q, %v", first, err)
			}
			pids := readPids(t, pidFile)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("castor did not exit")
			}
			for _, pid := range pids {
				waitExited(t, pid)
			}
		})
	}
}

// readPids waits for the server's script to have written its two child
// pids and returns them.
func readPids(t *testing.T, file string) []int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if f := strings.Fields(string(b)); len(f) == 2 {
			var pids []int
			for _, s := range f {
				pid, err := strconv.Atoi(s)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
			}
			return pids
		}
	}
	t.Fatalf("the server never wrote its children's pids to %s", file)
	return nil
}

// waitExited waits for pid to be gone (or a zombie awaiting its reaper),
// and kills it if it is not: a generous bound on a hang, not a timing.
func waitExited(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return
		}
		out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
		if err != nil || strings.HasPrefix(strings.TrimSpace(string(out)), "Z") {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	out, _ := exec.Command("ps", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
	t.Errorf("process %d (%s) still runs after castor exited", pid, strings.TrimSpace(string(out)))
}
