package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtensionCommandsSayWhyNotFound checks that `extensions update` and
// `extensions config` naming an extension whose manifest is broken say
// why it is missing rather than only "not installed".
func TestExtensionCommandsSayWhyNotFound(t *testing.T) {
	home, _ := mcpEnv(t)
	dir := filepath.Join(home, ".gemini", "extensions", "broken")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(`{"name": "broken",`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"extensions", "update", "broken"},
		{"extensions", "config", "broken"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code == 0 || !strings.Contains(errOut, "gemini-extension.json") {
			t.Errorf("%v: exit %d, stderr does not name the broken manifest:\n%s", args, code, errOut)
		}
	}
}
