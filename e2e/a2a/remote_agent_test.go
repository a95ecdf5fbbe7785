package a2a_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestA2ARemoteSubagentCannotConfirm: Gemini CLI 0.61 calling Castor as
// a remote subagent (its own @a2a-js/sdk 0.3.x client, no
// development-tool extension, so no way to answer a confirmation). A
// tool call that needs approval is decided by the server's policy at
// once (as in a headless run: not offered to the model, refused if
// called), Castor's model told and answering, the calling model given
// readable text saying so in the same call; the next call on the
// task runs (it was refused before: "tool calls are still waiting for
// confirmation"), and no tool-call data reaches the caller.
func TestA2ARemoteSubagentCannotConfirm(t *testing.T) {
	t.Parallel()
	node, dir := a2aJSClient(t)
	e := e2etest.New(t)
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"))
	defer srv.stop(syscall.SIGTERM)
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch made.txt"}),
		fakegemini.Text("I could not create made.txt: running commands needs approval."),
		fakegemini.Text("Second answer."),
	)
	calls := runRemoteAgent(t, node, dir, srv.url, "create made.txt\nwhat next?")
	if len(calls) != 2 {
		t.Fatalf("client printed %+v", calls)
	}
	first, second := calls[0], calls[1]
	if first.Error != "" || first.State != "input-required" ||
		!strings.Contains(first.Text, "[Tool call run_shell_command was not run: ") ||
		!strings.Contains(first.Text, "I could not create made.txt") {
		t.Errorf("first call: %+v", first)
	}
	for _, c := range calls {
		if strings.Contains(c.Text, "Data: ") {
			t.Errorf("%q: the caller got raw event data: %s", c.Query, c.Text)
		}
	}
	if second.Error != "" || !strings.Contains(second.Text, "Second answer.") {
		t.Errorf("second call: %+v", second)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "made.txt")); err == nil {
		t.Error("the command ran without approval")
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	// Nobody can approve a shell command here, so, as in a headless run,
	// the model is not offered the tool.
	if e2etest.DeclaredSet(reqs[0])["run_shell_command"] {
		t.Error("run_shell_command is offered to a task nobody can confirm")
	}
}

// remoteCall is one call remote-agent.mjs made.
type remoteCall struct{ Query, State, Text, Error, TaskID, ContextID string }

// runRemoteAgent runs remote-agent.mjs against url with queries (one a
// line), extra in its environment.
func runRemoteAgent(t *testing.T, node, dir, url, queries string, extra ...string) []remoteCall {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", "remote-agent.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := e2etest.DieWithTest(exec.Command(node, "--input-type=module"))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(string(script))
	cmd.Env = append(append(os.Environ(), "REMOTE_URL="+url, "REMOTE_QUERIES="+queries), extra...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("client failed: %v\n%s\n%s", err, out, msg)
	}
	var calls []remoteCall
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var c remoteCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("client printed %q: %v", sc.Text(), err)
		}
		calls = append(calls, c)
	}
	return calls
}

// TestA2ARemoteSubagentAfterRestart: a task a plain client (Gemini CLI's
// remote-agent client) began is still its after the server restarts on
// the same store: a call that needs approval is again decided by policy
// at once, readable text and no wait, where a task taken for one that
// can confirm would stop for an answer that cannot come.
func TestA2ARemoteSubagentAfterRestart(t *testing.T) {
	t.Parallel()
	node, dir := a2aJSClient(t)
	e := e2etest.New(t)
	store := filepath.Join(t.TempDir(), "tasks")
	srv := startA2A(e, store)
	e.Srv.Enqueue(fakegemini.Text("Hello from before the restart."))
	calls := runRemoteAgent(t, node, dir, srv.url, "hello")
	if len(calls) != 1 || calls[0].Error != "" || calls[0].TaskID == "" {
		t.Fatalf("first run: %+v", calls)
	}
	srv.stop(syscall.SIGTERM)

	srv = startA2A(e, store)
	defer srv.stop(syscall.SIGTERM)
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch made.txt"}),
		fakegemini.Text("I could not create made.txt: running commands needs approval."),
	)
	calls = runRemoteAgent(t, node, dir, srv.url, "create made.txt", "REMOTE_TASK="+calls[0].TaskID, "REMOTE_CONTEXT="+calls[0].ContextID)
	if len(calls) != 1 {
		t.Fatalf("after the restart: %+v", calls)
	}
	if c := calls[0]; c.Error != "" || c.State != "input-required" || !strings.Contains(c.Text, "[Tool call run_shell_command was not run: ") ||
		!strings.Contains(c.Text, "I could not create made.txt") || strings.Contains(c.Text, "Data: ") {
		t.Errorf("after the restart: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "made.txt")); err == nil {
		t.Error("the command ran without approval")
	}
}

// a2aJSClient is node and a2a/testdata/interop, where npm ci installs
// @a2a-js/sdk 0.3.x, Gemini CLI's own A2A client.
func a2aJSClient(t *testing.T) (node, dir string) {
	t.Helper()
	node = npmtest.LookPath(t, "node")
	dir, _ = filepath.Abs(filepath.Join("..", "..", "a2a", "testdata", "interop"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		npmtest.Missing(t, "@a2a-js/sdk is not installed (npm ci --ignore-scripts in a2a/testdata/interop)")
	}
	return node, dir
}
