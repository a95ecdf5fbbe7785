package tui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// startGatedMCP serves an MCP server over streamable HTTP on 127.0.0.1
// with the tool slow_echo; it answers nothing, initialize included, until
// release is called: a server slow to start.
func startGatedMCP(t *testing.T) (url string, release func()) {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "slow_echo", Description: "Echoes.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo"}}}, nil
		})
	gate := make(chan struct{})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() { release(); hs.Close() })
	return hs.URL, release
}

// TestTUIUsableWhileMCPStarts: with a server that has not answered
// initialize, the prompt is there at once, the live area names the server
// awaited, slash commands run, and a prompt is held with Gemini CLI's
// notice; once the server is in, the prompt goes to the model with the
// server's tool declared.
func TestTUIUsableWhileMCPStarts(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	url, release := startGatedMCP(t)
	e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"httpUrl": url, "trust": true}}})
	// The server is trusted: its tool runs unasked, as when it was in at
	// start-up.
	e.Srv.Enqueue(fakegemini.Call("slow_echo", map[string]any{}), fakegemini.Text("Hello back."))
	tm := e.StartTUI()
	tm.WaitFor("Connecting to MCP servers... (0/1) - Waiting for: slow")
	tm.Submit("/mcp")
	tm.WaitFor("slow: connecting, 0 tools")
	tm.Submit("hello")
	s := tm.WaitFor("Waiting for: slow · 1 queued")
	if !strings.Contains(s, "Waiting for MCP servers to initialize... Slash commands are still available and prompts will be") {
		t.Errorf("no notice for the held prompt:\n%s", s)
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Fatalf("%d model calls before the MCP server was in", n)
	}
	release()
	s = tm.WaitFor("Hello back.")
	if strings.Contains(s, "Connecting to MCP servers") {
		t.Errorf("the MCP status stayed in the live area:\n%s", s)
	}
	if strings.Contains(s, "Allow") {
		t.Errorf("a trusted server's tool was asked about:\n%s", s)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if got := e2etest.MustJSON(reqs[1].LastContent()); !strings.Contains(got, "echo") {
		t.Errorf("slow_echo's result: %s", got)
	}
	if !e2etest.DeclaredSet(reqs[0])["slow_echo"] {
		t.Errorf("the held prompt went without the slow server's tool: %v", e2etest.DeclaredSet(reqs[0]))
	}
}

// TestTUIHungMCPServerTimesOut: a server that never answers holds a
// prompt only for its timeout; it is then reported as failed and the
// prompt goes without it.
func TestTUIHungMCPServerTimesOut(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	url, _ := startGatedMCP(t)
	e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{"hung": map[string]any{"httpUrl": url, "timeout": 2000}}})
	e.Srv.Enqueue(fakegemini.Text("Answered without it."))
	tm := e.StartTUI("-i", "hello")
	s := tm.WaitFor("Answered without it.")
	failed := strings.Index(s, "Error connecting to MCP server 'hung'")
	if failed < 0 || failed > strings.Index(s, "Answered without it.") {
		t.Errorf("the hung server was not reported before the answer:\n%s", s)
	}
	if reqs := e.Srv.Requests(); len(reqs) != 1 || e2etest.DeclaredSet(reqs[0])["slow_echo"] {
		t.Errorf("%d model calls", len(reqs))
	}
}
