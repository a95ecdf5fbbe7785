package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/castor-dev/castor/tool"
)

// Todo is one item of the model's todo list.
type Todo struct {
	Description string `json:"description"`
	Status      string `json:"status"`
}

// Todo statuses, as Gemini CLI names them.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
	TodoCancelled  = "cancelled"
	TodoBlocked    = "blocked"
)

// todoStatuses lists the valid statuses in Gemini CLI's order, which its
// validation message repeats.
var todoStatuses = []string{TodoPending, TodoInProgress, TodoCompleted, TodoCancelled, TodoBlocked}

// WriteTodosTool is write_todos: the model replaces its whole todo list
// with each call. The tool keeps the latest list for UIs.
type WriteTodosTool struct {
	mu       sync.Mutex
	todos    []Todo
	onChange func([]Todo)
}

var _ tool.Tool = (*WriteTodosTool)(nil)

// NewWriteTodos returns the write_todos tool. Its list starts empty.
func NewWriteTodos(env *Env) tool.Tool { return &WriteTodosTool{} }

// Todos returns a copy of the current list: the one the last executed call
// wrote.
func (t *WriteTodosTool) Todos() []Todo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Todo(nil), t.todos...)
}

// OnChange registers fn to receive a copy of every list written from now
// on; nil unregisters. fn runs on the executing goroutine and must not
// call back into the tool's execution.
func (t *WriteTodosTool) OnChange(fn func([]Todo)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onChange = fn
}

// Name is "write_todos".
func (t *WriteTodosTool) Name() string { return "write_todos" }

// DisplayName is "WriteTodos".
func (t *WriteTodosTool) DisplayName() string { return "WriteTodos" }

// Kind is think: the list is the model's own bookkeeping, so the call
// needs no approval and is allowed in plan mode.
func (t *WriteTodosTool) Kind() tool.Kind { return tool.KindThink }

// Description is Gemini CLI's.
func (t *WriteTodosTool) Description() string { return writeTodosDescription }

// Schema is Gemini CLI's, including the blocked status it added.
func (t *WriteTodosTool) Schema() map[string]any {
	enum := make([]any, len(todoStatuses))
	for i, s := range todoStatuses {
		enum[i] = s
	}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties": map[string]any{
			"todos": map[string]any{
				"type":        "array",
				"description": "The complete list of todo items. This will replace the existing list.",
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"description":          "A single todo item.",
					"properties": map[string]any{
						"description": map[string]any{
							"type":        "string",
							"description": "The description of the task.",
						},
						"status": map[string]any{
							"type":        "string",
							"description": "The current status of the task.",
							"enum":        enum,
						},
					},
					"required": []any{"description", "status"},
				},
			},
		},
		"required": []any{"todos"},
	}
}

// Build checks the list as Gemini CLI does: non-empty descriptions, known
// statuses, and at most one item in progress.
func (t *WriteTodosTool) Build(args map[string]any) (tool.Call, error) {
	invalid := func(msg string) error { return &tool.Error{Type: tool.ErrInvalidParams, Message: msg} }
	raw, ok := args["todos"].([]any)
	if !ok {
		return nil, invalid("`todos` parameter must be an array")
	}
	todos := make([]Todo, 0, len(raw))
	inProgress := 0
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, invalid("Each todo item must be an object")
		}
		desc, _ := m["description"].(string)
		if strings.TrimSpace(desc) == "" {
			return nil, invalid("Each todo must have a non-empty description string")
		}
		status, _ := m["status"].(string)
		if !todoValidStatus(status) {
			return nil, invalid(fmt.Sprintf("Each todo must have a valid status (%s)", strings.Join(todoStatuses, ", ")))
		}
		if status == TodoInProgress {
			inProgress++
		}
		todos = append(todos, Todo{Description: desc, Status: status})
	}
	if inProgress > 1 {
		return nil, invalid(`Invalid parameters: Only one task can be "in_progress" at a time.`)
	}
	return &writeTodosCall{tool: t, todos: todos}, nil
}

// todoValidStatus reports whether s is a known status.
func todoValidStatus(s string) bool {
	for _, v := range todoStatuses {
		if s == v {
			return true
		}
	}
	return false
}

type writeTodosCall struct {
	tool  *WriteTodosTool
	todos []Todo
}

// Describe says how many items the call sets.
func (c *writeTodosCall) Describe() string {
	if len(c.todos) == 0 {
		return "Cleared todo list"
	}
	return fmt.Sprintf("Set %d todo(s)", len(c.todos))
}

// Confirmation is nil: the list is the model's own notes.
func (c *writeTodosCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

// Execute replaces the list and echoes it back to the model.
func (c *writeTodosCall) Execute(context.Context, func(string)) *tool.Result {
	t := c.tool
	t.mu.Lock()
	t.todos = append([]Todo(nil), c.todos...)
	notify := t.onChange
	t.mu.Unlock()
	if notify != nil {
		notify(append([]Todo(nil), c.todos...))
	}
	if len(c.todos) == 0 {
		return tool.Text("Successfully cleared the todo list.")
	}
	lines := make([]string, len(c.todos))
	for i, td := range c.todos {
		lines[i] = fmt.Sprintf("%d. [%s] %s", i+1, td.Status, td.Description)
	}
	list := strings.Join(lines, "\n")
	return &tool.Result{
		LLMText: "Successfully updated the todo list. The current list is now:\n" + list,
		Display: list,
	}
}

// writeTodosDescription says when a todo list helps and how to keep it;
// short, as it is sent with every model call.
const writeTodosDescription = `Sets your todo list for the current request: the subtasks still to do, shown to the user as your progress. Each call replaces the whole list.

Use it for work that takes several steps or needs planning (create the list as soon as you see that, even midway); skip it for requests you can finish in one or two steps.

Statuses: pending (not started), in_progress (being worked on now; at most one item), completed (done without open issues), cancelled (no longer needed), blocked (cannot proceed for now).

Keep the list current: mark an item in_progress before starting it and completed as soon as it is done, add or cancel items as the plan changes, and update after every change rather than in batches.`
