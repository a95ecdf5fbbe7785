package mdterm

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/internal/golden"
)

// TestRender renders each testdata/*.md at two widths and compares the
// text (colours stripped) with the .golden beside it.
func TestRender(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.md")
	if len(files) == 0 {
		t.Fatal("no testdata/*.md")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, w := range []int{80, 32} {
				out := New(w, DarkTheme).Render(string(src))
				b.WriteString("=== width " + strings.Repeat("-", 0) + itoa(w) + "\n" + ansi.Strip(out) + "\n")
				for _, l := range strings.Split(out, "\n") {
					if lw := ansi.StringWidth(l); lw > w {
						t.Errorf("width %d: a line of %d columns: %q", w, lw, ansi.Strip(l))
					}
				}
			}
			golden.Check(t, strings.TrimSuffix(filepath.Base(f), ".md")+".golden", b.String())
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestStyles checks the attributes a reader sees: the escape sequences
// around inline styles and highlighted code.
func TestStyles(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // substrings of the output
	}{
		{"bold", "a **strong** word", []string{"\x1b[1m", "strong"}},
		{"italic", "an *emphasised* word", []string{"\x1b[3m"}},
		{"strike", "a ~~gone~~ word", []string{"\x1b[9m"}},
		{"code span without padding", "run `go test` now", []string{"run \x1b[38;2;245;194;231mgo test\x1b[m now"}},
		{"link", "see [the docs](https://example.com/x)", []string{"the docs (", "https://example.com/x"}},
		{"go keyword", "```go\nfunc main() {}\n```", []string{"\x1b[38;2;203;166;247mfunc"}},
		{"python comment", "```python\nx = 1  # note\n```", []string{"\x1b[38;2;127;132;156m# note"}},
		{"string", "```js\nconst s = \"hi\";\n```", []string{"\x1b[38;2;166;227;161m\"hi\""}},
		{"heading", "## Title", []string{"\x1b[38;2;137;180;250;1mTitle"}},
		{"nested", "**bold ~~and struck~~**", []string{"\x1b[1;9mand"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := New(80, DarkTheme).Render(tt.src)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("%q lacks %q", out, w)
				}
			}
		})
	}
}

// FuzzRender: rendering never panics, never writes a line wider than the
// width, and loses no word of a plain paragraph.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"> > > > > > > > deep\n", "# a\n\n- b *c*\n", "| a | b |\n|---|---|\n| 1 | 2 |\n", "```go\n/* x\n*/ y\n```", "**a _b_ `c`** [d](e)", "> q\n> r"} {
		f.Add(s, 30)
	}
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = 20 + abs(width)%100
		out := New(width, LightTheme).Render(src)
		for _, l := range strings.Split(out, "\n") {
			if lw := ansi.StringWidth(l); lw > width {
				t.Fatalf("width %d: a line of %d columns in %q", width, lw, out)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestThemeColours pins the themes' literals to the hex colours they
// were written from, as lipgloss parses them.
func TestThemeColours(t *testing.T) {
	tests := []struct {
		name string
		got  Theme
		hex  [8]string // Text, Accent, Dim, Code, Keyword, String, Comment, Number
	}{
		{"dark", DarkTheme, [8]string{"#CDD6F4", "#89B4FA", "#7F849C", "#F5C2E7", "#CBA6F7", "#A6E3A1", "#7F849C", "#FAB387"}},
		{"light", LightTheme, [8]string{"#4C4F69", "#1E66F5", "#8C8FA1", "#EA76CB", "#8839EF", "#40A02B", "#8C8FA1", "#FE640B"}},
	}
	for _, tt := range tests {
		got := []color.Color{tt.got.Text, tt.got.Accent, tt.got.Dim, tt.got.Code, tt.got.Keyword, tt.got.String, tt.got.Comment, tt.got.Number}
		for i, h := range tt.hex {
			if want := lipgloss.Color(h); got[i] != want {
				t.Errorf("%s theme colour %d = %#v, want %#v (%s)", tt.name, i, got[i], want, h)
			}
		}
	}
}
