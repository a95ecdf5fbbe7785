package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestSettingsTypeErrors: a settings value of the wrong type, or an
// unknown approval mode, stops the run with exit 52 (Gemini CLI 0.61's
// "Invalid configuration") and a line naming the file, the key and what
// was expected.
func TestSettingsTypeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, settings string
		want           []string
	}{
		{"model is not an object", `{"model": "x"}`, []string{"model: expected an object, got string \"x\""}},
		{"unknown approval mode", `{"general": {"defaultApprovalMode": "sometimes"}}`,
			[]string{"general.defaultApprovalMode: expected one of default, auto_edit, autoEdit, yolo, plan"}},
		{"list given as a string", `{"tools": {"exclude": "run_shell_command"}}`, []string{"tools.exclude: expected an array of strings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			os.MkdirAll(filepath.Join(e.WS, ".gemini"), 0o755)
			file := filepath.Join(e.WS, ".gemini", "settings.json")
			os.WriteFile(file, []byte(tt.settings), 0o644)
			r := e.Run("-p", "hi")
			if r.Code != 52 {
				t.Fatalf("exit %d, want 52; stderr %q", r.Code, r.Stderr)
			}
			for _, w := range append(tt.want, file, "Invalid configuration") {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.Stderr)
				}
			}
			if len(e.Srv.Requests()) != 0 {
				t.Error("the model was called")
			}
		})
	}
}
