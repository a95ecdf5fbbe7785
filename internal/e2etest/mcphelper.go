package e2etest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpHelperEnv makes the test binary a stdio MCP server (serveHelperMCP)
// labelled with the variable's value, for end-to-end tests that need a
// server offering something the npm servers do not.
const mcpHelperEnv = "CASTOR_E2E_TEST_MCP"

// serveHelperMCP serves, on stdin and stdout, the prompts "greet" and
// "memory" (named like a built-in command), the resources test://notes
// (text) and test://logo (ten bytes of PNG) and the tool "hello", each
// answering with the server's label, and the tool "getenv", answering
// with the value of its environment variable "name" (or "(unset)"), so a
// test sees the environment a server was started with; a server whose
// label starts with "swap" has the tool swap_prompts too.
func serveHelperMCP(label string) int {
	s := sdk.NewServer(&sdk.Implementation{Name: "castor-test-" + label, Version: "1"}, nil)
	for _, name := range []string{"greet", "memory"} {
		s.AddPrompt(&sdk.Prompt{Name: name, Description: "Says who answers."},
			func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				text := fmt.Sprintf("prompt %s of server %s", name, label)
				return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
			})
	}
	s.AddResource(&sdk.Resource{URI: "test://notes", Name: "notes", MIMEType: "text/plain"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://notes", MIMEType: "text/plain", Text: "notes of server " + label}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://logo", Name: "logo", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://logo", MIMEType: "image/png", Blob: []byte("0123456789")}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello from " + label}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "getenv", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &args)
			v, ok := os.LookupEnv(args.Name)
			if !ok {
				v = "(unset)"
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: args.Name + "=" + v}}}, nil
		})
	if strings.HasPrefix(label, "swap") {
		// swap_prompts takes greet away and offers farewell: the server
		// sends notifications/prompts/list_changed.
		s.AddTool(&sdk.Tool{Name: "swap_prompts", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				s.RemovePrompts("greet")
				s.AddPrompt(&sdk.Prompt{Name: "farewell"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
					return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "prompt farewell of server " + label}}}}, nil
				})
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "swapped"}}}, nil
			})
	}
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// HelperMCPServer is the settings entry of a helper MCP server: this
// test binary, started again as the server (Main), answering as label.
func HelperMCPServer(t *testing.T, label string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "env": map[string]string{mcpHelperEnv: label}, "trust": true}
}
