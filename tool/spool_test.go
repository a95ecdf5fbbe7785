package tool

import (
	"os"
	"strings"
	"testing"
)

// An output spooled chunk by chunk gives the model the same text as the
// whole output cut by LimitOutput, and the file holds it all.
func TestOutputSpoolMatchesLimitOutput(t *testing.T) {
	tests := []struct {
		name    string
		content string
		max     int
		chunk   int
	}{
		{"fits", "short output", 100, 3},
		{"ascii", strings.Repeat("0123456789", 1000), 100, 7},
		{"multibyte cut anywhere", strings.Repeat("aé€😀", 500), 50, 5},
		{"emoji", strings.Repeat("😀", 300), 41, 1},
		{"one big write", strings.Repeat("xyz\n", 5000), 1000, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := NewOutputSpool(dir, "mcp_tool", "1", tt.max)
			if err != nil {
				t.Fatal(err)
			}
			for c := tt.content; c != ""; {
				n := min(tt.chunk, len(c))
				if _, err := s.Write([]byte(c[:n])); err != nil {
					t.Fatal(err)
				}
				c = c[n:]
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got, want := s.Notice(), truncateOutput(tt.content, s.Path(), tt.max); got != want {
				t.Errorf("notice differs from LimitOutput's:\n got %q\nwant %q", got, want)
			}
			saved, err := os.ReadFile(s.Path())
			if err != nil || string(saved) != tt.content {
				t.Errorf("the file does not hold the whole output (%v)", err)
			}
		})
	}
}
