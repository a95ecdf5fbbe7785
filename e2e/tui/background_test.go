package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// The model's is_background commands are listed and managed from the
// terminal as in Gemini CLI 0.61: Ctrl+B opens the panel (the list first
// when there are several), Enter shows one's output, Ctrl+K kills it,
// and Ctrl+B says so in one line once none is left.
func TestTUIBackgroundShells(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "echo first-out; exec sleep 600", "is_background": true}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "echo second-out; exec sleep 600", "is_background": true}),
		fakegemini.Text("Both started."),
	)
	// Allowed by a setting rather than --approval-mode yolo, which turns
	// on the sandbox, whose banner names the test's folders.
	e.WriteUserSettings(`{"tools": {"allowed": ["run_shell_command"]}}`)
	tm := e.StartTUI()
	tm.Keys("C-b")
	tm.WaitFor("No background shells.")
	tm.Submit("start two servers")
	tm.WaitUntil("the answer", func(s string) bool { return e2etest.Idle(s) && strings.Contains(s, "Both started.") })

	tm.Keys("C-b")
	s := tm.WaitFor("Select Process")
	tm.Golden("background_list", s)

	tm.Keys("Up", "Enter")
	s = tm.WaitUntil("the first shell's output", func(s string) bool {
		return strings.Contains(s, "first-out") && strings.Contains(s, "(Focused)") && !strings.Contains(s, "Select Process")
	})
	tm.Golden("background_output", s)

	// Ctrl+K kills the shell shown; the other one is shown then.
	tm.Keys("C-k")
	tm.WaitUntil("the second shell shown", func(s string) bool {
		return strings.Contains(s, "second-out") && strings.Contains(s, "1: echo second-out")
	})
	tm.Keys("C-k")
	tm.WaitUntil("the panel closed", func(s string) bool { return !strings.Contains(s, "Close (Ctrl+B)") })
	tm.Keys("C-b")
	s = tm.WaitUntil("none left", func(s string) bool { return strings.Count(s, "No background shells.") == 2 })
	tm.Golden("background_none_left", s)
}

// Ctrl+B while a "!" command runs moves it to the background, as Gemini
// CLI 0.61 does: the input is free, the panel shows what it printed before
// and after, and Ctrl+K stops it.
func TestTUIShellCommandToBackground(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Submit(`!echo before; read x; echo "after $x"; exec sleep 600`)
	tm.WaitRaw("the command's first line", func(s string) bool { return strings.Contains(s, "before") })
	tm.Keys("C-b")
	tm.WaitFor("moved to the background")
	tm.Keys("C-b")
	s := tm.WaitUntil("the panel with the output so far", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(s, "(Focused)") && strings.Contains(s, "│ before")
	})
	tm.Golden("background_from_shell", s)
	tm.Keys("C-k")
	tm.WaitUntil("the panel closed", func(s string) bool { return !strings.Contains(s, "Close (Ctrl+B)") })
	tm.Keys("C-b")
	tm.WaitFor("No background shells.")
}
