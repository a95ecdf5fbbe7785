package mcp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestMCPServers runs the binary with real MCP servers configured in
// settings.json (server-everything over stdio, SSE and streamable HTTP,
// server-filesystem over stdio) and has the model call a tool of each.
func TestMCPServers(t *testing.T) {
	t.Parallel()
	node, everything := npmtest.Server(t, "server-everything")
	_, filesystem := npmtest.Server(t, "server-filesystem")
	sse := npmtest.StartHTTP(t, node, everything, "sse")
	stream := npmtest.StartHTTP(t, node, everything, "streamableHttp")

	e := e2etest.New(t)
	e.Write("hello.txt", "hello from the workspace\n")
	// The filesystem call needs the workspace path, known only now.
	e.Srv.Enqueue(
		fakegemini.Call("evstdio__echo", map[string]any{"message": "over stdio"}),
		fakegemini.Call("evsse__get-sum", map[string]any{"a": 2, "b": 3}),
		fakegemini.Call("evhttp__echo", map[string]any{"message": "over http"}),
		fakegemini.Call("read_text_file", map[string]any{"path": filepath.Join(e.WS, "hello.txt")}),
		fakegemini.Text("all done"))
	settings := map[string]any{"mcpServers": map[string]any{
		"evstdio": map[string]any{"command": node, "args": []string{everything, "stdio"}, "trust": true},
		"evsse":   map[string]any{"url": fmt.Sprintf("http://127.0.0.1:%d/sse", sse), "type": "sse", "trust": true},
		"evhttp":  map[string]any{"httpUrl": fmt.Sprintf("http://127.0.0.1:%d/mcp", stream), "trust": true},
		"fs":      map[string]any{"command": node, "args": []string{filesystem, e.WS}, "trust": true},
	}}
	raw, _ := json.Marshal(settings)
	os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644)

	r := e.Run("-o", "json", "-p", "use the MCP tools")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests", len(reqs))
	}
	declared := map[string]bool{}
	for _, d := range reqs[0].FunctionDeclarations() {
		declared[d.Name] = true
	}
	for _, n := range []string{"evstdio__echo", "evsse__echo", "evhttp__echo", "read_text_file", "list_directory"} {
		if !declared[n] {
			t.Errorf("%s not declared", n)
		}
	}
	check := func(i int, name string, want func(parts string) bool) {
		t.Helper()
		c := reqs[i+1].LastContent()
		got, _ := json.Marshal(c.Parts)
		if n, _ := e2etest.FunctionResponse(t, c, 0); n != name || !want(string(got)) {
			t.Errorf("%s response = %s", name, got)
		}
	}
	check(0, "evstdio__echo", func(s string) bool { return strings.Contains(s, "Echo: over stdio") })
	check(1, "evsse__get-sum", func(s string) bool { return strings.Contains(s, "The sum of 2 and 3 is 5.") })
	check(2, "evhttp__echo", func(s string) bool { return strings.Contains(s, "Echo: over http") })
	check(3, "read_text_file", func(s string) bool { return strings.Contains(s, "hello from the workspace") })
}

// TestMCPToolHeadlessApproval: a tool of a server that is not trusted is
// hidden from a headless default-mode run, and --allowed-tools brings it
// back.
func TestMCPToolHeadlessApproval(t *testing.T) {
	t.Parallel()
	node, everything := npmtest.Server(t, "server-everything")
	e := e2etest.New(t)
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"ev": map[string]any{"command": node, "args": []string{everything, "stdio"}},
	}})
	os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644)

	declared := func() map[string]bool {
		out := map[string]bool{}
		for _, d := range e.Srv.LastRequest().FunctionDeclarations() {
			out[d.Name] = true
		}
		return out
	}
	e.Srv.Enqueue(fakegemini.Text("ok"))
	if r := e.Run("-p", "hi"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if declared()["echo"] {
		t.Error("an untrusted server's tool was offered in a headless run")
	}
	e.Srv.Enqueue(fakegemini.Call("echo", map[string]any{"message": "allowed"}), fakegemini.Text("ok"))
	if r := e.Run("--allowed-tools", "echo", "-p", "hi"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	got, _ := json.Marshal(e.Srv.LastRequest().LastContent().Parts)
	if !strings.Contains(string(got), "Echo: allowed") {
		t.Errorf("allowed MCP call: %s", got)
	}
}
