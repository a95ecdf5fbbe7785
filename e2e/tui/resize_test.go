package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
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
// width with styled spaces, which the terminal reflowed into rows of
// blanks between paragraphs; and frames drawn at the old width after the
// terminal had narrowed left the old live area on the screen, a second
// input box above the live one, until the screen is drawn again.
func TestTUIResizeMidStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		parts int
		delay time.Duration
	}{
		{"long answer, full screen", 24, 100 * time.Millisecond},
		{"short answer", 8, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			e.Srv.Enqueue(fakegemini.Text(streamedParagraphs(tt.parts)...).Slow(tt.delay))
			tm := e.StartTUI("Say something long")
			// The screen changes with every piece: wait for one, not for
			// calm.
			tm.WaitRaw("the answer streaming", func(s string) bool { return strings.Contains(s, "Part 2:") })
			tm.Tmux("resize-window", "-t", "main", "-x", "60")
			tm.WaitFor("THE END.")
			// Blank rows matter here: read the screen as it is.
			s := tm.Screen()
			answer := s[strings.LastIndex(s, "> Say something long"):strings.LastIndex(s, "THE END.")]
			if strings.Contains(answer, "\n\n\n") {
				t.Errorf("rows left behind (two blank rows in a row):\n%s", s)
			}
			// The live area once, in the scrollback too: the old one is
			// gone. (Lines printed before the answer may be there twice:
			// the terminal had pushed them into its scrollback before the
			// screen was drawn again.)
			for _, once := range []string{"> Type your message", "THE END."} {
				if n := strings.Count(s, once); n != 1 {
					t.Errorf("%q is on the screen %d times:\n%s", once, n, s)
				}
			}
			for i := range tt.parts {
				if p := fmt.Sprintf("Part %d:", i); !strings.Contains(answer, p) {
					t.Errorf("%s lost:\n%s", p, s)
				}
			}
		})
	}
}
