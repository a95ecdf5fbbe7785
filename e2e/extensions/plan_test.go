package extensions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestExtensionPlanDirectory: an extension's plan.directory is where plan
// mode writes its plans when the settings name none, as in Gemini CLI
// 0.61; general.plan.directory wins over it.
func TestExtensionPlanDirectory(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, settings, want string
	}{
		{"extension", "", ".gemini/plans/p.md"},
		{"settings win", `{"general": {"plan": {"directory": "docs/plans"}}}`, "docs/plans/p.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e2etest.New(t)
			ext := filepath.Join(e.Home, ".gemini", "extensions", "planner")
			e2etest.WriteAt(t, filepath.Join(ext, "gemini-extension.json"), `{"name": "planner", "version": "1.0.0", "plan": {"directory": ".gemini/plans"}}`)
			if tt.settings != "" {
				e2etest.WriteAt(t, filepath.Join(e.WS, ".gemini", "settings.json"), tt.settings)
			}
			e.Srv.Enqueue(
				fakegemini.Call("write_file", map[string]any{"file_path": "p.md", "content": "# Plan\n\n1. do it\n"}),
				fakegemini.Text("Planned."),
			)
			r := e.Run("--approval-mode", "plan", "-p", "plan the change")
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
			}
			if got, err := os.ReadFile(filepath.Join(e.WS, filepath.FromSlash(tt.want))); err != nil || string(got) != "# Plan\n\n1. do it\n" {
				t.Errorf("%s = %q, %v", tt.want, got, err)
			}
			si := e.Srv.Requests()[0].SystemInstruction.Parts[0].Text
			if dir := filepath.Dir(filepath.Join(e.WS, filepath.FromSlash(tt.want))); !strings.Contains(si, "`"+dir+"/`") {
				t.Errorf("the system instruction does not name %s as the plans folder", dir)
			}
		})
	}
}
