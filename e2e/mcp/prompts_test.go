package mcp_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPPromptNameConflicts: two servers offering the same prompt each
// keep a slash command, /<server>.<name>, and a prompt named like a
// built-in command (/memory) becomes /<server>.memory, as in Gemini CLI.
// Before, the last server's prompt replaced the other's under /greet,
// and the prompt took /memory from the built-in.
func TestMCPPromptNameConflicts(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{
		"one": e2etest.HelperMCPServer(t, "one"),
		"two": e2etest.HelperMCPServer(t, "two"),
	}})
	for _, tt := range []struct{ line, want string }{
		{"/one.greet", "prompt greet of server one"},
		{"/two.greet", "prompt greet of server two"},
		{"/two.memory", "prompt memory of server two"},
		{"/greet", "/greet"},   // no such command: sent as typed
		{"/memory", "/memory"}, // the built-in's name, not the prompt's
	} {
		e.Srv.Enqueue(fakegemini.Text("ok"))
		if r := e.Run("-p", tt.line); r.Code != 0 {
			t.Fatalf("%s: exit %d\nstderr %s", tt.line, r.Code, r.Stderr)
		}
		if got := e2etest.LastUserText(e.Srv.LastRequest()); !strings.Contains(got, tt.want) || (tt.want[0] == '/' && strings.Contains(got, "prompt ")) {
			t.Errorf("%s reached the model as %q, want %q", tt.line, got, tt.want)
		}
	}
}
