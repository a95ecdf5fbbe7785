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

// writeTodosDescription is Gemini CLI's description of write_todos.
const writeTodosDescription = `This tool can help you list out the current subtasks that are required to be completed for a given user request. The list of subtasks helps you keep track of the current task, organize complex queries and help ensure that you don't miss any steps. With this list, the user can also see the current progress you are making in executing a given task.

Depending on the task complexity, you should first divide a given task into subtasks and then use this tool to list out the subtasks that are required to be completed for a given user request.
Each of the subtasks should be clear and distinct. 

Use this tool for complex queries that require multiple steps. If you find that the request is actually complex after you have started executing the user task, create a todo list and use it. If execution of the user task requires multiple steps, planning and generally is higher complexity than a simple Q&A, use this tool.

DO NOT use this tool for simple tasks that can be completed in less than 2 steps. If the user query is simple and straightforward, do not use the tool. If you can respond with an answer in a single turn then this tool is not required.

## Task state definitions

- pending: Work has not begun on a given subtask.
- in_progress: Marked just prior to beginning work on a given subtask. You should only have one subtask as in_progress at a time.
- completed: Subtask was successfully completed with no errors or issues. If the subtask required more steps to complete, update the todo list with the subtasks. All steps should be identified as completed only when they are completed.
- cancelled: As you update the todo list, some tasks are not required anymore due to the dynamic nature of the task. In this case, mark the subtasks as cancelled.
- blocked: Subtask is blocked and cannot be completed at this time.


## Methodology for using this tool
1. Use this todo list as soon as you receive a user request based on the complexity of the task.
2. Keep track of every subtask that you update the list with.
3. Mark a subtask as in_progress before you begin working on it. You should only have one subtask as in_progress at a time.
4. Update the subtask list as you proceed in executing the task. The subtask list is not static and should reflect your progress and current plans, which may evolve as you acquire new information.
5. Mark a subtask as completed when you have completed it.
6. Mark a subtask as cancelled if the subtask is no longer needed.
7. You must update the todo list as soon as you start, stop or cancel a subtask. Don't batch or wait to update the todo list.


## Examples of When to Use the Todo List

<example>
User request: Create a website with a React for creating fancy logos using gemini-2.5-flash-image

ToDo list created by the agent:
1. Initialize a new React project environment (e.g., using Vite).
2. Design and build the core UI components: a text input (prompt field) for the logo description, selection controls for style parameters (if the API supports them), and an image preview area.
3. Implement state management (e.g., React Context or Zustand) to manage the user's input prompt, the API loading status (pending, success, error), and the resulting image data.
4. Create an API service module within the React app (using "fetch" or "axios") to securely format and send the prompt data via an HTTP POST request to the specified "gemini-2.5-flash-image" (Gemini model) endpoint.
5. Implement asynchronous logic to handle the API call: show a loading indicator while the request is pending, retrieve the generated image (e.g., as a URL or base64 string) upon success, and display any errors.
6. Display the returned "fancy logo" from the API response in the preview area component.
7. Add functionality (e.g., a "Download" button) to allow the user to save the generated image file.
8. Deploy the application to a web server or hosting platform.

<reasoning>
The agent used the todo list to break the task into distinct, manageable steps:
1. Building an entire interactive web application from scratch is a highly complex, multi-stage process involving setup, UI development, logic integration, and deployment.
2. The agent inferred the core functionality required for a "logo creator," such as UI controls for customization (Task 3) and an export feature (Task 7), which must be tracked as distinct goals.
3. The agent rightly inferred the requirement of an API service model for interacting with the image model endpoint.
</reasoning>
</example>


## Examples of When NOT to Use the Todo List

<example>
User request: Ensure that the test <test file> passes.

Agent:
<Goes into a loop of running the test, identifying errors, and updating the code until the test passes.>

<reasoning>
The agent did not use the todo list because this task could be completed by a tight loop of execute test->edit->execute test.
</reasoning>
</example>`
