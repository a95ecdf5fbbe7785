package termtext

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

var cases = []struct {
	name, in, want string
}{
	{"empty", "", ""},
	{"plain", "hello, world", "hello, world"},
	{"newline and tab", "a\tb\nc\n", "a\tb\nc\n"},
	{"unicode", "héllo 世界 😀 \uFFFD", "héllo 世界 😀 \uFFFD"},
	{"bidi override", "access = \u202Euser\u2066admin\u2069\u202C", "access = useradmin"},
	{"tag characters", "ok\U000E0001\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065\U000E007F.", "ok."},
	{"zero-width and marks", "r\u200Bm\u200C \u200E-\u200Frf\u2060\u2064\uFEFF", "rm -rf"},
	{"zwj kept in prose", "👨\u200D👩\u200D👧", "👨\u200D👩\u200D👧"},
	{"neighbours kept", "\u200A\u2010\u2029\u202F\u2065\u206A\uFEFE\U000DFFFF\U000E0080", "\u200A\u2010\u2029\u202F\u2065\u206A\uFEFE\U000DFFFF\U000E0080"},
	{"crlf kept", "a\r\nb\r\n", "a\r\nb\r\n"},
	{"lone cr dropped", "rm -rf /\rls -la   ", "rm -rf /ls -la   "},
	{"cr at end dropped", "a\r", "a"},
	{"cr before removed sequence", "a\r\x1b[0m\nb", "a\nb"},
	{"double cr", "a\r\r\n", "a\r\n"},
	{"c0 controls", "a\x00b\x01c\x07d\x08e\x0bf\x0cg\x7fh", "abcdefgh"},
	{"sgr colours", "\x1b[1;31mred\x1b[0m", "red"},
	{"cursor moves", "x\x1b[2Ay\x1b[10;20Hz\x1b[?25l", "xyz"},
	{"csi with intermediate", "a\x1b[1 qb", "ab"},
	{"osc title bel", "\x1b]0;pwned\x07text", "text"},
	{"osc title st", "\x1b]2;pwned\x1b\\text", "text"},
	{"osc 52 clipboard", "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07ok", "ok"},
	{"osc 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
	{"dcs", "a\x1bP1$r0m\x1b\\b", "ab"},
	{"apc", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
	{"pm", "a\x1b^private\x1b\\b", "ab"},
	{"sos", "a\x1bXstring\x1b\\b", "ab"},
	{"two-byte sequences", "\x1b7a\x1b8b\x1bcc\x1b=d\x1b>", "abcd"},
	{"charset designation", "\x1b(Ba\x1b#8b", "ab"},
	{"lone esc at end", "abc\x1b", "abc"},
	{"esc before newline", "a\x1b\nb", "a\nb"},
	{"esc before non-ascii", "a\x1bé", "aé"},
	{"esc esc", "a\x1b\x1b[31mb", "ab"},
	{"c1 csi", "a\u009b31mb", "ab"},
	{"c1 osc st", "a\u009d0;title\u009cb", "ab"},
	{"c1 osc bel", "a\u009d0;title\x07b", "ab"},
	{"c1 dcs apc pm sos", "\u0090x\u009cA\u009fx\u009cB\u009ex\u009cC\u0098x\u009cD", "ABCD"},
	{"other c1 dropped", "a\u0085b\u0084c\u009cd", "abcd"},
	{"unterminated osc swallows rest", "ok\x1b]0;never ends", "ok"},
	{"osc ended by newline", "a\x1b]0;title\nb\x1bPq#0\nc\x1b]0;t\x1b\nd", "a\nb\nc\nd"},
	{"osc ended by new sequence", "\x1b]0;t\x1b[31mx", "x"},
	{"can aborts osc", "\x1b]0;t\x18x", "x"},
	{"malformed csi ends at control", "a\x1b[3\nb", "a\nb"},
	{"malformed csi ends at non-ascii", "a\x1b[3ég", "aég"},
	{"invalid utf-8", "a\xffb\xc0c", "a\uFFFDb\uFFFDc"},
	{"truncated rune", "a\xe2\x82", "a\uFFFD\uFFFD"},
	{"raw c1 byte", "a\x9b31mb", "a\uFFFD31mb"},
	{"invalid byte inside osc", "\x1b]0;\xff\x07x", "x"},
}

func TestString(t *testing.T) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := string(Bytes([]byte(tt.in))); got != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestWriterCleansEachWrite: an unfinished sequence in one message does
// not swallow the next.
func TestWriterCleansEachWrite(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, m := range []string{"Error: \x1b]0;title\n", "Warning: \x1b[31mred\x1b[0m\n", "plain\n"} {
		if n, err := w.Write([]byte(m)); n != len(m) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", m, n, err)
		}
	}
	if got, want := buf.String(), "Error: \nWarning: red\nplain\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPieces feeds every case split at every byte: the result must be the
// same as for the whole text.
func TestPieces(t *testing.T) {
	for _, tt := range cases {
		for k := 0; k <= len(tt.in); k++ {
			var z Stream
			got := z.Clean(tt.in[:k]) + z.Clean(tt.in[k:]) + z.Flush()
			if got != tt.want {
				t.Errorf("%s split at %d: %q, want %q", tt.name, k, got, tt.want)
			}
		}
	}
}

// TestFlushResets: an unfinished sequence at the end of one text must not
// swallow the next.
func TestFlushResets(t *testing.T) {
	var z Stream
	got := z.Clean("one\x1b]0;unterminated") + z.Flush() + z.Clean("two")
	if got != "onetwo" {
		t.Errorf("got %q", got)
	}
}

func TestCleanInputNotCopied(t *testing.T) {
	s := strings.Repeat("clean text, ünïcödé\r\n", 200)
	if n := testing.AllocsPerRun(100, func() { String(s) }); n != 0 {
		t.Errorf("String allocates %v times on clean input", n)
	}
	var z Stream
	if n := testing.AllocsPerRun(100, func() { z.Clean(s) }); n != 0 {
		t.Errorf("Stream.Clean allocates %v times on clean input", n)
	}
	b := []byte(s)
	if n := testing.AllocsPerRun(100, func() { Bytes(b) }); n != 0 {
		t.Errorf("Bytes allocates %v times on clean input", n)
	}
	w := NewWriter(io.Discard)
	if n := testing.AllocsPerRun(100, func() { w.Write(b) }); n != 0 {
		t.Errorf("Writer.Write allocates %v times on clean input", n)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriterError(t *testing.T) {
	w := NewWriter(failWriter{})
	for _, in := range []string{"clean", "dirty\x1b[0m"} {
		if n, err := w.Write([]byte(in)); err == nil || n != 0 {
			t.Errorf("Write(%q) = %d, %v; want the underlying error", in, n, err)
		}
	}
}

// safe reports whether s is what the sanitiser may output, by a definition
// independent of its parser.
func safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return false
			}
		case r < ' ' || r == del || r >= 0x80 && r <= 0x9f:
			return false
		case invisible(r, false):
			return false
		}
	}
	return true
}

