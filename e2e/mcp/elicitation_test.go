package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// askingServer is a streamable HTTP MCP server (on 127.0.0.1) whose tools
// ask the user: ask_name with a form, sign_in with a URL. Each returns the
// action the client answered.
func askingServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
	reply := func(res *sdk.ElicitResult, err error) (*sdk.CallToolResult, error) {
		text := "no answer"
		if err != nil {
			text = "error: " + err.Error()
		} else {
			b, _ := json.Marshal(res.Content)
			text = "the user answered " + res.Action + " " + string(b)
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
	}
	empty := map[string]any{"type": "object", "properties": map[string]any{}}
	s.AddTool(&sdk.Tool{Name: "ask_name", Description: "Asks the user's name.", InputSchema: empty},
		func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return reply(r.Session.Elicit(ctx, &sdk.ElicitParams{Message: "What is your name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}}))
		})
	s.AddTool(&sdk.Tool{Name: "sign_in", Description: "Asks the user to sign in.", InputSchema: empty},
		func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return reply(r.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign in to continue", URL: "https://example.com/login", ElicitationID: "login-1"}))
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestElicitationHeadless: in a -p run nobody can answer a server's
// question, so castor declines it, tells the server so (which tells the
// model), and says on stderr which server asked what.
func TestElicitationHeadless(t *testing.T) {
	t.Parallel()
	url := askingServer(t)
	e := e2etest.New(t,
		fakegemini.Call("ask_name", map[string]any{}),
		fakegemini.Call("sign_in", map[string]any{}),
		fakegemini.Text("done"))
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"asker": map[string]any{"httpUrl": url, "trust": true}}})
	os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644)

	r := e.Run("-p", "who am I?")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "done" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	t.Logf("stderr:\n%s", r.Stderr)
	for _, want := range []string{
		`Warning: MCP server 'asker' asked: "What is your name?" (fields: name). Declined: no one can answer in this non-interactive session`,
		`Warning: MCP server 'asker' asked: "Sign in to continue" (open https://example.com/login). Declined: `,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	for i, name := range []string{"ask_name", "sign_in"} {
		c := reqs[i+1].LastContent()
		got, _ := json.Marshal(c.Parts)
		if n, _ := e2etest.FunctionResponse(t, c, 0); n != name || !strings.Contains(string(got), "the user answered decline") {
			t.Errorf("%s response = %s", name, got)
		}
	}
}

// TestElicitationTUI: in the interactive terminal the server's question
// is a form; what the user types there reaches the server.
func TestElicitationTUI(t *testing.T) {
	t.Parallel()
	url := askingServer(t)
	e := e2etest.New(t,
		fakegemini.Call("ask_name", map[string]any{}),
		fakegemini.Text("Nice to meet you."))
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"asker": map[string]any{"httpUrl": url, "trust": true}}})
	os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644)

	tm := e.StartTUI("-i", "who am I?")
	t.Logf("form:\n%s", tm.WaitFor("MCP server 'asker' asks:"))
	tm.Submit("Ada")
	tm.WaitFor("Nice to meet you.")
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	got, _ := json.Marshal(reqs[1].LastContent().Parts)
	if !strings.Contains(string(got), `the user answered accept {\"name\":\"Ada\"}`) {
		t.Errorf("ask_name response = %s", got)
	}
}
