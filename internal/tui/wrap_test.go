package tui

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapLines(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"fits", "short line", 20, "short line"},
		{"between words", "Castor 0.1.0 · Enter sends, Ctrl-J adds a line · Ctrl-C twice quits", 39,
			"Castor 0.1.0 · Enter sends, Ctrl-J adds\na line · Ctrl-C twice quits"},
		{"hanging indent", "  /restore   Restore the project files to the state before a tool call.", 40,
			"  /restore   Restore the project files\n  to the state before a tool call."},
		{"ids stay whole", "  1. a session (Just now) [50b11369-0d6f-41ca-b1c0-6174c940ea63]", 40,
			"  1. a session (Just now)\n  [50b11369-0d6f-41ca-b1c0-6174c940ea63]"},
		{"long word is cut", strings.Repeat("a", 25), 10, "aaaaaaaaaa\naaaaaaaaaa\naaaaa"},
		{"wide runes", "中文字符和漢字中文字符和漢字", 10, "中文字符和\n漢字中文字\n符和漢字"},
		{"styled", "\x1b[31mred words that wrap here\x1b[m", 10, "\x1b[31mred words\nthat wrap\nhere\x1b[m"},
		{"several lines", "ok\n  one two three four", 10, "ok\n  one two\n  three\n  four"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrapLines(tt.in, tt.limit)
			if got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if w := ansi.StringWidth(l); w > tt.limit {
					t.Errorf("line %q is %d columns wide, over %d", l, w, tt.limit)
				}
			}
		})
	}
}

func FuzzWrapLines(f *testing.F) {
	f.Add("Castor 0.1.0 · Enter sends, Ctrl-J adds a line", 12)
	f.Add("  indented text-with-hyphens and 中文 \x1b[1mbold\x1b[m", 7)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		// What is printed has been through termtext: valid UTF-8, no
		// control characters but newlines and styles.
		if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) || strings.Contains(s, hyphenGuard) {
			return
		}
		limit = 10 + abs(limit)%100
		got := wrapLines(s, limit)
		if strings.Join(strings.Fields(got), "") != strings.Join(strings.Fields(s), "") {
			t.Errorf("text changed: %q → %q", s, got)
		}
		for _, l := range strings.Split(got, "\n") {
			if w := ansi.StringWidth(l); w > limit {
				t.Errorf("line %q is %d columns wide, over %d", l, w, limit)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestSplitRows(t *testing.T) {
	tests := []struct {
		name, text  string
		rows, width int
		want        []string
	}{
		{"fits", "a\nb", 5, 80, []string{"a\nb"}},
		{"cut", "a\nb\nc", 2, 80, []string{"a\nb", "c"}},
		{"long lines count their rows", strings.Repeat("x", 15) + "\ny", 2, 10, []string{strings.Repeat("x", 15), "y"}},
		// Bubble Tea prints nothing for "": a blank row alone is a space.
		{"blank row alone", "", 5, 80, []string{" "}},
		{"blank row cut off", "a\n\nb", 1, 80, []string{"a", " ", "b"}},
	}
	for _, tt := range tests {
		if got := splitRows(tt.text, tt.rows, tt.width); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// /help's descriptions wrap under their own column.
func TestHelpDescriptionsWrapInColumn(t *testing.T) {
	m, log := newTestModel(t)
	m.width = 60
	m.resize()
	m.cmdHelp(nil)
	got := ansi.Strip(strings.Join(*log, "\n"))
	want := "  Esc                              cancel the running\n" +
		"                                   request; remove a queued\n" +
		"                                   prompt; close a list\n"
	if !strings.Contains(got, want) {
		t.Errorf("help at 60 columns:\n%s", got)
	}
}
