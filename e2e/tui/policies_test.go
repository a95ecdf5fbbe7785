package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// /policies add writes a rule to the user's policy file and applies it
// at once; /policies lists it by number and /policies remove takes it out
// again, at once too.
func TestTUIPoliciesAddRemove(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch pwned"}),
		fakegemini.Text("Refused, fine."),
	)
	tm := e.StartTUI()
	tm.Submit("/policies add deny run_shell_command touch")
	tm.WaitFor("Policy rule added, in force now")
	b, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "policies", "auto-saved.toml"))
	for _, want := range []string{`decision = "deny"`, `toolName = "run_shell_command"`, `commandPrefix = "touch"`, "priority = 100"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("auto-saved.toml lacks %s:\n%s", want, b)
		}
	}
	tm.Submit("make a file")
	s := tm.WaitFor("Refused, fine.")
	if strings.Contains(s, "Allow execution") {
		t.Errorf("the denied command was asked about:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "pwned")); err == nil {
		t.Error("the denied command ran")
	}
	tm.Submit("/policies")
	tm.WaitFor("1. deny run_shell_command commandPrefix=touch priority=100 (auto-saved.toml)")
	tm.Submit("/policies remove 1")
	tm.WaitFor("Policy rule removed, no longer in force")
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch pwned"}))
	tm.Submit("make it again")
	tm.WaitFor("Allow execution of: touch?")
}
