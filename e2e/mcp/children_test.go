//go:build unix

package mcp_test

import (
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

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
				for _, pid := range e2etest.ReadPids(t, pidFile) {
					e2etest.WaitExited(t, pid)
				}
				return
			}
			if c.sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
				// Started under nohup: castor inherits the ignored SIGHUP and
				// keeps it ignored, as nohup asks (stopsignals.go).
				t.Skip("SIGHUP is ignored in this environment (nohup), so castor rightly ignores it too")
			}
			// A session that waits on stdin for its next message.
			p := e.Start(e2etest.Options{Stdin: true}, "--input-format", "stream-json", "-o", "stream-json")
			if first := p.Line("init event"); !strings.Contains(first, `"type":"init"`) {
				t.Fatalf("first line %q", first)
			}
			pids := e2etest.ReadPids(t, pidFile)
			p.Signal(c.sig)
			_ = p.Wait()
			for _, pid := range pids {
				e2etest.WaitExited(t, pid)
			}
		})
	}
}
