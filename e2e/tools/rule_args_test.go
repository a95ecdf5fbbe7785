package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestRuleArgsOfNonShellTools: a tools.allowed or --allowed-tools rule
// giving arguments to a tool other than the shell allows every call of
// the tool, and such a tools.exclude rule excludes nothing, as the same
// text does in Gemini CLI (policy.IgnoredArgs); each is reported on
// stderr. Before, write_file(other.md) allowed nothing, silently: the
// headless write was refused.
func TestRuleArgsOfNonShellTools(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		settings string
		args     []string
		warn     string
	}{
		{"settings allowed", `{"tools": {"allowed": ["write_file(other.md)"]}}`, nil,
			`: tools.allowed entry "write_file(other.md)": only shell rules take arguments, so it allows every call of write_file, as in Gemini CLI`},
		{"flag", "", []string{"--allowed-tools", "write_file(other.md)"},
			`allowed tools rule "write_file(other.md)": only shell rules take arguments, so it allows every call of write_file`},
		{"settings exclude", `{"tools": {"exclude": ["write_file(notes.md)"]}}`, []string{"--yolo"},
			`: tools.exclude entry "write_file(notes.md)": only shell rules take arguments, so it excludes nothing, as in Gemini CLI; write write_file alone to exclude the tool`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e2etest.New(t)
			target := filepath.Join(e.WS, "notes.md")
			e.Srv.Enqueue(
				fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "written\n"}),
				fakegemini.Text("done"))
			if c.settings != "" {
				if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(c.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := e.Run(append(c.args, "-p", "write it")...)
			if r.Code != 0 || !strings.HasSuffix(r.Stdout, "done\n") {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "written\n" {
				t.Errorf("the write did not happen: %q, %v\nstderr %s", b, err, r.Stderr)
			}
			if !strings.Contains(r.Stderr, c.warn) {
				t.Errorf("stderr lacks %q:\n%s", c.warn, r.Stderr)
			}
		})
	}
}
