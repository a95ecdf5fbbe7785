package setup

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/config"
)

func TestOpenMCP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	for _, name := range []string{"ping_me", "read_file"} {
		srv.AddTool(&sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil
			})
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()

	tests := []struct {
		name      string
		st        *config.Settings
		allowed   []string
		wantTools []string
		wantWarn  string
	}{
		{
			name: "connects and qualifies a built-in clash",
			st: &config.Settings{
				MCPServers: map[string]any{"srv": map[string]any{"httpUrl": hs.URL}},
				Trust:      config.TrustResult{State: config.Trusted},
			},
			wantTools: []string{"ping_me", "srv__read_file"},
		},
		{
			name: "bad entries and dead servers are warnings",
			st: &config.Settings{
				MCPServers: map[string]any{"bad": "x", "dead": map[string]any{"httpUrl": "http://127.0.0.1:1/mcp"}},
				Trust:      config.TrustResult{State: config.Trusted},
			},
			wantWarn: "Error connecting to MCP server 'dead'",
		},
		{
			name: "allowed names leave others out",
			st: &config.Settings{
				MCPServers: map[string]any{"srv": map[string]any{"httpUrl": hs.URL}},
				Trust:      config.TrustResult{State: config.Trusted},
			},
			allowed: []string{"other"},
		},
		{
			name: "untrusted folder starts nothing",
			st: &config.Settings{
				MCPServers: map[string]any{"srv": map[string]any{"httpUrl": hs.URL}},
				Trust:      config.TrustResult{FolderTrustEnabled: true},
			},
		},
		{name: "nothing configured", st: &config.Settings{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warns []string
			m := openMCP(context.Background(), tt.st, mcpPlace{workDir: t.TempDir(), geminiDir: t.TempDir()}, tt.allowed, func(s string) { warns = append(warns, s) })
			var names []string
			if m != nil {
				defer m.Close()
				for _, tl := range m.Tools() {
					names = append(names, tl.Name())
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.wantTools, ",") {
				t.Errorf("tools = %v, want %v", names, tt.wantTools)
			}
			if tt.wantWarn != "" && !strings.Contains(strings.Join(warns, "\n"), tt.wantWarn) {
				t.Errorf("warnings %q lack %q", warns, tt.wantWarn)
			}
		})
	}
}