// TestVisible: where a user decides, every invisible character shows.
func TestVisible(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"rm \u202Egnp.exe", "rm <U+202E>gnp.exe"},
		{"ls\U000E0020\U000E0072\U000E006D", "ls<U+E0020><U+E0072><U+E006D>"},
		{"a\u200Db\u200Bc\uFEFF\u2066d\u2069\u2064", "a<U+200D>b<U+200B>c<U+FEFF><U+2066>d<U+2069><U+2064>"},
		{"\x1b[31mx\u202Ey\x1b[0m", "x<U+202E>y"},
	} {
		if got := Visible(tt.in); got != tt.want {
			t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzVisible: Visible's output holds no control or invisible character,
// not even the joiner, and is Visible's own fixed point.
func FuzzVisible(f *testing.F) {
	for _, tt := range cases {
		f.Add(tt.in)
	}
	f.Add("\u202E\u200D\uFEFF")
	f.Fuzz(func(t *testing.T, in string) {
		out := Visible(in)
		if !safe(out) || strings.ContainsRune(out, 0x200d) {
			t.Fatalf("Visible(%q) = %q is not safe", in, out)
		}
		if again := Visible(out); again != out {
			t.Fatalf("not idempotent: Visible(%q) = %q, again %q", in, out, again)
		}
		if String(in) == in && !strings.ContainsRune(in, 0x200d) && out != in {
			t.Fatalf("clean input changed: %q -> %q", in, out)
		}
	})
}

// subsequence reports whether the characters of sub appear in s in order.
func subsequence(sub, s string) bool {
	for _, r := range sub {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+utf8.RuneLen(r):]
	}
	return true
}

func FuzzString(f *testing.F) {
	for _, tt := range cases {
		f.Add(tt.in, uint(len(tt.in)/2))
	}
	f.Fuzz(func(t *testing.T, in string, split uint) {
		out := String(in)
		if !safe(out) {
			t.Fatalf("String(%q) = %q is not safe", in, out)
		}
		if again := String(out); again != out {
			t.Fatalf("not idempotent: String(%q) = %q, again %q", in, out, again)
		}
		if safe(in) && out != in {
			t.Fatalf("clean input changed: %q -> %q", in, out)
		}
		if utf8.ValidString(in) && !subsequence(out, in) {
			t.Fatalf("output %q is not a subsequence of valid input %q", out, in)
		}
		if got := string(Bytes([]byte(in))); got != out {
			t.Fatalf("Bytes(%q) = %q, String gives %q", in, got, out)
		}
		k := int(split % uint(len(in)+1))
		var z Stream
		if got := z.Clean(in[:k]) + z.Clean(in[k:]) + z.Flush(); got != out {
			t.Fatalf("split at %d: %q, whole: %q (input %q)", k, got, out, in)
		}
	})
}

var sink string

func benchInput(dirty bool) string {
	line := "The function returns the sanitised text; see README.md for the details.\n"
	if dirty {
		line = "\x1b[1;32mThe function\x1b[0m returns \x1b]8;;https://x.example\x1b\\text\x1b]8;;\x1b\\ \x1b[2K see README.md.\r\n"
	}
	return strings.Repeat(line, 4096/len(line)+1)[:4096]
}

func BenchmarkStringClean4K(b *testing.B) {
	s := benchInput(false)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		sink = String(s)
	}
}

