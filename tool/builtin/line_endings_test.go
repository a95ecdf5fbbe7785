package builtin

import (
	"testing"
)

func TestLineEndings(t *testing.T) {
	tests := []struct {
		in, eol, applied string
	}{
		{"a\nb\n", "\n", "a\r\nb\r\n"},
		{"a\r\nb\r\n", "\r\n", "a\r\nb\r\n"},
		{"a\r\nb\nc", "\r\n", "a\r\nb\r\nc"},
		{"", "\n", ""},
		{"no newline", "\n", "no newline"},
	}
	for _, tt := range tests {
		if got := detectLineEnding(tt.in); got != tt.eol {
			t.Errorf("detectLineEnding(%q) = %q, want %q", tt.in, got, tt.eol)
		}
		if got := applyLineEnding(tt.in, "\r\n"); got != tt.applied {
			t.Errorf("applyLineEnding(%q, CRLF) = %q, want %q", tt.in, got, tt.applied)
		}
		if got := applyLineEnding(tt.in, "\n"); got != tt.in {
			t.Errorf("applyLineEnding(%q, LF) = %q, want it unchanged", tt.in, got)
		}
	}
}
