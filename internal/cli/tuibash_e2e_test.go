package cli_test

import (
	"strings"
	"testing"
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