func BenchmarkStringDirty4K(b *testing.B) {
	s := benchInput(true)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		sink = String(s)
	}
}

func BenchmarkStreamDirty4K(b *testing.B) {
	s := benchInput(true)
	var z Stream
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		sink = z.Clean(s[:2048]) + z.Clean(s[2048:])
	}
}

func TestPrintable8(t *testing.T) {
	for _, bg := range []byte{' ', 'a', '~'} {
		for pos := 0; pos < 8; pos++ {
			for b := 0; b < 256; b++ {
				w := bytes.Repeat([]byte{bg}, 8)
				w[pos] = byte(b)
				want := b >= 0x20 && b <= 0x7e
				if got := printable8(load8(w)); got != want {
					t.Errorf("printable8(%q) = %v", w, got)
				}
			}
		}
	}
}

func FuzzPrintable8(f *testing.F) {
	f.Add([]byte("abcdefgh"))
	f.Add([]byte("abc\x1bdefg"))
	f.Fuzz(func(t *testing.T, w []byte) {
		if len(w) < 8 {
			return
		}
		want := true
		for _, b := range w[:8] {
			want = want && b >= 0x20 && b <= 0x7e
		}
		if got := printable8(load8(w)); got != want {
			t.Fatalf("printable8(%q) = %v", w[:8], got)
		}
	})
}
