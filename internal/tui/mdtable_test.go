package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestSplitTables(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []mdSegment
	}{
		{"no table", "Just text.\n", []mdSegment{{src: "Just text.\n"}}},
		{"table between paragraphs", "Intro.\n\n| a | b |\n|---|:-:|\n| 1 | 22 |\n\nAfter.\n",
			[]mdSegment{{src: "Intro.\n\n"}, {src: "| a | b |\n|---|:-:|\n| 1 | 22 |\n", table: 1 + 3 + 2 + 3 + 4}, {src: "\nAfter.\n"}}},
		{"fenced table is code", "```\n| a | b |\n|---|---|\n```\n", []mdSegment{{src: "```\n| a | b |\n|---|---|\n```\n"}}},
		{"pipes without a delimiter row", "| not | a table |\n", []mdSegment{{src: "| not | a table |\n"}}},
		{"escaped pipe", "| a\\|b | c |\n|---|---|\n", []mdSegment{{src: "| a\\|b | c |\n|---|---|\n", table: 6 + 4 + 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitTables(tt.src)
			// The last segment of a source ending in a newline carries an
			// empty line more; compare the text, not the split's seams.
			var joined strings.Builder
			for _, s := range got {
				joined.WriteString(s.src)
			}
			if strings.TrimRight(joined.String(), "\n") != strings.TrimRight(tt.src, "\n") {
				t.Errorf("segments %+v lose text of %q", got, tt.src)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("segments %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if strings.TrimRight(got[i].src, "\n") != strings.TrimRight(tt.want[i].src, "\n") || got[i].table != tt.want[i].table {
					t.Errorf("segment %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestMarkdownAtWidth: on a wide terminal a table is as wide as its
// cells, not the screen, and inline code is coloured text without the
// spaces glamour pads it with.
func TestMarkdownAtWidth(t *testing.T) {
	for _, dark := range []bool{true, false} {
		m, _ := newTestModel(t)
		m.width = 200
		m.theme = newTheme(dark, false)
		m.applyTheme()
		out := ansi.Strip(m.md.render("Run `go test` now.\n\n| tool | use |\n| --- | --- |\n| go | build |\n"))
		if !strings.Contains(out, "Run go test now.") {
			t.Errorf("dark=%v: inline code padded:\n%s", dark, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if w := ansi.StringWidth(l); w > 40 {
				t.Errorf("dark=%v: a %d-column line in a table of short cells:\n%s", dark, w, out)
				break
			}
		}
		if !strings.Contains(out, "go    │ build") {
			t.Errorf("dark=%v: table:\n%s", dark, out)
		}
	}
}

// FuzzSplitTables: splitting never loses or invents text.
func FuzzSplitTables(f *testing.F) {
	f.Add("| a | b |\n|---|---|\n| 1 | 2 |\n")
	f.Add("```\n| a |\n|---|\n```\n| x\\| | y |\n|-|-|\n")
	f.Fuzz(func(t *testing.T, src string) {
		var b strings.Builder
		for _, s := range splitTables(src) {
			b.WriteString(s.src)
			if s.table < 0 {
				t.Fatalf("negative width %d", s.table)
			}
		}
		if strings.TrimRight(b.String(), "\n") != strings.TrimRight(src, "\n") {
			t.Errorf("splitTables(%q) lost text: %q", src, b.String())
		}
	})
}
