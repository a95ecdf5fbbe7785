package tui_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUIStatsDuringSubagent: /stats typed while a subagent runs shows
// the model and tool calls it has made so far, as Gemini CLI counts them
// as they happen: the main loop's request and the subagent's first one,
// and its read_file call, while its second request is still waiting for
// the model.
func TestTUIStatsDuringSubagent(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WithReviewer(t, e)
	e.Srv.Enqueue(
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Review main.go"}),
		fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(e.WS, "main.go")}),
		fakegemini.Hang(), // the subagent's second model call
	)
	tm := e.StartTUI("-m", "gemini-2.5-flash", "--approval-mode", "yolo")
	tm.Submit("Review my code")
	// A generous deadline: it only bounds a hang.
	for deadline := time.Now().Add(30 * time.Second); len(e.Srv.Requests()) < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the subagent's second model call never came (%d requests):\n%s", len(e.Srv.Requests()), tm.Screen())
		}
	}
	tm.Submit("/stats")
	tm.WaitFor(": 2 requests (0 errors)") // under the version the fake reports
	tm.WaitFor("Tool calls: 1 (1 succeeded, 0 failed)")
	tm.Keys("Escape")
}
