package builtin

import (
	"testing"
)

func TestLocaleCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "B", -1},
		{"B", "c", -1},
		{"a", "A", -1},
		{"README.md", "go.mod", 1},
		{"_x", "a", -1},
		{"-x", "_x", 1},
		{"1", "a", -1},
		{"file10", "file2", -1},
		{"a.txt", "a.txt", 0},
		{"ab", "a", 1},
		{".env", "a", -1},
	}
	for _, tt := range tests {
		if got := localeCompare(tt.a, tt.b); got != tt.want {
			t.Errorf("localeCompare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := localeCompare(tt.b, tt.a); got != -tt.want {
			t.Errorf("localeCompare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}
