package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestMarkdownAtWidth: answers render at the screen's width, tables at
// their cells', inline code as coloured text without padding, headings
// without their #.
func TestMarkdownAtWidth(t *testing.T) {
	for _, dark := range []bool{true, false} {
		m, _ := newTestModel(t)
		m.width = 200
		m.theme = newTheme(dark, false)
		m.applyTheme()
		out := ansi.Strip(m.md.render("# Tools\n\nRun `go test` now.\n\n| tool | use |\n| --- | --- |\n| go | build |\n"))
		for _, want := range []string{"  Tools\n", "  Run go test now.", "  go   │ build"} {
			if !strings.Contains(out, want) {
				t.Errorf("dark=%v: no %q in:\n%s", dark, want, out)
			}
		}
		for _, l := range strings.Split(out, "\n") {
			if w := ansi.StringWidth(l); w > 40 {
				t.Errorf("dark=%v: a %d-column line in a table of short cells:\n%s", dark, w, out)
				break
			}
		}
	}
}

// TestMarkdownPlain: in screen-reader mode the Markdown is shown as
// written.
func TestMarkdownPlain(t *testing.T) {
	var md markdown
	md.set(80, "notty", true)
	if got := md.render("\n# Title\n\n*x*\n\n"); got != "# Title\n\n*x*" {
		t.Errorf("plain render = %q", got)
	}
}
