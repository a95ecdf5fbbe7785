package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/nettest"
)

// TestMCPFailuresExplained runs the binary with MCP servers that cannot
// come up and checks that start-up and `castor mcp list` name each
// server, its command or URL, the problem in plain words and the last
// lines the server wrote to stderr (before, a crashing server read
// "calling "initialize": client is closing: EOF", with its stderr only
// under --debug).
func TestMCPFailuresExplained(t *testing.T) {
	t.Parallel()
	refused := "http://" + nettest.RefusedAddr(t) + "/mcp"

	e := e2etest.New(t, fakegemini.Text("fine"))
	crash := `echo "starting weather server" >&2; echo "Error: WEATHER_API_KEY is not set" >&2; exit 2`
	settings := map[string]any{"mcpServers": map[string]any{
		"crash":   map[string]any{"command": "sh", "args": []string{"-c", crash}},
		"missing": map[string]any{"command": "castor-no-such-mcp-server"},
		"refused": map[string]any{"url": refused},
	}}
	raw, _ := json.Marshal(settings)
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}

	r := e.Run("-p", "hi")
	if r.Code != 0 || r.Stdout != "fine\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{
		"Error connecting to MCP server 'crash' (sh -c " + crash + "): the server exited with status 2 before completing the MCP handshake\n" +
			"Last lines on the server's stderr:\n  starting weather server\n  Error: WEATHER_API_KEY is not set\n",
		`Error connecting to MCP server 'missing' (castor-no-such-mcp-server): command "castor-no-such-mcp-server" not found on PATH; is it installed?` + "\n",
		"Error connecting to MCP server 'refused' (" + refused + "): connection refused: nothing is listening there (is the server running?)\n",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("start-up stderr lacks\n%s\n--- stderr:\n%s", want, r.Stderr)
		}
	}

	r = e.Run("mcp", "list")
	want := "✗ crash: sh -c " + crash + " (stdio) - Disconnected\n" +
		"    the server exited with status 2 before completing the MCP handshake\n" +
		"    Last lines on the server's stderr:\n" +
		"      starting weather server\n" +
		"      Error: WEATHER_API_KEY is not set\n" +
		"✗ missing: castor-no-such-mcp-server  (stdio) - Disconnected\n" +
		"    command \"castor-no-such-mcp-server\" not found on PATH; is it installed?\n" +
		"✗ refused: " + refused + " (http) - Disconnected\n" +
		"    connection refused: nothing is listening there (is the server running?)\n"
	if r.Code != 0 || !strings.HasSuffix(r.Stdout, want) {
		t.Errorf("mcp list: exit %d\n%s\nwant suffix\n%s", r.Code, r.Stdout, want)
	}
}
