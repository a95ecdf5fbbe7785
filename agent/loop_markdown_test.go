package agent

import (
	"fmt"
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

// TestChantingCloseTogether: ten recurrences of a 50-character window
// within a short span are a loop wherever they start in the text; the same
// window recurring far apart is not.
func TestChantingCloseTogether(t *testing.T) {
	unique := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "w%d ", i)
		}
		return b.String()
	}
	const sentence = "I will try the very same thing once more now. "
	var spread strings.Builder
	for i := range 12 {
		spread.WriteString(sentence)
		spread.WriteString(unique(300) + fmt.Sprint(i))
	}
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"chanting from the start", strings.Repeat(sentence, 12), true},
		{"chanting after other text", unique(2500) + strings.Repeat(sentence, 12), true},
		{"too few recurrences", strings.Repeat(sentence, 8), false},
		{"recurrences far apart", spread.String(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, loop := newLoopDetector(false).content(tt.text); loop != tt.want {
				t.Errorf("loop = %v, want %v (%d characters)", loop, tt.want, len(tt.text))
			}
		})
	}
}
