package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// npmEntry returns node and an installed npm MCP server's entry point, or
// skips the test.
func npmEntry(t *testing.T, pkg string) (string, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	entry, _ := filepath.Abs(filepath.Join("..", "..", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("node_modules/@modelcontextprotocol/%s is missing: run npm ci --ignore-scripts at the repository root", pkg)
	}
	return node, entry
}

// startNode runs an npm server's HTTP transport on a loopback port and
// returns the port.
func startNode(t *testing.T, node, entry, transport string) int {
	t.Helper()
	preload, _ := filepath.Abs(filepath.Join("..", "..", "mcp", "testdata", "node", "loopback.cjs"))
	cmd := exec.Command(node, "-r", preload, entry, transport)
	cmd.Env = append(os.Environ(), "PORT=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ports := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var p int
			if _, err := fmt.Sscanf(sc.Text(), "CASTOR_LISTENING %d", &p); err == nil {
				ports <- p
			}
		}
		close(ports)
	}()
	select {
	case p, ok := <-ports:
		if !ok {
			t.Fatal("the MCP server exited before listening")
		}
		return p
	case <-time.After(time.Minute):
		t.Fatal("the MCP server did not start listening")
	}
	return 0
}

// TestMCPServers runs the binary with real MCP servers configured in
// settings.json (server-everything over stdio, SSE and streamable HTTP,
// server-filesystem over stdio) and has the model call a tool of each.
func TestMCPServers(t *testing.T) {
	node, everything := npmEntry(t, "server-everything")
	_, filesystem := npmEntry(t, "server-filesystem")
	sse := startNode(t, node, everything, "sse")
	stream := startNode(t, node, everything, "streamableHttp")

	e := newEnv(t)
	e.write("hello.txt", "hello from the workspace\n")
	// The filesystem call needs the workspace path, known only now.
	e.srv.Enqueue(
		fakegemini.Call("evstdio__echo", map[string]any{"message": "over stdio"}),
		fakegemini.Call("evsse__get-sum", map[string]any{"a": 2, "b": 3}),
		fakegemini.Call("evhttp__echo", map[string]any{"message": "over http"}),
		fakegemini.Call("read_text_file", map[string]any{"path": filepath.Join(e.ws, "hello.txt")}),
		fakegemini.Text("all done"))
	settings := map[string]any{"mcpServers": map[string]any{
		"evstdio": map[string]any{"command": node, "args": []string{everything, "stdio"}, "trust": true},
		"evsse":   map[string]any{"url": fmt.Sprintf("http://127.0.0.1:%d/sse", sse), "type": "sse", "trust": true},
		"evhttp":  map[string]any{"httpUrl": fmt.Sprintf("http://127.0.0.1:%d/mcp", stream), "trust": true},
		"fs":      map[string]any{"command": node, "args": []string{filesystem, e.ws}, "trust": true},
	}}
	raw, _ := json.Marshal(settings)
	os.MkdirAll(filepath.Join(e.home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(e.home, ".gemini", "settings.json"), raw, 0o644)

	r := e.run("-o", "json", "-p", "use the MCP tools")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
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
		if n, _ := functionResponse(t, c, 0); n != name || !want(string(got)) {
			t.Errorf("%s response = %s", name, got)
		}
	}
	check(0, "evstdio__echo", func(s string) bool { return strings.Contains(s, "Echo: over stdio") })
	check(1, "evsse__get-sum", func(s string) bool { return strings.Contains(s, "The sum of 2 and 3 is 5.") })
	check(2, "evhttp__echo", func(s string) bool { return strings.Contains(s, "Echo: over http") })
	check(3, "read_text_file", func(s string) bool { return strings.Contains(s, "hello from the workspace") })
}
