package agent

import (
	"strings"
	"testing"
)

func TestMarkdownStructure(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"| a | b |", true},
		{"end of row |\n| next | row |", true},
		{"## Heading", true},
		{"> quoted", true},
		{"- item", true},
		{"12. item", true},
		{"---", true},
		{"plain words repeating", false},
		{"3.14 is pi", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := markdownStructure(tt.s); got != tt.want {
			t.Errorf("markdownStructure(%q) = %v", tt.s, got)
		}
	}
}

func TestTableIsNotChanting(t *testing.T) {
	d := newLoopDetector(false)
	row := "| internal/example/package | ok | no changes needed here |\n"
	for range 80 {
		if _, loop := d.content(row); loop {
			t.Fatal("a table's repeated rows were taken for a loop")
		}
	}
	chant := strings.Repeat("I will try the very same thing once more now. ", 40)
	if _, loop := newLoopDetector(false).content(chant); !loop {
		t.Error("plain chanting not detected")
	}
}
