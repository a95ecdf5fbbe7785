package cli_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// What a user met living in the interactive terminal, each checked with
// the built binary in tmux.

// Castor opens below what the shell printed before it, which stays on the
// screen: the banner once went to the top of the screen and the first
// frame erased the rows below it.
func TestTUIKeepsShellOutputAbove(t *testing.T) {
	e := newEnv(t)
	tm := e.startTUIAfter("printf 'earlier %s\\n' one two three four five; ")
	s := tm.waitFor("context left")
	want := "earlier one\nearlier two\nearlier three\nearlier four\nearlier five\nCastor "
	if !strings.HasPrefix(s, want) {
		t.Errorf("the shell's output above castor was lost:\n%s", s)
	}
}

// /clear empties the screen, as Gemini CLI's does: the conversation used
// to stay above the live area, only the live area being redrawn.
func TestTUIClearEmptiesScreen(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Text("An answer to clear away."))
	tm := e.startTUI()
	tm.submit("Say something")
	tm.waitFor("An answer to clear away.")
	tm.submit("/clear")
	s := tm.waitUntil("an empty screen", func(s string) bool { return !strings.Contains(s, "An answer") })
	if strings.Contains(s, "/clear") || !strings.HasPrefix(s, "────") {
		t.Errorf("after /clear:\n%s", s)
	}
	// The conversation starts afresh.
	e.srv.Enqueue(fakegemini.Text("Fresh."))
	tm.submit("Again")
	tm.waitFor("Fresh.")
	if got := requestText(e.srv.LastRequest()); strings.Contains(got, "Say something") {
		t.Errorf("the cleared conversation reached the model: %s", got)
	}
}
