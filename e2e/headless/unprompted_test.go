package headless_test

import (
	"context"
	"testing"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	sdk "github.com/coder/acp-go-sdk"
)

// TestUnpromptedSessionsLeaveNoFile: a session that never gets a prompt
// (an editor's session/new before it closes, stream-json with empty
// input) leaves no session file behind. Gemini CLI writes the header at
// start-up; such files are hidden by listings and never expired, so they
// piled up.
func TestUnpromptedSessionsLeaveNoFile(t *testing.T) {
	t.Parallel()
	t.Run("stream-json", func(t *testing.T) {
		e := e2etest.New(t)
		r := e.Run("--input-format", "stream-json", "-o", "stream-json")
		if r.Code != 0 {
			t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
		}
		if f := e.SessionFiles(); len(f) != 0 {
			t.Errorf("session files after empty input: %v", f)
		}
	})
	t.Run("acp", func(t *testing.T) {
		e := e2etest.New(t)
		c, _, stderr := e2etest.StartACPClient(t, e, acp.Handler{})
		if _, err := c.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.WS, McpServers: []sdk.McpServer{}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("close: %v; stderr:\n%s", err, stderr.String())
		}
		if f := e.SessionFiles(); len(f) != 0 {
			t.Errorf("session files after session/new alone: %v", f)
		}
	})
}
