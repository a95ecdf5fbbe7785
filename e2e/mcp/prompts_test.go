package cli_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPPromptNameConflicts: two servers offering the same prompt each
// keep a slash command, /<server>.<name>, and a prompt named like a
// built-in command (/memory) becomes /<server>.memory, as in Gemini CLI.
// Before, the last server's prompt replaced the other's under /greet,
// and the prompt took /memory from the built-in.
func TestMCPPromptNameConflicts(t *testing.T) {
	e := newEnv(t)
	writeUserSettings(t, e, map[string]any{"mcpServers": map[string]any{
		"one": helperMCPServer(t, "one"),
		"two": helperMCPServer(t, "two"),
	}})
	for _, tt := range []struct{ line, want string }{
		{"/one.greet", "prompt greet of server one"},
		{"/two.greet", "prompt greet of server two"},
		{"/two.memory", "prompt memory of server two"},
		{"/greet", "/greet"},   // no such command: sent as typed
		{"/memory", "/memory"}, // the built-in's name, not the prompt's
	} {
		e.srv.Enqueue(fakegemini.Text("ok"))
		if r := e.run("-p", tt.line); r.code != 0 {
			t.Fatalf("%s: exit %d\nstderr %s", tt.line, r.code, r.stderr)
		}
		if got := lastUserText(e.srv.LastRequest()); !strings.Contains(got, tt.want) || (tt.want[0] == '/' && strings.Contains(got, "prompt ")) {
			t.Errorf("%s reached the model as %q, want %q", tt.line, got, tt.want)
		}
	}
}
