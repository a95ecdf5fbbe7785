package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// TestElapsedSkipsConfirmation: the spinner's time starts again when a
// confirmation is answered, as Gemini CLI's does; the minute spent in the
// dialog is not the model's.
func TestElapsedSkipsConfirmation(t *testing.T) {
	m, _ := newTestModel(t)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.now = func() time.Time { return now }
	m.running, m.turnStart = true, now.Add(-5*time.Second)
	if got := ansi.Strip(m.spinnerLine()); !strings.Contains(got, "5s)") {
		t.Fatalf("before the dialog: %q", got)
	}
	reply := make(chan tool.Decision, 1)
	call := &agent.ToolCall{ID: "c", Name: "run_shell_command", Status: agent.StatusAwaitingApproval,
		Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: "ls", RootCommands: []string{"ls"}}}}
	m.Update(confirmMsg{call: call, reply: reply})
	now = now.Add(time.Minute)
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if d := <-reply; d.Outcome != tool.ProceedOnce {
		t.Fatalf("Enter gave %s", d.Outcome)
	}
	now = now.Add(2 * time.Second)
	if got := ansi.Strip(m.spinnerLine()); !strings.Contains(got, "(esc to cancel, 2s)") {
		t.Errorf("after the dialog: %q, want 2s", got)
	}
}
