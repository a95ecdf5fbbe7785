package cli_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUIHeldPromptsJoined: two prompts typed while an MCP server starts
// go to the model as one prompt once it is in, in the order typed and
// separated by a blank line, as Gemini CLI's message queue sends them:
// one model call, not a turn each.
func TestTUIHeldPromptsJoined(t *testing.T) {
	e := newEnv(t)
	url, release := startGatedMCP(t)
	writeUserSettings(t, e, map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"httpUrl": url, "trust": true}}})
	e.srv.Enqueue(fakegemini.Text("Both answered."))
	tm := e.startTUI()
	tm.waitFor("Waiting for: slow")
	tm.submit("first question")
	tm.waitFor("1 queued")
	tm.submit("second question")
	tm.waitFor("2 queued")
	release()
	tm.waitFor("Both answered.")
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	if got := requestText(reqs[0]); !strings.Contains(got, "first question\n\nsecond question") {
		t.Errorf("the model was sent:\n%s", got)
	}
}
