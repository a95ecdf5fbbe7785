package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/mcp"
)

// mcpGolden compares got with testdata/mcp/name; golden.Check finds it
// although the tests change directory.
func mcpGolden(t *testing.T, name string, got string) {
	t.Helper()
	golden.Check(t, "mcp/"+name, got)
}

// mcpEnv gives a test its own home and workspace and returns them.
func mcpEnv(t *testing.T) (home, ws string) {
	t.Helper()
	home, ws = t.TempDir(), t.TempDir()
	t.Setenv("GEMINI_CLI_HOME", home)
	t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", filepath.Join(home, "no-system.json"))
	t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
	t.Chdir(ws)
	return home, ws
}

func runCLI(t *testing.T, args ...string) (code int, out, errOut string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(context.Background(), args, IO{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e, StdinIsTerminal: true})
	return code, o.String(), e.String()
}

func TestMCPAddRemove(t *testing.T) {
	home, ws := mcpEnv(t)
	project := filepath.Join(ws, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	// An existing file with a comment that must survive.
	if err := os.WriteFile(project, []byte("{\n  // keep me\n  \"model\": {\"name\": \"gemini-2.5-pro\"}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var transcript strings.Builder
	steps := [][]string{
		{"mcp", "add", "files", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp", "-e", "DEBUG=1", "-e", "TOKEN=a=b", "--trust", "--timeout", "30000"},
		{"mcp", "add", "-t", "http", "remote", "http://127.0.0.1:9/mcp", "-H", "X-Api-Key: abc:def", "-H", "bad", "--include-tools", "a,b", "--description", "Remote <one>"},
		{"mcp", "add", "--transport=sse", "legacy", "http://127.0.0.1:9/sse", "--exclude-tools", "x", "--no-trust"},
		{"mcp", "add", "files", "node", "server.js", "--", "--port", "8080", "-s", "project"},
		{"mcp", "add", "-s", "user", "mine", "uvx", "tool"},
		{"mcp", "remove", "legacy"},
		{"mcp", "remove", "legacy"},
		{"mcp", "remove", "-s", "user", "mine"},
		{"mcp", "add", "-s", "bogus", "x", "y"},
		{"mcp", "add", "onlyname"},
		{"mcp", "add", "-e", "NOVALUE", "-e", "=x", "-H", "X-Stdio: 1", "loose", "python3", "server.py"},
		{"mcp", "add", "-t", "sse", "-e", "A=1", "looseweb", "http://127.0.0.1:9/sse"},
	}
	for _, args := range steps {
		code, out, errOut := runCLI(t, args...)
		transcript.WriteString("$ castor " + strings.Join(args, " ") + "\n" + out + errOut)
		fmt.Fprintf(&transcript, "exit %d\n", code)
	}
	mcpGolden(t, "add_remove.txt", transcript.String())
	data, err := os.ReadFile(project)
	if err != nil {
		t.Fatal(err)
	}
	mcpGolden(t, "project_settings.json", string(data))
	user, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	mcpGolden(t, "user_settings.json", string(user))
}

func TestMCPAddInHome(t *testing.T) {
	home, _ := mcpEnv(t)
	t.Chdir(home)
	code, _, errOut := runCLI(t, "mcp", "add", "x", "cmd")
	if code != ExitError || !strings.Contains(errOut, "Please use --scope user to edit settings in the home directory.") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
}

func TestParseAddArgs(t *testing.T) {
	tests := []struct {
		args    []string
		pos     []string
		trust   string
		include []string
	}{
		{[]string{"n", "npx", "-y", "pkg"}, []string{"n", "npx", "-y", "pkg"}, "", nil},
		{[]string{"--trust", "n", "c"}, []string{"n", "c"}, "true", nil},
		{[]string{"n", "c", "--trust", "false"}, []string{"n", "c"}, "false", nil},
		{[]string{"n", "c", "--trust=false"}, []string{"n", "c"}, "false", nil},
		{[]string{"n", "c", "--port", "1"}, []string{"n", "c", "--port", "1"}, "", nil},
		{[]string{"n", "c", "--", "--trust"}, []string{"n", "c", "--trust"}, "", nil},
		{[]string{"--include-tools", "a, b", "--include-tools=c", "n", "c"}, []string{"n", "c"}, "", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		o, pos, err := parseAddArgs(tt.args)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		trust := ""
		if o.trust != nil {
			trust = map[bool]string{true: "true", false: "false"}[*o.trust]
		}
		if !slices.Equal(pos, tt.pos) || trust != tt.trust || !slices.Equal(o.include, tt.include) {
			t.Errorf("%q: pos %q trust %q include %q", tt.args, pos, trust, o.include)
		}
	}
	if _, _, err := parseAddArgs([]string{"n", "c", "--timeout", "soon"}); err == nil {
		t.Error("bad --timeout accepted")
	}
	if _, _, err := parseAddArgs([]string{"n", "c", "-e"}); err == nil {
		t.Error("-e without a value accepted")
	}
}

func TestMCPList(t *testing.T) {
	home, ws := mcpEnv(t)
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()

	code, out, _ := runCLI(t, "mcp", "list")
	if code != 0 || out != "No MCP servers configured.\n" {
		t.Fatalf("empty list: %d %q", code, out)
	}
	settings := `{
  "mcp": {"excluded": ["blocked"]},
  "mcpServers": {
    "up": {"httpUrl": "` + hs.URL + `"},
    "down": {"url": "http://127.0.0.1:1/mcp", "type": "http"},
    "blocked": {"url": "http://127.0.0.1:1/sse", "type": "sse"},
    "stdio": {"command": "` + filepath.Join(ws, "missing-server") + `", "args": ["--flag"]},
    "noargs": {"command": "` + filepath.Join(ws, "missing-server") + `"}
  }
}`
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runCLI(t, "mcp", "list")
	out = strings.ReplaceAll(strings.ReplaceAll(out, hs.URL, "URL"), ws, "WS")
	mcpGolden(t, "list.txt", out)

	t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
	_, out, _ = runCLI(t, "mcp", "list")
	out = strings.ReplaceAll(strings.ReplaceAll(out, hs.URL, "URL"), ws, "WS")
	mcpGolden(t, "list_untrusted.txt", out)
}

// TestMCPListStoredToken: a server that needs the OAuth token stored for
// it is listed as connected, as the session connects to it.
func TestMCPListStoredToken(t *testing.T) {
	home, _ := mcpEnv(t)
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer stored-token" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	store := &mcp.TokenStore{Path: filepath.Join(dir, mcp.TokenFileName)}
	if err := store.Save(mcp.OAuthCredentials{ServerName: "secure", Token: mcp.OAuthToken{AccessToken: "stored-token", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	settings := `{"mcpServers": {"secure": {"httpUrl": "` + hs.URL + `"}}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := runCLI(t, "mcp", "list")
	if want := "✓ secure: " + hs.URL + " (http) - Connected\n"; !strings.Contains(out, want) {
		t.Errorf("mcp list:\n%s\nwant %q", out, want)
	}
}

// TestMCPEnableDisable: `mcp disable` switches a server off in the file
// Gemini CLI keeps, `mcp list` shows it disabled, `mcp enable` undoes it.
func TestMCPEnableDisable(t *testing.T) {
	home, _ := mcpEnv(t)
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"mcp": {"excluded": ["banned"]}, "mcpServers": {"Weather": {"command": "` + filepath.Join(home, "missing") + `"}, "banned": {"command": "x"}}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, mcp.EnablementFileName)
	steps := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"mcp", "disable", "weather"}, 0, "✓ MCP server 'weather' disabled.\n", ""},
		{[]string{"mcp", "list"}, 0, "○ Weather: " + filepath.Join(home, "missing") + "  (stdio) - Disabled\n", ""},
		{[]string{"mcp", "enable", "nope"}, 1, "", "Server 'nope' not found. Use 'castor mcp list' to see available servers."},
		{[]string{"mcp", "enable", "banned"}, 1, "", "Server 'banned' is blocked by mcp.excluded."},
		{[]string{"mcp", "enable", "Weather"}, 0, "✓ MCP server 'weather' enabled.\n", ""},
	}
	for i, s := range steps {
		code, out, errOut := runCLI(t, s.args...)
		if code != s.code || !strings.Contains(out, s.stdout) || !strings.Contains(errOut, s.stderr) {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q", s.args, code, out, errOut)
		}
		if i == 0 {
			if data, _ := os.ReadFile(file); !strings.Contains(string(data), `"weather": {`) || !strings.Contains(string(data), `"enabled": false`) {
				t.Errorf("enablement file = %s", data)
			}
		}
	}
	if got, _ := mcp.LoadDisabled(file); got != nil {
		t.Errorf("still disabled: %v", got)
	}
}
