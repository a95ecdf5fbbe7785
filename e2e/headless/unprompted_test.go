package cli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/acp"
	sdk "github.com/coder/acp-go-sdk"
)

// sessionFiles lists every recorded session file of e's home, subagent
// sessions included.
func (e *env) sessionFiles() []string {
	e.t.Helper()
	main, _ := filepath.Glob(filepath.Join(e.home, ".gemini", "tmp", "*", "chats", "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(e.home, ".gemini", "tmp", "*", "chats", "*", "*.jsonl"))
	return append(main, sub...)
}

// TestUnpromptedSessionsLeaveNoFile: a session that never gets a prompt
// (an editor's session/new before it closes, stream-json with empty
// input) leaves no session file behind. Gemini CLI writes the header at
// start-up; such files are hidden by listings and never expired, so they
// piled up.
func TestUnpromptedSessionsLeaveNoFile(t *testing.T) {
	t.Run("stream-json", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("--input-format", "stream-json", "-o", "stream-json")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		if f := e.sessionFiles(); len(f) != 0 {
			t.Errorf("session files after empty input: %v", f)
		}
	})
	t.Run("acp", func(t *testing.T) {
		e := newEnv(t)
		c, _, stderr := startACPClient(t, e, acp.Handler{})
		if _, err := c.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("close: %v; stderr:\n%s", err, stderr.String())
		}
		if f := e.sessionFiles(); len(f) != 0 {
			t.Errorf("session files after session/new alone: %v", f)
		}
	})
}
