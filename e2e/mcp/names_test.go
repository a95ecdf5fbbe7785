package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// startGrowingMCP serves an MCP server over streamable HTTP on 127.0.0.1
// with the tools echo, secret and grow; grow adds the tool fresh, which
// makes the server send notifications/tools/list_changed, and answers once
// the client has listed the tools again.
func startGrowingMCP(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "grow", Version: "1"}, nil)
	obj := map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	var (
		mu     sync.Mutex
		listed = make(chan struct{}, 16)
	)
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				select {
				case listed <- struct{}{}:
				default:
				}
			}
			return res, err
		}
	})
	srv.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes a message.", InputSchema: obj}, func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("Echo: " + string(r.Params.Arguments)), nil
	})
	srv.AddTool(&sdk.Tool{Name: "secret", Description: "Must stay hidden.", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("the secret"), nil
	})
	untyped := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"description": "no type"}}}
	srv.AddTool(&sdk.Tool{Name: "loose", Description: "Has an untyped parameter.", InputSchema: untyped}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("loose"), nil
	})
	srv.AddTool(&sdk.Tool{Name: "big", Description: "Returns 5,000 characters.", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("BEGIN" + strings.Repeat("x", 4990) + "END"), nil
	})
	srv.AddTool(&sdk.Tool{Name: "grow", Description: "Adds the tool fresh.", InputSchema: obj}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		for len(listed) > 0 {
			<-listed
		}
		srv.AddTool(&sdk.Tool{Name: "fresh", Description: "Arrived with list_changed.", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("fresh answer"), nil
		})
		// Answer once the client has re-listed the tools (a generous
		// bound, not a timed assertion), and give it a moment to take the
		// new list in, so the next model call can declare fresh.
		select {
		case <-listed:
		case <-time.After(10 * time.Second):
		case <-ctx.Done():
		}
		time.Sleep(200 * time.Millisecond)
		return text("grown"), nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestMCPPolicyNames: rules written with Gemini CLI's MCP tool names
// (mcp_<server>_<tool>, mcp_<server>_*) apply in tools.exclude,
// tools.allowed and --allowed-tools.
func TestMCPPolicyNames(t *testing.T) {
	t.Parallel()
	t.Run("tools.exclude removes the tool", func(t *testing.T) {
		e := e2etest.New(t)
		e2etest.WriteSettings(t, e, map[string]any{
			"mcpServers": map[string]any{"srv": map[string]any{"httpUrl": startGrowingMCP(t)}},
			"tools":      map[string]any{"exclude": []string{"mcp_srv_secret"}},
		})
		e.Srv.Enqueue(fakegemini.Call("secret", map[string]any{}), fakegemini.Text("ok"))
		if r := e.Run("-y", "-p", "hi"); r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		reqs := e.Srv.Requests()
		// loose has an untyped parameter: declared all the same, as 0.61.
		if d := e2etest.DeclaredSet(reqs[0]); d["secret"] || d["mcp_srv_secret"] || !d["echo"] || !d["loose"] {
			t.Errorf("declared %v", d)
		}
		if got := e2etest.MustJSON(reqs[1].LastContent()); strings.Contains(got, "the secret") || !strings.Contains(got, "error") {
			t.Errorf("excluded tool ran: %s", got)
		}
	})
	t.Run("tools.allowed", func(t *testing.T) {
		e := e2etest.New(t)
		e2etest.WriteSettings(t, e, map[string]any{
			"mcpServers": map[string]any{"srv": map[string]any{"httpUrl": startGrowingMCP(t)}},
			"tools":      map[string]any{"allowed": []string{"mcp_srv_echo"}},
		})
		e.Srv.Enqueue(fakegemini.Call("mcp_srv_echo", map[string]any{"message": "hi"}), fakegemini.Text("ok"))
		if r := e.Run("-p", "hi"); r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		reqs := e.Srv.Requests()
		if d := e2etest.DeclaredSet(reqs[0]); !d["echo"] || d["grow"] || d["secret"] {
			t.Errorf("declared %v", d)
		}
		if got := e2etest.MustJSON(reqs[1].LastContent()); !strings.Contains(got, "Echo:") {
			t.Errorf("allowed call: %s", got)
		}
	})
	t.Run("--allowed-tools wildcard and list_changed", func(t *testing.T) {
		e := e2etest.New(t)
		e2etest.WriteSettings(t, e, map[string]any{
			"mcpServers": map[string]any{"srv": map[string]any{"httpUrl": startGrowingMCP(t)}},
		})
		e.Srv.Enqueue(
			fakegemini.Call("grow", map[string]any{}),
			fakegemini.Call("fresh", map[string]any{}),
			fakegemini.Text("ok"))
		if r := e.Run("--allowed-tools", "mcp_srv_*", "-p", "hi"); r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		reqs := e.Srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d model calls", len(reqs))
		}
		if d := e2etest.DeclaredSet(reqs[0]); !d["echo"] || !d["grow"] || d["fresh"] {
			t.Errorf("first call declared %v", d)
		}
		if d := e2etest.DeclaredSet(reqs[1]); !d["fresh"] {
			t.Errorf("fresh not declared after list_changed: %v", d)
		}
		if got := e2etest.MustJSON(reqs[2].LastContent()); !strings.Contains(got, "fresh answer") {
			t.Errorf("fresh call: %s", got)
		}
	})
}

// TestMCPOutputLimit: a single-text MCP result longer than
// tools.truncateToolOutputThreshold reaches the model cut as Gemini CLI
// cuts it, the whole text saved in the project's temp directory.
func TestMCPOutputLimit(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteSettings(t, e, map[string]any{
		"mcpServers": map[string]any{"srv": map[string]any{"httpUrl": startGrowingMCP(t), "trust": true}},
		"tools":      map[string]any{"truncateToolOutputThreshold": 1000},
	})
	e.Srv.Enqueue(fakegemini.Call("big", map[string]any{}), fakegemini.Text("ok"))
	if r := e.Run("-p", "hi"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	// MCP text goes beside the function response (the wire spec's form).
	var out string
	for _, p := range e.Srv.LastRequest().LastContent().Parts {
		if p.Text != "" {
			out = p.Text
		}
	}
	if !strings.HasPrefix(out, "Output too large. Showing first 200 and last 800 characters. For full output see: ") ||
		!strings.Contains(out, "characters omitted] ...") || !strings.Contains(out, "END") || len(out) > 1400 {
		t.Fatalf("output (%d chars): %.300s", len(out), out)
	}
	file := strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "Output too large. Showing first 200 and last 800 characters. For full output see: ")
	saved, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(saved), "BEGIN"+strings.Repeat("x", 4990)+"END") {
		t.Errorf("saved output %s: %v", file, err)
	}
}
