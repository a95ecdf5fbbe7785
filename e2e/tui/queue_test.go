package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUIHeldPromptsJoined: two prompts typed while an MCP server starts
// go to the model as one prompt once it is in, in the order typed and
// separated by a blank line, as Gemini CLI's message queue sends them:
// one model call, not a turn each.
func TestTUIHeldPromptsJoined(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	url, release := startGatedMCP(t)
	e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"httpUrl": url, "trust": true}}})
	e.Srv.Enqueue(fakegemini.Text("Both answered."))
	tm := e.StartTUI()
	tm.WaitFor("Waiting for: slow")
	tm.Submit("first question")
	tm.WaitFor("1 queued")
	tm.Submit("second question")
	tm.WaitFor("2 queued")
	release()
	tm.WaitFor("Both answered.")
	reqs := e.Srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	if got := requestText(reqs[0]); !strings.Contains(got, "first question\n\nsecond question") {
		t.Errorf("the model was sent:\n%s", got)
	}
}
