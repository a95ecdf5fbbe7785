package tool

import (
	"os"
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
