package setup

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/model/fake"
)

// gatedMCP serves an MCP server with the tool slow_echo and the prompt
// slow_prompt over streamable HTTP; it answers nothing until release is
// closed, as a server busy starting up.
func gatedMCP(t *testing.T) (url string, release func()) {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "slow_echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo"}}}, nil
		})
	srv.AddPrompt(&sdk.Prompt{Name: "slow_prompt", Description: "A prompt."},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "from the prompt"}}}}, nil
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

// With MCPInBackground, New returns while a server is still connecting;
// its tool and prompt join the session when it is in, and MCPReady says
// when. Without it, New waits (the headless path).
func TestMCPInBackground(t *testing.T) {
	url, release := gatedMCP(t)
	opts := Options{
		WorkDir: t.TempDir(), HomeDir: t.TempDir(), IgnoreSettings: true,
		Client:          fake.Script(),
		Env:             envOf(func(string) string { return "" }),
		MCPServers:      map[string]any{"slow": map[string]any{"httpUrl": url, "trust": true}},
		MCPInBackground: true,
	}
	a, err := New(context.Background(), opts) // the server holds initialize: New must not wait
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	select {
	case <-a.MCPReady():
		t.Fatal("MCPReady closed while the server is still connecting")
	default:
	}
	if _, ok := a.Session.Tools().Get("slow_echo"); ok {
		t.Error("slow_echo registered before its server answered")
	}
	// The start runs on a goroutine that may not have begun yet.
	waitFor(t, "the start begins", func() bool { st, _ := a.MCP.Status("slow"); return st.Status != "disconnected" })
	if st, _ := a.MCP.Status("slow"); st.Status != "connecting" {
		t.Errorf("status %q while connecting", st.Status)
	}

	release()
	select {
	case <-a.MCPReady():
	case <-time.After(30 * time.Second): // a hang, not a timing
		t.Fatal("MCPReady never closed")
	}
	if _, ok := a.Session.Tools().Get("slow_echo"); !ok {
		t.Error("slow_echo missing once its server is in")
	}
	if c, _, _ := a.Commands.Lookup("slow_prompt"); c == nil {
		t.Error("the server's prompt is not a command")
	}
	parts, err := a.ExpandPrompt(context.Background(), "/slow_prompt")
	if err != nil || len(parts) != 1 || !strings.Contains(parts[0].Text, "from the prompt") {
		t.Errorf("ExpandPrompt(/slow_prompt) = %v, %v", parts, err)
	}
}

// A server that never answers holds MCPReady only for its timeout, and is
// reported as a failure through Warn, as at a start-up that waits.
func TestMCPInBackgroundTimeout(t *testing.T) {
	url, _ := gatedMCP(t)
	var mu sync.Mutex
	var warns []string
	a, err := New(context.Background(), Options{
		WorkDir: t.TempDir(), HomeDir: t.TempDir(), IgnoreSettings: true,
		Client:          fake.Script(),
		Env:             envOf(func(string) string { return "" }),
		MCPServers:      map[string]any{"hung": map[string]any{"httpUrl": url, "timeout": 300}},
		MCPInBackground: true,
		Warn:            func(s string) { mu.Lock(); warns = append(warns, s); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	select {
	case <-a.MCPReady():
	case <-time.After(30 * time.Second):
		t.Fatal("a hung server held MCPReady past its timeout")
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(warns, "\n"); !strings.Contains(got, "Error connecting to MCP server 'hung'") {
		t.Errorf("warnings:\n%s", got)
	}
}

// Closing the agent while a server connects stops the start: Close does
// not wait for the server's timeout.
func TestMCPInBackgroundClose(t *testing.T) {
	url, _ := gatedMCP(t)
	a, err := New(context.Background(), Options{
		WorkDir: t.TempDir(), HomeDir: t.TempDir(), IgnoreSettings: true,
		Client:          fake.Script(),
		Env:             envOf(func(string) string { return "" }),
		MCPServers:      map[string]any{"hung": map[string]any{"httpUrl": url}},
		MCPInBackground: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { a.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // the default connect timeout is a minute
		t.Fatal("Close waited for the connecting server")
	}
}
