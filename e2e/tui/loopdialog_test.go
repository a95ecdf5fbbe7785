package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// When loop detection stops a prompt the terminal asks, as Gemini CLI
// 0.61's LoopDetectionConfirmation does, whether to keep it on; turning it
// off says so in one line and sends the stopped request again, and the
// same chanting then runs to its end, in that request and in the next
// prompt.
func TestTUILoopDialogDisable(t *testing.T) {
	t.Parallel()
	chant := strings.Repeat("I will now try again to fix the failing test suite. ", 12)
	e := e2etest.New(t,
		// Told of its chanting once, the model chants again: stopped.
		fakegemini.Text(chant), fakegemini.Text(chant),
		// The request sent again, then the next prompt, detection off.
		fakegemini.Text(chant, "Retried to the end."),
		fakegemini.Text(chant, "Second prompt to the end."),
	)
	tm := e.StartTUI()
	tm.Submit("fix the tests")
	s := tm.WaitFor("A potential loop was detected")
	tm.Golden("loop_dialog", s)
	if len(e.Srv.Requests()) != 2 {
		t.Fatalf("%d requests before the dialog, want 2", len(e.Srv.Requests()))
	}

	tm.Keys("Down", "Enter")
	s, ok := tm.Poll(func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(squeeze(s), "Retriedtotheend.")
	})
	if !ok {
		t.Fatalf("the request sent again never answered whole (%d requests):\n%s", len(e.Srv.Requests()), s)
	}
	if !strings.Contains(s, "Loop detection has been disabled for this session. Retrying request...") {
		t.Errorf("no line saying detection is off:\n%s", s)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 3 || !strings.Contains(e2etest.LastUserText(reqs[2]), "fix the tests") {
		t.Fatalf("%d requests; the third's last user text %q", len(reqs), e2etest.LastUserText(reqs[len(reqs)-1]))
	}

	tm.Submit("and again")
	s = tm.WaitUntil("the next prompt answered whole", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(squeeze(s), "Secondprompttotheend.")
	})
	if n := strings.Count(s, "A potential loop was detected"); n != 0 {
		t.Errorf("the dialog is still on screen or came back (%d):\n%s", n, s)
	}
	tm.Golden("loop_disabled", s)
}

// Esc keeps loop detection on: the request stays halted, one line says
// so, and the input takes the next prompt.
func TestTUILoopDialogKeep(t *testing.T) {
	t.Parallel()
	chant := strings.Repeat("I will now try again to fix the failing test suite. ", 12)
	e := e2etest.New(t, fakegemini.Text(chant), fakegemini.Text(chant), fakegemini.Text("Fine."))
	tm := e.StartTUI()
	tm.Submit("fix the tests")
	tm.WaitFor("Keep loop detection enabled (esc)")
	tm.Keys("Escape")
	tm.WaitFor("The request has been halted.")
	tm.Submit("something else")
	s := tm.WaitUntil("the next answer", func(s string) bool { return e2etest.Idle(s) && strings.Contains(s, "Fine.") })
	if n := len(e.Srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (nothing sent again):\n%s", n, s)
	}
}
