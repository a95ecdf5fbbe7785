package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPConfigErrorNamesFile: an mcpServers entry of the wrong shape is
// reported with the settings file it is in and its key, and the run goes
// on without that server.
func TestMCPConfigErrorNamesFile(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("fine"))
	if err := os.MkdirAll(filepath.Join(e.WS, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Write(".gemini/settings.json", `{"mcpServers": {"broken": {"command": 5}}}`)
	r := e.Run("-p", "hi")
	if r.Code != 0 || r.Stdout != "fine\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	want := filepath.Join(e.WS, ".gemini", "settings.json") + ": mcpServers.broken.command"
	if !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
	}
}
