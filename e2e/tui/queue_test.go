package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestTUIQueuedDuringTurn: a prompt typed while an answer streams waits
// below the live area, not inside the answer, and is printed after that
// answer when its turn starts; Esc removes a waiting prompt.
func TestTUIQueuedDuringTurn(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	var pieces []string
	for i := range 12 {
		pieces = append(pieces, fmt.Sprintf("Part %d of the first answer. ", i))
	}
	pieces = append(pieces, "End of the first answer.")
	e.Srv.Enqueue(fakegemini.Text(pieces...).Slow(400*time.Millisecond), fakegemini.Text("The second answer."))
	tm := e.StartTUI()
	tm.Submit("first question")
	tm.WaitRaw("the answer streaming", func(s string) bool { return strings.Contains(s, "esc to cancel") })
	tm.Submit("dropped question")
	tm.WaitRaw("the prompt queued", func(s string) bool { return strings.Contains(s, "    dropped question") })
	tm.Keys("Escape")
	tm.WaitRaw("the prompt removed", func(s string) bool { return !strings.Contains(s, "dropped question") })
	tm.Submit("second question")
	s := tm.WaitRaw("the prompt queued", func(s string) bool { return strings.Contains(s, "Queued") })
	if strings.Contains(s, "End of the first answer") {
		t.Skip("the first answer ended before the second prompt was typed (a loaded machine): nothing was queued")
	}
	s = tm.WaitFor("The second answer.")
	end, q, second := strings.Index(s, "End of the first answer."), strings.Index(s, "> second question"), strings.Index(s, "The second answer.")
	if end < 0 || q < end || second < q {
		t.Errorf("the queued prompt is not printed between the two answers:\n%s", s)
	}
	if strings.Contains(s, "dropped question") {
		t.Errorf("the prompt removed with Esc is still there:\n%s", s)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 || !strings.Contains(requestText(reqs[1]), "second question") || strings.Contains(requestText(reqs[1]), "dropped") {
		t.Errorf("%d model calls; the second was sent:\n%s", len(reqs), requestText(reqs[len(reqs)-1]))
	}
	tm.Golden("queued_after_answer", s)
}
