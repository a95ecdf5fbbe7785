package builtin

import (
	"context"
	"reflect"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestWriteTodosValidation(t *testing.T) {
	item := func(desc, status string) map[string]any { return map[string]any{"description": desc, "status": status} }
	tests := []struct {
		name  string
		todos any
		want  string
	}{
		{"two in progress", []any{item("a", "in_progress"), item("b", "in_progress")}, `Invalid parameters: Only one task can be "in_progress" at a time.`},
		{"blank description", []any{item("  ", "pending")}, "Each todo must have a non-empty description string"},
		{"unknown status", []any{item("a", "done")}, "params/todos/0/status must be equal to one of the allowed values"},
		{"extra field", []any{map[string]any{"description": "a", "status": "pending", "id": 1}}, "params/todos/0 must NOT have additional properties"},
		{"not an array", "a, b", "params/todos must be array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fsPrepare(NewWriteTodos(nil), "", map[string]any{"todos": tc.todos})
			if err == nil || err.Type != tool.ErrInvalidParams || err.Message != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestWriteTodos(t *testing.T) {
	tl := NewWriteTodos(nil).(*WriteTodosTool)
	var seen [][]Todo
	tl.OnChange(func(td []Todo) { seen = append(seen, td) })

	todos := []any{
		map[string]any{"description": "Read the code", "status": "completed"},
		map[string]any{"description": "Fix the bug", "status": "in_progress"},
		map[string]any{"description": "Write tests", "status": "pending"},
		map[string]any{"description": "Ask for review", "status": "blocked"},
		map[string]any{"description": "Old idea", "status": "cancelled"},
	}
	c, err := fsPrepare(tl, "", map[string]any{"todos": todos})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Describe(); got != "Set 5 todo(s)" {
		t.Errorf("Describe = %q", got)
	}
	if len(tl.Todos()) != 0 {
		t.Error("list set before execution")
	}
	r := c.Execute(context.Background(), nil)
	want := "Successfully updated the todo list. The current list is now:\n1. [completed] Read the code\n2. [in_progress] Fix the bug\n3. [pending] Write tests\n4. [blocked] Ask for review\n5. [cancelled] Old idea"
	if r.Error != nil || r.LLMText != want {
		t.Errorf("LLMText = %q", r.LLMText)
	}
	wantList := []Todo{
		{"Read the code", TodoCompleted}, {"Fix the bug", TodoInProgress}, {"Write tests", TodoPending},
		{"Ask for review", TodoBlocked}, {"Old idea", TodoCancelled},
	}
	if got := tl.Todos(); !reflect.DeepEqual(got, wantList) {
		t.Errorf("Todos() = %v", got)
	}

	c, _ = fsPrepare(tl, "", map[string]any{"todos": []any{}})
	if got := c.Describe(); got != "Cleared todo list" {
		t.Errorf("Describe = %q", got)
	}
	r = c.Execute(context.Background(), nil)
	if r.LLMText != "Successfully cleared the todo list." || len(tl.Todos()) != 0 {
		t.Errorf("clear: %q %v", r.LLMText, tl.Todos())
	}
	if len(seen) != 2 || len(seen[0]) != 5 || len(seen[1]) != 0 {
		t.Errorf("OnChange saw %v", seen)
	}
	if tl.Kind() != tool.KindThink || !tl.Kind().ReadOnly() {
		t.Error("write_todos should be a think tool")
	}
	if d, _ := c.Confirmation(context.Background()); d != nil {
		t.Error("write_todos asked for confirmation")
	}
}
