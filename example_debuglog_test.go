package castor_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model/fake"
)

// ExampleWithDebugLog collects the agent's debug lines, here an MCP
// server's start-up, which never reach the program's standard logger.
func ExampleWithDebugLog() {
	dir, cleanup := scratch()
	defer cleanup()
	server := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "count", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "3 notes"}}}, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	defer srv.Close()
	var lines []string
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("ok"))), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithExtensions(castor.Extension{Name: "notes", MCPServers: map[string]castor.MCPServer{"notes": {HTTPURL: srv.URL}}}),
		castor.WithDebugLog(func(s string) { lines = append(lines, s) }))
	if err != nil {
		panic(err)
	}
	defer a.Close()
	if _, err := a.Send(context.Background(), "hello"); err != nil {
		panic(err)
	}
	for _, l := range lines {
		if strings.Contains(l, "connected") {
			fmt.Println(l)
		}
	}
	// Output: MCP server 'notes' connected over http
}

// TestMCPStartNotOnStandardLog: an agent's MCP start-up lines never reach
// the program's standard logger (they went there before WithDebugLog).
func TestMCPStartNotOnStandardLog(t *testing.T) {
	var buf bytes.Buffer
	prev, flags := log.Writer(), log.Flags()
	log.SetOutput(&buf)
	t.Cleanup(func() { log.SetOutput(prev); log.SetFlags(flags) })
	server := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "count", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	a, err := castor.New(context.Background(),
		castor.WithClient(fake.Script(fake.Text("ok"))), castor.WithoutSettings(), castor.WithHomeDir(dir), castor.WithWorkDir(dir),
		castor.WithExtensions(castor.Extension{Name: "notes", MCPServers: map[string]castor.MCPServer{"notes": {HTTPURL: srv.URL}}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if buf.Len() > 0 {
		t.Errorf("the standard logger got:\n%s", buf.String())
	}
}
