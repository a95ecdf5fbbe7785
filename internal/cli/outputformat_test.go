package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/config"
)

func TestOutputFormatDefault(t *testing.T) {
	tests := []struct {
		name      string
		user, ws  string // settings files; "" for none
		untrusted bool
		want      string
	}{
		{name: "no settings", want: FormatText},
		{name: "user json", user: `{"output": {"format": "json"}}`, want: FormatJSON},
		{name: "user text", user: `{"output": {"format": "text"}}`, want: FormatText},
		{name: "workspace wins", user: `{"output": {"format": "text"}}`, ws: `{"output": {"format": "json"}}`, want: FormatJSON},
		{name: "untrusted workspace is not read", ws: `{"output": {"format": "json"}}`, untrusted: true, want: FormatText},
		{name: "invalid value left to the assembly", user: `{"output": {"format": "stream-json"}}`, want: FormatText},
		{name: "broken file", user: `{"output": `, want: FormatText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
			for p, content := range map[string]string{
				filepath.Join(home, ".gemini", "settings.json"): tt.user,
				filepath.Join(ws, ".gemini", "settings.json"):   tt.ws,
			} {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if content != "" {
					os.WriteFile(p, []byte(content), 0o644)
				}
			}
			trust := "true"
			if tt.untrusted {
				trust = "false"
			}
			env := config.EnvMap(map[string]string{config.EnvTrustWorkspace: trust})
			if got := outputFormatDefault(config.LoadOptions{Workspace: ws, HomeDir: home, Env: env}); got != tt.want {
				t.Errorf("format %q, want %q", got, tt.want)
			}
		})
	}
}
