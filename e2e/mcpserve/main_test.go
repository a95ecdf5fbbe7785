// Package mcpserve_test drives `castor mcp serve`, the built binary, with
// the official MCP client from npm (@modelcontextprotocol/sdk, pinned in
// testdata/package-lock.json), over stdio and streamable HTTP.
package mcpserve_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// clientDir is testdata, where npm ci installs the pinned client.
func clientDir(t *testing.T) (node, dir string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "testdata")
	return e2etest.NodeClient(t, dir, "@modelcontextprotocol/sdk"), dir
}

// runClient runs testdata/client.mjs and returns its steps by name.
func runClient(t *testing.T, e *e2etest.Env, extra ...string) map[string]map[string]any {
	t.Helper()
	node, dir := clientDir(t)
	return e.RunClient(node, dir, append([]string{"MCP_WORKSPACE=" + e.WS}, extra...)...)
}

// conversation is what the scripted model answers: a read_file call and
// its answer, then the resumed session's answer.
func conversation(e *e2etest.Env) {
	e2etest.WriteFiles(e.T, e.WS, map[string]string{"notes.txt": "the answer is 42\n"})
	e.Srv.Enqueue(
		fakegemini.Call("read_file", map[string]any{"file_path": "notes.txt"}),
		fakegemini.Text("The file says 42."),
		fakegemini.Text("You asked about notes.txt."),
	)
}

// checkConversation checks the prompt with a tool call, the resumed
// session and the session tools.
func checkConversation(t *testing.T, e *e2etest.Env, steps map[string]map[string]any) {
	t.Helper()
	check := func(step, key string, want any) {
		t.Helper()
		if got := e2etest.MustJSON(steps[step][key]); got != e2etest.MustJSON(want) {
			t.Errorf("%s.%s = %s, want %s", step, key, got, e2etest.MustJSON(want))
		}
	}
	check("initialize", "server", "castor")
	check("tools", "names", []string{"list_sessions", "prompt", "read_session"})
	check("first", "text", "The file says 42.")
	first, _ := steps["first"]["structured"].(map[string]any)
	id, _ := first["session_id"].(string)
	if id == "" || first["approval_mode"] != "default" {
		t.Fatalf("first answer %v: want a session id and yolo capped to default", first)
	}
	check("second", "text", "You asked about notes.txt.")
	check("second", "structured", map[string]any{"session_id": id, "response": "You asked about notes.txt.", "approval_mode": "default"})
	reqs := e.Srv.Requests()
	var toolOutput, resumed bool
	for _, r := range reqs {
		text := e2etest.ContentsText(r)
		body := string(r.Body)
		toolOutput = toolOutput || strings.Contains(body, "the answer is 42")
		resumed = resumed || strings.Contains(text, "What did I ask?") && strings.Contains(text, "What does notes.txt say?") && strings.Contains(text, "The file says 42.")
	}
	if !toolOutput || !resumed {
		t.Errorf("the model saw the tool's output %v, the resumed history %v", toolOutput, resumed)
	}
	if !strings.Contains(e2etest.MustJSON(steps["list"]["sessions"]), `"`+id+`"`) {
		t.Errorf("list_sessions: %v, want %s among them", steps["list"], id)
	}
	read := e2etest.MustJSON(steps["read"]["messages"])
	for _, want := range []string{`"What does notes.txt say?"`, `"read_file"`, `"The file says 42."`, `"You asked about notes.txt."`} {
		if !strings.Contains(read, want) {
			t.Errorf("read_session lacks %s: %s", want, read)
		}
	}
}

// TestStdioNpmClient: the MCP client starts `castor mcp serve` as Claude
// Code or Codex would, runs a prompt with a tool call, resumes the
// session, has a write confirmed through elicitation, and reads the
// sessions back.
func TestStdioNpmClient(t *testing.T) {
	t.Parallel()
	clientDir(t)
	e := e2etest.New(t)
	conversation(e)
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": "out.txt", "content": "written through MCP\n"}),
		fakegemini.Text("wrote it"),
	)
	steps := runClient(t, e, "MCP_MODE=stdio")
	checkConversation(t, e, steps)
	if msg, _ := steps["elicit"]["message"].(string); !strings.Contains(msg, "out.txt") {
		t.Errorf("confirmation asked %v, want one naming out.txt", steps["elicit"])
	}
	if b, err := os.ReadFile(filepath.Join(e.WS, "out.txt")); err != nil || string(b) != "written through MCP\n" {
		t.Errorf("out.txt: %q, %v", b, err)
	}
	if tx, _ := steps["write"]["text"].(string); tx != "wrote it" {
		t.Errorf("write step %v", steps["write"])
	}
}

// TestHTTPNpmClient: `castor mcp serve --http` on loopback refuses a
// client without the token and serves one with it.
func TestHTTPNpmClient(t *testing.T) {
	t.Parallel()
	clientDir(t)
	e := e2etest.New(t)
	conversation(e)
	url := e.Start(e2etest.Options{Env: append(e.Environ(), "CASTOR_MCP_TOKEN=e2e-secret")}, "mcp", "serve", "--http", "127.0.0.1:0").ListenURL()
	steps := runClient(t, e, "MCP_MODE=http", "MCP_URL="+url, "MCP_TOKEN=e2e-secret")
	if steps["unauthenticated"]["connected"] != false || !strings.Contains(e2etest.MustJSON(steps["unauthenticated"]), "missing or wrong bearer token") {
		t.Errorf("a client without the token: %v", steps["unauthenticated"])
	}
	checkConversation(t, e, steps)
}

// TestStdioCallBeforeInitialize: a request before initialize is refused
// with a JSON-RPC error class a client can act on (invalid request), not
// the SDK's code 0, and the server goes on to serve the client that then
// initializes.
func TestStdioCallBeforeInitialize(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	p := e.Start(e2etest.Options{Stdin: true}, "mcp", "serve")
	p.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	line := p.Line("the answer to tools/list before initialize")
	if !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"code":-32600`) || !strings.Contains(line, "initialization") {
		t.Fatalf("answer %s, want error -32600 for id 1 naming initialization", line)
	}
	p.Send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line := p.Line("the answer to initialize"); !strings.Contains(line, `"id":2`) || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("initialize answered %s", line)
	}
}
