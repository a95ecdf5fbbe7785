package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestDenyRuleSeesWhatRunsE2E: under castor -p -y with a policy file
// denying rm, none of the ways of writing rm an adversary found (issue
// #25; policy/testdata/rmforms.json) deletes the file, each refusal
// reaches the model with its reason, and commands the rule does not name
// (git status) still run; the same with tools.exclude
// run_shell_command(rm) and its 14 forms. e2e/acp, e2e/a2a and the SDK's
// TestSDKDenyRuleSeesWhatRuns run the same table through their faces.
func TestDenyRuleSeesWhatRunsE2E(t *testing.T) {
	t.Parallel()
	for _, tt := range e2etest.RmCases(t) {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			e := e2etest.New(t, e2etest.RmConversation(tt.Forms)...)
			e2etest.WriteFiles(t, e.Home, tt.HomeFiles)
			e2etest.RmWorkspace(t, e.WS)
			r := e.Run("-y", "-p", "clean up")
			if r.Code != 0 {
				t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
			}
			e2etest.CheckRmConversation(t, e.WS, tt.Forms, e.Srv.Requests(), tt.Refusal)
		})
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
