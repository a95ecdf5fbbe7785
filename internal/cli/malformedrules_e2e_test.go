package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	t.Run("flag", func(t *testing.T) {
		e := newEnv(t, fakegemini.Text("never"))
		for _, tt := range []struct{ arg, want string }{
			{"run_shell_command(", `Error: --allowed-tools "run_shell_command(" has "(" without a closing ")"`},
			{"read_file,run_shell_command(echo a,b)", `so "run_shell_command(echo a,b)" was cut in two`},
			{"run_shell_command()", `--allowed-tools "run_shell_command()" has empty parentheses`},
		} {
			r := e.run("--allowed-tools", tt.arg, "-p", "hi")
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("--allowed-tools %q: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", tt.arg, r.code, r.stdout, r.stderr, tt.want)
			}
		}
		if n := len(e.srv.Requests()); n != 0 {
			t.Errorf("%d model requests after usage errors", n)
		}
		// A trailing comma is harmless, as in Gemini CLI.
		if r := e.run("--allowed-tools", "read_file,", "-p", "hi"); r.code != 0 || r.stdout != "never\n" {
			t.Errorf("trailing comma: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("settings and policy files", func(t *testing.T) {
		e := newEnv(t, fakegemini.Text("ran"))
		settings := filepath.Join(e.home, ".gemini", "settings.json")
		policies := filepath.Join(e.home, ".gemini", "policies")
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
		if r := e.run("-p", "hi"); r.code != 52 || !strings.Contains(r.stderr, policy+`: rule #1 (line 1): toolName:`) {
			t.Fatalf("malformed policy file: exit %d, stderr %q", r.code, r.stderr)
		}
		r := e.run("--ignore-policy-errors", "-p", "hi")
		if r.code != 0 || r.stdout != "ran\n" {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{
			settings + `: tools.allowed entry "run_shell_command(git status" has "(" without a closing ")"`,
			settings + `: tools.exclude entry "run_shell_command rm)" has ")" without an opening "("`,
			"; it excludes nothing",
			settings + `: tools.exclude entry "write_file()" has empty parentheses: write write_file alone (only shell rules take arguments); it excludes write_file entirely`,
			policy + `: rule #1 (line 1): toolName: "run_shell_command(ls)": a policy rule's tool name has no parentheses`,
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, `"read_file"`) {
			t.Errorf("a well-formed entry was reported:\n%s", r.stderr)
		}
	})
}
