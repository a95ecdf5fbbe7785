package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListExtensionsNamesBrokenOnes: -l leaves out an extension whose
// gemini-extension.json does not parse, and says so on stderr with the
// file, as `extensions list` and a session's start do, instead of leaving
// it out silently.
func TestListExtensionsNamesBrokenOnes(t *testing.T) {
	e := newEnv(t)
	for name, manifest := range map[string]string{
		"good":   `{"name": "good", "version": "1.0.0"}`,
		"broken": `{"name": "broken", "version": `,
	} {
		dir := filepath.Join(e.home, ".gemini", "extensions", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := e.run("-l")
	if r.code != 0 || r.stdout != "Installed extensions:\n- good\n" {
		t.Errorf("-l: exit %d: %q", r.code, r.stdout)
	}
	broken := filepath.Join(e.home, ".gemini", "extensions", "broken", "gemini-extension.json")
	if !strings.Contains(r.stderr, "Warning: ") || !strings.Contains(r.stderr, broken) {
		t.Errorf("stderr does not name %s:\n%s", broken, r.stderr)
	}
}
