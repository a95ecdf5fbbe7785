package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
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
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "rm victim.txt"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "ls && rm -f victim.txt"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch made.txt"}),
		fakegemini.Text("done"))
	e2etest.WriteFiles(t, e.Home, map[string]string{".gemini/policies/deny.toml": denyRmPolicy})
	e.Write("victim.txt", "keep me")
	r := e.Run("-y", "-p", "clean up")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stderr, "policy file") {
		t.Errorf("a valid policy file warned: %s", r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "victim.txt")); err != nil {
		t.Errorf("victim.txt was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "made.txt")); err != nil {
		t.Errorf("touch did not run: %v", err)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []string{"Tool execution denied by policy. Deleting files is not allowed.", "Tool execution denied by policy. Deleting files is not allowed.", ""} {
		_, resp := e2etest.FunctionResponse(t, reqs[i+1].LastContent(), 0)
		got, _ := resp["error"].(string)
		if got != want {
			t.Errorf("call %d: error %q, want %q (response %s)", i+1, got, want, e2etest.MustJSON(resp))
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
	other := filepath.Join(e.Home, "other.toml")
	e2etest.WriteFiles(t, e.Home, map[string]string{"other.toml": "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"touch\"\ndecision = \"deny\"\npriority = 1\n"})
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch again.txt"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "rm victim.txt"}),
		fakegemini.Text("done"))
	if r = e.Run("-y", "--policy", other, "-p", "again"); r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "again.txt")); err == nil {
		t.Error("touch ran despite --policy")
	}
	if _, err := os.Stat(filepath.Join(e.WS, "victim.txt")); err == nil {
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
	t.Parallel()
	e := e2etest.New(t)
	src := filepath.Join(filepath.Dir(e.WS), "src", "guard")
	e2etest.WriteFiles(t, src, map[string]string{
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
	if r := e.Run("extensions", "install", src); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	e2etest.WriteFiles(t, e.Home, map[string]string{".gemini/policies/mixed.toml": `[[rule]]
toolName = "read_file"
decision = "perhaps"
priority = 1

[[rule]]
toolName = "replace"
decision = "deny"
priority = 1
`})
	e2etest.WriteFiles(t, e.WS, map[string]string{".gemini/policies/ws.toml": "[[rule]]\ntoolName = \"*\"\ndecision = \"deny\"\npriority = 1\n"})
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}),
		fakegemini.Text("done"))
	// The malformed file stops the run; --ignore-policy-errors loads its
	// good rules with a warning, as Gemini CLI does.
	if r := e.Run("--approval-mode", "auto_edit", "-p", "write"); r.Code != 52 || !strings.Contains(r.Stderr, `mixed.toml: rule #1 (line 1): decision: unknown decision "perhaps"`) {
		t.Fatalf("malformed policy file: exit %d\nstderr %s", r.Code, r.Stderr)
	}
	r := e.Run("--ignore-policy-errors", "--approval-mode", "auto_edit", "-p", "write")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "x.txt")); err == nil {
		t.Error("write_file ran despite the extension's rule")
	}
	_, resp := e2etest.FunctionResponse(t, e.Srv.LastRequest().LastContent(), 0)
	if got := resp["error"]; got != "Tool execution denied by policy. The guard extension protects this workspace." {
		t.Errorf("response %s", e2etest.MustJSON(resp))
	}
	for _, decl := range e.Srv.Requests()[0].FunctionDeclarations() {
		if decl.Name == "replace" {
			t.Error("replace declared although the user's file denies it")
		}
	}
	for _, want := range []string{
		filepath.Join(e.Home, ".gemini", "policies", "mixed.toml") + `: rule #1 (line 1): decision: unknown decision "perhaps"`,
		filepath.Join("guard", "policies", "guard.toml") + ": rule #2 (line 8): decision: an extension may not allow tool calls; rule ignored",
		"workspace policies in " + filepath.Join(e.WS, ".gemini", "policies") + " are not loaded",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
}
