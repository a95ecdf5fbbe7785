package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// Gemini CLI 0.61's vim keys in the built terminal: an operator with a
// count and a motion, undo, a find, change word, case, yank and paste,
// and "." to repeat; then Ctrl+Z undoing typing outside vim mode.
func TestTUIVimKeys(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Submit("/vim")
	tm.WaitFor("Vim mode on")
	tm.TypeText("one two three four five")
	tm.WaitFor("> one two three four five")
	tm.Keys("Escape")
	tm.WaitUntil("NORMAL mode", func(s string) bool { return strings.Contains(footer(s), "[NORMAL]") })
	steps := []struct{ keys, want string }{
		{"0d2w", "> three four five"},
		{"u", "> one two three four five"},
		{"fhcwTHREE", "> one two tTHREE four five"},
	}
	for _, st := range steps {
		tm.TypeText(st.keys)
		tm.WaitFor(st.want)
	}
	tm.Keys("Escape")
	// Keys typed right after Esc would reach the terminal as Alt+key.
	tm.WaitUntil("NORMAL mode again", func(s string) bool { return strings.Contains(footer(s), "[NORMAL]") })
	for _, st := range []struct{ keys, want string }{
		{"0~", "> One two tTHREE four five"},
		{"wdw", "> One tTHREE four five"},
		{".", "> One four five"},
		{"$bywP", "> One four fivefive"},
	} {
		tm.TypeText(st.keys)
		tm.WaitFor(st.want)
	}
	tm.TypeText("cc") // the line emptied, in INSERT mode
	tm.WaitUntil("an empty input", func(s string) bool {
		return strings.Contains(s, "Type your message") && strings.Contains(footer(s), "[INSERT]")
	})
	tm.Submit("/vim")
	tm.WaitFor("Vim mode off")
	tm.TypeText("typed away")
	tm.WaitFor("> typed away")
	tm.Keys("C-z")
	tm.WaitFor("> Type your message")
}
