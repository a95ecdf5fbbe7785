package tui

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// TestInvisibleCharactersShow: a right-to-left override or a zero-width
// space in what the user approves (a command, a file name, a diff) or
// reads as tool output is shown as <U+XXXX>, so the text on screen is the
// text that runs; in model prose such characters are dropped.
func TestInvisibleCharactersShow(t *testing.T) {
	const cmd = "echo safe \u202E# ;hcte/ tac\u202C\u200B"
	tests := []struct {
		name string
		call *agent.ToolCall
		want []string
	}{
		{"exec confirmation", &agent.ToolCall{ID: "c1", Name: "run_shell_command", Description: cmd, Status: agent.StatusAwaitingApproval,
			Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: cmd, RootCommands: []string{"echo"}}}},
			[]string{"$ echo safe <U+202E># ;hcte/ tac<U+202C><U+200B>"}},
		{"edit confirmation", &agent.ToolCall{ID: "c2", Name: "write_file", Description: "notes\u2066.txt", Status: agent.StatusAwaitingApproval,
			Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmEdit, FileName: "notes\u2066.txt",
				FileDiff: "--- notes.txt\n+++ notes.txt\n@@ -0,0 +1 @@\n+key=\uFEFFvalue\n"}}},
			[]string{"notes<U+2066>.txt", "key=<U+FEFF>value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestModel(t)
			m.running = true
			m.Update(confirmMsg{call: tt.call, reply: make(chan tool.Decision, 1)})
			view := m.View().Content
			for _, w := range tt.want {
				if !strings.Contains(view, w) {
					t.Errorf("dialog lacks %q:\n%s", w, view)
				}
			}
			if strings.ContainsAny(view, "\u202E\u202C\u200B\u2066\uFEFF") {
				t.Errorf("an invisible character reached the screen:\n%q", view)
			}
		})
	}

	m, log := newTestModel(t)
	m.running = true
	m.Update(eventMsg{ev: &agent.Event{Type: agent.EventToolCall, Call: &agent.ToolCall{ID: "c3", Name: "run_shell_command", Description: "cat x",
		Status: agent.StatusSuccess, Result: &tool.Result{Display: "pass\u202Eword"}}}})
	m.Update(content("All\u200B good \u202Edone\u202C.\n\n"))
	m.Update(turnDoneMsg{})
	out := strings.Join(*log, "\n") + m.View().Content
	if !strings.Contains(out, "pass<U+202E>word") {
		t.Errorf("tool output does not show the override:\n%s", out)
	}
	if !strings.Contains(out, "All good done.") || strings.ContainsAny(out, "\u202E\u202C\u200B") {
		t.Errorf("model prose keeps invisible characters:\n%q", out)
	}
}
