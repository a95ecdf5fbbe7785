package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// TestFileRulesAddRemove: /policies add writes a rule the session then
// applies, remove takes it out again, and the file's other rules and
// keys stay.
func TestFileRulesAddRemove(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "auto-saved.toml")
	if err := os.WriteFile(path, []byte("# mine\n[[rule]]\ntoolName = \"read_file\"\ndecision = \"allow\"\npriority = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Interactive: true})
	shell := Call{Name: "run_shell_command", Kind: tool.KindExecute, Args: map[string]any{"command": "rm -rf build"}}
	if d, _ := e.Decide(shell); d != Ask {
		t.Fatalf("before: %v", d)
	}
	if err := AddFileRule(path, NewRule{Decision: "deny", ToolName: "run_shell_command", CommandPrefix: "rm -rf", Priority: 100}); err != nil {
		t.Fatal(err)
	}
	reload := func() {
		t.Helper()
		rules, errs := LoadRules(path, TierUser)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		e.ReplaceRules(path, rules)
	}
	reload()
	if d, _ := e.Decide(shell); d != Deny {
		t.Errorf("after add: %v", d)
	}
	list, err := FileRules(dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("FileRules: %v %+v", err, list)
	}
	if got := list[1].Summary; got != "deny run_shell_command commandPrefix=rm -rf priority=100" {
		t.Errorf("summary %q", got)
	}
	if err := RemoveFileRule(path, list[1].Index); err != nil {
		t.Fatal(err)
	}
	reload()
	if d, _ := e.Decide(shell); d != Ask {
		t.Errorf("after remove: %v", d)
	}
	if list, _ := FileRules(path); len(list) != 1 || !strings.HasPrefix(list[0].Summary, "allow read_file") {
		t.Errorf("the hand-written rule did not stay: %+v", list)
	}
	if err := RemoveFileRule(path, 5); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("removing a rule that is not there: %v", err)
	}
}

func TestAddFileRuleRefusesBadRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.toml")
	for _, r := range []NewRule{
		{Decision: "maybe", ToolName: "read_file", Priority: 1},
		{Decision: "allow", ToolName: "read_file", Priority: 5000},
	} {
		if err := AddFileRule(path, r); err == nil {
			t.Errorf("%+v was written", r)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a refused rule created the file")
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[[rule]\n"), 0o644)
	if err := AddFileRule(bad, NewRule{Decision: "allow", ToolName: "read_file", Priority: 1}); err == nil || !strings.Contains(err.Error(), "left as it is") {
		t.Errorf("a broken file: %v", err)
	}
}
