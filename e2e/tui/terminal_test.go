package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// What a user met living in the interactive terminal, each checked with
// the built binary in tmux.

// Castor opens below what the shell printed before it, which stays on the
// screen: the banner once went to the top of the screen and the first
// frame erased the rows below it.
func TestTUIKeepsShellOutputAbove(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUIAfter("printf 'earlier %s\\n' one two three four five; ")
	s := tm.WaitFor("context left")
	want := "earlier one\nearlier two\nearlier three\nearlier four\nearlier five\nCastor "
	if !strings.HasPrefix(s, want) {
		t.Errorf("the shell's output above castor was lost:\n%s", s)
	}
}

// /clear empties the screen, as Gemini CLI's does: the conversation used
// to stay above the live area, only the live area being redrawn.
func TestTUIClearEmptiesScreen(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("An answer to clear away."))
	tm := e.StartTUI()
	tm.Submit("Say something")
	tm.WaitFor("An answer to clear away.")
	tm.Submit("/clear")
	s := tm.WaitUntil("an empty screen", func(s string) bool { return !strings.Contains(s, "An answer") })
	if strings.Contains(s, "/clear") || !strings.HasPrefix(s, "────") {
		t.Errorf("after /clear:\n%s", s)
	}
	// The conversation starts afresh.
	e.Srv.Enqueue(fakegemini.Text("Fresh."))
	tm.Submit("Again")
	tm.WaitFor("Fresh.")
	if got := requestText(e.Srv.LastRequest()); strings.Contains(got, "Say something") {
		t.Errorf("the cleared conversation reached the model: %s", got)
	}
}

// On exit the live area goes: the editor left on screen looked as if
// castor still took input, and the exit words overwrote its footer.
func TestTUIExitClearsLiveArea(t *testing.T) {
	t.Parallel()
	for _, quit := range [][]string{{"C-d"}, {"C-c", "C-c"}, {"/quit", "Enter"}} {
		t.Run(quit[0], func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("Noted."))
			tm := e.StartTUI()
			tm.Submit("Remember this")
			tm.WaitFor("Noted.")
			if strings.HasPrefix(quit[0], "/") {
				tm.TypeText(quit[0])
				quit = quit[1:]
			}
			tm.Keys(quit...)
			s := tm.WaitFor("[exited]")
			if strings.Contains(s, "Type your message") || strings.Contains(s, "context left") {
				t.Errorf("the live area stayed after exit:\n%s", s)
			}
			if !strings.Contains(s, "\nSession <session-id> saved.\nTo resume it: castor --resume <session-id>\n[exited]") {
				t.Errorf("exit words:\n%s", s)
			}
		})
	}
}
