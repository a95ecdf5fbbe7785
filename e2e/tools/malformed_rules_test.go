package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMalformedToolRules: a tool(args) rule missing a parenthesis used to
// name no tool and be accepted silently (as in Gemini CLI 0.61), so the
// command it meant to allow was refused headless, or the one it meant to
// exclude ran. A malformed --allowed-tools is now a usage error (exit 1,
// before any model call); settings are reported on stderr naming the
// file, the key and the entry, and the run goes on; a policy file's
// mistake stops the run unless --ignore-policy-errors.
func TestMalformedToolRules(t *testing.T) {
	t.Parallel()
	t.Run("flag", func(t *testing.T) {
		e := e2etest.New(t, fakegemini.Text("never"))
		for _, tt := range []struct{ arg, want string }{
			{"run_shell_command(", `Error: --allowed-tools "run_shell_command(" has "(" without a closing ")"`},
			{"read_file,run_shell_command(echo a,b)", `so "run_shell_command(echo a,b)" was cut in two`},
			{"run_shell_command()", `--allowed-tools "run_shell_command()" has empty parentheses`},
		} {
			r := e.Run("--allowed-tools", tt.arg, "-p", "hi")
			if r.Code != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, tt.want) || strings.Count(r.Stderr, "\n") != 1 {
				t.Errorf("--allowed-tools %q: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", tt.arg, r.Code, r.Stdout, r.Stderr, tt.want)
			}
		}
		if n := len(e.Srv.Requests()); n != 0 {
			t.Errorf("%d model requests after usage errors", n)
		}
		// A trailing comma is harmless, as in Gemini CLI.
		if r := e.Run("--allowed-tools", "read_file,", "-p", "hi"); r.Code != 0 || r.Stdout != "never\n" {
			t.Errorf("trailing comma: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
		}
	})
	t.Run("settings and policy files", func(t *testing.T) {
		e := e2etest.New(t, fakegemini.Text("ran"))
		settings := filepath.Join(e.Home, ".gemini", "settings.json")
		policies := filepath.Join(e.Home, ".gemini", "policies")
		if err := os.MkdirAll(policies, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(settings, []byte(`{"tools": {"allowed": ["read_file", "run_shell_command(git status"], "exclude": ["run_shell_command rm)", "write_file()"]}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		policy := filepath.Join(policies, "mine.toml")
		if err := os.WriteFile(policy, []byte("[[rule]]\ntoolName = \"run_shell_command(ls)\"\ndecision = \"allow\"\npriority = 100\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// The policy file's mistake stops the run; with
		// --ignore-policy-errors it is a warning like the settings'.
		if r := e.Run("-p", "hi"); r.Code != 52 || !strings.Contains(r.Stderr, policy+`: rule #1 (line 1): toolName:`) {
			t.Fatalf("malformed policy file: exit %d, stderr %q", r.Code, r.Stderr)
		}
		r := e.Run("--ignore-policy-errors", "-p", "hi")
		if r.Code != 0 || r.Stdout != "ran\n" {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
		}
		for _, want := range []string{
			settings + `: tools.allowed entry "run_shell_command(git status" has "(" without a closing ")"`,
			settings + `: tools.exclude entry "run_shell_command rm)" has ")" without an opening "("`,
			"; it excludes nothing",
			settings + `: tools.exclude entry "write_file()" has empty parentheses: write write_file alone (only shell rules take arguments); it excludes write_file entirely`,
			policy + `: rule #1 (line 1): toolName: "run_shell_command(ls)": a policy rule's tool name has no parentheses`,
		} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
			}
		}
		if strings.Contains(r.Stderr, `"read_file"`) {
			t.Errorf("a well-formed entry was reported:\n%s", r.Stderr)
		}
	})
}
