package ide_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/tool"
)

// vscodeCompanion is testdata/vscode-companion/server.mjs: the VS Code
// companion's server rebuilt on the official TypeScript MCP SDK.
type vscodeCompanion struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	events chan map[string]any
	port   int
	file   string
}

// needNode skips the test (fails it under CI=true) unless node and the npm
// packages of testdata/vscode-companion (npm ci there) are there.
func needNode(t *testing.T) {
	t.Helper()
	node := npmtest.LookPath(t, "node")
	check := exec.Command(node, "--input-type=module", "-e",
		`await import('@modelcontextprotocol/sdk/server/streamableHttp.js'); await import('express'); await import('zod')`)
	check.Dir = filepath.Join("testdata", "vscode-companion")
	if out, err := check.CombinedOutput(); err != nil {
		npmtest.Missing(t, "the npm packages are not installed (npm ci --ignore-scripts in ide/testdata/vscode-companion): %s", out)
	}
}

func startVSCode(t *testing.T, e env) *vscodeCompanion {
	t.Helper()
	cmd := exec.Command("node", "server.mjs")
	cmd.Dir = filepath.Join("testdata", "vscode-companion")
	cmd.Env = append(os.Environ(), "TMPDIR="+e.tmp, "WORKSPACE="+e.ws)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	v := &vscodeCompanion{t: t, cmd: cmd, in: in, events: make(chan map[string]any, 16)}
	t.Cleanup(func() { v.stop() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				v.events <- ev
			}
		}
		close(v.events)
	}()
	ready := v.next("ready")
	v.port, v.file = int(ready["port"].(float64)), ready["portFile"].(string)
	return v
}

func (v *vscodeCompanion) send(cmd map[string]any) {
	v.t.Helper()
	data, _ := json.Marshal(cmd)
	if _, err := v.in.Write(append(data, '\n')); err != nil {
		v.t.Fatal(err)
	}
}

func (v *vscodeCompanion) next(want string) map[string]any {
	v.t.Helper()
	select {
	case ev, ok := <-v.events:
		if !ok {
			v.t.Fatalf("the companion exited while waiting for %s", want)
		}
		if ev["event"] != want {
			v.t.Fatalf("event %v, want %s", ev, want)
		}
		return ev
	case <-time.After(guard):
		v.t.Fatalf("no %s event", want)
	}
	return nil
}

func (v *vscodeCompanion) stop() {
	if v.cmd.ProcessState != nil {
		return
	}
	v.in.Write([]byte(`{"cmd":"stop"}` + "\n"))
	done := make(chan struct{})
	go func() { v.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(guard):
		v.cmd.Process.Kill()
		<-done
	}
}

func contextWith(path string, line int) map[string]any {
	return map[string]any{"workspaceState": map[string]any{
		"openFiles": []any{map[string]any{"path": path, "timestamp": time.Now().UnixMilli(), "isActive": true, "cursor": map[string]any{"line": line, "character": 1}}},
		"isTrusted": true,
	}}
}

// TestVSCodeCompanion runs the CLI side against the replica of the VS Code
// companion: the file it writes (no ideInfo, the PID of its parent),
// its initial and later context updates, id-less keep-alive pings, diffs
// accepted and rejected, a bad token and a restart.
func TestVSCodeCompanion(t *testing.T) {
	needNode(t)
	e := newEnv(t)
	v := startVSCode(t, e)
	o := e.options()
	// The replica names its file after its parent: this test process.
	o.IDEPID = os.Getpid()
	c, err := ide.Connect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st := c.Status()
	if !st.Diffing || st.Server != "gemini-cli-companion-mcp-server 1.0.0" || st.DiscoveryFile != v.file {
		t.Fatalf("status %+v", st)
	}
	t.Logf("negotiated MCP %s", st.ProtocolVersion)
	// The greeting arrives on the event stream after it opens.
	waitFor(t, c, "the initial context", func() bool { return c.Context() != nil })
	if tr := c.Trusted(); tr == nil || !*tr {
		t.Errorf("trust %v", tr)
	}

	a := filepath.Join(e.ws, "a.ts")
	v.send(map[string]any{"cmd": "ping"})
	v.send(map[string]any{"cmd": "context", "params": contextWith(a, 5)})
	waitFor(t, c, "the context update", func() bool { return activePath(c) == a })
	if parts := c.PromptContext(true); len(parts) != 1 {
		t.Errorf("prompt context %+v", parts)
	}

	confirm := c.Confirm(nil)
	decide := func() <-chan tool.Decision {
		ch := make(chan tool.Decision, 1)
		go func() {
			d, err := confirm(context.Background(), editCall(a, "old", "new"))
			if err != nil {
				t.Error(err)
			}
			ch <- d
		}()
		return ch
	}
	d := decide()
	if ev := v.next("openDiff"); ev["filePath"] != a || ev["newContent"] != "new" {
		t.Fatalf("openDiff %v", ev)
	}
	v.send(map[string]any{"cmd": "accept", "filePath": a, "content": "new, by hand"})
	if got := recv(t, d, "the decision"); got.Outcome != tool.ProceedOnce || got.NewContent == nil || *got.NewContent != "new, by hand" {
		t.Errorf("decision %+v", got)
	}
	d = decide()
	v.next("openDiff")
	v.send(map[string]any{"cmd": "reject", "filePath": a})
	if got := recv(t, d, "the decision"); got.Outcome != tool.Cancel {
		t.Errorf("decision %+v", got)
	}

	// The same companion with a token that is not its own.
	bad := newEnv(t)
	os.MkdirAll(ide.DiscoveryDir(bad.tmp), 0o755)
	os.WriteFile(filepath.Join(ide.DiscoveryDir(bad.tmp), ide.DiscoveryFileName(testPID, v.port)),
		fmt.Appendf(nil, `{"port":%d,"workspacePath":%q,"authToken":"wrong"}`, v.port, bad.ws), 0o600)
	_, err = ide.Connect(context.Background(), bad.options())
	var ce *ide.ConnectError
	if !errors.As(err, &ce) || ce.Problem != ide.ProblemUnauthorized {
		t.Errorf("wrong token: %v", err)
	}

	// The window reloads: a new companion, port and token.
	v.stop()
	if _, err := os.Stat(v.file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replica left its file: %v", err)
	}
	waitFor(t, c, "the disconnection", func() bool { return c.Status().State == ide.Disconnected })
	v2 := startVSCode(t, e)
	b := filepath.Join(e.ws, "b.ts")
	v2.send(map[string]any{"cmd": "context", "params": contextWith(b, 1)})
	waitFor(t, c, "the new companion", func() bool {
		return c.Status().DiscoveryFile == v2.file && activePath(c) == b
	})
}
