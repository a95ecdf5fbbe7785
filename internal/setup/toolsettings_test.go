package setup

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/castor-dev/castor/config"
)

// loadUserSettings loads settings whose user file is user, in a trusted
// temporary workspace.
func loadUserSettings(t *testing.T, user string) *config.Settings {
	t.Helper()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), user)
	st, err := config.Load(config.LoadOptions{Workspace: t.TempDir(), HomeDir: home, Env: config.EnvMap(map[string]string{config.EnvTrustWorkspace: "true"})})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestShellTimeout(t *testing.T) {
	tests := []struct {
		settings string
		want     time.Duration
	}{
		{`{}`, 0},
		{`{"tools": {"shell": {"inactivityTimeout": 300}}}`, 5 * time.Minute},
		{`{"tools": {"shell": {"inactivityTimeout": 2.5}}}`, 2500 * time.Millisecond},
		{`{"tools": {"shell": {"inactivityTimeout": 0}}}`, -1},
		{`{"tools": {"shell": {"inactivityTimeout": -5}}}`, -1},
		{`{"tools": {"shell": {"inactivityTimeout": 1e300}}}`, -1},
	}
	for _, tt := range tests {
		if got := shellTimeout(loadUserSettings(t, tt.settings)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.settings, got, tt.want)
		}
	}
	if got := shellTimeout(&config.Settings{}); got != 0 {
		t.Errorf("no settings: %v", got)
	}
}
