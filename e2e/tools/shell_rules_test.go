package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestDenyRuleSeesWhatRunsE2E: under castor -p -y with a policy file
// denying rm, none of the ways of writing rm an adversary found (issue
// #25; policy/testdata/rmforms.json) deletes the file, each refusal
// reaches the model with its reason, and a command the rule does not
// name still runs.
func TestDenyRuleSeesWhatRunsE2E(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "policy", "testdata", "rmforms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var forms []struct{ Cmd, Why string }
	if err := json.Unmarshal(b, &forms); err != nil {
		t.Fatal(err)
	}
	if len(forms) < 61 {
		t.Fatalf("%d forms", len(forms))
	}
	var replies []fakegemini.Reply
	for _, f := range forms {
		replies = append(replies, fakegemini.Call("run_shell_command", map[string]any{"command": f.Cmd}))
	}
	replies = append(replies,
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch made.txt"}),
		fakegemini.Text("done"))
	e := e2etest.New(t, replies...)
	e2etest.WriteFiles(t, e.Home, map[string]string{".gemini/policies/deny.toml": denyRmPolicy})
	e.Write("victim", "keep me")
	e.Write("victim.list", "rm victim\n")
	r := e.Run("-y", "-p", "clean up")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "victim")); err != nil {
		t.Errorf("victim was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "made.txt")); err != nil {
		t.Errorf("touch did not run: %v", err)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != len(forms)+2 {
		t.Fatalf("%d requests for %d calls", len(reqs), len(forms)+1)
	}
	const prefix = "Tool execution denied by policy. Deleting files is not allowed."
	for i, f := range forms {
		_, resp := e2etest.FunctionResponse(t, reqs[i+1].LastContent(), 0)
		got, _ := resp["error"].(string)
		if !strings.HasPrefix(got, prefix) || !strings.Contains(got, f.Why) {
			t.Errorf("%q: error %q, want %q naming %q (response %s)", f.Cmd, got, prefix, f.Why, e2etest.MustJSON(resp))
		}
	}
	if _, resp := e2etest.FunctionResponse(t, reqs[len(forms)+1].LastContent(), 0); resp["error"] != nil {
		t.Errorf("touch refused: %s", e2etest.MustJSON(resp))
	}
}

// TestAutoEditAsksAboutGitDirE2E: castor -p --approval-mode auto_edit
// writes an ordinary file unasked but refuses (nobody can answer) an
// edit of .git/config or .gemini/settings.json, which would make git or
// castor run a program.
func TestAutoEditAsksAboutGitDirE2E(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Call("write_file", map[string]any{"file_path": ".git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}),
		fakegemini.Call("write_file", map[string]any{"file_path": ".gemini/settings.json", "content": "{}"}),
		fakegemini.Call("write_file", map[string]any{"file_path": "notes.md", "content": "hi\n"}),
		fakegemini.Text("done"))
	if err := os.MkdirAll(filepath.Join(e.WS, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Write(".git/config", "[core]\n")
	r := e.Run("--approval-mode", "auto_edit", "-p", "edit")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config was written: %q", b)
	}
	if _, err := os.Stat(filepath.Join(e.WS, ".gemini", "settings.json")); err == nil {
		t.Error(".gemini/settings.json was written")
	}
	if _, err := os.Stat(filepath.Join(e.WS, "notes.md")); err != nil {
		t.Errorf("notes.md was not written: %v", err)
	}
}
