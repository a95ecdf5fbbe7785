package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestResolveHome(t *testing.T) {
	osHome, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	tests := []struct {
		name     string
		env      map[string]string
		wantUser string
	}{
		{"os home", nil, osHome},
		{"GEMINI_CLI_HOME replaces the home directory", map[string]string{EnvHome: "/srv/gemini"}, "/srv/gemini"},
		{"empty GEMINI_CLI_HOME is ignored", map[string]string{EnvHome: ""}, osHome},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := ResolveHome(EnvMap(tt.env))
			want := filepath.Clean(tt.wantUser)
			if h.UserDir != want || h.Dir != filepath.Join(want, ".gemini") {
				t.Errorf("got %+v, want user dir %s", h, want)
			}
		})
	}
}

func TestHomePaths(t *testing.T) {
	h := HomeAt("/u")
	env := EnvMap(map[string]string{EnvTrustedFolders: "/custom/tf.json"})
	tests := []struct{ got, want string }{
		{h.SettingsPath(), "/u/.gemini/settings.json"},
		{h.MemoryPath(""), "/u/.gemini/GEMINI.md"},
		{h.MemoryPath("AGENTS.md"), "/u/.gemini/AGENTS.md"},
		{h.TmpDir(), "/u/.gemini/tmp"},
		{h.EnvPath(), "/u/.gemini/.env"},
		{h.TrustedFoldersPath(EnvMap(nil)), "/u/.gemini/trustedFolders.json"},
		{h.TrustedFoldersPath(env), "/custom/tf.json"},
		{WorkspaceSettingsPath("/ws"), "/ws/.gemini/settings.json"},
		{SystemSettingsPath(EnvMap(map[string]string{EnvSystemSettings: "/x/s.json"})), "/x/s.json"},
		{SystemDefaultsPath(EnvMap(map[string]string{EnvSystemSettings: "/x/s.json"})), "/x/system-defaults.json"},
		{SystemDefaultsPath(EnvMap(map[string]string{EnvSystemDefaults: "/y/d.json", EnvSystemSettings: "/x/s.json"})), "/y/d.json"},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests,
			struct{ got, want string }{SystemSettingsPath(EnvMap(nil)), "/etc/gemini-cli/settings.json"},
			struct{ got, want string }{SystemDefaultsPath(EnvMap(nil)), "/etc/gemini-cli/system-defaults.json"},
		)
	}
	for i, tt := range tests {
		if filepath.ToSlash(tt.got) != tt.want {
			t.Errorf("%d: got %s, want %s", i, tt.got, tt.want)
		}
	}
}
