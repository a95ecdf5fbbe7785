package cli_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// streamedParagraphs is an answer of n short paragraphs, sent a sentence
// at a time.
func streamedParagraphs(n int) []string {
	w := []string{"apple", "river", "stone", "cloud", "ember", "field", "glass", "harbor", "island", "jungle", "kettle", "lantern"}
	var pieces []string
	for i := range n {
		// Varied words: the same sentence again and again is a loop.
		pieces = append(pieces, fmt.Sprintf("Part %d: %s %s %s and %s. ", i, w[i%12], w[(i*5+1)%12], w[(i*7+2)%12], w[(i*3+3)%12]))
		if i%3 == 2 {
			pieces = append(pieces, "\n\n")
		}
	}
	return append(pieces, "THE END.")
}

// TestTUIResizeMidStream: narrowing the terminal while an answer streams
// leaves no rows behind. Glamour padded every line of a block to the
// width with styled spaces; the terminal reflowed each padded line into a
// row of text and a row of blanks, so paragraphs came apart and the live
// area took more rows than Bubble Tea counted.
func TestTUIResizeMidStream(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Text(streamedParagraphs(24)...).Slow(100 * time.Millisecond))
	tm := e.startTUI("Say something long")
	// The screen changes with every piece: wait for one, not for calm.
	deadline := time.Now().Add(screenWithin)
	for !strings.Contains(tm.screen(), "Part 4:") {
		if time.Now().After(deadline) {
			t.Fatalf("the answer never streamed:\n%s", tm.screen())
		}
		time.Sleep(pollEvery)
	}
	tm.tmux("resize-window", "-t", "main", "-x", "60")
	tm.waitFor("THE END.")
	// Blank rows matter here: read the screen as it is.
	s := tm.screen()
	answer := s[strings.Index(s, "> Say something long"):strings.LastIndex(s, "THE END.")]
	if strings.Contains(answer, "\n\n\n") {
		t.Errorf("rows left behind (two blank rows in a row):\n%s", s)
	}
	for _, once := range []string{"> Type your message", "THE END.", "Part 12:"} {
		if n := strings.Count(s, once); n != 1 {
			t.Errorf("%q is on the screen %d times:\n%s", once, n, s)
		}
	}
}
