package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ctrl+y", "ctrl+y"},
		{"Shift+Ctrl+G", "ctrl+shift+g"},
		{"opt+b", "alt+b"},
		{"shift+alt+a", "alt+shift+a"},
		{"escape", "esc"},
		{"shift+pageup", "shift+pgup"},
		{"cmd+z", "meta+z"},
		{"%", "%"},
	}
	for _, tt := range tests {
		if got := normKey(tt.in); got != tt.want {
			t.Errorf("normKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLoadKeymap(t *testing.T) {
	tests := []struct {
		name, file string
		want       map[string]string // key → command ("" unbound)
		warn       string
	}{
		{"defaults", "", map[string]string{"ctrl+y": "app.toggleYolo", "ctrl+r": "history.search.start", "ctrl+g": "input.openExternalEditor", "ctrl+b": "background.toggle"}, ""},
		{"rebound", `[
			// comments as in Gemini CLI
			{"command": "-app.toggleYolo", "key": "ctrl+y"},
			{"command": "app.toggleYolo", "key": "Ctrl+T"},
		]`, map[string]string{"ctrl+y": "", "ctrl+t": "app.toggleYolo"}, ""},
		{"editor keys are the editor's", `[{"command": "cursor.left", "key": "ctrl+q"}]`, map[string]string{"ctrl+q": ""}, "does not rebind cursor.left"},
		{"broken file", `{"command": 1}`, map[string]string{"ctrl+y": "app.toggleYolo"}, "the default keys are used"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != "" {
				os.WriteFile(filepath.Join(dir, keybindingsFile), []byte(tt.file), 0o600)
			}
			var warned []string
			km := loadKeymap(dir, func(s string) { warned = append(warned, s) })
			for k, want := range tt.want {
				if got := km[k]; got != want {
					t.Errorf("%s runs %q, want %q", k, got, want)
				}
			}
			if w := strings.Join(warned, "\n"); (tt.warn == "") != (w == "") || !strings.Contains(w, tt.warn) {
				t.Errorf("warnings %q, want one containing %q", w, tt.warn)
			}
		})
	}
}
