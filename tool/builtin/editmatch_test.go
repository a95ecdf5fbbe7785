package builtin

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEditExactMatch(t *testing.T) {
	tests := []struct {
		name, content, old, repl string
		wantN                    int
		want                     string
	}{
		{"single", "a\nb\nc\n", "b", "B", 1, "a\nB\nc\n"},
		{"all occurrences", "x x x", "x", "y", 3, "y y y"},
		{"non-overlapping count", "aaaa", "aa", "b", 2, "bb"},
		{"no match", "abc", "z", "y", 0, "abc"},
		{"empty old never matches", "abc", "", "y", 0, "abc"},
		{"dollar sequences are literal", "v = 1\n", "1", "$1 $& $$ $'", 1, "v = $1 $& $$ $'\n"},
		{"trailing newline kept when the edit drops it", "a\nb\n", "b\n", "c", 1, "a\nc\n"},
		{"no trailing newline added", "a\nb", "b", "c\n", 1, "a\nc"},
		{"deleting everything keeps the newline", "x\n", "x\n", "", 1, "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := editExactMatch(tc.content, tc.old, tc.repl)
			if m.Occurrences != tc.wantN || m.Content != tc.want {
				t.Errorf("got (%d, %q), want (%d, %q)", m.Occurrences, m.Content, tc.wantN, tc.want)
			}
		})
	}
}

func TestEditFlexibleMatch(t *testing.T) {
	tests := []struct {
		name, content, old, repl string
		wantN                    int
		want                     string
	}{
		{
			name:    "wrong indentation is re-indented to the file's",
			content: "func f() {\n    if x {\n        y()\n    }\n}\n",
			old:     "if x {\n    y()\n}",
			repl:    "if x {\n    z()\n}",
			wantN:   1,
			want:    "func f() {\n    if x {\n        z()\n    }\n}\n",
		},
		{
			name:    "tabs in the file, spaces in the edit",
			content: "\tfoo()\n\tbar()\n",
			old:     "  foo()\n  bar()\n",
			repl:    "  foo()\n    baz()\n",
			wantN:   1,
			want:    "\tfoo()\n\t  baz()\n",
		},
		{
			name:    "trailing whitespace differences",
			content: "a  \nb\t\nc\n",
			old:     "a\nb",
			repl:    "A\nB",
			wantN:   1,
			want:    "A\nB\nc\n",
		},
		{
			name:    "every window is replaced",
			content: "  x\n  y\n  x\n",
			old:     "x",
			repl:    "z",
			wantN:   2,
			want:    "  z\n  y\n  z\n",
		},
		{
			name:    "empty replacement removes the lines",
			content: "a\n  b\nc\n",
			old:     "b",
			repl:    "",
			wantN:   1,
			want:    "a\nc\n",
		},
		{
			name:    "last line without newline",
			content: "a\n  b",
			old:     "b",
			repl:    "c\nd",
			wantN:   1,
			want:    "a\n  c\n  d",
		},
		{
			name:    "blank search lines do not match blank file lines",
			content: "a\n\n\nb\n",
			old:     "  \n",
			repl:    "x",
			wantN:   0,
			want:    "a\n\n\nb\n",
		},
		{
			name:    "partial line does not match",
			content: "foo bar\n",
			old:     "foo",
			repl:    "baz",
			wantN:   0,
			want:    "foo bar\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := editFlexibleMatch(tc.content, tc.old, tc.repl)
			if m.Occurrences != tc.wantN || m.Content != tc.want {
				t.Errorf("got (%d, %q), want (%d, %q)", m.Occurrences, m.Content, tc.wantN, tc.want)
			}
		})
	}
}

