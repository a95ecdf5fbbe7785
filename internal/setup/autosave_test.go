package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

// TestAutoSaveSetting checks that "allow always and save" answers are
// written to ~/.gemini/policies/auto-saved.toml only with
// security.enablePermanentToolApproval on, and that a failed write is a
// warning.
func TestAutoSaveSetting(t *testing.T) {
	root := t.TempDir()
	home := config.HomeAt(filepath.Join(root, "user"))
	wd := filepath.Join(root, "ws")
	os.MkdirAll(home.Dir, 0o755)
	os.MkdirAll(wd, 0o755)
	load := func(raw string) *config.Settings {
		t.Helper()
		os.WriteFile(home.SettingsPath(), []byte(raw), 0o644)
		st, err := config.Load(config.LoadOptions{Workspace: wd, HomeDir: home.UserDir, Env: config.EnvMap(nil), SystemSettingsPath: filepath.Join(root, "none.json"), SystemDefaultsPath: filepath.Join(root, "none2.json")})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	tests := []struct {
		settings string
		want     string
	}{
		{`{}`, ""},
		{`{"security": {"enablePermanentToolApproval": false}}`, ""},
		{`{"security": {"enablePermanentToolApproval": true}}`, filepath.Join(home.Dir, "policies", "auto-saved.toml")},
		{`{"security": {"enablePermanentToolApproval": true}, "policyPaths": ["elsewhere"]}`, filepath.Join(home.Dir, "policies", "auto-saved.toml")},
	}
	for _, tt := range tests {
		var warned []string
		s := autoSaveFor(load(tt.settings), home, func(w string) { warned = append(warned, w) })
		if s.path != tt.want {
			t.Errorf("%s: path %q, want %q", tt.settings, s.path, tt.want)
		}
		if s.path == "" {
			continue
		}
		s.onSave(s.path, nil)
		s.onSave(s.path, errors.New("policy file "+s.path+": broken"))
		if len(warned) != 1 || !strings.Contains(warned[0], s.path) || !strings.Contains(warned[0], "for this session only") {
			t.Errorf("warnings %q", warned)
		}
	}
	// A value of another type stops the session, as in Gemini CLI.
	os.WriteFile(home.SettingsPath(), []byte(`{"security": {"enablePermanentToolApproval": "yes"}}`), 0o644)
	if _, err := config.Load(config.LoadOptions{Workspace: wd, HomeDir: home.UserDir, Env: config.EnvMap(nil), SystemSettingsPath: filepath.Join(root, "none.json"), SystemDefaultsPath: filepath.Join(root, "none2.json")}); err == nil || !strings.Contains(err.Error(), "security.enablePermanentToolApproval") {
		t.Errorf("a string value loads: %v", err)
	}
}
