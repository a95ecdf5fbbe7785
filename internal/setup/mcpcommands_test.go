package setup

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/model/fake"
)

// promptOf answers a prompt with its own name.
func promptOf(name string) (*sdk.Prompt, sdk.PromptHandler) {
	return &sdk.Prompt{Name: name, Description: "Prompt " + name + "."},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "from prompt " + name}}}}, nil
		}
}

// waitFor waits until ok holds; the deadline only catches a hang.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// TestMCPPromptsListChanged: after a server's notifications/prompts/
// list_changed the session's slash commands are the server's prompts
// again: a removed prompt's command is gone (and its name is typed text
// again), a new one is a command that expands, the renaming rules still
// hold (a prompt named like a built-in is "<server>.<name>"), and a
// custom command is never touched. tools/list_changed does the same for
// the session's tools.
func TestMCPPromptsListChanged(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "live", Version: "1"}, nil)
	srv.AddPrompt(promptOf("alpha"))
	srv.AddTool(&sdk.Tool{Name: "first_tool", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()

	for _, bg := range []bool{false, true} {
		name := "waited"
		if bg {
			name = "background"
		}
		t.Run(name, func(t *testing.T) {
			a, err := New(context.Background(), Options{
				WorkDir: t.TempDir(), HomeDir: t.TempDir(), IgnoreSettings: true,
				Client:          fake.Script(),
				Env:             envOf(func(string) string { return "" }),
				MCPServers:      map[string]any{"live": map[string]any{"httpUrl": hs.URL, "trust": true}},
				MCPInBackground: bg,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			<-a.MCPReady()
			has := func(name string) bool { c, _, _ := a.Commands.Lookup(name); return c != nil }
			if !has("alpha") {
				t.Fatal("alpha is not a command")
			}
			about := func(name string) string { c, _, _ := a.Commands.Lookup(name); return c.Description }
			memoryBefore := about("memory")

			srv.RemovePrompts("alpha")
			srv.AddPrompt(promptOf("beta"))
			srv.AddPrompt(promptOf("memory"))
			waitFor(t, "the new prompts become commands", func() bool { return has("beta") && has("live.memory") })
			waitFor(t, "the removed prompt's command goes", func() bool { return !has("alpha") })
			if about("memory") != memoryBefore {
				t.Errorf("the built-in /memory was replaced by %q", about("memory"))
			}
			parts, err := a.ExpandPrompt(context.Background(), "/beta")
			if err != nil || len(parts) != 1 || !strings.Contains(parts[0].Text, "from prompt beta") {
				t.Errorf("ExpandPrompt(/beta) = %v, %v", parts, err)
			}
			if parts, err := a.ExpandPrompt(context.Background(), "/alpha"); err != nil || len(parts) != 1 || parts[0].Text != "/alpha" {
				t.Errorf("ExpandPrompt(/alpha) = %v, %v, want the text as typed", parts, err)
			}

			srv.AddTool(&sdk.Tool{Name: "second_tool", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return &sdk.CallToolResult{}, nil
				})
			waitFor(t, "the new tool is declared", func() bool { _, ok := a.Session.Tools().Get("second_tool"); return ok })

			// Put the server back for the next run.
			srv.RemovePrompts("beta", "memory")
			srv.AddPrompt(promptOf("alpha"))
			srv.RemoveTools("second_tool")
			waitFor(t, "the server's prompts are back", func() bool { return has("alpha") && !has("beta") })
			waitFor(t, "the removed tool goes", func() bool { _, ok := a.Session.Tools().Get("second_tool"); return !ok })
		})
	}
}