func TestEditDetectOmissions(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"// rest of methods ...", []string{"rest of methods ..."}},
		{"    (rest of code ...)", []string{"rest of code ..."}},
		{"// unchanged   code .....", []string{"unchanged code ..."}},
		{"// ... rest of code", []string{"rest of code ..."}},
		{"# ... unchanged methods", []string{"unchanged methods ..."}},
		{"a\n// rest of ...\nb\r\n(unchanged method ...)", []string{"rest of ...", "unchanged method ..."}},
		{"x := y // rest of code ...", nil},
		{"// rest of code ... see below", nil},
		{"fmt.Println(\"...\")", nil},
		{"// TODO: the rest of code", nil},
		{"", nil},
	}
	for _, tc := range tests {
		if got := editDetectOmissions(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("editDetectOmissions(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	if !editIntroducesOmission("a()", "a()\n// rest of code ...") {
		t.Error("new placeholder not reported")
	}
	if editIntroducesOmission("// rest of code ...\nb()", "// rest of code ...\nc()") {
		t.Error("placeholder already in old_string reported")
	}
}

func TestEditSnippet(t *testing.T) {
	var lines, changed []string
	for i := 1; i <= 20; i++ {
		l := fmt.Sprintf("l%d", i)
		lines = append(lines, l)
		if i == 10 {
			l = "X"
		}
		changed = append(changed, l)
	}
	lines20 := strings.Join(lines, "\n") + "\n"
	changed20 := strings.Join(changed, "\n") + "\n"
	tests := []struct {
		name, old, new string
		want           string
	}{
		{"new file is shown whole", "", "a\nb\n", "a\nb\n"},
		{"small file whole", "hello world\nsecond line\n", "goodbye world\nsecond line\n", "goodbye world\nsecond line\n"},
		{"unchanged", "a\n", "a\n", "a\n"},
		{"context window", lines20, changed20, "...\nl5\nl6\nl7\nl8\nl9\nX\nl11\nl12\nl13\nl14\nl15\n..."},
		{"two distant changes", lines20, strings.Replace(strings.Replace(lines20, "l2\n", "A\n", 1), "l19\n", "B\n", 1), "l1\nA\nl3\nl4\nl5\nl6\nl7\n...\nl14\nl15\nl16\nl17\nl18\nB\nl20\n"},
		{"deleted line", "a\nb\nc\n", "a\nc\n", "a\nc\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := editSnippet(tc.old, tc.new, 5); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// FuzzEditExactMatch checks the exact matcher against strings.Count and
// strings.ReplaceAll, modulo the trailing-newline rule (which, like Gemini
// CLI's, removes at most one newline the edit added).
func FuzzEditExactMatch(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B")
	f.Add("x$x", "$", "$1")
	f.Add("\n", "\n", "")
	f.Add("aaa", "aa", "a")
	f.Fuzz(func(t *testing.T, content, old, repl string) {
		m := editExactMatch(content, old, repl)
		if old == "" {
			if m.Occurrences != 0 || m.Content != content {
				t.Fatalf("empty old matched: %+v", m)
			}
			return
		}
		if want := strings.Count(content, old); m.Occurrences != want {
			t.Fatalf("occurrences %d, want %d", m.Occurrences, want)
		}
		if m.Occurrences == 0 {
			if m.Content != content {
				t.Fatalf("content changed without a match")
			}
			return
		}
		if want := editRestoreTrailingNewline(content, strings.ReplaceAll(content, old, repl)); m.Content != want {
			t.Fatalf("content %q, want %q", m.Content, want)
		}
		if strings.HasSuffix(content, "\n") && !strings.HasSuffix(m.Content, "\n") {
			t.Fatalf("trailing newline dropped: %q -> %q", content, m.Content)
		}
	})
}

// FuzzEditFlexibleMatch checks invariants of the whitespace-flexible
// matcher: it never panics, leaves the content alone when nothing matches,
// keeps a trailing newline, and keeps every line outside the matched windows.
func FuzzEditFlexibleMatch(f *testing.F) {
	f.Add("func f() {\n    x()\n}\n", "x()", "y()")
	f.Add("  a\n  b\n", "a\nb\n", "c")
	f.Add("\t\tx\n", " x ", "")
	f.Add("a\r\nb", "a", "b")
	f.Add("", "x", "y")
	f.Fuzz(func(t *testing.T, content, old, repl string) {
		m := editFlexibleMatch(content, old, repl)
		if m.Occurrences < 0 {
			t.Fatal("negative count")
		}
		if m.Occurrences == 0 {
			if m.Content != content {
				t.Fatalf("content changed without a match: %q -> %q", content, m.Content)
			}
			return
		}
		if m.Strategy != "flexible" {
			t.Fatalf("strategy %q", m.Strategy)
		}
		if strings.HasSuffix(content, "\n") && !strings.HasSuffix(m.Content, "\n") {
			t.Fatalf("trailing newline dropped: %q -> %q", content, m.Content)
		}
		if utf8.ValidString(content) && utf8.ValidString(old) && utf8.ValidString(repl) && !utf8.ValidString(m.Content) {
			t.Fatalf("invalid UTF-8 produced")
		}
		// A match needs at least one non-blank trimmed search line.
		if strings.TrimSpace(old) == "" {
			t.Fatalf("blank search matched")
		}
		// The matched windows cover whole lines: with an empty replacement
		// the result's lines are a subsequence of the original's.
		if repl == "" {
			src := editSplitKeepEOL(content)
			out := editSplitKeepEOL(m.Content)
			// The file's final newline survives even when its last line
			// was removed, as a line of its own.
			if n := len(out); n > 0 && out[n-1] == "\n" {
				out = out[:n-1]
			}
			j := 0
			for _, l := range out {
				for j < len(src) && strings.TrimSuffix(src[j], "\n") != strings.TrimSuffix(l, "\n") {
					j++
				}
				if j == len(src) {
					t.Fatalf("line %q not from the original %q", l, content)
				}
				j++
			}
		}
	})
}

// FuzzEditSnippet checks that the snippet never panics and only shows
// lines of the new content (or "..." markers).
func FuzzEditSnippet(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x")
	f.Add("x\n", "")
	f.Fuzz(func(t *testing.T, old, updated string) {
		got := editSnippet(old, updated, 5)
		if old == "" {
			if got != updated {
				t.Fatalf("new file snippet %q", got)
			}
			return
		}
		have := map[string]bool{"...": true}
		for _, l := range strings.Split(updated, "\n") {
			have[l] = true
		}
		for _, l := range strings.Split(got, "\n") {
			if !have[l] {
				t.Fatalf("snippet line %q not in the new content", l)
			}
		}
	})
}
