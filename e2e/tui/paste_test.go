package tui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// paste pastes text into the pane as a terminal does (bracketed).
func paste(tm *e2etest.Term, text string) {
	tm.T().Helper()
	tm.Tmux("set-buffer", "-b", "castor-test", text)
	tm.Tmux("paste-buffer", "-p", "-d", "-b", "castor-test", "-t", "main")
}

// A large paste shows as a placeholder; Ctrl+O with the cursor on it puts
// its text in the input, and folds it again, as Gemini CLI 0.61's
// app.expandPaste; the message sent holds the whole paste either way.
func TestTUICtrlOExpandsPaste(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("Got it."))
	tm := e.StartTUI()
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, fmt.Sprintf("pasted line %d", i))
	}
	paste(tm, strings.Join(lines, "\n"))
	tm.WaitFor("[Pasted text #1: 12 lines]")
	tm.Keys("C-o")
	s := tm.WaitFor("pasted line 12")
	if strings.Contains(s, "[Pasted text #1") {
		t.Fatalf("the placeholder stayed:\n%s", s)
	}
	tm.Golden("paste_expanded", s)
	tm.Keys("C-o")
	tm.WaitUntil("the paste folded again", func(s string) bool {
		return strings.Contains(s, "[Pasted text #1: 12 lines]") && !strings.Contains(s, "pasted line 12")
	})
	tm.Keys("Enter")
	tm.WaitFor("Got it.")
	reqs := e.Srv.Requests()
	if got := e2etest.LastUserText(reqs[len(reqs)-1]); !strings.HasSuffix(got, ">"+strings.Join(lines, "\n")) {
		t.Errorf("the model got %q", got)
	}
}
