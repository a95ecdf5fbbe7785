package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// A "!" command runs on a terminal of its own, and focus moves into it:
// what it asks is answered by typing, as in Gemini CLI 0.61's interactive
// shell (read once saw end of input and answered nothing).
func TestTUIShellCommandAnsweredByTyping(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Submit(`!read -p 'name? ' x; echo "got $x"`)
	// The question on a line of its own: the command line shown above
	// it holds "name?" too, and typing before read asks is echoed first.
	tm.WaitRaw("the command's question", func(s string) bool {
		for l := range strings.Lines(s) {
			if strings.HasPrefix(strings.TrimSpace(l), "name?") {
				return true
			}
		}
		return false
	})
	tm.Submit("castor")
	s := tm.WaitUntil("the command's answer and an idle screen", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(s, "got castor") && strings.Contains(s, "(exit 0)")
	})
	if !strings.Contains(s, "! read -p 'name? ' x; echo \"got $x\"") {
		t.Errorf("the command line is not shown:\n%s", s)
	}
	// The command and what it printed joined the conversation.
	tm.Golden("shell_answered", s)
}

// "!" typed into an empty input turns on shell mode: each line sent is a
// command, without "!" again, until Esc leaves it (Gemini CLI 0.61).
func TestTUIShellModeSticky(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.TypeText("!")
	tm.WaitFor("Type your shell command")
	tm.Submit("echo first-$((20+1))")
	tm.WaitFor("first-21")
	tm.Submit("echo second-$((40+2))")
	s := tm.WaitUntil("the second command's output, still in shell mode", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(s, "second-42") && strings.Contains(s, "Type your shell command")
	})
	if !strings.Contains(s, "! echo second-$((40+2))") {
		t.Errorf("the second line did not run as a command:\n%s", s)
	}
	tm.Keys("Escape")
	s = tm.WaitUntil("shell mode left", func(s string) bool {
		return strings.Contains(s, "Type your message") && !strings.Contains(s, "Type your shell command")
	})
	tm.Golden("shell_mode", s)
}

// The model's shell call runs on a terminal of its own in the interactive
// face (Gemini CLI 0.61's interactive shell): Tab moves focus into it,
// what the user types answers its question, and the model gets the output
// as the terminal showed it, escape sequences stripped.
func TestTUIModelShellAnsweredByTyping(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": `read -p 'name? ' x; printf '\033[1mgot %s\033[0m\n' "$x"`}),
		fakegemini.Text("Answered."),
	)
	tm := e.StartTUI("--approval-mode", "yolo")
	tm.Submit("ask me a name")
	tm.WaitFor("tab: type into it")
	tm.Keys("Tab")
	tm.WaitFor("typing goes to it")
	tm.Submit("castor")
	tm.WaitUntil("the answer", func(s string) bool { return e2etest.Idle(s) && strings.Contains(s, "Answered.") })
	reqs := e.Srv.Requests()
	sent := e2etest.MustJSON(reqs[len(reqs)-1].Contents)
	if !strings.Contains(sent, "got castor") {
		t.Fatalf("the functionResponse lacks the command's answer: %s", sent)
	}
	if strings.Contains(sent, `\u001b`) || strings.Contains(sent, `\r`) {
		t.Errorf("the functionResponse keeps terminal control characters: %s", sent)
	}
}

// With tools.shell.enableInteractiveShell false the model's command runs
// with pipes, as in the headless faces: read sees the end of its input.
func TestTUIModelShellPipesWhenInteractiveOff(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.WriteUserSettings(`{"tools": {"shell": {"enableInteractiveShell": false}}}`)
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": `tty || echo "no terminal"`}),
		fakegemini.Text("Done."),
	)
	tm := e.StartTUI("--approval-mode", "yolo")
	tm.Submit("is there a terminal")
	tm.WaitUntil("the answer", func(s string) bool { return e2etest.Idle(s) && strings.Contains(s, "Done.") })
	reqs := e.Srv.Requests()
	if sent := e2etest.MustJSON(reqs[len(reqs)-1].Contents); !strings.Contains(sent, "no terminal") {
		t.Fatalf("the command had a terminal with the setting off: %s", sent)
	}
}
