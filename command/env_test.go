package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvAt(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string // under the home directory's .gemini
		noWS  bool
		want  bool
	}{
		{name: "no workspace", noWS: true, want: false},
		{name: "folder trust on, no rule", want: false},
		{name: "folder trust off", files: map[string]string{"settings.json": `{"security": {"folderTrust": {"enabled": false}}}`}, want: true},
		{name: "trusted folder", files: map[string]string{"trustedFolders.json": `{"WS": "TRUST_FOLDER"}`}, want: true},
		{name: "broken settings", files: map[string]string{"settings.json": `{`}, want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "")
			t.Setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "")
			root := t.TempDir()
			home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
			for _, d := range []string{filepath.Join(home, ".gemini"), ws} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, body := range tt.files {
				body = strings.ReplaceAll(body, "WS", filepath.ToSlash(ws))
				if err := os.WriteFile(filepath.Join(home, ".gemini", name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.noWS {
				ws = ""
			}
			got := EnvAt(ws, home)
			if got.Workspace != ws || got.HomeDir != home || got.Trusted != tt.want {
				t.Errorf("EnvAt = %+v, want workspace %q, home %q, trusted %v", got, ws, home, tt.want)
			}
		})
	}
}

func TestResultText(t *testing.T) {
	for _, tt := range []struct {
		name string
		res  *Result
		want string
	}{
		{"nil", nil, ""},
		{"message", &Result{Kind: ResultMessage, Content: "hi"}, "hi"},
		{"prompt", &Result{Kind: ResultSubmitPrompt, Content: "do it"}, "do it"},
		{"string data", &Result{Kind: ResultData, Data: "plain"}, "plain"},
		{"object data", &Result{Kind: ResultData, Data: map[string]any{"a": 1}}, "{\n  \"a\": 1\n}"},
		{"unencodable data", &Result{Kind: ResultData, Data: func() {}, Content: "fallback"}, "fallback"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.Text(); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
		})
	}
}
