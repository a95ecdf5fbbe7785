package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLimitOutput(t *testing.T) {
	dir := t.TempDir()
	if got := LimitOutput("short", dir, "t", "1", 10); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
	long := strings.Repeat("a", 20) + strings.Repeat("b", 80) + strings.Repeat("c", 100)
	got := LimitOutput(long, dir, "mcp_tool", "42", 100)
	want := "Output too large. Showing first 20 and last 80 characters. For full output see: "
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "\n"+strings.Repeat("a", 20)+"\n\n... [100 characters omitted] ...\n\n"+strings.Repeat("c", 80)) {
		t.Errorf("got %q", got)
	}
	file := strings.TrimPrefix(strings.SplitN(got, "\n", 2)[0], want)
	if b, err := os.ReadFile(file); err != nil || string(b) != long {
		t.Errorf("saved %s: %v", file, err)
	}
	if thousands(1234567) != "1,234,567" || thousands(999) != "999" {
		t.Error("thousands")
	}
}

// TestLimitOutputBoundaries: text of exactly maxChars UTF-16 units is kept,
// one more is cut into 20% head and 80% tail; characters outside the BMP
// count twice, as JavaScript counts them; maxChars ≤ 0 is the default.
func TestLimitOutputBoundaries(t *testing.T) {
	dir := t.TempDir()
	const astral = "😀" // U+1F600: two UTF-16 units
	const lastBMP = "\uffff"
	tests := []struct {
		name     string
		text     string
		maxChars int
		want     string // "" when the text comes back unchanged
	}{
		{"exactly the limit", strings.Repeat("x", 10), 10, ""},
		{"one over", strings.Repeat("x", 11), 10,
			"Output too large. Showing first 2 and last 8 characters. For full output see: F\nxx\n\n... [1 characters omitted] ...\n\nxxxxxxxx"},
		{"head is a fifth, rounded down", "0123456789abcdefghijklmnopqrstuvwxyz", 14,
			"Output too large. Showing first 2 and last 12 characters. For full output see: F\n01\n\n... [22 characters omitted] ...\n\nopqrstuvwxyz"},
		{"astral characters count twice", strings.Repeat(astral, 5), 9,
			"Output too large. Showing first 1 and last 8 characters. For full output see: F\n\ufffd\n\n... [1 characters omitted] ...\n\n" + strings.Repeat(astral, 4)},
		{"astral characters within the limit", strings.Repeat(astral, 5), 10, ""},
		{"the last BMP character counts once", strings.Repeat(lastBMP, 10), 10, ""},
		{"zero is the default limit", strings.Repeat("x", DefaultOutputLimit), 0, ""},
		{"negative is the default limit", strings.Repeat("x", DefaultOutputLimit), -1, ""},
		{"the default limit applies", strings.Repeat("x", DefaultOutputLimit+1), 0,
			"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: F\n" + strings.Repeat("x", 8000) +
				"\n\n... [1 characters omitted] ...\n\n" + strings.Repeat("x", 32000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LimitOutput(tt.text, dir, "tool", "id", tt.maxChars)
			if tt.want == "" {
				if got != tt.text {
					t.Fatalf("changed: %.200q", got)
				}
				return
			}
			file := filepath.Join(dir, "tool-outputs", "tool_id.txt")
			if want := strings.Replace(tt.want, "see: F\n", "see: "+file+"\n", 1); got != want {
				t.Errorf("got  %.300q\nwant %.300q", got, want)
			}
			if b, err := os.ReadFile(file); err != nil || string(b) != tt.text {
				t.Errorf("saved output: %v", err)
			}
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "é": 1, "\uffff": 1, "\U00010000": 2, "a😀b": 4} {
		if got := utf16Len(s); got != want {
			t.Errorf("utf16Len(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestSafeFilePart(t *testing.T) {
	for in, want := range map[string]string{
		"azAZ09_-":        "azaz09_-",
		"mcp.server/tool": "mcp_server_tool",
		"`{@[:":           "_____",
		"a b\tc":          "a_b_c",
		"é":               "_",
	} {
		if got := safeFilePart(in); got != want {
			t.Errorf("safeFilePart(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSaveOutputName: <tool>_<id>.txt, or <id>.txt when the id already
// starts with the tool's name; in the system temp directory when none is
// given.
func TestSaveOutputName(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	tests := []struct {
		dir, tool, id, want string
	}{
		{dir, "run_shell_command", "7", filepath.Join(dir, "tool-outputs", "run_shell_command_7.txt")},
		{dir, "Shell", "shell-1", filepath.Join(dir, "tool-outputs", "shell-1.txt")},
		{dir, "mcp.tool", "call/2", filepath.Join(dir, "tool-outputs", "mcp_tool_call_2.txt")},
		{"", "t", "1", filepath.Join(tmp, "tool-outputs", "t_1.txt")},
	}
	for _, tt := range tests {
		got, err := saveOutput(tt.dir, tt.tool, tt.id, "content")
		if err != nil || got != tt.want {
			t.Errorf("saveOutput(%q, %q, %q) = %q, %v; want %q", tt.dir, tt.tool, tt.id, got, err, tt.want)
			continue
		}
		if b, err := os.ReadFile(got); err != nil || string(b) != "content" {
			t.Errorf("%s: %q, %v", got, b, err)
		}
	}
}
