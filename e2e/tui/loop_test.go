package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// An answer of fourteen templated paragraphs is shown whole in the
// terminal: loop detection once stopped it at the tenth with "loop
// detected", where Gemini CLI 0.61 prints it all.
func TestTUITemplatedAnswerWhole(t *testing.T) {
	t.Parallel()
	answer := e2etest.TemplatedAnswer()
	e := e2etest.New(t, fakegemini.Text(e2etest.Pieces(answer, 61)...))
	tm := e.StartTUI()
	tm.Submit("How do I test each package?")
	s := tm.WaitUntil("the answer's end and an idle screen", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(s, "usually explains them.\n") &&
			strings.Contains(squeeze(s), squeeze("For the internal/proc package"))
	})
	if strings.Contains(strings.ToLower(s), "loop") {
		t.Errorf("loop detection spoke:\n%s", s)
	}
	// The terminal wraps the paragraphs; every word of each is on screen
	// in order.
	for p := range strings.SplitSeq(answer, "\n\n") {
		if !strings.Contains(squeeze(s), squeeze(p)) {
			t.Errorf("paragraph missing: %q\n%s", p, s)
		}
	}
}

// squeeze drops all white space, so a paragraph wrapped on screen
// compares equal to its text.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}
