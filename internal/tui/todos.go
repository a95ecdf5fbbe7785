package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/tool/builtin"
)

// The TODO tray of Gemini CLI 0.61: once the model has written a todo list
// (write_todos), a line above the input counts what is completed and shows
// the item in progress; Ctrl+T shows the whole list and folds it again.

// todoTray is the latest list and whether it is shown whole.
type todoTray struct {
	items []builtin.Todo
	full  bool
}

// writeTodos is the session's write_todos tool, nil when the model is
// not offered it (useWriteTodos: false, tools.core).
func (m *model) writeTodos() *builtin.WriteTodosTool {
	if m.agent == nil || m.agent.Session == nil {
		return nil
	}
	t, ok := m.agent.Session.Tools().Get("write_todos")
	if !ok {
		return nil
	}
	w, _ := t.(*builtin.WriteTodosTool)
	return w
}

// noteTodos takes the list again after a write_todos call ended.
func (m *model) noteTodos(c *agent.ToolCall) {
	if c.Name != "write_todos" {
		return
	}
	if w := m.writeTodos(); w != nil {
		m.todos.items = w.Todos()
	}
}

// toggleTodos is Ctrl+T.
func (m *model) toggleTodos() {
	if len(m.todos.items) == 0 {
		if m.agent != nil && m.writeTodos() == nil {
			m.printNotice(noticeInfo, "Ctrl+T shows the model's TODO list, and write_todos is off in this session (useWriteTodos).")
			return
		}
		m.printNotice(noticeInfo, "No TODO list yet: the model writes one with write_todos.")
		return
	}
	m.todos.full = !m.todos.full
}

// renderTodos is the tray: a rule, the count and the item in progress,
// or the whole list.
func (m *model) renderTodos() string {
	items := m.todos.items
	if len(items) == 0 {
		return ""
	}
	done, total := 0, 0
	var current *builtin.Todo
	for i, t := range items {
		if t.Status == builtin.TodoCancelled {
			continue
		}
		total++
		if t.Status == builtin.TodoCompleted {
			done++
		}
		if t.Status == builtin.TodoInProgress && current == nil {
			current = &items[i]
		}
	}
	title := " " + m.theme.title.Render("Todo") + "  " + m.theme.dim.Render(fmt.Sprintf("%d/%d completed (ctrl+t to toggle)", done, total))
	rule := m.theme.dim.Render(strings.Repeat("─", m.width))
	if !m.todos.full {
		line := title
		if current != nil {
			line += " " + m.todoItem(*current)
		}
		return rule + "\n" + ansi.Truncate(line, m.width, "…")
	}
	var b strings.Builder
	b.WriteString(rule + "\n" + title + "\n")
	for _, t := range items {
		// Wrapped lines start under the text, past the mark.
		b.WriteString("\n " + strings.TrimPrefix(wrapWords(m.todoItem(t), m.width-3, "   "), "   "))
	}
	return b.String()
}

// todoItem is one item with its status mark, as Gemini CLI draws it.
func (m *model) todoItem(t builtin.Todo) string {
	text := termtext.String(t.Description)
	switch t.Status {
	case builtin.TodoCompleted:
		return m.theme.ok.Render("✓") + " " + m.theme.dim.Render(text)
	case builtin.TodoInProgress:
		return m.theme.accent.Render("» " + text)
	case builtin.TodoPending:
		return m.theme.dim.Render("☐") + " " + text
	default: // cancelled, blocked
		return m.theme.bad.Render("✗") + " " + m.theme.dim.Render(text)
	}
}
