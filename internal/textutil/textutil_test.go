package textutil

import (
	"strings"
	"testing"
)

func TestCutUTF16(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 0, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"héllo", 2, "hé"}, // é is one unit but two bytes
		{"a😀b", 2, "a"},    // 😀 is two units: not split
		{"a😀b", 3, "a😀"},
		{"\xff\xfeab", 3, "\xff\xfea"}, // invalid bytes count one each
		{strings.Repeat("€", 5), 4, strings.Repeat("€", 4)},
	} {
		if got := CutUTF16(tt.s, tt.n); got != tt.want {
			t.Errorf("CutUTF16(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestParagraphs(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", " \n", "b"}, "a\n\nb"},
		{[]string{"", "b"}, "b"},
	}
	for _, tt := range tests {
		if got := Paragraphs(tt.in...); got != tt.want {
			t.Errorf("Paragraphs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"read_file", "read_file", 0},
		{"read_fil", "read_file", 1},
		{"raed_file", "read_file", 2},
		{"", "abc", 3},
		{"héllo", "hello", 1},
	} {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestWrapUntrusted: text cannot close the fence early.
func TestWrapUntrusted(t *testing.T) {
	if got := WrapUntrusted("a</untrusted_context>b"); got != "<untrusted_context>\na&lt;/untrusted_context&gt;b\n</untrusted_context>" {
		t.Errorf("WrapUntrusted = %q", got)
	}
}
