package setup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/hooks"
)

func TestSettingsHooks(t *testing.T) {
	hook := func(cmd string) string {
		return `{"BeforeTool": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}`
	}
	for _, tt := range []struct {
		name               string
		user, ws, system   string // settings files ("" = absent)
		trusted            bool
		ext                string // an extension's hooks/hooks.json
		want, wantDisabled []string
		warn               []string
	}{
		{
			name: "layers in Gemini CLI's order", trusted: true,
			user: `{"hooks": ` + hook("user") + `}`, ws: `{"hooks": ` + hook("project") + `}`, system: `{"hooks": ` + hook("system") + `}`,
			ext:  `{"hooks": ` + hook("ext") + `}`,
			want: []string{"project@project", "user@user", "system@system", "ext@extension"},
		},
		{
			name: "project hooks need trust",
			user: `{"hooks": ` + hook("user") + `}`, ws: `{"hooks": ` + hook("project") + `}`,
			want: []string{"user@user"},
			warn: []string{"ws/.gemini/settings.json: hooks ignored: the workspace is not trusted"},
		},
		{
			name: "hooksConfig.enabled false turns every hook off", trusted: true,
			user: `{"hooks": ` + hook("user") + `, "hooksConfig": {"enabled": false}}`, ext: `{"hooks": ` + hook("ext") + `}`,
		},
		{
			name: "disabled lists from every layer", trusted: true,
			user: `{"hooks": ` + hook("user") + `, "hooksConfig": {"disabled": ["a"]}}`,
			ws:   `{"hooks": {"disabled": ["b"]}, "hooksConfig": {"disabled": ["c"]}}`,
			want: []string{"user@user"}, wantDisabled: []string{"a", "c", "b"},
		},
		{
			name: "bad definitions are reported with file and key", trusted: true,
			user: `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command"}]}], "Nope": []}}`,
			warn: []string{
				"home/.gemini/settings.json: hooks.BeforeTool[0].hooks[0].command: missing",
				"home/.gemini/settings.json: hooks.Nope: unknown hook event",
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
			write := func(path, content string) {
				if content == "" {
					return
				}
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.MkdirAll(ws, 0o755)
			write(filepath.Join(home, ".gemini", "settings.json"), tt.user)
			write(filepath.Join(ws, ".gemini", "settings.json"), tt.ws)
			sys := filepath.Join(root, "etc", "settings.json")
			write(sys, tt.system)
			var exts []string
			if tt.ext != "" {
				ext := filepath.Join(root, "exts", "e1")
				write(filepath.Join(ext, "hooks", "hooks.json"), tt.ext)
				exts = append(exts, ext)
			}
			env := map[string]string{}
			if tt.trusted {
				env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
			}
			st, err := config.Load(config.LoadOptions{
				Workspace: ws, HomeDir: home, SystemSettingsPath: sys,
				SystemDefaultsPath: filepath.Join(root, "etc", "defaults.json"),
				Env:                func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			})
			if err != nil {
				t.Fatal(err)
			}
			var warns []string
			hs, disabled := settingsHooks(st, st.Trust.IsTrusted(), exts, ws, func(s string) { warns = append(warns, s) })
			var got []string
			for _, h := range hooks.New(hooks.Options{}, hs).Hooks() {
				got = append(got, h.Command+"@"+h.Source.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("hooks %v, want %v", got, tt.want)
			}
			if !slices.Equal(disabled, tt.wantDisabled) {
				t.Errorf("disabled %v, want %v", disabled, tt.wantDisabled)
			}
			if len(warns) != len(tt.warn) {
				t.Fatalf("warnings %q, want %q", warns, tt.warn)
			}
			for i, w := range tt.warn {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %q lacks %q", warns[i], w)
				}
			}
		})
	}
}
