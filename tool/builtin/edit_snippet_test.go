package builtin

import (
	"strings"
	"testing"
)

func TestDiffContextSnippet(t *testing.T) {
	many := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s + "\n")
				continue
			}
			b.WriteString("line" + string(rune('A'+i%26)) + "\n")
		}
		return b.String()
	}
	orig := many(30, nil)
	tests := []struct {
		name      string
		old, new  string
		want      string
		wantLines int
	}{
		{"new file", "", "a\nb\n", "a\nb\n", 0},
		{"unchanged", "a\n", "a\n", "a\n", 0},
		{"whole replacement", "hello world\nsecond line\n", "overwritten\n", "overwritten\n", 0},
		{"change in the middle", orig, many(30, map[int]string{15: "CHANGED"}), "...\n" + strings.Join(strings.Split(many(30, map[int]string{15: "CHANGED"}), "\n")[9:20], "\n") + "\n...", 0},
		{"two distant changes", orig, many(30, map[int]string{3: "X", 28: "Y"}), "", 0},
		{"crlf normalized", "a\r\nb\r\n", "a\r\nc\r\n", "a\nc\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diffContextSnippet(tt.old, tt.new, 5)
			if tt.want != "" && got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if tt.name == "two distant changes" {
				parts := strings.Split(got, "\n...\n")
				if len(parts) != 2 || !strings.Contains(parts[0], "X") || !strings.Contains(parts[1], "Y") {
					t.Errorf("want two hunks around X and Y, got\n%s", got)
				}
			}
		})
	}
}
