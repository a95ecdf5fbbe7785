package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTruncateOutput(t *testing.T) {
	content := strings.Repeat("a", 10) + strings.Repeat("b", 80) + strings.Repeat("c", 10)
	got := truncateOutput(content, "/tmp/out.txt", 50)
	want := "Output too large. Showing first 10 and last 40 characters. For full output see: /tmp/out.txt\n" +
		strings.Repeat("a", 10) + "\n\n... [50 characters omitted] ...\n\n" + strings.Repeat("b", 30) + strings.Repeat("c", 10)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := truncateOutput("short", "/f", 50); got != "short" {
		t.Errorf("short content changed: %q", got)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 40000: "40,000", 1234567: "1,234,567", -8000: "-8,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSaveOutput(t *testing.T) {
	dir := t.TempDir()
	p, err := saveOutput(dir, "run_shell_command", "abc/1", "full")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "tool-outputs", "run_shell_command_abc_1.txt"); p != want {
		t.Errorf("path %q, want %q", p, want)
	}
	if b, _ := os.ReadFile(p); string(b) != "full" {
		t.Error("content not saved")
	}
	p, _ = saveOutput(dir, "run_shell_command", "run_shell_command_7", "x")
	if filepath.Base(p) != "run_shell_command_7.txt" {
		t.Errorf("id starting with the tool name: %q", filepath.Base(p))
	}
}
