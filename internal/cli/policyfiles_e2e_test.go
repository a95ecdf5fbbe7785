package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

const denyRmPolicy = `# Never delete files, even in yolo mode.
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
denyMessage = "Deleting files is not allowed."
`

// TestPolicyFileDeniesUnderYolo: a Gemini CLI user's
// ~/.gemini/policies/deny.toml refuses rm under -y, alone or inside a
// compound command, with its denyMessage reaching the model, while other
// shell commands run.
func TestPolicyFileDeniesUnderYolo(t *testing.T) {
	e := newEnv(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "rm victim.txt"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "ls && rm -f victim.txt"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch made.txt"}),
		fakegemini.Text("done"))
	writeFiles(t, e.home, map[string]string{".gemini/policies/deny.toml": denyRmPolicy})
	e.write("victim.txt", "keep me")
	r := e.run("-y", "-p", "clean up")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "policy file") {
		t.Errorf("a valid policy file warned: %s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "victim.txt")); err != nil {
		t.Errorf("victim.txt was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made.txt")); err != nil {
		t.Errorf("touch did not run: %v", err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []string{"Tool execution denied by policy. Deleting files is not allowed.", "Tool execution denied by policy. Deleting files is not allowed.", ""} {
		_, resp := functionResponse(t, reqs[i+1].LastContent(), 0)
		got, _ := resp["error"].(string)
		if got != want {
			t.Errorf("call %d: error %q, want %q (response %s)", i+1, got, want, mustJSON(resp))
		}
	}
	// The shell tool stays declared: the rule refuses some commands only.
	found := false
	for _, d := range reqs[0].FunctionDeclarations() {
		found = found || d.Name == "run_shell_command"
	}
	if !found {
		t.Error("run_shell_command not declared")
	}

	// --policy replaces ~/.gemini/policies, as in Gemini CLI.
	other := filepath.Join(e.home, "other.toml")
	writeFiles(t, e.home, map[string]string{"other.toml": "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"touch\"\ndecision = \"deny\"\npriority = 1\n"})
	e.srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch again.txt"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "rm victim.txt"}),
		fakegemini.Text("done"))
	if r = e.run("-y", "--policy", other, "-p", "again"); r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "again.txt")); err == nil {
		t.Error("touch ran despite --policy")
	}
	if _, err := os.Stat(filepath.Join(e.ws, "victim.txt")); err == nil {
		t.Error("~/.gemini/policies was read although --policy replaces it")
	}
}

// TestExtensionPolicyAndWarnings: an installed extension's policies/
// folder applies at the extension tier (its deny outranks auto_edit's
// built-in allowance; its allow rule is refused), a malformed user file
// stops the run, and with --ignore-policy-errors is reported with its
// file, rule and key while its good rules load, and
// a workspace's .gemini/policies is reported as not loaded.
func TestExtensionPolicyAndWarnings(t *testing.T) {
	e := newEnv(t)
	src := filepath.Join(filepath.Dir(e.ws), "src", "guard")
	writeFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name":"guard","version":"1.0.0"}`,
		"policies/guard.toml": `[[rule]]
toolName = "write_file"
argsPattern = 'x\.txt'
decision = "deny"
priority = 10
denyMessage = "The guard extension protects this workspace."

[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 10
`,
	})
	if r := e.run("extensions", "install", src); r.code != 0 {
		t.Fatalf("install: exit %d\n%s", r.code, r.stderr)
	}
	writeFiles(t, e.home, map[string]string{".gemini/policies/mixed.toml": `[[rule]]
toolName = "read_file"
decision = "perhaps"
priority = 1

[[rule]]
toolName = "replace"
decision = "deny"
priority = 1
`})
	writeFiles(t, e.ws, map[string]string{".gemini/policies/ws.toml": "[[rule]]\ntoolName = \"*\"\ndecision = \"deny\"\npriority = 1\n"})
	e.srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}),
		fakegemini.Text("done"))
	// The malformed file stops the run; --ignore-policy-errors loads its
	// good rules with a warning, as Gemini CLI does.
	if r := e.run("--approval-mode", "auto_edit", "-p", "write"); r.code != 52 || !strings.Contains(r.stderr, `mixed.toml: rule #1 (line 1): decision: unknown decision "perhaps"`) {
		t.Fatalf("malformed policy file: exit %d\nstderr %s", r.code, r.stderr)
	}
	r := e.run("--ignore-policy-errors", "--approval-mode", "auto_edit", "-p", "write")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); err == nil {
		t.Error("write_file ran despite the extension's rule")
	}
	_, resp := functionResponse(t, e.srv.LastRequest().LastContent(), 0)
	if got := resp["error"]; got != "Tool execution denied by policy. The guard extension protects this workspace." {
		t.Errorf("response %s", mustJSON(resp))
	}
	for _, decl := range e.srv.Requests()[0].FunctionDeclarations() {
		if decl.Name == "replace" {
			t.Error("replace declared although the user's file denies it")
		}
	}
	for _, want := range []string{
		filepath.Join(e.home, ".gemini", "policies", "mixed.toml") + `: rule #1 (line 1): decision: unknown decision "perhaps"`,
		filepath.Join("guard", "policies", "guard.toml") + ": rule #2 (line 8): decision: an extension may not allow tool calls; rule ignored",
		"workspace policies in " + filepath.Join(e.ws, ".gemini", "policies") + " are not loaded",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
