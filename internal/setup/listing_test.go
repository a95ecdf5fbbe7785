package setup

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/model/fake"
)

// /skills and /hooks list what the session loaded, in every face's
// registry.
func TestSessionListingCommands(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies imports.\n---\nRun goimports.")
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"skills": {"disabled": []}, "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}`)
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: fake.Script(), Env: envOf(func(string) string { return "" })})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tests := []struct {
		line string
		want []string
	}{
		{"/skills", []string{"tidy", "Tidies imports.", filepath.Join(home, ".gemini", "skills", "tidy", "SKILL.md")}},
		{"/skills list", []string{"tidy"}},
		{"/hooks", []string{"BeforeTool [run_shell_command] guard.sh", "settings.json"}},
	}
	for _, tt := range tests {
		res, err := a.Commands.RunLine(context.Background(), tt.line, command.Env{Workspace: ws})
		if err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(res.Content, w) {
				t.Errorf("%s lacks %q:\n%s", tt.line, w, res.Content)
			}
		}
	}
	empty, err := New(context.Background(), Options{WorkDir: t.TempDir(), HomeDir: t.TempDir(), Client: fake.Script(), Env: envOf(func(string) string { return "" })})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	for line, want := range map[string]string{"/skills": "No skills discovered.", "/hooks": "No hooks configured."} {
		res, err := empty.Commands.RunLine(context.Background(), line, command.Env{})
		if err != nil || res.Content != want {
			t.Errorf("%s: %v %q", line, err, res)
		}
	}
}
