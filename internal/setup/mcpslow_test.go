package setup

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/config"
)

// TestOpenMCPNamesSlowServers: a server that does not answer initialize is
// named while start-up waits for it, then reported when it gives up; a
// server that failed at once is not called slow.
func TestOpenMCPNamesSlowServers(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	old := mcpSlowNotice
	mcpSlowNotice = 100 * time.Millisecond
	defer func() { mcpSlowNotice = old }()

	st := &config.Settings{
		MCPServers: map[string]any{
			"slow": map[string]any{"httpUrl": hang.URL, "timeout": 1500},
			"dead": map[string]any{"httpUrl": "http://127.0.0.1:1/mcp"},
		},
		Trust: config.TrustResult{State: config.Trusted},
	}
	var warns []string
	start := time.Now()
	m := openMCP(context.Background(), st, mcpPlace{workDir: t.TempDir(), geminiDir: t.TempDir()}, nil, func(s string) { warns = append(warns, s) })
	if m == nil {
		t.Fatal("no manager")
	}
	defer m.Close()
	t.Logf("start-up took %v", time.Since(start))
	got := strings.Join(warns, "\n")
	want := []string{
		"Still connecting to MCP server 'slow' (" + hang.URL + "); giving up after 1.5s.",
		"Error connecting to MCP server 'dead'",
		"Error connecting to MCP server 'slow' (" + hang.URL + "): timed out after 1.5s",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("warnings lack %q (in order):\n%s", w, got)
		}
		at += i + len(w)
	}
	if strings.Contains(got, "Still connecting to MCP server 'dead'") {
		t.Errorf("a server that failed at once was called slow:\n%s", got)
	}
}

// TestMCPStartTimeoutSetting: mcp.startTimeout bounds the start of a
// server that sets no timeout of its own (10 minutes otherwise, as
// Gemini CLI 0.61), and a value that is not a positive number is
// reported with its file and key.
func TestMCPStartTimeoutSetting(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	for _, tt := range []struct {
		value string
		want  []string
	}{
		{"700", []string{"Error connecting to MCP server 'slow' (" + hang.URL + "): timed out after 700ms"}},
		{`"soon"`, []string{"settings.json: mcp.startTimeout must be a positive number of milliseconds; using 600000 (10 minutes)"}},
	} {
		home, ws := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcp": {"startTimeout": `+tt.value+`}, "mcpServers": {"slow": {"httpUrl": "`+hang.URL+`"}}}`)
		st, err := config.Load(config.LoadOptions{Workspace: ws, HomeDir: home, Env: func(string) (string, bool) { return "", false }})
		if err != nil {
			t.Fatal(err)
		}
		st.Trust = config.TrustResult{State: config.Trusted}
		var warns []string
		if tt.value == `"soon"` {
			// Only the warning matters here: no server to wait for.
			st.MCPServers = map[string]any{"dead": map[string]any{"httpUrl": "http://127.0.0.1:1/mcp"}}
		}
		m := openMCP(context.Background(), st, mcpPlace{workDir: ws, geminiDir: filepath.Join(home, ".gemini")}, nil, func(s string) { warns = append(warns, s) })
		if m != nil {
			m.Close()
		}
		got := strings.Join(warns, "\n")
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: warnings lack %q:\n%s", tt.value, w, got)
			}
		}
	}
}
