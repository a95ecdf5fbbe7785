package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/mcp"
)

// TestMCPCommandShowsFailure: /mcp gives a server that did not come up
// its command, the problem and its last stderr lines, one indented line
// each, rather than "connection closed: ... EOF" in parentheses.
func TestMCPCommandShowsFailure(t *testing.T) {
	m, log := newTestModel(t)
	a := withSession(t, m)
	a.MCP = mcp.Start(context.Background(), mcp.Options{
		Servers:       []*mcp.ServerConfig{{Name: "crash", Command: "sh", Args: []string{"-c", "echo 'Error: TOKEN is not set' >&2; exit 2"}}},
		FolderTrusted: true,
		Debug:         func(string) {},
	})
	t.Cleanup(func() { _ = a.MCP.Close() })
	m.cmdMCP(nil)
	want := "  crash: error, 0 tools, 0 prompts\n" +
		"    sh -c echo 'Error: TOKEN is not set' >&2; exit 2: the server exited with status 2 before completing the MCP handshake\n" +
		"    Last lines on the server's stderr:\n" +
		"      Error: TOKEN is not set"
	if got := printed(log); !strings.Contains(got, want) {
		t.Errorf("/mcp printed\n%s\nwant\n%s", got, want)
	}
}

// TestMultilineNoticeNotPadded: the lines of a notice are not padded to
// the widest, which wrapped into blank rows under a long first line.
func TestMultilineNoticeNotPadded(t *testing.T) {
	m, log := newTestModel(t)
	m.theme = newTheme(true, false) // colours: styled blocks are padded
	m.printNotice(noticeWarn, strings.Repeat("x", 100)+"\nLast lines on the server's stderr:\n  boom")
	for _, l := range strings.Split(printed(log), "\n") {
		if l = ansi.Strip(l); l != strings.TrimRight(l, " ") {
			t.Errorf("padded line %q", l)
		}
	}
}
