package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// The model's TODO list sits above the input as in Gemini CLI 0.61: one
// line with the count and the item in progress, the whole list on Ctrl+T,
// folded again on the next Ctrl+T.
func TestTUITodoTray(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(
		fakegemini.Call("write_todos", map[string]any{"todos": []any{
			map[string]any{"description": "Read the issue", "status": "completed"},
			map[string]any{"description": "Write the code", "status": "in_progress"},
			map[string]any{"description": "Run the tests", "status": "pending"},
			map[string]any{"description": "Ask for a review", "status": "cancelled"},
		}}),
		fakegemini.Text("Planned."),
	)
	tm := e.StartTUI()
	tm.Keys("C-t")
	tm.WaitFor("No TODO list yet")
	tm.Submit("plan the work")
	s := tm.WaitUntil("the folded tray", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(s, "Planned.") && strings.Contains(s, "1/3 completed (ctrl+t to toggle) » Write the code")
	})
	tm.Golden("todos_folded", s)
	tm.Keys("C-t")
	s = tm.WaitFor("☐ Run the tests")
	tm.Golden("todos_full", s)
	tm.Keys("C-t")
	tm.WaitUntil("the tray folded again", func(s string) bool {
		return !strings.Contains(s, "☐ Run the tests") && strings.Contains(s, "» Write the code")
	})
}
