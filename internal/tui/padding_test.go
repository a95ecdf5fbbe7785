package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestTrimPadding(t *testing.T) {
	pad := strings.Repeat("\x1b[38;5;252m \x1b[m", 5)
	tests := []struct{ name, in, want string }{
		{"plain", "text   ", "text"},
		{"no padding", "\x1b[1mtext\x1b[m", "\x1b[1mtext\x1b[m"},
		{"glamour padding", "  \x1b[38;5;252mPart 1\x1b[m" + pad, "  \x1b[38;5;252mPart 1\x1b[m" + strings.Repeat("\x1b[38;5;252m\x1b[m", 5)},
		{"blank padded line", "  " + pad, strings.Repeat("\x1b[38;5;252m\x1b[m", 5)},
		{"spaces on a background stay", "a\x1b[48;5;236m  \x1b[m", "a\x1b[48;5;236m  \x1b[m"},
		{"background ended", "a\x1b[48;5;236mb\x1b[49m  ", "a\x1b[48;5;236mb\x1b[49m"},
		{"foreground 48 is not a background", "a\x1b[38;5;48m  \x1b[m", "a\x1b[38;5;48m\x1b[m"},
		{"basic background", "a\x1b[44m  ", "a\x1b[44m  "},
		{"wide text", "日本  ", "日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trimPadding(tt.in)
			if got != tt.want {
				t.Errorf("trimPadding(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if ansi.Strip(got) != strings.TrimRight(ansi.Strip(got), " ") && !strings.Contains(tt.name, "background") {
				t.Errorf("trailing spaces left: %q", got)
			}
		})
	}
}

// FuzzTrimPadding: whatever the line, trimming keeps its visible text
// but the trailing spaces, and every escape sequence.
func FuzzTrimPadding(f *testing.F) {
	f.Add("  \x1b[38;5;252mPart\x1b[m\x1b[38;5;252m \x1b[m")
	f.Add("a\x1b[48;5;1m  \x1b[0m  ")
	f.Add("\x1b]8;;http://x\x07link\x1b]8;;\x07   ")
	f.Fuzz(func(t *testing.T, s string) {
		got := trimPadding(s)
		if len(got) > len(s) {
			t.Fatalf("trimPadding(%q) = %q grew", s, got)
		}
		if again := trimPadding(got); again != got {
			t.Errorf("trimPadding is not idempotent on %q: %q, then %q", s, got, again)
		}
		if !utf8.ValidString(s) {
			return // no text to keep: the property below needs graphemes
		}
		if !strings.HasPrefix(ansi.Strip(s), strings.TrimRight(ansi.Strip(got), " ")) {
			t.Errorf("trimPadding(%q) = %q changed the text", s, got)
		}
	})
}
