package chats

import (
	"strings"
	"testing"
	"time"
)

func TestFormatListGolden(t *testing.T) {
	s := projectFixture(t)
	infos, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	// A long summary exercises the 100-character title cut.
	infos[0].DisplayName = strings.Repeat("abcdefghij", 11)
	now := time.Date(2026, 8, 21, 9, 0, 0, 0, time.UTC)
	got := FormatList(infos, modernID, now)
	assertGolden(t, "list.golden.txt", []byte(got))
	if FormatList(nil, "", now) != "No previous sessions found for this project." {
		t.Error("empty listing text differs from Gemini CLI")
	}
}

func TestFormatRelativeTime(t *testing.T) {
	now := time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{0, "Just now"},
		{59 * time.Second, "Just now"},
		{-time.Hour, "Just now"},
		{time.Minute, "1 minute ago"},
		{59 * time.Minute, "59 minutes ago"},
		{time.Hour, "1 hour ago"},
		{23*time.Hour + 59*time.Minute, "23 hours ago"},
		{24 * time.Hour, "1 day ago"},
		{400 * 24 * time.Hour, "400 days ago"},
	}
	for _, tt := range tests {
		if got := FormatRelativeTime(now.Add(-tt.ago), now); got != tt.want {
			t.Errorf("%v ago = %q, want %q", tt.ago, got, tt.want)
		}
	}
}

func TestCleanMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  hello\n\nworld  ", "hello world"},
		{"tab\there", "tab here"},
		{"caf\u00e9 time", "caf time"},
		{"a \u00e9 b", "a  b"}, // removal after collapsing, as in Gemini CLI
		{"nbsp\u00a0\u00a0x", "nbsp x"},
		{"emoji 🎉!", "emoji !"},
		{"\ufeffbom", "bom"},
	}
	for _, tt := range tests {
		if got := cleanMessage(tt.in); got != tt.want {
			t.Errorf("cleanMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripUnsafeCharacters(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain summary", "plain summary"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"a\x00b\x07c", "abc"},
		{"keep\ttab\nand newline", "keep\ttab\nand newline"},
		{"rtl\u202eevil", "rtlevil"},
		{"ünïcode stays", "ünïcode stays"},
	}
	for _, tt := range tests {
		if got := stripUnsafeCharacters(tt.in); got != tt.want {
			t.Errorf("stripUnsafeCharacters(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncateTitle(t *testing.T) {
	tests := []struct {
		in   string
		want int // UTF-16 length of result
	}{
		{strings.Repeat("x", 100), 100},
		{strings.Repeat("x", 101), 100},
		{strings.Repeat("é", 120), 100},
	}
	for _, tt := range tests {
		got := truncateTitle(tt.in)
		if n := len([]rune(got)); n != tt.want {
			t.Errorf("truncateTitle(len %d) has %d runes, want %d", len(tt.in), n, tt.want)
		}
	}
}

func TestResumeDescription(t *testing.T) {
	in := Info{Index: 3, FirstUserMessage: "Fix the build", MessageCount: 12, LastUpdated: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	got := ResumeDescription(in, in.LastUpdated.Add(2*time.Hour+5*time.Minute))
	if got != "Session 3: Fix the build (12 messages, 2 hours ago)" {
		t.Errorf("ResumeDescription = %q", got)
	}
}
