package extensions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestListExtensionsNamesBrokenOnes: -l leaves out an extension whose
// gemini-extension.json does not parse, and says so on stderr with the
// file, as `extensions list` and a session's start do, instead of leaving
// it out silently.
func TestListExtensionsNamesBrokenOnes(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	for name, manifest := range map[string]string{
		"good":   `{"name": "good", "version": "1.0.0"}`,
		"broken": `{"name": "broken", "version": `,
	} {
		dir := filepath.Join(e.Home, ".gemini", "extensions", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := e.Run("-l")
	if r.Code != 0 || r.Stdout != "Installed extensions:\n- good\n" {
		t.Errorf("-l: exit %d: %q", r.Code, r.Stdout)
	}
	broken := filepath.Join(e.Home, ".gemini", "extensions", "broken", "gemini-extension.json")
	if !strings.Contains(r.Stderr, "Warning: ") || !strings.Contains(r.Stderr, broken) {
		t.Errorf("stderr does not name %s:\n%s", broken, r.Stderr)
	}
}
