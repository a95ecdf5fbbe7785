package tui

import (
	"strings"
	"testing"
)

// TestVimNormalKeys runs Gemini CLI 0.61's NORMAL mode keys on a text
// whose cursor is the "|" (before the character it rests on).
func TestVimNormalKeys(t *testing.T) {
	tests := []struct {
		start, keys, want string
		insert            bool
	}{
		// Motions.
		{"|hello world", "w", "hello |world", false},
		{"|hello world", "e", "hell|o world", false},
		{"hello |world", "b", "|hello world", false},
		{"|foo.bar baz", "w", "foo|.bar baz", false},
		{"|foo.bar baz", "W", "foo.bar |baz", false},
		{"|foo.bar baz", "E", "foo.ba|r baz", false},
		{"foo.bar |baz", "B", "|foo.bar baz", false},
		{"|one two three four", "3w", "one two three |four", false},
		{"  |x  y", "0", "|  x  y", false},
		{"  x  |y", "^", "  |x  y", false},
		{"|abc", "$", "ab|c", false},
		{"|a\nb\nc", "G", "a\nb\n|c", false},
		{"a\nb\n|c", "gg", "|a\nb\nc", false},
		{"|a\nb\nc", "2G", "a\n|b\nc", false},
		{"|abcd\nef", "3lj", "abcd\ne|f", false},
		{"|a,b,c,d", "f,", "a|,b,c,d", false},
		{"|a,b,c,d", "2f,", "a,b|,c,d", false},
		{"|a,b,c,d", "t,", "|a,b,c,d", false},
		{"|a,b,c,d", "f,;;", "a,b,c|,d", false},
		{"a,b,c,|d", "F,", "a,b,c|,d", false},
		{"a,b,c,|d", "F,,", "a,b,c|,d", false},
		{"|line one\nline two", "w w", "line one\n|line two", false},
		// Deleting.
		{"|hello", "x", "|ello", false},
		{"|hello", "3x", "|lo", false},
		{"hel|lo", "X", "he|lo", false},
		{"|hello world", "dw", "|world", false},
		{"hello |world", "db", "|world", false},
		{"|hello world", "de", "| world", false},
		{"|a.b c", "dW", "|c", false},
		{"|one two three", "2dw", "|three", false},
		{"|one two three", "d2w", "|three", false},
		{"one |two", "D", "one| ", false},
		{"one |two", "d$", "one| ", false},
		{"one |two", "d0", "|two", false},
		{"  one |two", "d^", "  |two", false},
		{"|a,b,c", "df,", "|b,c", false},
		{"|a,b,c", "dt,", "|,b,c", false},
		{"a\n|b\nc", "dd", "a\n|c", false},
		{"a\nb\n|c", "dd", "a\n|b", false},
		{"|a\nb\nc", "2dd", "|c", false},
		{"a\n|b\nc", "dj", "|a", false},
		{"a\nb\n|c", "dgg", "|", false},
		{"a\n|b\nc", "dG", "|a", false},
		// Changing.
		{"|hello world", "cw", "| world", true},
		{"|hello world", "ce", "| world", true},
		{"hello |world", "cb", "|world", true},
		{"one |two", "C", "one |", true},
		{"a\n|bc\nd", "cc", "a\n|\nd", true},
		{"|abc", "cl", "|bc", true},
		// Case, replace.
		{"|abc", "~", "A|bc", false},
		{"|abc", "3~", "AB|C", false},
		{"|abc", "rx", "|xbc", false},
		{"|abc", "2rx", "x|xc", false},
		// Yank and paste.
		{"|one two", "ywP", "one| one two", false},
		{"|one two", "yw$p", "one twoone| ", false},
		{"|a\nb", "yyp", "a\n|a\nb", false},
		{"|a\nb", "Yjp", "a\nb\n|a", false},
		{"|a\nb", "yyjP", "a\n|a\nb", false},
		{"|hello", "xp", "e|hllo", false},
		{"|ab\ncd", "ddp", "cd\n|ab", false},
		// Inserting.
		{"ab|c", "i", "ab|c", true},
		{"ab|c", "a", "abc|", true},
		{"  a|bc", "I", "  |abc", true},
		{"|abc", "A", "abc|", true},
		{"|a\nb", "o", "a\n|\nb", true},
		{"a\n|b", "O", "a\n|\nb", true},
		// Repeat.
		{"|one two three four", "dw.", "|three four", false},
		{"|abcdef", "x..", "|def", false},
		{"|one two three four five", "dw2.", "|four five", false},
	}
	for _, tt := range tests {
		t.Run(tt.start+"/"+tt.keys, func(t *testing.T) {
			pos := strings.Index(tt.start, "|")
			b := vimBuf{r: []rune(strings.Replace(tt.start, "|", "", 1))}
			b.pos = len([]rune(tt.start[:pos]))
			var s vimState
			insert := false
			for _, k := range strings.Split(strings.ReplaceAll(tt.keys, " ", ""), "") {
				r := s.key(&b, k)
				insert = insert || r.insert
			}
			got := string(b.r[:b.pos]) + "|" + string(b.r[b.pos:])
			if got != tt.want || insert != tt.insert {
				t.Errorf("%q + %s = %q (insert %v), want %q (insert %v)", tt.start, tt.keys, got, insert, tt.want, tt.insert)
			}
		})
	}
}
