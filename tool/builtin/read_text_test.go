package builtin

import (
	"strings"
	"testing"
)

func TestDecodeText(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"plain", []byte("héllo"), "héllo"},
		{"utf8 bom", []byte("\xef\xbb\xbfhi"), "hi"},
		{"utf16le", []byte("\xff\xfeh\x00i\x00"), "hi"},
		{"utf16be", []byte("\xfe\xff\x00h\x00i"), "hi"},
		{"utf32le", []byte("\xff\xfe\x00\x00h\x00\x00\x00"), "h"},
		{"utf32be", []byte("\x00\x00\xfe\xff\x00\x00\x00h"), "h"},
	}
	for _, tt := range tests {
		if got := decodeText(tt.in); got != tt.want {
			t.Errorf("%s: decodeText = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSelectLines(t *testing.T) {
	long := strings.Repeat("x", maxLineLength+5)
	tests := []struct {
		name        string
		content     string
		start, end  int
		want        string
		first, last int
		total       int
		truncated   bool
	}{
		{"whole small file", "a\nb\n", 0, 0, "a\nb\n", 1, 3, 3, false},
		{"range", "1\n2\n3\n4", 2, 3, "2\n3", 2, 3, 4, true},
		{"start only reads to the end", "1\n2\n3", 2, 0, "2\n3", 2, 3, 3, true},
		{"end past the end", "1\n2", 1, 10, "1\n2", 1, 2, 2, false},
		{"end only reads from the start", "1\n2\n3\n4", 0, 2, "1\n2", 1, 2, 4, true},
		{"first line alone", "1\n2\n3", 1, 1, "1", 1, 1, 3, true},
		{"start past the end", "1\n2", 5, 6, "", 3, 2, 2, true},
		{"long line", long, 0, 0, strings.Repeat("x", maxLineLength) + "... [truncated]", 1, 1, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := selectLines(tt.content, tt.start, tt.end)
			if w.Content != tt.want || w.FirstLine != tt.first || w.LastLine != tt.last || w.TotalLines != tt.total || w.Truncated() != tt.truncated {
				t.Errorf("got %q %d-%d/%d truncated=%v", w.Content, w.FirstLine, w.LastLine, w.TotalLines, w.Truncated())
			}
		})
	}
	t.Run("default window", func(t *testing.T) {
		content := strings.Repeat("l\n", 2500)
		w := selectLines(content, 0, 0)
		if w.FirstLine != 1 || w.LastLine != defaultMaxLines || w.TotalLines != 2501 {
			t.Errorf("window %d-%d of %d", w.FirstLine, w.LastLine, w.TotalLines)
		}
	})
	t.Run("astral characters count twice", func(t *testing.T) {
		line := strings.Repeat("😀", maxLineLength/2) + "x"
		w := selectLines(line, 0, 0)
		if !w.LinesShortened || !strings.HasSuffix(w.Content, "😀... [truncated]") {
			t.Errorf("line not cut at %d UTF-16 units: %q", maxLineLength, w.Content[len(w.Content)-30:])
		}
	})
}

// TestDetectBOM: each mark is recognised when the file holds nothing
// else, and a shorter prefix of one is not taken for it.
func TestDetectBOM(t *testing.T) {
	tests := []struct {
		in   string
		enc  textEncoding
		size int
	}{
		{"", encUTF8, 0},
		{"\xff\xfe\x00\x00", encUTF32LE, 4},
		{"\x00\x00\xfe\xff", encUTF32BE, 4},
		{"\xef\xbb\xbf", encUTF8, 3},
		{"\xff\xfe", encUTF16LE, 2},
		{"\xfe\xff", encUTF16BE, 2},
		{"\xff\xfe\x00", encUTF16LE, 2},
		{"\x00\x00\xfe", encUTF8, 0},
		{"\xef\xbb", encUTF8, 0},
		{"\xff", encUTF8, 0},
		{"\xfe", encUTF8, 0},
	}
	for _, tt := range tests {
		if enc, size := detectBOM([]byte(tt.in)); enc != tt.enc || size != tt.size {
			t.Errorf("detectBOM(%q) = %d, %d; want %d, %d", tt.in, enc, size, tt.enc, tt.size)
		}
	}
}
