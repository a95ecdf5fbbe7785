package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

// TestFromSettingsNamesTheFile: a bad server entry is reported with the
// settings file that holds it, as every other settings error is.
func TestFromSettingsNamesTheFile(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	file := filepath.Join(ws, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"lsp":{"servers":{"go":{"command":5}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := config.Load(config.LoadOptions{Workspace: ws, HomeDir: home, Env: config.EnvMap(map[string]string{config.EnvTrustWorkspace: "true"}),
		SystemSettingsPath: filepath.Join(home, "none.json"), SystemDefaultsPath: filepath.Join(home, "none2.json")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FromSettings(st)
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "lsp.servers.go.command") {
		t.Errorf("err = %v, want the file %s and the key", err, file)
	}
}
