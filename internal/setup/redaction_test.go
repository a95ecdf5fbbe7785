package setup

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/castor-dev/castor/config"
)

// TestRedactShellEnv: security.environmentVariableRedaction as the shell
// and hooks see it.
func TestRedactShellEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "API_TOKEN=s3cret", "GITHUB_TOKEN=x", "PLAIN=ok", "NOISY=1"}
	tests := []struct {
		name, settings  string
		shell, hookWant []string
	}{
		{"off by default", `{}`, environ, environ},
		{"enabled", `{"security": {"environmentVariableRedaction": {"enabled": true}}}`,
			[]string{"PATH=/bin", "PLAIN=ok", "NOISY=1"}, []string{"PATH=/bin", "PLAIN=ok", "NOISY=1"}},
		// The shell's allowed list cannot pass a secret-looking name; the
		// hooks' can.
		{"allowed and blocked", `{"security": {"environmentVariableRedaction": {"enabled": true, "allowed": ["GITHUB_TOKEN"], "blocked": ["noisy"]}}}`,
			[]string{"PATH=/bin", "PLAIN=ok"}, []string{"PATH=/bin", "GITHUB_TOKEN=x", "PLAIN=ok"}},
		{"lists alone change nothing", `{"security": {"environmentVariableRedaction": {"blocked": ["NOISY"]}}}`, environ, environ},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			home := filepath.Join(root, "home")
			if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(tt.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := config.Load(config.LoadOptions{Workspace: root, HomeDir: home, Env: config.EnvMap(nil),
				SystemSettingsPath: filepath.Join(root, "none.json"), SystemDefaultsPath: filepath.Join(root, "none2.json")})
			if err != nil {
				t.Fatal(err)
			}
			a := &Agent{Settings: st}
			if got := a.RedactShellEnv(environ); !slices.Equal(got, tt.shell) {
				t.Errorf("shell env = %q, want %q", got, tt.shell)
			}
			if got := envRules(st).Apply(environ); !slices.Equal(got, tt.hookWant) {
				t.Errorf("hook env = %q, want %q", got, tt.hookWant)
			}
		})
	}
}
