package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPConfigErrorNamesFile: an mcpServers entry of the wrong shape is
// reported with the settings file it is in and its key, and the run goes
// on without that server.
func TestMCPConfigErrorNamesFile(t *testing.T) {
	e := newEnv(t, fakegemini.Text("fine"))
	if err := os.MkdirAll(filepath.Join(e.ws, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".gemini/settings.json", `{"mcpServers": {"broken": {"command": 5}}}`)
	r := e.run("-p", "hi")
	if r.code != 0 || r.stdout != "fine\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	want := filepath.Join(e.ws, ".gemini", "settings.json") + ": mcpServers.broken.command"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
}
