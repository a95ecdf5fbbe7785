package tui_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// Ctrl+B while the model's own shell call runs moves it to the
// background, as Gemini CLI 0.61 does: the call returns at once with
// "Command moved to background (PID: …)", the model's next request
// carries that, and the command goes on as a background process the
// panel lists, its output kept in its log.
func TestTUIToolShellToBackground(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "echo tick-start; while :; do sleep 0.2; echo tick; done"}),
		fakegemini.Text("It goes on in the background."),
	)
	e.WriteUserSettings(`{"tools": {"allowed": ["run_shell_command", "read_background_output"]}}`)
	tm := e.StartTUI()
	tm.Submit("start the ticker")
	tm.WaitRaw("the command's first line", func(s string) bool {
		return strings.Contains(s, "tick-start") && strings.Contains(s, "Running shell command")
	})
	tm.Keys("C-b")
	s := tm.WaitUntil("the answer after the move", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(s, "It goes on in the background.")
	})
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2:\n%s", len(reqs), s)
	}
	_, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
	out := fmt.Sprint(resp["output"])
	m := regexp.MustCompile(`^Command moved to background \(PID: (\d+)\)\. Output hidden\. Press Ctrl\+B to view\.$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("function response %v", resp)
	}
	// The screen names the process <pid> (Normalise).
	tm.Golden("tool_shell_background", s)

	// The model reads it as any background process of the session.
	pid, _ := strconv.Atoi(m[1])
	e.Srv.Enqueue(
		fakegemini.Call("read_background_output", map[string]any{"pid": pid}),
		fakegemini.Text("Read it."),
	)
	tm.Submit("what did it print?")
	tm.WaitUntil("the second answer", func(s string) bool { return e2etest.Idle(s) && strings.Contains(s, "Read it.") })
	_, resp = e2etest.FunctionResponse(t, e.Srv.LastRequest().LastContent(), 0)
	if out := fmt.Sprint(resp["output"]); !strings.Contains(out, "tick-start") {
		t.Errorf("read_background_output: %v", resp)
	}

	tm.Keys("C-b")
	s = tm.WaitUntil("the panel with the command", func(s string) bool {
		return strings.Contains(s, "(Focused)") && strings.Count(s, "│ tick") >= 2
	})
	if !strings.Contains(s, "while :; do sleep 0.2; echo tick; done") || !strings.Contains(s, "tick-start") {
		t.Errorf("panel:\n%s", s)
	}
	tm.Keys("C-k")
	tm.WaitUntil("the panel closed", func(s string) bool { return !strings.Contains(s, "Close (Ctrl+B)") })
	tm.Keys("C-b")
	tm.WaitFor("No background shells.")
}
